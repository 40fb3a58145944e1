package core

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"trail/core/chat"
	"trail/core/errs"
	"trail/core/peer"
	"trail/core/settings"
	"trail/logfmt"
	"trail/store"
)

// Importing turns another agent's session file into a trail session: a
// new id, a record and a log written as if trail had held the
// conversation. The log starts with session_init (with importedFrom),
// then one history_mutation per message (append_message, or replace_all
// where the source compacted), each preceded by the import_skipped lines of
// the entries before it that have no equivalent, and ends with
// import_summary. Replaying it gives the record's messages, and it
// validates --strict: it holds no provider request or tool call to pair.
//
// The session's system message is the source's own system prompt when it
// kept one (Codex), else the one trail would give a new session here (the
// settings' systemPrompt, or trail's default), since the session goes on
// with trail's tools. Nothing is written on a dry run, or when the source
// does not read: a file that stops mid-line, or is not a session of a
// known agent, is invalid data naming the line.

// ImportOptions is one trail import.
type ImportOptions struct {
	Source     io.Reader
	SourcePath string // the path as recorded in importedFrom: absolute, or "-" for standard input
	Format     string // one of peer.Formats; "" tells it from the content
	Name       string
	// Cwd is the session's working directory when the source names none;
	// ForceCwd, when set, overrides the source's.
	Cwd, ForceCwd string
	DryRun        bool
	Settings      *settings.Settings
	Wait          time.Duration
}

// ImportResult is what an import made (or, on a dry run, would make).
type ImportResult struct {
	SessionID    string
	Conversation *peer.Conversation
	Record       *store.Record
	Messages     []chat.Message // the record's messages
	// Transcript is every message made, those a compaction replaced
	// included, with a note at each compaction.
	Transcript []peer.TranscriptItem
	// Imported counts the messages of Transcript; Compactions its notes.
	Imported, Compactions int
	// Earlier are the sessions of the home imported before from the same
	// session of the same agent: an import makes a new session each time,
	// and a second one used to pass unsaid, two copies then going their
	// own ways.
	Earlier []string
}

// Import reads another agent's session and stores it as a new session.
func (e *Engine) Import(ctx context.Context, o ImportOptions) (*ImportResult, error) {
	conv, err := peer.Read(o.Source, o.Format)
	if err != nil {
		return nil, importError(o, err)
	}
	execID, err := e.NewID()
	if err != nil {
		return nil, fmt.Errorf("new execution id: %w", err)
	}
	id, err := e.NewID()
	if err != nil {
		return nil, fmt.Errorf("new session id: %w", err)
	}
	cwd := o.ForceCwd
	if cwd == "" {
		cwd = conv.Cwd
	}
	if cwd == "" {
		cwd = o.Cwd
	}
	opts := &StepOptions{Cwd: cwd, Settings: o.Settings, Wait: o.Wait, Name: o.Name}
	if opts.Settings == nil {
		opts.Settings = &settings.Settings{}
	}
	s := &session{e: e, opts: opts, execID: execID, obs: nopObserver{}, tools: e.Tools}
	s.useSecrets()
	now := s.now()
	s.rec = &store.Record{
		ID: id, Name: o.Name, Cwd: cwd,
		CreatedAt: logfmt.FormatTime(now), UpdatedAt: logfmt.FormatTime(now),
		Version: 1, Status: StatusIdle,
	}
	if conv.Provider != "" {
		s.rec.Provider = &store.ProviderRef{Name: conv.Provider, Model: conv.Model}
	}
	imported := importedFrom(o, conv, now)
	sys, err := s.importSystem(conv, now)
	if err != nil {
		return nil, err
	}
	for _, f := range []struct {
		key string
		v   any
	}{{"systemPrompt", sys.Content}, {"toolSchemas", s.toolSchemas()}, {"importedFrom", imported}} {
		if err := s.rec.Fields.Set(f.key, f.v); err != nil {
			return nil, err
		}
	}
	res := &ImportResult{SessionID: id, Conversation: conv, Record: s.rec}
	im := &importer{session: s, conv: conv}
	defer func() {
		res.Messages, res.Transcript = s.messages, im.transcript
		for _, it := range im.transcript {
			if it.Message != nil {
				res.Imported++
			} else {
				res.Compactions++
			}
		}
	}()
	if o.DryRun {
		if o.Name != "" {
			if err := checkName(e.Store, o.Name, id); err != nil {
				return nil, err
			}
		}
		if err := im.build(sys); err != nil {
			return nil, err
		}
		s.rec.MessageCount = len(s.messages)
		res.Earlier = e.importedBefore(conv, s.rec)
		return res, nil
	}
	if err := s.takeLock(ctx, id); err != nil {
		return nil, err
	}
	defer s.close()
	// a refused import (a taken name) leaves no lock file; one that
	// wrote its record keeps it
	defer s.lock.DropUnused()
	if exists, err := e.Store.Exists(id); err != nil {
		return nil, err
	} else if exists {
		return nil, fmt.Errorf("session %s already exists", id)
	}
	if fi, err := os.Stat(e.Store.LogPath(id)); err == nil && fi.Size() > 0 {
		return nil, fmt.Errorf("session %s has a log but no record (%s)", id, e.Store.LogPath(id))
	}
	if o.Name != "" {
		// --name's rules, as run's (held until the record is written)
		unlock, err := s.claimName(ctx, id, false)
		if err != nil {
			return nil, err
		}
		defer unlock()
	}
	if err := im.write(sys, imported); err != nil {
		s.dropImportLog()
		return nil, err
	}
	res.Earlier = e.importedBefore(conv, s.rec)
	return res, nil
}

