package core

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/tidwall/gjson"

	"trail/core/chat"
	"trail/core/errs"
	"trail/logfmt"
	"trail/store"
)

// Rebuilding a record from its log is the repair path (SPEC 3.4, 1.8):
// a record lost or corrupted is rebuilt from what the log says, and the
// session can be resumed. The log decides messages and history, and the
// header fields it carries (session_init's name, title, createdAt, base
// URL and script; session_shutdown's updatedAt and permission mode); what
// a log does not carry (Robota's, or an older trail's) comes from the
// existing record when it is still readable, and is otherwise left unset.

// RebuildRecord makes a session record from a replayed log. base, when not
// nil, is the record being replaced (with --force); its fields the log
// knows nothing about are kept.
func RebuildRecord(rep *logfmt.Replay, base *store.Record) *store.Record {
	r := &store.Record{}
	if base != nil {
		cp := *base
		cp.Fields = append(store.Fields(nil), base.Fields...)
		r = &cp
	}
	r.ID = rep.SessionID
	hd := rep.Header
	if rep.Cwd != "" {
		r.Cwd = rep.Cwd
	}
	if r.CreatedAt == "" || base == nil {
		r.CreatedAt = cmp.Or(hd.CreatedAt, rep.CreatedAt)
	}
	r.UpdatedAt = cmp.Or(hd.UpdatedAt, rep.UpdatedAt)
	if hd.Name != "" {
		r.Name = hd.Name
	}
	if hd.PermissionMode != "" {
		_ = r.Fields.Set(fieldPermissionMode, hd.PermissionMode)
	}
	if r.Version == 0 {
		r.Version = 1
	}
	r.Status, r.StopReason = StatusIdle, rebuiltStopReason(rep.LastOutcome)
	if rep.Provider != "" {
		p := &store.ProviderRef{Name: rep.Provider, Model: rep.Model, BaseURL: hd.BaseURL, Script: hd.Script, Cassette: hd.Cassette}
		if base != nil && base.Provider != nil && base.Provider.Name == rep.Provider {
			p.BaseURL, p.Script = cmp.Or(hd.BaseURL, base.Provider.BaseURL), cmp.Or(hd.Script, base.Provider.Script)
			p.Cassette = cmp.Or(hd.Cassette, base.Provider.Cassette)
		}
		r.Provider = p
	}
	r.Messages = rep.Messages
	r.History = rep.History()
	r.MessageCount = len(r.Messages)
	r.Title = hd.Title
	for _, m := range rep.TranscriptMessages() {
		if r.Title != "" {
			break
		}
		if f := gjson.GetManyBytes(m, "role", "content"); f[0].Str == chat.RoleUser && f[1].Type == gjson.String {
			r.Title = chat.FirstLine(f[1].Str, titleLen)
			break
		}
	}
	if rep.ParentSessionID != "" {
		r.ParentSessionID = rep.ParentSessionID
	}
	if rep.InputTokens != 0 || rep.OutputTokens != 0 {
		r.Usage = &store.Usage{InputTokens: rep.InputTokens, OutputTokens: rep.OutputTokens}
	}
	if rep.HasSystemPrompt {
		_ = r.Fields.Set("systemPrompt", rep.SystemPrompt)
	}
	if len(rep.ToolSchemas) > 2 { // not "[]"
		r.Fields.SetRaw("toolSchemas", rep.ToolSchemas)
	}
	// The script provider answers the k-th call with its k-th response:
	// the count must survive the repair for a resume to go on where it was.
	_ = r.Fields.Set("providerCalls", rep.ProviderCalls)
	r.Fields.Delete("pendingToolCalls")
	// The replaced record's checkpoint vouched for another record; the
	// next step compares this one with the log in full.
	r.Fields.Delete(fieldLogCheckpoint)
	return r
}

// rebuiltStopReason maps how the last step ended in the log. A paused step
// cannot be rebuilt (its pending calls live in the record only), so the
// repaired session is idle either way.
func rebuiltStopReason(outcome string) string {
	switch outcome {
	case "end_turn":
		return StopEndTurn
	case "interrupted":
		return StopInterrupted
	case "error":
		return StopError
	case "requires_action":
		return StopRequiresAction
	}
	return ""
}

// RepairOptions is one record rebuild.
type RepairOptions struct {
	ID    string
	Force bool          // replace a record that parses
	Wait  time.Duration // for the session lock
	// Replay reads the log; it runs under the lock, so no step appends
	// while the record is rebuilt.
	Replay func() (*logfmt.Replay, error)
	// Path is the log Replay reads, for messages: the session's own log
	// when empty.
	Path string
	// Warn is told what of the log's header was not kept (a name that is
	// invalid, or another session's).
	Warn func(string)
}

