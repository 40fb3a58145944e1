package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"trail/core/chat"
	"trail/core/errs"
	"trail/core/hooks"
	"trail/core/provider"
	"trail/logfmt"
)

// titleLen caps the record's title (the first user prompt).
const titleLen = 80

func (s *session) logPreRun(input string) {
	chars := chat.SerializedLength(s.messages)
	s.logEvent("pre_run",
		logfmt.F("historyLength", len(s.messages)),
		logfmt.F("historyChars", chars),
		logfmt.F("historyEstTokens", int64(math.Ceil(float64(chars)/4))),
		logfmt.F("input", input),
		logfmt.F("model", s.pcfg.Model),
		logfmt.F("provider", s.pcfg.Name),
		logfmt.F("maxTokens", s.contextWindow()),
	)
}

// loop runs rounds. It returns the stop reason and, on failure, the error.
// Rounds are numbered across the step (a resumed batch, a prompt and a
// Stop hook's continuation share one execution id); --max-turns caps the
// model rounds of the whole step.
func (s *session) loop(ctx context.Context) (string, error) {
	for {
		if s.opts.MaxTurns > 0 && s.turns >= s.opts.MaxTurns {
			return StopMaxTurns, nil
		}
		s.round++
		round := s.round
		s.turns++
		// The prompt (or a Stop hook's feedback) is logged before the
		// request that carries it, as Robota logs it. A process killed in
		// the call leaves the log one message past the record; the next
		// step re-syncs them (log_sync.go).
		s.logUnsaved()
		resp, partial, err := s.callProvider(ctx, round)
		if err != nil {
			// Text already shown is kept, as Ctrl-C keeps it, when a signal
			// or a failure mid-stream ended the answer; its tool calls, if
			// any had begun, are dropped with the rest of the round.
			if partial != "" {
				s.commitAssistant(round, &provider.Response{Text: partial}, chat.StateInterrupted)
			}
			if ctx.Err() != nil {
				return StopInterrupted, errs.ErrInterrupted
			}
			return StopError, err
		}
		switch resp.Stop {
		case provider.StopMaxTokens, provider.StopContextFull, provider.StopRefusal:
			// The turn is cut or refused: its calls do not run, and are
			// not kept (a call without its result would break the record).
			resp.ToolCalls = nil
		}
		msg := s.commitAssistant(round, resp, chat.StateComplete)
		switch resp.Stop {
		case provider.StopMaxTokens, provider.StopContextFull:
			return StopMaxTokens, nil
		case provider.StopRefusal:
			return StopRefusal, nil
		case provider.StopPauseTurn:
			if len(msg.ToolCalls) == 0 {
				// A server tool paused the turn: sent back as it is, the
				// answer goes on in the next round.
				s.paused = s.final
				continue
			}
		}
		if len(msg.ToolCalls) == 0 {
			return StopEndTurn, nil
		}
		paused, err := s.runTools(ctx, round, msg)
		if err != nil {
			if errors.Is(err, errs.ErrInterrupted) {
				s.interruptedInTools = true
				return StopInterrupted, err
			}
			return StopError, err
		}
		if paused {
			return StopRequiresAction, nil
		}
		if stop, err := s.roundDone(ctx); stop != "" {
			return stop, err
		}
	}
}

// roundDone follows a committed round: an interrupt or a hook's continue
// false ends the step; otherwise the round is made durable so a crash in
// the next round loses nothing before it: by a save of the record when
// one is due (saveDue), else by syncing the log, which holds the round
// whole; the next step takes such rounds from the log (adoptRounds).
func (s *session) roundDone(ctx context.Context) (string, error) {
	if ctx.Err() != nil {
		s.interruptedInTools = true
		return StopInterrupted, errs.ErrInterrupted
	}
	if s.saveDue() {
		if err := s.save(StatusRunning, ""); err != nil {
			return StopError, err
		}
	} else {
		s.logUnsaved()
		if err := s.log.Sync(); err != nil {
			// A log that cannot be made durable cannot stand in for the
			// record: save it after all.
			if err := s.save(StatusRunning, ""); err != nil {
				return StopError, err
			}
		}
	}
	if s.hookStop != nil {
		return StopError, s.hookStop
	}
	return "", nil
}

