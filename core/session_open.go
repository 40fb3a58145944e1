package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"
	"unicode/utf8"

	"trail/core/chat"
	"trail/core/errs"
	"trail/core/provider"
	"trail/logfmt"
	"trail/store"
)

// open creates or loads the session, takes its lock and opens its log.
// Everything that can be checked without touching files (ids, provider
// configuration) is checked before the lock file is created; vet, when
// set, judges a stored session once loaded, before anything is written.
func (e *Engine) open(ctx context.Context, opts *StepOptions, vet func(*session) error) (*session, error) {
	execID, err := e.NewID()
	if err != nil {
		return nil, fmt.Errorf("new execution id: %w", err)
	}
	s := &session{e: e, opts: opts, execID: execID}
	if err := s.prepare(); err != nil {
		return nil, err
	}
	s.obs = opts.Observer
	s.useSecrets()
	if opts.Resume {
		err = s.openStored(ctx, vet)
	} else {
		err = s.create(ctx)
	}
	if err != nil {
		if !opts.Resume {
			s.lock.DropUnused() // a refused new session leaves no lock file
		}
		s.close()
		return nil, err
	}
	s.opened()
	return s, nil
}

func (s *session) create(ctx context.Context) error {
	o, e := s.opts, s.e
	id := o.SessionID
	if id == "" {
		var err error
		if id, err = e.NewID(); err != nil {
			return fmt.Errorf("new session id: %w", err)
		}
	} else if err := store.ValidateID(id); err != nil {
		return &errs.UsageError{Msg: "--session-id", Err: err, Fix: "session ids are letters, digits, '.', '_' and '-', at most 128"}
	}
	if err := s.setProvider(nil); err != nil {
		return err
	}
	if err := s.checkPromptSize(); err != nil {
		return err
	}
	if o.Name != "" {
		if err := checkNameForm(o.Name); err != nil {
			return err // before the home is touched
		}
	}
	if err := s.takeLock(ctx, id); err != nil {
		return err
	}
	if o.Name != "" || o.SessionID != "" {
		// held until the log's session_init makes the name and the id
		// known: a step naming a session "nightly" and one starting the
		// session id "nightly" at the same moment must not both pass
		unlock, err := s.claimName(ctx, id, o.SessionID != "")
		if err != nil {
			return err
		}
		defer unlock()
	}
	exists, err := e.Store.Exists(id)
	if err != nil {
		return err
	}
	if exists {
		return errs.Usagef("resume it with: trail resume "+id, "session %s already exists", id)
	}
	// A log without its record is a session whose record was lost, and the
	// log is what restores it: a new session appended there would mix two
	// conversations in it.
	if fi, err := os.Stat(e.Store.LogPath(id)); err == nil && fi.Size() > 0 {
		return errs.Usagef("restore its record with: trail replay "+id+" --write-record, or choose another id",
			"session %s has a log but no record (%s)", id, e.Store.LogPath(id))
	}
	now := s.now()
	sp := s.systemPrompt(now)
	s.rec = &store.Record{
		ID: id, Name: o.Name, Cwd: o.Cwd,
		CreatedAt: logfmt.FormatTime(now), UpdatedAt: logfmt.FormatTime(now),
		Version: 1, Status: StatusIdle, Provider: s.pcfg.Ref(),
	}
	if err := s.rec.Fields.Set("systemPrompt", sp); err != nil {
		return err
	}
	if schemas := s.toolSchemas(); len(schemas) > 0 {
		if err := s.rec.Fields.Set("toolSchemas", schemas); err != nil {
			return err
		}
	}
	if err := s.openLog(false); err != nil {
		return err
	}
	sys, err := s.newMessage(chat.RoleSystem, sp)
	if err != nil {
		return err
	}
	s.appendMessage(sys, 0, "")
	return nil
}

