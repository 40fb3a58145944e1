package core

// Compaction (SPEC 5.6): the conversation is summarised through the
// provider and the message list becomes [system, assistant "[Context
// Summary]\n<summary>"] plus an optional tail. The log keeps everything: a
// replace_all history_mutation carries the new list, and replay's transcript
// view still shows what was replaced. A compaction that fails or is blocked
// leaves the record as it was.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"trail/core/chat"
	"trail/core/errs"
	"trail/core/hooks"
	"trail/core/provider"
	"trail/logfmt"
)

// Compaction triggers, as hooks and the log name them.
const (
	TriggerManual = "manual"
	TriggerAuto   = "auto"
)

// SummaryPrefix starts the assistant message that replaces the conversation.
const SummaryPrefix = chat.SummaryPrefix

// ErrNothingToCompact: the conversation has no message a summary would replace.
var ErrNothingToCompact = errors.New("nothing to compact")

// CompactOptions is trail compact after flag parsing.
type CompactOptions struct {
	Step         StepOptions // the session reference, provider and settings
	Instructions string
	KeepLast     int
}

// CompactResult is what a manual compaction did.
type CompactResult struct {
	SessionID string
	Summary   string
	Before    chat.ContextState
	After     chat.ContextState
}

// Compact summarises a stored session's conversation to shrink its context.
// When the session was opened and the compaction then failed, the result
// still names the session and its unchanged context, beside the error.
func (e *Engine) Compact(ctx context.Context, opts CompactOptions) (*CompactResult, error) {
	o := opts.Step
	o.Resume = true
	if opts.KeepLast < 0 {
		return nil, errs.Usagef("give 0 or more", "--keep-last must not be negative")
	}
	s, err := e.open(ctx, &o, nil)
	if err != nil {
		return nil, err
	}
	defer s.close()
	s.showOpenWarnings()
	if len(s.pending) > 0 {
		return nil, &errs.RequiresActionError{SessionID: s.rec.ID, Pending: describePending(s.pending)}
	}
	res := &CompactResult{SessionID: s.rec.ID}
	res.Before = s.contextState()
	calls := s.providerCalls
	summary, err := s.compact(ctx, TriggerManual, opts.Instructions, opts.KeepLast)
	if err != nil {
		if s.providerCalls != calls || s.rec.Status == StatusRunning {
			// The conversation stays as it was, but the record counts the
			// call (SPEC 4.4: the script provider's next answer is the
			// next one), and takes the rounds a killed step left in the
			// log (adoptRounds), as the log already holds them.
			status := s.rec.Status
			if status == StatusRunning {
				status = StatusIdle // no step runs it now
			}
			if saveErr := s.save(status, s.rec.StopReason); saveErr != nil {
				err = errors.Join(err, saveErr)
			}
		}
		s.logEvent("session_shutdown", logfmt.F("reason", "other"))
		s.syncLog()
		res.After = res.Before // the conversation is as it was
		return res, s.logOutcome(err)
	}
	res.Summary, res.After = summary, s.contextState()
	s.addUsageTotals()
	saveErr := s.save(StatusIdle, s.rec.StopReason)
	s.logShutdown("other")
	hookCtx := context.WithoutCancel(ctx)
	s.runHooks(hookCtx, hooks.SessionEnd, hooks.SessionEndInput("other"))
	s.syncLog()
	if saveErr != nil {
		return res, saveErr
	}
	return res, s.logOutcome(nil)
}