// Between rounds the record is rewritten only when the conversation has
// grown by a quarter since the last save, or that save is two seconds old:
// rewriting (and fsyncing) the whole record after every round made a long
// tool loop quadratic (2,000 fast rounds wrote 5.5 GB for a 5 MB record).
// Small sessions are saved every round, as before. The two seconds grow
// with what a save costs (ten times its time): once a record of 100 MB
// took a second or two to write, a save came due after every round, and
// the loop spent most of its time rewriting it (25,000 rounds did not end
// in five minutes). The log holds every round meanwhile.
const (
	saveEveryRoundBelow = 64 // messages
	saveAtLeastEvery    = 2 * time.Second
	saveCostShare       = 10 // a time-due save waits ten times the last one's cost
)

// saveDue reports whether the record should be saved after this round.
func (s *session) saveDue() bool {
	if s.log == nil || s.logErr != nil || len(s.messages) < saveEveryRoundBelow {
		return true // no log to stand in for the record
	}
	grown := len(s.messages) - s.savedMessages
	return grown*4 >= s.savedMessages || s.now().Sub(s.savedAt) >= max(saveAtLeastEvery, saveCostShare*s.saveCost)
}

// commitAssistant appends the answer of a round with its usage metadata
// and, when the answer is whole, what its provider needs back later
// (providerData).
func (s *session) commitAssistant(round int, resp *provider.Response, state string) chat.Message {
	md := logfmt.Object{logfmt.F("round", round)}
	if resp.HasUsage {
		u := resp.Usage
		md = append(md,
			logfmt.F("inputTokens", u.InputTokens),
			logfmt.F("outputTokens", u.OutputTokens),
			logfmt.F("usage", logfmt.Object{
				logfmt.F("totalTokens", u.InputTokens+u.OutputTokens),
				logfmt.F("inputTokens", u.InputTokens),
				logfmt.F("outputTokens", u.OutputTokens),
			}))
		if u.CacheReadTokens != 0 {
			md = append(md, logfmt.F("cacheReadInputTokens", u.CacheReadTokens))
		}
		if u.CacheCreationTokens != 0 {
			md = append(md, logfmt.F("cacheCreationInputTokens", u.CacheCreationTokens))
		}
	}
	s.account(resp.Model, resp.Usage, resp.HasUsage)
	if resp.Stop != "" {
		md = append(md, logfmt.F("stopReason", resp.StopReason))
	}
	if resp.Refusal != "" {
		md = append(md, logfmt.F("refusal", resp.Refusal))
	}
	mdRaw, _ := logfmt.Marshal(md)
	m, err := s.newMessage(chat.RoleAssistant, resp.Text)
	if err != nil {
		m = chat.Message{Role: chat.RoleAssistant, Content: resp.Text, Timestamp: logfmt.FormatTime(s.now())}
	}
	s.uniqueCallIDs(resp.ToolCalls)
	m.State, m.ToolCalls, m.Metadata = state, resp.ToolCalls, mdRaw
	if state == chat.StateComplete {
		m.ProviderData = resp.ProviderData
	}
	s.modelStop, s.refusal = resp.StopReason, resp.Refusal
	s.logEvent("assistant_message_committed", roundFields(s.execID, round,
		logfmt.F("message", m))...)
	if len(m.ToolCalls) > 0 {
		s.appendUnsaved(m, round) // logged with the round's results
	} else {
		s.appendMessage(m, round, "")
	}
	s.final = resp.Text
	if s.paused != "" && state == chat.StateComplete {
		// the answer a server tool paused goes on here
		s.final = joinParagraphs(s.paused, resp.Text)
		s.paused = ""
	}
	s.obs.Event(StepEvent{Kind: EvAssistantMessage, Round: round, Message: &m, Usage: resp.Usage})
	return m
}