// importedBefore finds the sessions imported from conv's source session
// before rec. Only those with rec's cwd and title (the heads list shows
// both) are loaded to read their importedFrom, so an import in a home of
// thousands reads a few records. What cannot be read is passed over:
// this is a note, not a check.
func (e *Engine) importedBefore(conv *peer.Conversation, rec *store.Record) []string {
	if conv.SourceID == "" {
		return nil
	}
	heads, err := e.Store.ListHeads()
	if err != nil {
		return nil
	}
	var out []string
	for _, h := range heads {
		if h.ID == rec.ID || h.Corrupt || h.Cwd != rec.Cwd || h.Title != rec.Title {
			continue
		}
		old, err := e.Store.Load(h.ID)
		if err != nil {
			continue
		}
		from, ok := old.Fields.Get("importedFrom")
		if !ok {
			continue
		}
		f := gjson.GetManyBytes(from, "sessionId", "format")
		if f[0].Str == conv.SourceID && f[1].Str == conv.Format {
			out = append(out, h.ID)
		}
	}
	return out
}

// importError says which line of which file did not read.
func importError(o ImportOptions, err error) error {
	var le *peer.LineError
	name := o.SourcePath
	if name == "-" || name == "" {
		name = "standard input"
	}
	switch {
	case errors.As(err, &le):
		return &errs.InvalidDataError{Path: name, Err: err, Fix: le.Fix}
	case errors.Is(err, peer.ErrUnknownFormat):
		return errs.Usagef("use --from "+strings.Join(peer.Formats, ", --from "), "--from: %v", err)
	}
	return fmt.Errorf("read %s: %w", name, err)
}

func importedFrom(o ImportOptions, conv *peer.Conversation, now time.Time) logfmt.Object {
	obj := logfmt.Object{
		logfmt.F("path", o.SourcePath),
		logfmt.F("format", conv.Format),
		logfmt.F("importedAt", logfmt.FormatTime(now)),
	}
	if conv.SourceID != "" {
		obj = append(obj, logfmt.F("sessionId", conv.SourceID))
	}
	if conv.StartedAt != "" {
		obj = append(obj, logfmt.F("startedAt", conv.StartedAt))
	}
	return obj
}

// importSystem is the session's system message: the source's system
// prompt, or the one a new trail session here would get.
func (s *session) importSystem(conv *peer.Conversation, now time.Time) (chat.Message, error) {
	m, err := s.newMessage(chat.RoleSystem, "")
	if err != nil {
		return m, err
	}
	if conv.System != nil {
		m.Content = *conv.System
		m.Metadata, _ = logfmt.Marshal(logfmt.Object{logfmt.F("sourceType", "system_prompt")})
		return m, nil
	}
	m.Content = s.systemPrompt(now)
	return m, nil
}

// importer builds the new session's messages from the conversation, and
// keeps the transcript of what it made.
type importer struct {
	*session
	conv       *peer.Conversation
	transcript []peer.TranscriptItem
}

// build makes the session's messages and history without writing
// anything (a dry run).
func (im *importer) build(sys chat.Message) error {
	im.add(sys)
	for _, it := range im.conv.Items {
		if err := im.item(it); err != nil {
			return err
		}
	}
	im.setTitle()
	return nil
}

func (im *importer) add(m chat.Message) {
	im.appendMessage(m, 0, "")
	im.transcript = append(im.transcript, peer.TranscriptItem{Message: &m})
}

// write opens the new session's log and writes the conversation into it
// and into the record.
func (im *importer) write(sys chat.Message, imported logfmt.Object) error {
	s, conv := im.session, im.conv
	l, err := s.e.OpenLog(s.rec.ID, s.secrets)
	if err != nil {
		return fmt.Errorf("open log: %w", err)
	}
	s.log = l
	s.logEvent("session_init",
		logfmt.F("cwd", s.rec.Cwd),
		logfmt.F("systemPromptLength", utf8.RuneCountInString(sys.Content)),
		logfmt.F("systemPrompt", sys.Content),
		logfmt.F("toolSchemas", s.toolSchemas()),
		logfmt.F("model", providerField(s.rec.Provider, false)),
		logfmt.F("provider", providerField(s.rec.Provider, true)),
		logfmt.F("resumed", false),
		logfmt.F("importedFrom", imported))
	skips := append([]peer.Skip(nil), conv.Skipped...)
	sort.SliceStable(skips, func(i, j int) bool { return skips[i].Line < skips[j].Line })
	next := 0
	logSkips := func(before int) {
		for ; next < len(skips) && (before < 0 || skips[next].Line < before); next++ {
			im.logSkip(skips[next])
		}
	}
	im.add(sys)
	for _, it := range conv.Items {
		if it.Line > 0 {
			logSkips(it.Line)
		}
		if err := im.item(it); err != nil {
			return err
		}
	}
	logSkips(-1)
	s.logEvent("import_summary", runFields(s.execID,
		logfmt.F("format", conv.Format),
		logfmt.F("entries", conv.Entries),
		logfmt.F("messages", len(s.messages)),
		logfmt.F("skipped", len(conv.Skipped)),
		logfmt.F("addedResults", conv.Added))...)
	im.setTitle()
	if s.logErr != nil {
		return s.logErr
	}
	if err := s.log.Sync(); err != nil {
		return fmt.Errorf("sync log: %w", err)
	}
	return s.save(StatusIdle, "")
}

