package core

// The log and the record must tell the same conversation (SPEC 7.1: a log
// replays to its record's messages). A step changes the log first, line by
// line, and the record at each save, so a process killed between the two,
// a save that fails (a full disk, a folder trail cannot write to) or
// another program saving the record (Robota compacting or aborting) leaves
// them apart. The record is the truth for the conversation: the next step
// that opens the session brings the log back in line with it before
// appending anything of its own.
//
//   - Every save stores a checkpoint in the record: logCheckpoint {bytes,
//     seq, messages, messagesSha256}, the log's size and next seq once the
//     history_mutations that save covers are written, the record's message
//     count and the digest of its messages (the running one requests are
//     logged with, so the first request of the next step reuses it). When
//     the log still starts a line at that offset, with that seq, holds no
//     history_mutation after it, and the record has those messages, the
//     two agree; only the log's tail is read, so a long session resumes as
//     fast as a short one. The digest catches a record edited by hand or
//     by another program that kept the count.
//   - Otherwise (no checkpoint: a Robota record or an older trail one; a
//     log shorter than the checkpoint; mutations after it; another message
//     count) the log is replayed and its messages compared with the
//     record's, each encoded as the log writes it. A log that holds the
//     record's first messages and stops short gets the missing ones
//     appended (append_message, which Robota's reader follows too); any
//     other difference gets the record's whole list (replace_all with
//     reason "resync"). Either follows a log_resync line saying what was
//     found.
//   - A step saves the record only every so often between rounds of a
//     long tool loop, and syncs the log after the others, so a step killed
//     between saves leaves a log that goes on past the record with whole
//     rounds. When the record is exactly that step's last save (status
//     running, the checkpoint's count and digest), those rounds are taken
//     into the conversation from the log (adoptRounds) before the
//     comparison; a round left half done is dropped from the log as before.
//   - Requests the killed step left unanswered (in the stretch read) are
//     closed: an abandoned_requests line, then each request's missing
//     events with note "abandoned" and an error saying no answer was
//     logged. The log then validates again, and says where a step died.
//
// Nothing here fails the step: a log that cannot be read or replayed is
// left as it is, with a warning.

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"strings"

	"trail/core/chat"
	"trail/logfmt"
	"trail/store"
)

// fieldLogCheckpoint is the record field that ties the record to its log.
const fieldLogCheckpoint = "logCheckpoint"

// Resync modes, as log_resync's "mutation" names them.
const (
	resyncAppend  = "append_message"
	resyncReplace = "replace_all"
)

// noteAbandoned marks the events a later step logged for a request whose
// step died before answering it.
const noteAbandoned = "abandoned"

// What the closing events say. Whether the answer came (a tool may have
// done its work) cannot be known: only that it never reached the log.
const (
	abandonedResponse = "no response was logged: the process ended first (recorded by the next step)"
	abandonedTool     = "no result was logged: the process ended first (recorded by the next step)"
)

// logCheckpoint is where the log stood when the record was saved.
type logCheckpoint struct {
	Bytes    int64 `json:"bytes"`
	Seq      int64 `json:"seq"`
	Messages int   `json:"messages"`
	// MessagesSha256 is the record's messages as requests digest them
	// ("" in a checkpoint from before it was kept: the count decides).
	MessagesSha256 string `json:"messagesSha256,omitempty"`
	// The digests of the system prompt and tools the log gave last
	// (session_init), so the next step logs them again only when they
	// changed; "" when unknown.
	SystemPromptSha256 string `json:"systemPromptSha256,omitempty"`
	ToolsSha256        string `json:"toolsSha256,omitempty"`
}

// readCheckpoint reads the record's checkpoint; ok is false when there is
// none or it is not one trail wrote.
func readCheckpoint(f store.Fields) (cp logCheckpoint, ok bool) {
	raw, found := f.Get(fieldLogCheckpoint)
	if !found {
		return cp, false
	}
	var v struct {
		Bytes, Seq, Messages                            *int64
		MessagesSha256, SystemPromptSha256, ToolsSha256 string
	}
	if err := json.Unmarshal(raw, &v); err != nil || v.Bytes == nil || v.Seq == nil || v.Messages == nil ||
		*v.Bytes < 0 || *v.Seq < 0 || *v.Messages < 0 {
		return cp, false
	}
	return logCheckpoint{Bytes: *v.Bytes, Seq: *v.Seq, Messages: int(*v.Messages), MessagesSha256: v.MessagesSha256,
		SystemPromptSha256: v.SystemPromptSha256, ToolsSha256: v.ToolsSha256}, true
}