// finish logs the step's end, fires StopFailure, saves the record, fires
// SessionEnd and builds the result. Hooks here run even after an interrupt:
// every hook is awaited before the process exits.
func (s *session) finish(ctx context.Context, stop string, stepErr error) (*Result, error) {
	status := StatusIdle
	var saveErr error
	saved := false
	switch stop {
	case StopEndTurn, StopMaxTurns, StopMaxTokens, StopRefusal:
		// The record is written while the answer's outline is logged: both
		// walk the whole conversation, and nothing runs between them.
		s.addUsageTotals()
		wait := s.saveAsync(status, stop)
		s.logAssistantSummary()
		s.logContext()
		saveErr, saved = wait(), true
	case StopInterrupted:
		s.logEvent("error", logfmt.F("message", "Aborted"), logfmt.F("historyLength", len(s.messages)))
	case StopRequiresAction:
		status = StatusRequiresAction
	default:
		msg := "step failed"
		if stepErr != nil {
			msg = stepErr.Error()
		}
		s.logEvent("error", logfmt.F("message", msg), logfmt.F("historyLength", len(s.messages)))
	}
	hookCtx := context.WithoutCancel(ctx)
	var blocked *errs.HookBlockedError
	if stop == StopError && stepErr != nil && !errors.As(stepErr, &blocked) {
		kind, details := stopFailureKind(stepErr)
		s.runHooks(hookCtx, hooks.StopFailure, hooks.StopFailureInput(kind, details, stepErr.Error()))
	}
	if !saved {
		s.addUsageTotals()
		saveErr = s.save(status, stop)
	}
	reason := "other"
	if stop == StopInterrupted {
		reason = "interrupted"
	}
	s.logShutdown(reason)
	s.runHooks(hookCtx, hooks.SessionEnd, hooks.SessionEndInput(reason))
	if s.log != nil {
		if err := s.log.Sync(); err != nil && s.logErr == nil {
			s.logErr = fmt.Errorf("sync: %w", err)
		}
	}
	s.retryHint(stop, stepErr)
	res := s.result(stop, stepErr)
	if stop == StopRequiresAction {
		res.PendingToolCalls = s.pending
		if stepErr == nil {
			stepErr = &errs.RequiresActionError{SessionID: s.rec.ID, Pending: describePending(s.pending)}
		}
	}
	if saveErr != nil {
		return res, s.saveFailed(saveErr)
	}
	return res, s.logOutcome(stepErr)
}

// saveFailed adds the way back to a failed save of a session that has no
// record yet (its first step, on a full disk): only its log holds it, and
// it keeps its name, so a script's retry of run --name meets it.
func (s *session) saveFailed(err error) error {
	saveErr := &errs.SaveError{Hinted: errs.Hinted{Err: err}}
	if saved, e := s.e.Store.Exists(s.rec.ID); e != nil || saved {
		return saveErr
	}
	// the writer's own count is unknown once a write failed: the file says
	if fi, err := os.Stat(s.e.Store.LogPath(s.rec.ID)); s.log == nil || err != nil || fi.Size() == 0 {
		// no log to rebuild from
		saveErr.Fix = "nothing of the session could be written: once the disk has room, trail delete " + s.rec.ID + " removes what is left; then ask again"
		return saveErr
	}
	kept := "its record"
	if s.logErr != nil {
		kept = "its record from what the log kept"
	}
	saveErr.Fix = "the session has only its log: once the disk has room, trail replay " + s.rec.ID +
		" --write-record rebuilds " + kept + " (or trail delete " + s.rec.ID + " removes it)"
	return saveErr
}

// logAssistantSummary logs the step's answer. Robota's historyStructure
// (an outline of every message) is written only with full requests: on
// every step it repeated the whole conversation, which historyLength and
// the history_mutation lines already give.
func (s *session) logAssistantSummary() {
	fields := []logfmt.Field{
		logfmt.F("content", s.final),
		logfmt.F("historyLength", len(s.messages)),
		logfmt.F("estimatedChars", chat.SerializedLength(s.messages)),
	}
	if s.fullRequests() {
		fields = append(fields, logfmt.F("historyStructure", json.RawMessage(historyStructure(s.messages))))
	}
	s.logEvent("assistant", fields...)
}

