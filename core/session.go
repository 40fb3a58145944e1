package core

import (
	"encoding/json"
	"fmt"
	"sync/atomic"
	"time"

	"trail/core/chat"
	"trail/core/errs"
	"trail/core/hooks"
	"trail/core/permission"
	"trail/core/provider"
	"trail/core/tools"
	"trail/logfmt"
	"trail/store"
)

// conversationID is the only conversation a trail session has; Robota and
// seed 004 name the main thread "main".
const conversationID = "main"

// session is one step's view of a session: the record, its lock and log,
// and the messages in memory.
type session struct {
	e    *Engine
	opts *StepOptions
	obs  Observer

	rec      *store.Record
	lock     *store.Lock
	log      Logger
	logErr   error
	messages []chat.Message
	history  []json.RawMessage
	resumed  bool
	dirs     []string // working directories beside rec.Cwd (step_setup.go workingDirs)
	// When the record was last prepared for a save, and how many messages
	// it held (loop.go saveDue).
	savedAt       time.Time
	savedMessages int
	saveCost      time.Duration // how long the last save took
	addDirs       []string      // --add-dir's, absolute
	// notifiedRound is the round whose wait for approval the Notification
	// hooks were told of (approval.go).
	notifiedRound int

	// redaction: the secrets in use, for the log and the record alike
	// (record_scrub.go)
	secrets         []string
	red             *logfmt.Redactor
	relogged        bool                       // every message was logged again this step
	historyScrubbed int                        // history entries before this index are scrubbed
	cleanFields     map[string]json.RawMessage // record fields as last scrubbed

	pcfg          provider.Config
	provider      provider.Provider
	execID        string
	providerCalls int
	reqDigest     requestDigest // the running hash of the requests' messages (request_digest.go)
	logged        loggedInit    // the system prompt and tools the log holds (session_init.go)

	// what each request asks for (output_limits.go, provider_call.go)
	maxTokens        int
	maxTokensSet     bool // the user chose maxTokens
	thinking         *provider.Thinking
	noStreamOptions  bool // the server refuses stream_options (providerOptions in the record)
	streamOptsLoaded bool
	notStreamedSaid  bool // the note that the server does not stream was given this step

	// this step's accounting, for the result
	turns      int
	usage      chat.Usage
	modelUsage []ModelUsage // by model, in the order they answered (usage_cost.go)
	apiTime    time.Duration
	denials    []PermissionDenial
	final      string
	paused     string // the text of an answer a server tool paused (pause_turn), until it goes on
	modelStop  string // the last answer's stop reason, as its provider said it
	refusal    string // why the model refused, when it did
	round      int    // the last provider round of this step; rounds are unique per execution

	// tools, permissions and hooks (step_setup.go)
	tools              []tools.Tool
	perms              *permission.Policy
	hooks              *hooks.Runner
	sessionAllowed     []string               // tools the person allowed for the session ("a")
	pending            []PendingToolCall      // the paused round's calls (loaded, or saved by pause)
	unlogged           []int                  // rounds of the trailing messages whose history_mutation waits (appendUnsaved)
	approve, deny      idList                 // resume --approve / --deny
	hookStop           *errs.HookBlockedError // a tool hook answered continue: false
	startContext       []string               // SessionStart output, injected before the next prompt
	notedTemps         atomic.Bool            // a tool journaled a temp file (tool_tempfiles.go)
	openWarnings       []string               // found while opening, shown after the session event
	roundCalls         int                    // the calls of the round being decided (defer needs one)
	redecide           bool                   // resume asks the hooks again about deferred calls
	deferred           *DeferredToolUse       // the call a hook deferred this step
	interruptedInTools bool                   // the interrupt came while tools ran

	// Claude Code compatibility (transcript.go, env_file.go)
	transcript transcriptState
	responses  map[string]any // Claude-shaped tool outputs of this step, by call id
	envFile    string         // CLAUDE_ENV_FILE for SessionStart hooks; "" until one runs
	envDir     string         // the private folder holding it, removed at close
}

func (s *session) now() time.Time { return s.e.Clock.Now() }

func (s *session) newID() (string, error) {
	id, err := s.e.NewID()
	if err != nil {
		return "", fmt.Errorf("new message id: %w", err)
	}
	return id, nil
}

func (s *session) newMessage(role, content string) (chat.Message, error) {
	id, err := s.newID()
	if err != nil {
		return chat.Message{}, err
	}
	return chat.Message{ID: id, Role: role, Content: content, State: chat.StateComplete, Timestamp: logfmt.FormatTime(s.now())}, nil
}

// logEvent appends one line. A log that cannot be written must not lose the
// user's answer: the first failure is kept, the step goes on, and it ends
// with the failure (logOutcome).
func (s *session) logEvent(event string, fields ...logfmt.Field) {
	if s.log == nil || s.logErr != nil {
		return
	}
	if err := s.log.Log(event, fields...); err != nil {
		s.logErr = err
	}
}

// logOutcome is the step's error once its log failed: a step that
// otherwise succeeded fails with it (exit 1: a CI job that keeps or
// validates the log must not be told all went well); one that failed
// already keeps its own error, and the log's failure is a warning.
func (s *session) logOutcome(stepErr error) error {
	if s.logErr == nil {
		return stepErr
	}
	if stepErr != nil {
		s.obs.Event(StepEvent{Kind: EvWarning, Text: "log not written: " + s.logErr.Error()})
		return stepErr
	}
	return &errs.LogWriteError{Err: s.logErr}
}