// setCheckpoint stores where the log stands in the record being saved. A
// log that is off or failed has no position to vouch for: the checkpoint
// goes, and the next step compares the whole log.
func (s *session) setCheckpoint(r *store.Record) error {
	if s.log == nil || s.logErr != nil || s.log.Size() < 0 {
		r.Fields.Delete(fieldLogCheckpoint)
		return nil
	}
	digest, err := s.historyDigest()
	if err != nil {
		r.Fields.Delete(fieldLogCheckpoint)
		return nil
	}
	return r.Fields.Set(fieldLogCheckpoint, logCheckpoint{Bytes: s.log.Size(), Seq: s.log.NextSeq(), Messages: len(s.messages),
		MessagesSha256: digest, SystemPromptSha256: s.logged.prompt, ToolsSha256: s.logged.tools})
}

// digestHolds reports whether the loaded messages are the ones the
// checkpoint's save wrote. Hashing them here costs the step nothing: the
// first request's digest goes on from this one.
func (s *session) digestHolds(cp logCheckpoint) bool {
	if cp.MessagesSha256 == "" {
		return true
	}
	digest, err := s.historyDigest()
	return err == nil && digest == cp.MessagesSha256
}

// checkpointHolds reports whether the checkpoint proves the log agrees with
// the record: tail is the log read from the checkpoint's offset (nil when
// it was not read).
func checkpointHolds(cp logCheckpoint, ok bool, messages int, logSize, nextSeq int64, tail *logfmt.Scan) bool {
	switch {
	case !ok, tail == nil, cp.Messages != messages, logSize < cp.Bytes, !tail.Aligned, tail.Mutations > 0:
		return false
	case tail.Lines == 0:
		return nextSeq == cp.Seq
	}
	return tail.FirstSeq == cp.Seq
}

// resyncPlan is how to bring the log in line with the record.
type resyncPlan struct {
	mode           string // resyncAppend or resyncReplace
	logMessages    int
	recordMessages int
	first          int // the first position where they differ
}

// planResync compares the log's messages with the record's, the record's
// in the bytes this step's request digests will hash (loggedJSON), and
// returns nil when they agree. The comparison is byte for byte: a
// provider_request proves its messages by their digest, so a message the
// log holds in other bytes than the record's (another program's key order
// or escapes) is a difference, and the re-sync logs the record's bytes. Appending is chosen
// only when it gives the record's list: the log has a prefix of it, and
// a log with no message yet would not have replay invent a system message
// in front (a Robota log does for a first message that is not one).
func planResync(logged, record []json.RawMessage, recordStartsWithSystem bool) *resyncPlan {
	first := 0
	for first < len(logged) && first < len(record) && bytes.Equal(logged[first], record[first]) {
		first++
	}
	if first == len(logged) && first == len(record) {
		return nil
	}
	p := &resyncPlan{mode: resyncReplace, logMessages: len(logged), recordMessages: len(record), first: first}
	if first == len(logged) && (first > 0 || recordStartsWithSystem) {
		p.mode = resyncAppend
	}
	return p
}

// logCheck is what opening a stored session found in its log, read before
// anything is appended and acted on right after session_init.
type logCheck struct {
	open   []logfmt.OpenRequest
	resync *resyncPlan
	logged loggedInit // what the log's session_init lines gave last
}

// warnLater keeps a warning found while the session opens: the step's
// first event is the session itself (a stream-json reader's first line).
func (s *session) warnLater(text string) {
	s.openWarnings = append(s.openWarnings, text)
}

// showOpenWarnings shows what warnLater kept, once the step has begun.
func (s *session) showOpenWarnings() {
	for _, text := range s.openWarnings {
		s.obs.Event(StepEvent{Kind: EvWarning, Text: text})
	}
	s.openWarnings = nil
}