// historyStructure is Robota's per-message outline for the assistant event.
// It is appended by hand: a long session has thousands of entries, and an
// Object per entry would cost more than the rest of the step.
func historyStructure(msgs []chat.Message) []byte {
	b := make([]byte, 0, 96*len(msgs)+2)
	b = append(b, '[')
	for i := range msgs {
		m := &msgs[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"role":`...)
		b, _ = logfmt.AppendJSON(b, m.Role)
		b = append(b, `,"contentLength":`...)
		b = strconv.AppendInt(b, int64(utf8.RuneCountInString(m.Content)), 10)
		b = append(b, `,"hasToolCalls":`...)
		b = strconv.AppendBool(b, len(m.ToolCalls) > 0)
		b = append(b, `,"toolCallNames":[`...)
		for j, tc := range m.ToolCalls {
			if j > 0 {
				b = append(b, ',')
			}
			b, _ = logfmt.AppendJSON(b, tc.Name)
		}
		b = append(b, ']')
		if len(m.Metadata) > 0 {
			b = append(b, `,"metadata":`...)
			b = append(b, logfmt.CompactJSON(m.Metadata)...)
		}
		b = append(b, '}')
	}
	return append(b, ']')
}

func (s *session) contextWindow() int64 {
	if s.opts.ContextWindow > 0 {
		return s.opts.ContextWindow
	}
	return chat.ContextWindowFor(s.pcfg.Model)
}

// contextState is the conversation's use of the context window now.
func (s *session) contextState() chat.ContextState {
	return chat.NewContextState(chat.EstimateTokens(s.messages), s.contextWindow())
}

func (s *session) logContext() {
	st := s.contextState()
	s.logEvent("context",
		logfmt.F("maxTokens", st.MaxTokens),
		logfmt.F("usedTokens", st.UsedTokens),
		logfmt.F("usedPercentage", st.UsedPercentage),
		logfmt.F("remainingPercentage", st.RemainingPercentage))
}

func (s *session) result(stop string, stepErr error) *Result {
	r := &Result{
		SessionID:         s.rec.ID,
		Text:              s.final,
		NumTurns:          s.turns,
		DurationAPIMS:     s.apiTime.Milliseconds(),
		Usage:             s.usage,
		PermissionDenials: s.denials,
		Provider:          s.pcfg.Name,
		Model:             s.pcfg.Model,
		StopReason:        stop,
		ModelStopReason:   s.modelStop,
		Refusal:           s.refusal,
		ModelUsage:        s.modelUsage,
		MaxTokens:         s.sentCap(),
	}
	if cost, ok := s.stepCost(); ok {
		r.CostUSD = &cost
	}
	switch stop {
	case StopEndTurn:
		r.Subtype, r.TerminalReason = SubtypeSuccess, TerminalCompleted
	case StopMaxTurns:
		r.Subtype, r.IsError, r.TerminalReason = SubtypeMaxTurns, true, TerminalMaxTurns
	case StopMaxTokens:
		// The model finished its turn, cut at the output cap: Claude Code
		// reports such a turn as completed, with stop_reason max_tokens.
		r.Subtype, r.IsError, r.TerminalReason = SubtypeMaxTokens, true, TerminalCompleted
	case StopRefusal:
		r.Subtype, r.IsError, r.TerminalReason = SubtypeRefusal, true, TerminalCompleted
	case StopInterrupted:
		r.Subtype, r.IsError, r.TerminalReason = SubtypeInterrupted, true, TerminalAbortedStreaming
		if s.interruptedInTools {
			r.TerminalReason = TerminalAbortedTools
		}
	case StopRequiresAction:
		r.Subtype, r.TerminalReason = SubtypeRequiresAction, TerminalToolDeferred
		r.Deferred = s.deferred
	default:
		r.Subtype, r.IsError = SubtypeError, true
		var blocked *errs.HookBlockedError
		var perr *errs.ProviderError
		switch {
		case errors.As(stepErr, &blocked):
			r.TerminalReason = TerminalHookStopped
		case errors.As(stepErr, &perr):
			r.TerminalReason = TerminalAPIError
		default:
			r.TerminalReason = TerminalModelError
		}
	}
	if stepErr != nil && !errors.Is(stepErr, errs.ErrInterrupted) {
		r.ErrorMessage = stepErr.Error()
	}
	return r
}

// joinParagraphs joins two parts of one answer with a blank line.
func joinParagraphs(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return strings.TrimRight(a, "\n") + "\n\n" + strings.TrimLeft(b, "\n")
}

// stopFailureKind is a failure as StopFailure hooks see it: Claude Code's
// error type (what their matchers test) and details ("429 Too Many
// Requests: <the provider's message>").
func stopFailureKind(err error) (kind, details string) {
	var perr *errs.ProviderError
	if !errors.As(err, &perr) {
		return hooks.ErrUnknown, err.Error()
	}
	details = perr.Message
	if perr.Status != 0 {
		details = strconv.Itoa(perr.Status) + " " + http.StatusText(perr.Status) + ": " + perr.Message
	}
	t := strings.ToLower(perr.Type)
	switch {
	case perr.Status == 429 || strings.Contains(t, "rate_limit"):
		kind = hooks.ErrRateLimit
	case perr.Status == 529 || strings.Contains(t, "overloaded"):
		kind = hooks.ErrOverloaded
	case perr.Status == 401 || perr.Status == 403 || strings.Contains(t, "authentication") || strings.Contains(t, "permission"):
		kind = hooks.ErrAuthentication
	case perr.Status == 402 || strings.Contains(t, "billing") || strings.Contains(t, "quota"):
		kind = hooks.ErrBilling
	case perr.Status == 404 || strings.Contains(t, "not_found"):
		kind = hooks.ErrModelNotFound
	case perr.Status == 400 || perr.Status == 413 || perr.Status == 422 || strings.Contains(t, "invalid_request"):
		kind = hooks.ErrInvalidRequest
	case perr.Status >= 500:
		kind = hooks.ErrServer
	default:
		kind = hooks.ErrUnknown
	}
	return kind, details
}