func (s *session) openStored(ctx context.Context, vet func(*session) error) error {
	o, e := s.opts, s.e
	id, err := ResolveSession(e.Store, o.Ref)
	if err != nil {
		return err
	}
	if err := s.takeLock(ctx, id); err != nil {
		return err
	}
	rec, err := e.Store.Load(id)
	if errors.Is(err, store.ErrNotFound) {
		return &errs.NotFoundError{What: fmt.Sprintf("session %s not found", id), Fix: "see trail list for the stored sessions"}
	}
	if err != nil {
		return err
	}
	if rec.Status == StatusTerminated {
		return errs.Usagef("start a new session with trail run, or --fork this one", "session %s is terminated", id)
	}
	s.keepPathWhole(rec.Cwd) // before anything is logged or saved
	msgs, err := chat.DecodeMessages(rec.Messages)
	if err != nil {
		return &errs.InvalidDataError{Path: e.Store.RecordPath(id), Err: err}
	}
	if err := checkLoggable(rec.Messages); err != nil {
		return &errs.InvalidDataError{Path: e.Store.RecordPath(id), Err: err, Fix: "the record was left untouched and nothing was logged"}
	}
	s.historyScrubbed = len(rec.History) // scrubbed when they were saved
	if len(rec.History) == 0 && len(msgs) > 0 {
		// A record from before history existed (Robota's first records):
		// Robota's resume gives every message its chat entry, and so does
		// trail, so history covers the whole conversation.
		rec.History = make([]json.RawMessage, len(msgs))
		for i := range msgs {
			rec.History[i] = chatEntry(msgs[i])
		}
	}
	s.rec, s.messages, s.history = rec, msgs, rec.History
	if err := s.restoreSystemMessage(); err != nil {
		return err
	}
	s.providerCalls = fieldInt(rec.Fields, "providerCalls")
	if err := s.loadPending(); err != nil {
		return err
	}
	if vet != nil {
		if err := vet(s); err != nil {
			return err
		}
	}
	if err := s.setProvider(rec.Provider); err != nil {
		return err
	}
	if err := s.checkPromptSize(); err != nil {
		return err
	}
	if o.Name != "" {
		self := id
		if o.Fork {
			self = "" // the fork is a new session: its parent's name is taken too
		}
		// held until the name is known: the fork's first log line, or
		// the renamed record
		unlock, err := s.claimName(ctx, self, false)
		if err != nil {
			return err
		}
		defer unlock()
	}
	if o.Fork {
		return s.fork(ctx)
	}
	renamed := o.Name != "" && o.Name != s.rec.Name
	if o.Name != "" {
		s.rec.Name = o.Name
	}
	s.rec.Provider = s.pcfg.Ref()
	if err := s.openLog(true); err != nil {
		return err
	}
	if renamed {
		// Other steps see a session's name in its record: saved now, not
		// when the step ends, so no step can take the name meanwhile.
		return s.save(s.rec.Status, s.rec.StopReason)
	}
	return nil
}

// claimName takes the home's names lock and checks that the name (when
// one is given) is free for self, and that self, an id chosen by the user
// (newID), names no other session; the caller makes them known, then
// unlocks.
func (s *session) claimName(ctx context.Context, self string, newID bool) (unlock func(), err error) {
	l, err := s.e.Store.LockNames(ctx, s.opts.Wait)
	if err != nil {
		return nil, errs.Interrupted(err, "waiting for the home's names lock")
	}
	err = nil
	if newID {
		err = checkNewID(s.e.Store, self)
	}
	if err == nil && s.opts.Name != "" {
		err = checkName(s.e.Store, s.opts.Name, self)
	}
	if err != nil {
		_ = l.Unlock()
		return nil, err
	}
	return func() { _ = l.Unlock() }, nil
}