// checkLog compares the just-opened log of a stored session with its record.
func (s *session) checkLog() *logCheck {
	l := s.log
	cp, ok := readCheckpoint(s.rec.Fields)
	var tail *logfmt.Scan
	if ok && cp.Messages == len(s.messages) && l.Size() >= cp.Bytes {
		var err error
		if tail, err = logfmt.ScanLog(l.Path(), cp.Bytes); err != nil {
			s.warnLater("log not checked against the record: " + err.Error())
			return nil
		}
	}
	if checkpointHolds(cp, ok, len(s.messages), l.Size(), l.NextSeq(), tail) && s.digestHolds(cp) {
		return &logCheck{open: tail.Open, logged: loggedInit{prompt: cp.SystemPromptSha256, tools: cp.ToolsSha256}}
	}
	whole, err := logfmt.ScanLog(l.Path(), 0)
	if err != nil {
		s.warnLater("log not checked against the record: " + err.Error())
		return nil
	}
	c := &logCheck{open: whole.Open}
	rep, err := logfmt.ReplayFile(l.Path(), logfmt.ReplayOptions{SessionID: s.rec.ID, Session: s.rec.ID})
	if err != nil {
		s.warnLater("log not re-synced with the record: " + err.Error())
		return c
	}
	c.logged = loggedFrom(rep)
	record := make([]json.RawMessage, len(s.messages))
	for i := range s.messages {
		if record[i], err = s.loggedJSON(i); err != nil {
			s.warnLater("log not re-synced with the record: " + err.Error())
			return c
		}
	}
	if n := s.adoptRounds(cp, ok, rep.Messages, record); n > 0 {
		record = append(record, rep.Messages[len(record):len(record)+n]...)
		// The calls that answered them were made: count them as a
		// record rebuilt from the log would.
		s.providerCalls = max(s.providerCalls, rep.ProviderCalls)
	}
	startsWithSystem := len(s.messages) > 0 && s.messages[0].Role == chat.RoleSystem
	c.resync = planResync(rep.Messages, record, startsWithSystem)
	return c
}

// adoptRounds takes into the conversation the rounds a killed step logged
// after its last save of the record, and returns how many messages it
// took. A step saves the record only every so often between rounds
// (loop.go saveDue) and syncs the log instead, so those rounds are the
// step's as much as the saved ones: a model's answer and every result of
// its calls, whose tools have run. Only a record that is exactly what a
// running step saved (status running, its checkpoint's count and digest)
// whose log goes on from it gains them; a record changed since (by hand,
// by another program) stays the truth. A round the step did not finish
// (a prompt without its answer, calls without all their results) is left
// out, and the re-sync drops it from the log.
func (s *session) adoptRounds(cp logCheckpoint, ok bool, logged, record []json.RawMessage) int {
	if !ok || s.rec.Status != StatusRunning || cp.Messages != len(record) || len(logged) <= len(record) {
		return 0
	}
	for i := range record {
		if !bytes.Equal(logged[i], record[i]) {
			return 0
		}
	}
	if !s.digestHolds(cp) {
		return 0
	}
	extra, err := chat.DecodeMessages(logged[len(record):])
	if err != nil {
		return 0
	}
	n := completeRounds(extra)
	for _, m := range extra[:n] {
		s.messages = append(s.messages, m)
		s.history = append(s.history, chatEntry(m))
	}
	if n > 0 {
		s.warnLater(fmt.Sprintf("the record was %d messages behind its log (a step ended between saves); took them from the log", n))
	}
	return n
}

// completeRounds is how many of msgs, from the start, make whole rounds:
// up to an answer without calls, or to the last result of an answer's
// calls.
func completeRounds(msgs []chat.Message) int {
	n := 0
	open := map[string]bool{}
	for i, m := range msgs {
		switch m.Role {
		case chat.RoleAssistant:
			clear(open)
			for _, tc := range m.ToolCalls {
				open[tc.ID] = true
			}
		case chat.RoleTool:
			delete(open, m.ToolCallID)
		default:
			continue
		}
		if len(open) == 0 {
			n = i + 1
		}
	}
	return n
}