// autoCompact compacts before the user message when the context is nearly
// full. A failed auto-compaction is a warning: the prompt still runs.
func (s *session) autoCompact(ctx context.Context) {
	if s.opts.AutoCompactOff {
		return
	}
	st := s.contextState()
	if st.UsedPercentage < s.opts.AutoCompact*100 {
		return
	}
	if _, err := s.compact(ctx, TriggerAuto, "", 0); err != nil {
		if !errors.Is(err, ErrNothingToCompact) {
			s.obs.Event(StepEvent{Kind: EvWarning, Text: "auto-compaction failed, continuing without it: " + err.Error()})
		}
		return
	}
	// The log now says the conversation was replaced: the record must say
	// so too before the prompt's first provider call, or a step killed there
	// would leave a record its log does not replay to.
	if err := s.save(StatusRunning, ""); err != nil {
		s.obs.Event(StepEvent{Kind: EvWarning, Text: "record not saved after auto-compaction: " + err.Error()})
	}
	// A summary as long as what it replaced (a large system prompt, a
	// model that repeats its input) leaves the step to fail at the
	// provider, or to compact again on every prompt: say so once.
	if after := s.contextState(); after.UsedPercentage >= s.opts.AutoCompact*100 {
		s.obs.Event(StepEvent{Kind: EvWarning, Text: fmt.Sprintf(
			"auto-compaction left the context at %s%% of the window (threshold %s%%); compact with --instructions asking for a shorter summary, or start a new session",
			percent(after.UsedPercentage), percent(s.opts.AutoCompact*100))})
	}
}

// percent writes a percentage with at most two decimals: 83.5, 97.
func percent(p float64) string {
	return strconv.FormatFloat(math.Round(p*100)/100, 'f', -1, 64)
}

// compactionBudget is the most tokens the summary request may take: the
// context window less room for the answer, which is the step's max_tokens
// but at most half the window, so a small window still has a prompt.
func (s *session) compactionBudget() int64 {
	w := s.contextWindow()
	return w - min(int64(s.maxTokens), w/2)
}

// compact replaces the conversation with a summary and the kept tail. On any
// failure the session's messages are untouched.
func (s *session) compact(ctx context.Context, trigger, instructions string, keepLast int) (string, error) {
	system, dropped, tail := splitForCompaction(s.messages, max(keepLast, s.unansweredTurn()))
	summarised := dropped
	if turn := s.unansweredTurn(); turn > 1 && keepLast < turn {
		// The turn the model owes an answer has run tool rounds: in a
		// session that outgrew the window mid-task those rounds are most
		// of it, and keeping them whole left nothing to compact.
		system, dropped, tail, summarised = splitTurnForCompaction(s.messages, len(s.messages)-turn, keepLast)
	}
	if len(dropped) == 0 {
		return "", ErrNothingToCompact
	}
	// The instructions go into the summary request whole: past half the
	// room the request has, the conversation itself would not fit.
	if budget, cost := s.compactionBudget(), int64(jsonCost(instructions))/chat.BytesPerToken; cost > budget/2 {
		return "", errs.Usagef("shorten --instructions: they are what to focus on, not what to summarise",
			"--instructions takes ~%d tokens, more than half of the %d the summary request may have", cost, budget)
	}
	before := s.contextState()
	pre := s.runHooks(ctx, hooks.PreCompact, hooks.PreCompactInput(trigger, instructions))
	if pre.Blocked {
		return "", &errs.HookBlockedError{Event: hooks.PreCompact, Reason: pre.Reason}
	}
	execID, err := s.newID()
	if err != nil {
		return "", err
	}
	prompt, err := s.newMessage(chat.RoleUser, CompactionPrompt(summarised, instructions, s.compactionBudget()))
	if err != nil {
		return "", err
	}
	resp, _, err := s.send(ctx, providerCall{execID: execID, round: 1, messages: []chat.Message{prompt}, quiet: true, purpose: "compaction"})
	if err != nil {
		if ctx.Err() != nil {
			return "", errs.ErrInterrupted
		}
		return "", err
	}
	// How an answer ended is never hidden: a summary cut at the output
	// limit would lose its end (the prompt asks for the current state and
	// next steps last), so it replaces nothing; nor does a refusal.
	switch resp.Stop {
	case provider.StopMaxTokens, provider.StopContextFull:
		return "", &errs.FailureError{
			Msg: fmt.Sprintf("the compaction summary hit its output limit of %d tokens and is cut short; the conversation was left as it was", s.maxTokens),
			Fix: "ask for a shorter summary with --instructions, or raise maxTokens in settings"}
	case provider.StopRefusal:
		return "", &errs.FailureError{
			Msg: "the model refused to summarise the conversation: " + cmp.Or(strings.TrimSpace(resp.Refusal), "it gave no reason") + "; the conversation was left as it was"}
	}
	summary := strings.TrimSpace(resp.Text)
	if summary == "" {
		return "", &errs.ProviderError{Provider: s.pcfg.Name, Message: "the compaction summary came back empty; the conversation was left as it was"}
	}
	s.account(resp.Model, resp.Usage, resp.HasUsage)
	note, err := s.newMessage(chat.RoleAssistant, SummaryPrefix+summary)
	if err != nil {
		return "", err
	}
	if len(tail) > 0 {
		// The kept messages' usage measured the replaced context: the
		// estimate skips them (chat.EstimateTokens).
		note.Metadata = chat.KeptMessagesMetadata(len(tail))
	}
	s.logUnsaved() // the replaced list must be the logged one
	next := make([]chat.Message, 0, len(system)+1+len(tail))
	next = append(append(append(next, system...), note), tail...)
	s.messages = next
	s.reqDigest.reset()
	s.markRelogged() // replace_all below logs every message again
	after := s.contextState()
	all := make([]any, len(next))
	for i := range next {
		all[i] = next[i]
	}
	s.logEvent("context_compact",
		logfmt.F("executionId", execID),
		logfmt.F("trigger", trigger),
		logfmt.F("before", before),
		logfmt.F("after", after))
	s.logEvent("history_mutation", runFields(execID,
		logfmt.F("mutation", "replace_all"),
		logfmt.F("messages", all))...)
	s.eventEntry("compaction", logfmt.Object{
		logfmt.F("trigger", trigger),
		logfmt.F("summaryMessageId", note.ID),
		logfmt.F("replacedMessages", len(dropped)),
		logfmt.F("keptMessages", len(tail)),
		logfmt.F("before", before),
		logfmt.F("after", after),
	})
	s.history = append(s.history, chatEntry(note))
	s.resetTranscript() // the messages were replaced: the next write starts over
	s.runHooks(context.WithoutCancel(ctx), hooks.PostCompact, hooks.PostCompactInput(trigger, summary))
	// A manual compaction has no prompt to inject into: the record keeps
	// the context for the next step (pendingHookContext).
	s.sessionStartHooks(ctx, "compact")
	s.obs.Event(StepEvent{Kind: EvCompacted, Text: summary})
	return summary, nil
}