// fork continues the loaded session under a new id: the source is only read,
// and the new log gets every copied message (openLog) so it replays to the
// new record.
func (s *session) fork(ctx context.Context) error {
	parent := s.rec
	id, err := s.e.NewID()
	if err != nil {
		return fmt.Errorf("new session id: %w", err)
	}
	if err := s.releaseLock(); err != nil {
		return err
	}
	if err := s.takeLock(ctx, id); err != nil {
		return err
	}
	now := logfmt.FormatTime(s.now())
	child := *parent
	child.ID, child.Name, child.ParentSessionID = id, s.opts.Name, parent.ID
	child.CreatedAt, child.UpdatedAt = now, now
	child.Status, child.StopReason = StatusIdle, ""
	child.Provider = s.pcfg.Ref()
	// A paused parent's pendingToolCalls come along: this step decides them.
	child.Fields = append(store.Fields(nil), parent.Fields...)
	child.Fields.Delete(fieldLogCheckpoint) // the parent's log, not the child's
	child.History = append([]json.RawMessage(nil), parent.History...)
	s.rec = &child
	return s.openLog(true)
}

func (s *session) takeLock(ctx context.Context, id string) error {
	l, err := s.e.Store.Lock(ctx, id, s.opts.Wait)
	if err != nil {
		return errs.Interrupted(err, "waiting for session "+id)
	}
	s.lock = l
	// A step killed while a tool's temp file existed left it in the user's
	// folder; the lock is ours now, so no tool of that session runs.
	return SweepToolTemps(s.e.Store, id)
}

func (s *session) releaseLock() error {
	if s.lock == nil {
		return nil
	}
	err := s.lock.Unlock()
	s.lock = nil
	return err
}

func (s *session) setProvider(stored *store.ProviderRef) error {
	o := s.opts
	cfg, err := provider.Resolve(o.Provider, s.e.Env, o.Settings, stored, o.Cwd)
	if err != nil {
		return err
	}
	cfg.Timeout, cfg.MaxRetries = o.Timeout, o.MaxRetries
	for _, w := range append([]string{cfg.Warning}, cfg.Notes...) {
		if w != "" {
			s.warnLater(w)
		}
	}
	p, err := s.e.NewProvider(cfg)
	if err != nil {
		return err
	}
	s.pcfg, s.provider = cfg, p
	return s.resolveOutput()
}

// openLog opens the session's log and writes session_init.
//
// A stored session whose log holds no line yet (a fork, a session run with
// --no-log, a record brought from elsewhere) gets its messages logged first,
// each as an append_message at its index: replay starts from an empty
// conversation, and without them the log would replay to the new turns
// only, and rebuild a record that lost the rest. A stored session whose
// log has lines is checked against its record and brought back in line
// with it (log_sync.go) before the step appends anything else.
func (s *session) openLog(resumed bool) error {
	s.resumed = resumed
	if s.opts.NoLog || s.e.OpenLog == nil {
		return nil
	}
	l, err := s.e.OpenLog(s.rec.ID, s.secrets)
	if err != nil {
		return fmt.Errorf("open log: %w", err)
	}
	s.log = l
	fresh := l.NextSeq() == 0
	var check *logCheck
	if resumed && !fresh {
		check = s.checkLog() // reads only: session_init comes first
	}
	sp := s.currentSystemPrompt()
	var known loggedInit
	if check != nil {
		known = check.logged
	}
	fields := []logfmt.Field{
		logfmt.F("cwd", s.rec.Cwd),
		logfmt.F("systemPromptLength", utf8.RuneCountInString(sp)),
	}
	fields = append(fields, s.initFields(sp, known)...)
	fields = append(fields,
		logfmt.F("model", s.pcfg.Model),
		logfmt.F("provider", s.pcfg.Name),
		logfmt.F("resumed", resumed))
	if s.rec.ParentSessionID != "" {
		fields = append(fields, logfmt.F("parentSessionId", s.rec.ParentSessionID))
	}
	fields = append(fields, s.headerFields()...)
	s.logEvent("session_init", fields...)
	if resumed && fresh {
		for i, m := range s.messages {
			s.logMutation(m, i, 0, "")
		}
		s.markRelogged()
	}
	s.repairLog(check)
	return nil
}