// repairLog writes what checkLog found.
func (s *session) repairLog(c *logCheck) {
	if c == nil {
		return
	}
	s.closeAbandoned(c.open)
	p := c.resync
	if p == nil {
		return
	}
	s.logEvent("log_resync", runFields(s.execID,
		logfmt.F("mutation", p.mode),
		logfmt.F("logMessages", p.logMessages),
		logfmt.F("recordMessages", p.recordMessages),
		logfmt.F("firstDifference", p.first))...)
	if p.mode == resyncAppend {
		for i := p.first; i < len(s.messages); i++ {
			s.logEvent("history_mutation", runFields(s.execID,
				logfmt.F("mutation", "append_message"),
				logfmt.F("reason", logfmt.ReasonResync),
				logfmt.F("index", i),
				logfmt.F("message", s.messages[i]))...)
		}
		return
	}
	all := make([]any, len(s.messages))
	for i := range s.messages {
		all[i] = s.messages[i]
	}
	s.markRelogged() // every message is logged again below, redacted with this step's secrets
	s.logEvent("history_mutation", runFields(s.execID,
		logfmt.F("mutation", "replace_all"),
		logfmt.F("reason", logfmt.ReasonResync),
		logfmt.F("messages", all))...)
}

// closeAbandoned logs, for each request a dead step left open, the events
// it is owed, under the dead step's execution id and round so they pair
// with the request as validation pairs them.
func (s *session) closeAbandoned(open []logfmt.OpenRequest) {
	if len(open) == 0 {
		return
	}
	list := make([]any, len(open))
	for i, r := range open {
		o := logfmt.Object{logfmt.F("executionId", r.ExecutionID)}
		if r.Tool {
			o = append(o, logfmt.F("toolCallId", r.ToolCallID))
		} else if r.Round != nil {
			o = append(o, logfmt.F("round", r.Round))
		}
		list[i] = append(o, logfmt.F("missing", r.Missing))
	}
	s.logEvent("abandoned_requests", runFields(s.execID,
		logfmt.F("requests", list))...)
	for _, r := range open {
		head := []logfmt.Field{logfmt.F("executionId", r.ExecutionID), logfmt.F("conversationId", cmp.Or(strings.TrimSpace(r.ConversationID), conversationID))}
		if r.Round != nil {
			head = append(head, logfmt.F("round", r.Round))
		}
		if r.Tool {
			s.closeTool(head, r)
			continue
		}
		errObj := logfmt.Object{logfmt.F("message", abandonedResponse)}
		for _, event := range r.Missing {
			fields := append([]logfmt.Field(nil), head...)
			switch event {
			case logfmt.EventNativeRawPayload:
				if r.Provider != "" {
					fields = append(fields, logfmt.F("provider", r.Provider))
				}
				fields = append(fields,
					logfmt.F("payloadKind", "response"),
					logfmt.F("payload", logfmt.Object{logfmt.F("error", errObj)}))
			case logfmt.EventResponseRaw:
				fields = append(fields,
					logfmt.F("response", logfmt.Object{logfmt.F("error", errObj)}),
					logfmt.F("responseKind", "error"))
			case logfmt.EventResponseNormalized:
				fields = append(fields,
					logfmt.F("response", nil),
					logfmt.F("toolCallsCount", 0),
					logfmt.F("error", errObj))
			default:
				continue
			}
			s.logEvent(event, append(fields, logfmt.F("note", noteAbandoned))...)
		}
	}
}

func (s *session) closeTool(head []logfmt.Field, r logfmt.OpenRequest) {
	fields := head
	if r.BatchID != "" {
		fields = append(fields, logfmt.F("batchId", r.BatchID))
	}
	if r.Index != nil {
		fields = append(fields, logfmt.F("index", r.Index))
	}
	fields = append(fields,
		logfmt.F("toolName", r.ToolName),
		logfmt.F("toolCallId", r.ToolCallID),
		logfmt.F("success", false),
		logfmt.F("result", nil),
		logfmt.F("error", abandonedTool),
		logfmt.F("note", noteAbandoned))
	s.logEvent(logfmt.EventToolResult, fields...)
}