// splitForCompaction cuts the conversation into the system messages at its
// head (kept), the messages the summary replaces, and the last keepLast
// messages (kept). The tail never starts with a tool result whose call would
// be summarised away: it grows back to the assistant message that made it.
func splitForCompaction(msgs []chat.Message, keepLast int) (system, dropped, tail []chat.Message) {
	head := 0
	for head < len(msgs) && msgs[head].Role == chat.RoleSystem {
		head++
	}
	cut := len(msgs)
	if keepLast > 0 {
		cut = max(len(msgs)-keepLast, head)
		for cut > head && msgs[cut].Role == chat.RoleTool {
			cut--
		}
	}
	return msgs[:head], msgs[head:cut], msgs[cut:]
}

// splitTurnForCompaction cuts a conversation that owes an answer to the
// prompt at msgs[at], after which tool rounds ran: the summary replaces
// what came before the prompt and the turn's rounds but its last keepLast
// messages (a tool result never kept without its call). The prompt stays,
// after the summary, so the model still knows what it is answering and a
// resume without a prompt goes on with it. summarised is what the summary
// is asked to cover: the dropped messages with the prompt among them.
func splitTurnForCompaction(msgs []chat.Message, at, keepLast int) (system, dropped, tail, summarised []chat.Message) {
	head := 0
	for head < at && msgs[head].Role == chat.RoleSystem {
		head++
	}
	cut := max(len(msgs)-keepLast, at+1)
	for cut > at+1 && cut < len(msgs) && msgs[cut].Role == chat.RoleTool {
		cut--
	}
	dropped = append(append([]chat.Message(nil), msgs[head:at]...), msgs[at+1:cut]...)
	tail = append([]chat.Message{msgs[at]}, msgs[cut:]...)
	return msgs[:head], dropped, tail, msgs[head:cut]
}

func (s *session) syncLog() {
	if s.log != nil {
		if err := s.log.Sync(); err != nil && s.logErr == nil {
			s.logErr = fmt.Errorf("sync: %w", err)
		}
	}
}