// item appends one message, or applies one compaction.
func (im *importer) item(it peer.Item) error {
	s, format := im.session, im.conv.Format
	if it.Message != nil {
		m, err := s.importMessage(*it.Message)
		if err != nil {
			return err
		}
		im.add(m)
		return nil
	}
	c := it.Compaction
	before := len(s.messages)
	var next, summary []chat.Message
	if before > 0 && s.messages[0].Role == chat.RoleSystem {
		next = append(next, s.messages[0])
	}
	for _, sm := range c.Summary {
		m, err := s.importMessage(sm)
		if err != nil {
			return err
		}
		next = append(next, m)
		s.history = append(s.history, chatEntry(m))
		summary = append(summary, m)
	}
	avail := before
	if before > 0 && s.messages[0].Role == chat.RoleSystem {
		avail--
	}
	if keep := min(c.KeepLast, avail); keep > 0 {
		next = append(next, s.messages[before-keep:]...)
	}
	all := make([]any, len(next))
	for i := range next {
		all[i] = next[i]
	}
	s.logEvent("history_mutation", runFields(s.execID,
		logfmt.F("mutation", "replace_all"),
		logfmt.F("source", format+" "+c.Source),
		logfmt.F("line", it.Line),
		logfmt.F("messages", all))...)
	s.messages = next
	s.reqDigest.reset()
	s.eventEntry("compaction", logfmt.Object{
		logfmt.F("source", format+" "+c.Source),
		logfmt.F("messagesBefore", before),
		logfmt.F("messagesAfter", len(next)),
	})
	im.transcript = append(im.transcript, peer.TranscriptItem{Note: fmt.Sprintf("Context compacted here (%s %s): %d messages became %d.", format, c.Source, before, len(next))})
	for i := range summary {
		im.transcript = append(im.transcript, peer.TranscriptItem{Message: &summary[i]})
	}
	return nil
}

// importMessage gives a message of the source its trail id, and the import
// time when the source gave it none.
func (s *session) importMessage(m chat.Message) (chat.Message, error) {
	id, err := s.newID()
	if err != nil {
		return m, err
	}
	m.ID = id
	if m.Timestamp == "" {
		m.Timestamp = logfmt.FormatTime(s.now())
	}
	if m.State == "" {
		m.State = chat.StateComplete
	}
	return m, nil
}

func (im *importer) logSkip(sk peer.Skip) {
	fields := runFields(im.execID,
		logfmt.F("format", im.conv.Format),
		logfmt.F("line", sk.Line),
		logfmt.F("type", sk.Type),
		logfmt.F("reason", sk.Reason))
	if len(sk.Entry) > 0 && !logfmt.TooDeepToLog(sk.Entry) {
		fields = append(fields, logfmt.F("entry", sk.Entry))
	}
	im.logEvent("import_skipped", fields...)
}

// setTitle is the source's title for the session, else its first prompt
// that a person wrote.
func (im *importer) setTitle() {
	s := im.session
	title := im.conv.Name
	if title == "" {
		for _, m := range im.transcriptMessages() {
			if m.Role == chat.RoleUser && !isSynthetic(m) {
				title = m.Content
				break
			}
		}
	}
	s.rec.Title = chat.FirstLine(s.red.String(title), titleLen)
}

func (im *importer) transcriptMessages() []chat.Message {
	var out []chat.Message
	for _, it := range im.transcript {
		if it.Message != nil {
			out = append(out, *it.Message)
		}
	}
	return out
}

func isSynthetic(m chat.Message) bool {
	return gjson.GetBytes(m.Metadata, "synthetic").Bool()
}

func providerField(p *store.ProviderRef, name bool) string {
	switch {
	case p == nil:
		return ""
	case name:
		return p.Name
	}
	return p.Model
}

// dropImportLog removes the log of an import that failed, whose record was
// never saved: a log without a record would read as a session to restore.
func (s *session) dropImportLog() {
	if s.log == nil {
		return
	}
	path := s.log.Path()
	_ = s.log.Close()
	s.log = nil
	_ = os.Remove(path)
	_ = os.RemoveAll(strings.TrimSuffix(path, ".jsonl") + ".payloads")
}