// RepairRecord rebuilds sessions/<id>.json from the session's log under
// the session lock. It refuses to replace a record that parses unless
// Force is set.
func (e *Engine) RepairRecord(ctx context.Context, o RepairOptions) (*store.Record, error) {
	if err := store.ValidateID(o.ID); err != nil {
		return nil, &errs.UsageError{Msg: "rebuild record", Err: err}
	}
	lock, err := e.Store.Lock(ctx, o.ID, o.Wait)
	if err != nil {
		return nil, errs.Interrupted(err, "waiting for session "+o.ID)
	}
	defer func() {
		lock.DropUnused() // a refused rebuild of a session the home lacks leaves no lock file
		_ = lock.Unlock()
	}()
	if o.Path != "" && !store.SameFile(o.Path, e.Store.LogPath(o.ID)) {
		if _, err := os.Lstat(e.Store.LogPath(o.ID)); err == nil {
			// the copy would replace the home's own log (AdoptLog refuses)
			return nil, errs.Usagef("rebuild from the home's own log: trail replay "+o.ID+" --write-record, or delete the session first (trail delete "+o.ID+")",
				"the home has its own log of session %s (%s); %s is another copy", o.ID, e.Store.LogPath(o.ID), store.QuoteInput(o.Path))
		}
	}
	var base *store.Record
	old, err := e.Store.Load(o.ID)
	var corrupt *store.CorruptError
	switch {
	case err == nil && !o.Force:
		return nil, errs.Usagef("pass --force to replace it with the log's version", "session %s has a valid record; not overwriting it", o.ID)
	case err == nil:
		base = old
	case errors.Is(err, store.ErrNotFound), errors.As(err, &corrupt):
	default:
		return nil, err
	}
	rep, err := o.Replay()
	if err != nil {
		return nil, err
	}
	logPath := cmp.Or(o.Path, e.Store.LogPath(o.ID))
	if rep.SessionID != o.ID {
		return nil, &errs.InvalidDataError{Path: logPath, Err: fmt.Errorf("the log is of session %s, not %q", store.QuoteInput(rep.SessionID), o.ID)}
	}
	if len(rep.Messages) == 0 {
		return nil, &errs.InvalidDataError{Path: logPath, Err: errors.New("the log holds no messages to rebuild a record from")}
	}
	if base == nil {
		// a session this home has no record of: its id, from a log that
		// may come from anywhere, must not take another session's name
		if err := checkNewID(e.Store, o.ID); err != nil {
			return nil, err
		}
	}
	rec := RebuildRecord(rep, base)
	if err := checkMessages(rec.Messages); err != nil {
		return nil, &errs.InvalidDataError{Path: logPath, Err: err}
	}
	if rec.Name != "" {
		// A log may come from anywhere (a bug report, another machine):
		// its name is held to the rules --name is, and is dropped with a
		// warning when it breaks them. The session stays reachable by id.
		names, err := e.Store.LockNames(ctx, o.Wait)
		if err != nil {
			return nil, errs.Interrupted(err, "waiting for the home's names lock")
		}
		defer func() { _ = names.Unlock() }()
		if err := checkName(e.Store, rec.Name, o.ID); err != nil {
			if o.Warn != nil {
				o.Warn(fmt.Sprintf("the log's name %s is not kept: %s", store.QuoteInput(rec.Name), err.Error()))
			}
			rec.Name = ""
		}
	}
	if o.Path != "" && !store.SameFile(o.Path, e.Store.LogPath(o.ID)) {
		// A log from outside the home: the home takes a copy, so that
		// the record is not left without its log (replay ID said it
		// "ran with --no-log") and the next step appends to the history.
		if err := e.Store.AdoptLog(lock, o.ID, o.Path); err != nil {
			return nil, fmt.Errorf("copy the log into the home: %w", err)
		}
	}
	if err := e.Store.Save(rec); err != nil {
		return nil, err
	}
	return rec, nil
}

// checkMessages makes sure a resume will load what was rebuilt: the
// messages pass the record's shape rule, the one Load applies.
func checkMessages(msgs []json.RawMessage) error {
	for i, raw := range msgs {
		if err := store.CheckMessage(raw, i); err != nil {
			return err
		}
	}
	return nil
}