// headerFields are the record's header fields no other event carries, so
// that a record rebuilt from the log (replay --write-record) keeps them:
// the name (a resume --name renames, and its session_init says so), the
// title, the creation time and where the provider is.
func (s *session) headerFields() []logfmt.Field {
	var out []logfmt.Field
	add := func(k, v string) {
		if v != "" {
			out = append(out, logfmt.F(k, v))
		}
	}
	add("name", s.rec.Name)
	add("title", s.rec.Title)
	add("createdAt", s.rec.CreatedAt)
	if p := s.rec.Provider; p != nil {
		add("baseUrl", p.BaseURL)
		add("script", p.Script)
		add("cassette", p.Cassette)
	}
	return out
}

// logShutdown ends the step's lines with the record's updatedAt and
// permission mode as last saved: the rest of the header a rebuild needs.
func (s *session) logShutdown(reason string) {
	fields := []logfmt.Field{logfmt.F("reason", reason), logfmt.F("updatedAt", s.rec.UpdatedAt)}
	if raw, ok := s.rec.Fields.Get(fieldPermissionMode); ok {
		var mode string
		if unmarshalString(raw, &mode) && mode != "" {
			fields = append(fields, logfmt.F("permissionMode", mode))
		}
	}
	s.logEvent("session_shutdown", fields...)
}

func (s *session) systemPrompt(now time.Time) string {
	o := s.opts
	var sp string
	switch {
	case o.System != nil:
		sp = *o.System
	case o.Settings.SystemPrompt != "":
		sp = o.Settings.SystemPrompt
	default:
		sp = DefaultSystemPrompt(o.Cwd, now, s.toolSchemas())
	}
	if o.AppendSystem != "" {
		if sp != "" {
			sp += "\n\n"
		}
		sp += o.AppendSystem
	}
	return sp
}

// currentSystemPrompt is the stored system prompt, or the first system message.
func (s *session) currentSystemPrompt() string {
	if raw, ok := s.rec.Fields.Get("systemPrompt"); ok {
		var sp string
		if unmarshalString(raw, &sp) {
			return sp
		}
	}
	for _, m := range s.messages {
		if m.Role == chat.RoleSystem {
			return m.Content
		}
	}
	return ""
}

// restoreSystemMessage puts the record's systemPrompt back in front of a
// conversation that lost its system message: Robota saves that shape after
// /clear and in run-isolated mode, and applies the prompt again on its
// next run. Without it the stored prompt would never reach the model, and
// replay, which gives a log's first messages the session_init prompt
// (as Robota's reader does), would tell another conversation than the
// record.
func (s *session) restoreSystemMessage() error {
	if len(s.messages) > 0 && s.messages[0].Role == chat.RoleSystem {
		return nil
	}
	raw, ok := s.rec.Fields.Get("systemPrompt")
	var sp string
	if !ok || !unmarshalString(raw, &sp) || sp == "" {
		return nil
	}
	for _, m := range s.messages {
		if m.Role == chat.RoleSystem && m.Content == sp {
			return nil // there, only not first (moved by hand): not twice
		}
	}
	m, err := s.newMessage(chat.RoleSystem, sp)
	if err != nil {
		return err
	}
	s.messages = append([]chat.Message{m}, s.messages...)
	// As at the start of a session: its chat entry opens the timeline.
	s.history = append([]json.RawMessage{chatEntry(m)}, s.history...)
	s.historyScrubbed++ // the prompt comes from the saved, scrubbed record
	return nil
}

func fieldInt(f store.Fields, key string) int {
	raw, ok := f.Get(key)
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(string(raw))
	if err != nil {
		return 0
	}
	return n
}

// checkLoggable refuses, before the step starts, a record whose messages
// the log could not hold: a message nested deeper than a log line may be
// would fail every line that carries it, and the step would be missing
// from the log (replay would then disagree with the record for good).
func checkLoggable(raws []json.RawMessage) error {
	for i, raw := range raws {
		if logfmt.TooDeepToLog(raw) {
			return fmt.Errorf("message %d nests deeper than a log line can hold (%d levels)", i, logfmt.MaxMessageDepth)
		}
	}
	return nil
}