// appendMessage adds a message to the conversation, its chat history entry,
// and logs the history_mutation replay is built from.
func (s *session) appendMessage(m chat.Message, round int, batchID string) {
	s.logUnsaved()
	s.logMutation(m, len(s.messages), round, batchID)
	s.messages = append(s.messages, m)
	s.history = append(s.history, chatEntry(m))
	if m.Role == chat.RoleTool {
		s.obs.Event(StepEvent{Kind: EvToolResult, Round: round, Message: &m})
	}
}

// appendUnsaved appends a message whose history_mutation waits until the
// message is part of something the record keeps: the round's request (a
// prompt), its committed results, a pause, or a save (logUnsaved). A
// process killed before then (while a tool runs) leaves a log that, like
// the record, replays to the last complete round, and the next step's
// messages land on the right indices.
func (s *session) appendUnsaved(m chat.Message, round int) {
	s.messages = append(s.messages, m)
	s.history = append(s.history, chatEntry(m))
	s.unlogged = append(s.unlogged, round)
}

// logUnsaved writes the history_mutations appendUnsaved held back.
func (s *session) logUnsaved() {
	first := len(s.messages) - len(s.unlogged)
	for i, round := range s.unlogged {
		s.logMutation(s.messages[first+i], first+i, round, "")
	}
	s.unlogged = nil
}

func (s *session) logMutation(m chat.Message, index, round int, batchID string) {
	fields := runFields(s.execID)
	if round > 0 {
		fields = append(fields, logfmt.F("round", round))
	}
	if batchID != "" {
		fields = append(fields, logfmt.F("batchId", batchID))
	}
	fields = append(fields,
		logfmt.F("mutation", "append_message"),
		logfmt.F("index", index),
		logfmt.F("message", m))
	s.logEvent("history_mutation", fields...)
}

// chatEntry is Robota's messageToHistoryEntry.
func chatEntry(m chat.Message) json.RawMessage {
	raw, err := logfmt.Marshal(logfmt.Object{
		logfmt.F("id", m.ID),
		logfmt.F("timestamp", m.Timestamp),
		logfmt.F("category", "chat"),
		logfmt.F("type", m.Role),
		logfmt.F("data", m),
	})
	if err != nil {
		return nil
	}
	return raw
}

// eventEntry is a history entry for something that is not a message
// (tool summaries, compactions, approvals).
func (s *session) eventEntry(typ string, data any) {
	id, err := s.newID()
	if err != nil {
		return
	}
	raw, err := logfmt.Marshal(logfmt.Object{
		logfmt.F("id", id),
		logfmt.F("timestamp", logfmt.FormatTime(s.now())),
		logfmt.F("category", "event"),
		logfmt.F("type", typ),
		logfmt.F("data", data),
	})
	if err == nil {
		s.history = append(s.history, raw)
	}
}

// save writes the record atomically with the given status.
func (s *session) save(status, stopReason string) error {
	start := time.Now()
	r, err := s.prepareSave(status, stopReason)
	if err != nil {
		return err
	}
	err = s.e.Store.Save(r)
	s.saveCost = time.Since(start)
	return err
}

// saveAsync prepares the record now and writes it on another goroutine,
// returning the wait for it. Encoding and writing a long conversation is
// the step's biggest cost after logging it; on two cores the two overlap.
// Until wait returns, the caller may only read the session and log.
func (s *session) saveAsync(status, stopReason string) (wait func() error) {
	r, err := s.prepareSave(status, stopReason)
	if err != nil {
		return func() error { return err }
	}
	done := make(chan error, 1)
	go func() { done <- s.e.Store.Save(r) }()
	return func() error { return <-done }
}

// prepareSave logs what the record is about to keep and fills it in.
func (s *session) prepareSave(status, stopReason string) (*store.Record, error) {
	s.logUnsaved()
	r := s.rec
	s.savedAt, s.savedMessages = s.now(), len(s.messages)
	r.UpdatedAt = logfmt.FormatTime(s.now())
	r.Status, r.StopReason = status, stopReason
	r.MessageCount = len(s.messages)
	r.Messages = make([]json.RawMessage, len(s.messages))
	for i := range s.messages {
		raw, err := s.recordMessage(i)
		if err != nil {
			return nil, fmt.Errorf("encode message %d: %w", i, err)
		}
		r.Messages[i] = raw
	}
	if r.Version == 0 {
		r.Version = 1
	}
	if err := r.Fields.Set("providerCalls", s.providerCalls); err != nil {
		return nil, err
	}
	if err := s.saveApprovalState(); err != nil {
		return nil, err
	}
	if err := s.scrubRecord(r); err != nil {
		return nil, err
	}
	// After logUnsaved: the checkpoint is the log with every mutation this
	// record covers, whatever is logged while an async save writes.
	if err := s.setCheckpoint(r); err != nil {
		return nil, err
	}
	return r, nil
}

func (s *session) close() {
	s.removeEnvFile()
	if s.log != nil {
		_ = s.log.Close()
		s.log = nil
	}
	if s.notedTemps.Load() && s.lock != nil {
		// Every temp file was renamed or removed by now (or is a tool's
		// leftover after a panic): clear them and the journal while the
		// lock is still ours.
		_ = SweepToolTemps(s.e.Store, s.rec.ID)
	}
	_ = s.releaseLock()
}

func (s *session) toolSchemas() []chat.ToolSchema {
	out := make([]chat.ToolSchema, 0, len(s.tools))
	for _, t := range s.tools {
		out = append(out, t.Schema())
	}
	return out
}

func unmarshalString(raw json.RawMessage, dst *string) bool {
	return json.Unmarshal(raw, dst) == nil
}
