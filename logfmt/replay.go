package logfmt

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// Replay (SPEC 7.1) rebuilds a conversation from its log in one pass, in
// file order:
//
//   - sessionId and createdAt come from the first line, updatedAt from the
//     last; cwd and the system prompt from session_init;
//   - history_mutation append_message appends its message; replace_all (a
//     compaction) replaces the list the model sees, while the transcript
//     keeps every earlier message and marks the compaction;
//   - a replace_all with reason "resync" is a step putting the log back in
//     line with its record (which is the truth for the conversation): the
//     list the model sees becomes the record's, and the transcript marks
//     the re-sync and adds only the record's messages it has not shown,
//     since every other one was said already;
//   - a Robota log has no mutation for the system message (Robota puts it
//     in the conversation unannounced), so when the first appended message
//     is not a system message, the system message is the one Robota's
//     pre_run lists first in its "history" (its own id and metadata, as
//     its record keeps it), else one built from session_init's system
//     prompt;
//   - a context_compact line that no replace_all follows is Robota's
//     compaction, whose summary Robota does not log: the transcript marks
//     it, and a warning says the context cannot be rebuilt past it unless
//     a later re-sync brings the record's list;
//   - external payloads are resolved, each file checked as validation
//     checks it (path inside the payload folder, size, sha256, JSON);
//   - a torn last line, or any line that is not a JSON object, is skipped
//     with a warning;
//   - a line of another session (ReplayOptions.Session, else the first
//     line's) is left out with one warning for all of that session's
//     lines, strict or not.
//
// Only the messages are kept (as the JSON they were logged as), never the
// log: memory follows the conversation, not the file.

// ReplayOptions configure a replay.
type ReplayOptions struct {
	// Dir is the folder payload paths are relative to: the log's folder.
	Dir string
	// SessionID names the payload folder when no line carries a session id.
	SessionID string
	// Session, when set, is the session the log is known to be of (a
	// session of the home, whose log is named by its id): a line of any
	// other session is foreign, even the first. Without it the first
	// line's session is the log's. With another session's lines at its
	// start, a log used to be taken for that session's, and its own lines
	// for the foreign ones.
	Session string
	// Transcript keeps every message ever said (Replay.Transcript, and with
	// it History). Without it only what the model sees next is kept, so
	// memory follows the context, however long the session ran.
	Transcript bool
	// Emit, with Transcript, is handed each transcript item as the replay
	// makes it, in order, instead of Replay.Transcript keeping it, and
	// Replay.Messages stays empty: a transcript streams out in memory that
	// does not grow with the messages (only their ids are kept, to tell
	// what a compaction adds). An error from Emit ends the replay with it.
	Emit func(TranscriptItem) error
	// Context, given to ReplayFile (without Transcript), is handed the
	// messages the model sees next, in order, instead of Replay.Messages
	// keeping them: the file is read twice, first to find its last
	// replace_all, whose messages and every message after it are the
	// context, so each can go out as it is read. An error from Context
	// ends the replay with it.
	Context func(json.RawMessage) error
	// Strict makes a line replay would skip (not JSON, a history_mutation
	// without its messages) an error, ErrBrokenLine, instead of a warning:
	// a conversation printed without it would be a wrong one. Streaming,
	// a line that is not JSON fails in the first pass, before anything
	// went out; a mutation of the wrong shape when it is met. The torn
	// last line of a killed write is still only a warning. The repair
	// paths (re-sync, --write-record) are lenient and keep what the rest
	// of the log holds.
	Strict bool
	// contextFrom is the line of the last replace_all (0: none), found by
	// ReplayFile's first pass.
	contextFrom int

	ctx     context.Context // ReplayFileContext's; nil: never stopped
	maxLine int             // the line cap; 0: maxLineLen (tests set less)
}

// errContextMoved: the last replace_all did not apply (skipped with a
// warning), so the context is not what the first pass said.
var errContextMoved = errors.New("the last replace_all was skipped")

// ErrBrokenLine is a strict replay's error for a line it would skip.
var ErrBrokenLine = errors.New("the conversation would miss what it held")

// Replay is a conversation rebuilt from its log.
type Replay struct {
	SessionID, Cwd, CreatedAt, UpdatedAt string
	SystemPrompt                         string
	HasSystemPrompt                      bool
	Provider, Model, ParentSessionID     string
	ToolSchemas                          json.RawMessage // from the last session_init; nil when none
	// Header is the record's header as trail logs it (session_init's
	// name, title, createdAt, baseUrl and script, session_shutdown's
	// updatedAt and permissionMode): the latest of each, "" when no line
	// gave it (a Robota log, or an older trail's).
	Header RecordHeader

	// Messages is what the model sees next: compactions applied.
	Messages []json.RawMessage
	// Transcript is everything ever said, with compaction markers; only
	// with ReplayOptions.Transcript.
	Transcript []TranscriptItem
	// Compactions counts the replace_all mutations applied, re-syncs aside.
	Compactions int
	// Resyncs counts the replace_all mutations that re-synced the log
	// with the record.
	Resyncs int
	// SummariesMissing counts the compactions whose summary the log does
	// not hold (Robota's; counted in Compactions too).
	SummariesMissing int

	ProviderCalls int    // provider_request lines
	InputTokens   int64  // summed over every assistant message appended
	OutputTokens  int64  //
	LastOutcome   string // end_turn, error, interrupted or requires_action: how the last step ended
	Entries       int    // non-blank lines read
	Warnings      []ReplayWarning
}

// RecordHeader is what the log says of a record's header fields.
type RecordHeader struct {
	Name, Title, CreatedAt, UpdatedAt, BaseURL, Script, Cassette, PermissionMode string
}

// TranscriptItem is a message, or a marker: a compaction when Compaction
// is set, a re-sync when Resync is.
type TranscriptItem struct {
	Message    json.RawMessage
	ID         string // the message's id, or a stand-in "<role>-line<N>" when it has none
	Role       string
	Timestamp  json.RawMessage // the message's timestamp, or its line's
	Compaction *Compaction
	Resync     *Resync
}

// IsMarker reports whether the item marks an event rather than holding a message.
func (it TranscriptItem) IsMarker() bool { return it.Compaction != nil || it.Resync != nil }

// Compaction marks where a replace_all replaced the messages, or where
// Robota compacted without logging the list (SummaryMissing; After is -1).
type Compaction struct {
	Line           int
	Timestamp      string
	Before         int // messages before
	After          int // messages after
	SummaryMissing bool
}

// Resync marks where a step re-synced the log with the record: the
// messages the model sees went from Before (the log's) to After (the
// record's), Added of which the transcript had not shown before.
type Resync struct {
	Line      int
	Timestamp string
	Before    int
	After     int
	Added     int
}

// ReplayWarning is a line replay skipped, and why.
type ReplayWarning struct {
	Line    int
	Message string
}

// ReplayFile replays the log at path. Payload problems are errors: a
// conversation with a hole in it is not the conversation.
func ReplayFile(path string, opts ReplayOptions) (*Replay, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if opts.Dir == "" {
		opts.Dir = filepath.Dir(path)
	}
	if opts.SessionID == "" {
		opts.SessionID = strings.TrimSuffix(filepath.Base(path), ".jsonl")
	}
	if (opts.Context != nil && !opts.Transcript) || (opts.Emit != nil && opts.Transcript) {
		return replayStreaming(f, path, opts)
	}
	rep, err := ReplayLog(f, opts)
	if err != nil {
		return nil, fmt.Errorf("replay %s: %w", path, err)
	}
	return rep, nil
}

// ReplayFileContext is ReplayFile stopping with ctx.Err() (wrapped) once
// ctx is done.
func ReplayFileContext(ctx context.Context, path string, opts ReplayOptions) (*Replay, error) {
	opts.ctx = ctx
	return ReplayFile(path, opts)
}

// replayStreaming is ReplayFile handing messages out as it reads them. A
// first pass finds the last replace_all and checks every payload the
// messages refer to, so that a replay that fails does so before anything
// went out: a conversation with a hole in it is not the conversation.
func replayStreaming(f *os.File, path string, opts ReplayOptions) (*Replay, error) {
	from, err := prescan(f, opts)
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		return nil, fmt.Errorf("replay %s: %w", path, err)
	}
	opts.contextFrom = from
	rep, err := ReplayLog(f, opts)
	if errors.Is(err, errContextMoved) {
		// Nothing went out yet: replay keeping the context, then hand it out.
		if _, err = f.Seek(0, io.SeekStart); err == nil {
			emit := opts.Context
			opts.Context = nil
			if rep, err = ReplayLog(f, opts); err == nil {
				for _, m := range rep.Messages {
					if err = emit(m); err != nil {
						break
					}
				}
				rep.Messages = nil
			}
		}
	}
	if err != nil {
		return nil, fmt.Errorf("replay %s: %w", path, err)
	}
	return rep, nil
}

// prescan returns the line number of the log's last replace_all with
// messages (as the replay's mutation reads it; 0 when there is none), and
// the error the replay would meet resolving a message's payload.
func prescan(r io.Reader, opts ReplayOptions) (int, error) {
	rd := newReader(opts.ctx, r, opts.maxLine)
	defer rd.Release()
	payloads := newPayloadReader(opts.Dir)
	payloads.sessionID = opts.SessionID
	named := false
	var idBytes []byte
	if opts.Session != "" {
		payloads.sessionID, named = opts.Session, true
		idBytes = []byte(strconv.Quote(opts.Session))
	}
	var e entry
	last := 0
	for {
		l, err := rd.Next()
		if err == io.EOF {
			return last, nil
		}
		if err != nil {
			return 0, err
		}
		if !l.Object {
			if opts.Strict && !l.Torn {
				return 0, fmt.Errorf("line %d: not a JSON object (%s): %w", l.Num, l.Problem(), ErrBrokenLine)
			}
			continue
		}
		// A line that does not hold the session's id (quoted) anywhere
		// may be another session's; the rest need no parsing here.
		if !named || l.mayRef || bytes.Contains(l.Bytes, []byte("replace_all")) || !bytes.Contains(l.Bytes, idBytes) {
			parseEntry(l.Bytes, &e, -1)
		} else {
			continue
		}
		if !named && isString(e.sessionID) {
			payloads.sessionID, named = unquoteToken(e.sessionID), true // as the replay names the payload folder
			idBytes = []byte(strconv.Quote(payloads.sessionID))
		} else if named && isString(e.sessionID) && unquoteToken(e.sessionID) != payloads.sessionID {
			continue // left out by the replay too, with a warning (replayer.line)
		}
		if eventName(e.event) != "history_mutation" {
			continue
		}
		value := e.message
		if stringIs(e.mutation, "replace_all") {
			value = e.messages
			if value != nil {
				last = l.Num
			}
		} else if !stringIs(e.mutation, "append_message") {
			continue
		}
		if value != nil && l.mayRef {
			if _, err := payloads.resolve(value, 0); err != nil {
				return 0, fmt.Errorf("line %d: %w", l.Num, err)
			}
		}
	}
}

// foreignLines are the lines of another session a replay skipped.
type foreignLines struct {
	session string
	lines   int
	warning int // the index of the warning of the first one
}

// foreignLine says why a line of session got is not part of session want's
// conversation (validate-log's LOG_SESSION_MISMATCH).
func foreignLine(got, want string) string {
	return fmt.Sprintf("a line of session %s in the log of %s", strconv.Quote(got), want)
}

// ReplayLog replays a log read from r.
func ReplayLog(r io.Reader, opts ReplayOptions) (*Replay, error) {
	if opts.Dir == "" {
		opts.Dir = "."
	}
	p := &replayer{rep: &Replay{}, payloads: newPayloadReader(opts.Dir), seen: map[string]struct{}{}, keep: opts.Transcript, strict: opts.Strict}
	if opts.Transcript {
		p.emit = opts.Emit
	} else if opts.Context != nil {
		p.ctxEmit, p.ctxFrom = opts.Context, opts.contextFrom
	}
	p.payloads.sessionID = opts.SessionID
	if opts.Session != "" {
		p.rep.SessionID, p.payloads.sessionID = opts.Session, opts.Session
	}
	rd := newReader(opts.ctx, r, opts.maxLine)
	defer rd.Release()
	for {
		l, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if err := p.line(l); err != nil {
			return nil, fmt.Errorf("line %d: %w", l.Num, err)
		}
		if p.broken != nil {
			return nil, fmt.Errorf("line %d: %w", l.Num, p.broken)
		}
		if p.emitErr != nil {
			return nil, p.emitErr
		}
	}
	if p.ctxEmit != nil && p.ctxFrom > 0 && !p.ctxApplied {
		return nil, errContextMoved
	}
	if p.compact.Num > 0 {
		p.summaryMissing()
	}
	for _, f := range p.foreign {
		if f.lines > 1 {
			w := &p.rep.Warnings[f.warning]
			w.Message = fmt.Sprintf("%d lines of session %s, from this one on, in the log of %s; skipped", f.lines, strconv.Quote(f.session), p.rep.SessionID)
		}
	}
	if len(p.unsynced) > 0 {
		p.rep.Warnings = append(p.rep.Warnings, p.unsynced...)
		slices.SortStableFunc(p.rep.Warnings, func(a, b ReplayWarning) int { return cmp.Compare(a.Line, b.Line) })
	}
	p.rep.Entries = rd.Entries()
	return p.rep, nil
}

type replayer struct {
	// foreign counts the skipped lines of each other session, whose first
	// one's warning says how many there were (one warning a session, not
	// one a line).
	foreign  map[string]*foreignLines
	strict   bool
	broken   error // a strict replay's first skipped line
	rep      *Replay
	payloads *payloadReader
	e        entry
	initTime string
	seen     map[string]struct{} // ids in the transcript, so a compaction adds only new messages
	keep     bool                // keep the transcript
	appended bool
	// runSystem is the system message a Robota pre_run listed before any
	// append: the one its record keeps.
	runSystem json.RawMessage
	// compact is the line of a context_compact no replace_all has
	// followed yet (0: none); unsynced are the summary-missing
	// compactions no re-sync has covered since.
	compact   Line
	compactTS string
	unsynced  []ReplayWarning
	digest    *historyDigest             // follows the context in request form (ReadRequests); nil when not
	emit      func(TranscriptItem) error // ReplayOptions.Emit: items go out, not into rep
	emitErr   error
	context   int // messages the model sees, counted when emit keeps none
	// ctxEmit (ReplayOptions.Context) gets the context as it is read:
	// appends from line ctxFrom on, and that line's replace_all.
	ctxEmit    func(json.RawMessage) error
	ctxFrom    int
	ctxApplied bool // the replace_all at ctxFrom was applied
}

// toContext hands a message of the context out, when it is one the model
// will see: earlier ones are replaced at ctxFrom.
func (p *replayer) toContext(msg json.RawMessage, l Line) {
	// Nothing goes out past a replace_all at ctxFrom that did not apply:
	// the replay then starts over keeping the context (errContextMoved).
	if l.Num >= p.ctxFrom && (p.ctxFrom == 0 || p.ctxApplied) && p.emitErr == nil {
		p.emitErr = p.ctxEmit(msg)
	}
}

// put adds a transcript item, or hands it to emit.
func (p *replayer) put(it TranscriptItem) {
	if p.emit == nil {
		p.rep.Transcript = append(p.rep.Transcript, it)
	} else if p.emitErr == nil {
		p.emitErr = p.emit(it)
	}
}

func (p *replayer) warn(l Line, msg string) {
	p.rep.Warnings = append(p.rep.Warnings, ReplayWarning{Line: l.Num, Message: msg})
}

// skip drops line l from the conversation, saying why: a warning, or in a
// strict replay the error that ends it (brokenLine).
func (p *replayer) skip(l Line, why string) {
	if p.strict {
		if p.broken == nil {
			p.broken = fmt.Errorf("%s: %w", why, ErrBrokenLine)
		}
		return
	}
	p.warn(l, why+"; skipped")
}

func (p *replayer) line(l Line) error {
	if !l.Object {
		p.compact = Line{} // the line may have been its replace_all
		if l.Torn {
			p.warn(l, fmt.Sprintf("the last line is incomplete (%d bytes, no newline); ignored", len(l.Bytes)))
		} else {
			p.skip(l, "not a JSON object ("+l.Problem()+")")
		}
		return nil
	}
	e := &p.e
	parseEntry(l.Bytes, e, -1)
	rep := p.rep
	if rep.SessionID != "" && isString(e.sessionID) && unquoteToken(e.sessionID) != rep.SessionID {
		// Another session's line (a log appended to by a bad copy or a
		// second writer) is no part of this conversation: taken in, its
		// system message and prompts went to the model on the next resume.
		// Left out, the conversation is whole: unlike a broken line, no
		// strict replay fails on it.
		p.compact = Line{}
		other := unquoteToken(e.sessionID)
		if f := p.foreign[other]; f != nil {
			f.lines++
			return nil
		}
		if p.foreign == nil {
			p.foreign = map[string]*foreignLines{}
		}
		p.foreign[other] = &foreignLines{session: other, lines: 1, warning: len(rep.Warnings)}
		// Left out with a warning even in a strict replay: without it the
		// conversation is the right one (validate-log reports the line).
		p.warn(l, foreignLine(other, rep.SessionID)+"; skipped")
		return nil
	}
	if ts := unquoteToken(e.timestamp); ts != "" {
		if rep.CreatedAt == "" {
			rep.CreatedAt = ts
		}
		rep.UpdatedAt = ts
	}
	if rep.SessionID == "" && isString(e.sessionID) {
		rep.SessionID = unquoteToken(e.sessionID)
		p.payloads.sessionID = rep.SessionID
	}
	switch unquoteToken(e.event) {
	case "session_init":
		p.sessionInit(l, e)
	case "history_mutation":
		if p.compact.Num > 0 && !stringIs(e.mutation, "replace_all") {
			p.summaryMissing()
		}
		return p.mutation(l, e)
	case "context_compact":
		if p.compact.Num > 0 {
			p.summaryMissing()
		}
		p.compact = Line{Num: l.Num, Index: l.Index}
		p.compactTS = unquoteToken(e.timestamp)
	case "pre_run":
		if !p.appended && p.runSystem == nil {
			p.preRunSystem(l)
		}
	case "session_shutdown":
		f := gjson.GetManyBytes(l.Bytes, "updatedAt", "permissionMode")
		setString(&rep.Header.UpdatedAt, f[0])
		setString(&rep.Header.PermissionMode, f[1])
	case "provider_request":
		rep.ProviderCalls++
	case "assistant":
		rep.LastOutcome = "end_turn"
	case "requires_action":
		rep.LastOutcome = "requires_action"
	case "error":
		rep.LastOutcome = "error"
		if gjson.GetBytes(l.Bytes, "message").Str == "Aborted" {
			rep.LastOutcome = "interrupted"
		}
	}
	return nil
}

func (p *replayer) sessionInit(l Line, e *entry) {
	rep := p.rep
	if isString(e.cwd) {
		rep.Cwd = unquoteToken(e.cwd)
	}
	if isString(e.systemPrompt) {
		rep.SystemPrompt, rep.HasSystemPrompt = unquoteToken(e.systemPrompt), true
	}
	p.initTime = unquoteToken(e.timestamp)
	h := gjson.GetManyBytes(l.Bytes, "name", "title", "createdAt", "baseUrl", "script", "cassette")
	for i, dst := range []*string{&rep.Header.Name, &rep.Header.Title, &rep.Header.CreatedAt, &rep.Header.BaseURL, &rep.Header.Script, &rep.Header.Cassette} {
		setString(dst, h[i])
	}
	fields := gjson.GetManyBytes(l.Bytes, "provider", "model", "parentSessionId", "toolSchemas")
	if fields[0].Type == gjson.String {
		rep.Provider = fields[0].Str
	}
	if fields[1].Type == gjson.String {
		rep.Model = fields[1].Str
	}
	if fields[2].Type == gjson.String {
		rep.ParentSessionID = fields[2].Str
	}
	if ts := fields[3]; ts.IsArray() {
		if raw, err := p.payloads.resolve([]byte(ts.Raw), 0); err == nil {
			rep.ToolSchemas = raw
		}
	}
}

// setString keeps a string value; any other leaves dst as it was.
func setString(dst *string, v gjson.Result) {
	if v.Type == gjson.String && v.Str != "" {
		*dst = v.Str
	}
}

func (p *replayer) mutation(l Line, e *entry) error {
	switch {
	case stringIs(e.mutation, "append_message"):
		if e.message == nil {
			p.skip(l, "append_message without a message")
			return nil
		}
		msg, err := p.payloads.resolve(e.message, 0)
		if err != nil {
			return err
		}
		role, ok := messageRole(msg)
		if !ok {
			p.skip(l, "append_message whose message is not an object with a known role")
			return nil
		}
		if !p.appended && role != "system" {
			if p.runSystem != nil {
				p.appendBoth(p.runSystem, l)
			} else if p.rep.HasSystemPrompt && p.rep.SystemPrompt != "" {
				p.appendBoth(p.systemMessage(), l)
			}
		}
		p.appended = true
		p.appendBoth(ownBytes(msg, e.message), l)
		if role == "assistant" {
			md := gjson.GetManyBytes(msg, "metadata.inputTokens", "metadata.outputTokens")
			p.rep.InputTokens += md[0].Int()
			p.rep.OutputTokens += md[1].Int()
		}
	case stringIs(e.mutation, "replace_all"):
		return p.replaceAll(l, e)
	}
	return nil
}

// messageRole reads a message's role when it is one replay keeps: Robota's
// replay drops anything that is not an object with one of the four roles.
func messageRole(msg []byte) (string, bool) {
	if len(msg) == 0 || msg[0] != '{' {
		return "", false
	}
	role := gjson.GetBytes(msg, "role")
	switch role.Str {
	case "system", "user", "assistant", "tool":
		return role.Str, role.Type == gjson.String
	}
	return "", false
}

// ownBytes returns msg as bytes that outlive the line: resolve already
// made a new buffer when it replaced anything.
func ownBytes(msg, fromLine []byte) json.RawMessage {
	if len(msg) > 0 && len(fromLine) > 0 && &msg[0] == &fromLine[0] {
		return bytes.Clone(msg)
	}
	return msg
}

// appendBoth adds a message to the transcript and to the context.
func (p *replayer) appendBoth(msg json.RawMessage, l Line) {
	p.append(msg, l)
	p.context++
	if p.digest != nil {
		p.digest.add(msg)
	}
	switch {
	case p.ctxEmit != nil:
		p.toContext(msg, l)
	case p.emit == nil:
		p.rep.Messages = append(p.rep.Messages, msg)
	}
}

// append adds a message to the transcript (not to Messages), when one is kept.
func (p *replayer) append(msg json.RawMessage, l Line) {
	if !p.keep {
		return
	}
	f := gjson.GetManyBytes(msg, "id", "role", "timestamp")
	it := TranscriptItem{Message: msg, Role: f[1].Str}
	if f[0].Type == gjson.String && f[0].Str != "" {
		it.ID = f[0].Str
		p.seen[it.ID] = struct{}{}
	} else {
		it.ID = it.Role + "-line" + strconv.Itoa(l.Num)
	}
	if f[2].Type == gjson.String || f[2].Type == gjson.Number {
		it.Timestamp = json.RawMessage(f[2].Raw)
	} else {
		it.Timestamp = appendString(nil, p.rep.UpdatedAt)
	}
	p.put(it)
}

// preRunSystem keeps the system message a Robota pre_run lists first in
// its history: Robota logs the conversation it is about to send there,
// its unlogged system message included.
func (p *replayer) preRunSystem(l Line) {
	h := gjson.GetBytes(l.Bytes, "history")
	if !h.IsArray() && !h.IsObject() {
		return
	}
	list, err := p.payloads.resolve([]byte(h.Raw), 0)
	if err != nil {
		return // the message built from session_init stands in
	}
	first := gjson.GetBytes(list, "0")
	if !first.IsObject() || first.Get("role").Str != "system" {
		return
	}
	p.runSystem = json.RawMessage(strings.Clone(first.Raw))
}

// summaryMissing notes a compaction whose summary the log does not hold:
// a marker in the transcript, and a warning unless a re-sync follows.
func (p *replayer) summaryMissing() {
	c := p.compact
	p.compact = Line{}
	p.rep.Compactions++
	p.rep.SummariesMissing++
	p.unsynced = append(p.unsynced, ReplayWarning{Line: c.Num, Message: "the conversation was compacted here and the log holds no summary (Robota does not log it): the context cannot be rebuilt past this point; the record holds it"})
	if p.keep {
		p.put(TranscriptItem{Compaction: &Compaction{
			Line: c.Num, Timestamp: p.compactTS, Before: p.context, After: -1, SummaryMissing: true}})
	}
}

// systemMessage is the system message Robota keeps but does not log.
func (p *replayer) systemMessage() json.RawMessage {
	ts := p.initTime
	if ts == "" {
		ts = p.rep.CreatedAt
	}
	return synthSystemMessage(p.rep.SessionID, p.rep.SystemPrompt, ts)
}

// synthSystemMessage is the system message replay puts first in a log
// whose first message is not one (validation hashes the same bytes).
func synthSystemMessage(sessionID, prompt, ts string) []byte {
	b, _ := Marshal(Object{
		F("id", sessionID+"-system"),
		F("role", "system"),
		F("content", prompt),
		F("state", "complete"),
		F("timestamp", ts),
	})
	return b
}

func (p *replayer) replaceAll(l Line, e *entry) error {
	if e.messages == nil {
		p.skip(l, "replace_all without messages")
		return nil
	}
	list, err := p.payloads.resolve(e.messages, 0)
	if err != nil {
		return err
	}
	if len(list) == 0 || list[0] != '[' {
		p.skip(l, "replace_all whose messages is not an array")
		return nil
	}
	list = ownBytes(list, e.messages)
	before := p.context
	// The list first, then the marker and the messages the transcript
	// has not shown, in that order (the marker goes first in the
	// transcript and says how many follow).
	var next, fresh []json.RawMessage
	eachElement(list, func(_ int, m []byte) bool {
		if _, ok := messageRole(m); !ok {
			p.skip(l, "replace_all message that is not an object with a known role")
			return true
		}
		m = m[:len(m):len(m)]
		next = append(next, m)
		if !p.keep {
			return true
		}
		if id := gjson.GetBytes(m, "id"); id.Type == gjson.String && id.Str != "" {
			if _, dup := p.seen[id.Str]; dup {
				return true
			}
			p.seen[id.Str] = struct{}{} // twice in one list is shown once
		}
		fresh = append(fresh, m)
		return true
	})
	p.appended = true
	p.context = len(next)
	if p.digest != nil {
		p.digest.reset()
		for _, m := range next {
			p.digest.add(m)
		}
	}
	switch {
	case p.ctxEmit != nil:
		if l.Num == p.ctxFrom {
			p.ctxApplied = true
			for _, m := range next {
				p.toContext(m, l)
			}
		}
	case p.emit == nil:
		p.rep.Messages = next
	}
	ts := unquoteToken(e.timestamp)
	p.compact = Line{} // a compaction that logged its list
	resync := gjson.GetBytes(l.Bytes, "reason").Str == ReasonResync
	if resync {
		p.unsynced = nil // the record's list: the context is known again
		p.rep.Resyncs++
	} else {
		p.rep.Compactions++
	}
	if !p.keep {
		return nil
	}
	if resync {
		p.put(TranscriptItem{Resync: &Resync{Line: l.Num, Timestamp: ts, Before: before, After: len(next), Added: len(fresh)}})
	} else {
		p.put(TranscriptItem{Compaction: &Compaction{Line: l.Num, Timestamp: ts, Before: before, After: len(next)}})
	}
	for _, m := range fresh {
		p.append(m, l)
	}
	return nil
}

// ReasonResync marks the history_mutation lines a step writes to put the
// log back in line with its record (the "reason" key).
const ReasonResync = "resync"

// resolve returns value with every external payload reference replaced by
// its file's content (itself resolved), each file checked first. A value
// without references is returned as it is.
func (p *payloadReader) resolve(value []byte, depth int) ([]byte, error) {
	if !mayHoldRef(value) {
		return value, nil
	}
	hits := findRefs(value, "")
	if len(hits) == 0 {
		return value, nil
	}
	out := make([]byte, 0, len(value))
	prev := 0
	for _, h := range hits {
		if h.invalid != "" {
			return nil, &PayloadError{CodePayloadReferenceInvalid, invalidRefMessage(h)}
		}
		if depth >= maxRefDepth {
			return nil, notFound(h.ref, "payloads nest deeper than 32")
		}
		content, perr := p.load(h.ref)
		if perr != nil {
			return nil, perr
		}
		inner, err := p.resolve(content, depth+1)
		if err != nil {
			return nil, err
		}
		out = append(out, value[prev:h.start]...)
		out = append(out, inner...)
		prev = h.end
	}
	return append(out, value[prev:]...), nil
}

// TranscriptMessages returns every message of the transcript, in order
// (ReplayOptions.Transcript).
func (r *Replay) TranscriptMessages() []json.RawMessage {
	out := make([]json.RawMessage, 0, len(r.Transcript))
	for _, it := range r.Transcript {
		if !it.IsMarker() {
			out = append(out, it.Message)
		}
	}
	return out
}

// History returns the history entries (ReplayOptions.Transcript): a chat
// entry per message of the transcript, {id, timestamp, category: "chat", type: role, data: message}
// (the entry migrate-history builds), and an event entry per compaction
// and per re-sync.
func (r *Replay) History() []json.RawMessage {
	out := make([]json.RawMessage, 0, len(r.Transcript))
	for i := range r.Transcript {
		out = append(out, r.HistoryEntry(i))
	}
	return out
}

// HistoryEntry is the history entry of Transcript[i].
func (r *Replay) HistoryEntry(i int) json.RawMessage {
	it := r.Transcript[i]
	if c := it.Compaction; c != nil {
		data := Object{F("line", c.Line), F("messagesBefore", c.Before), F("messagesAfter", c.After)}
		if c.SummaryMissing {
			data = Object{F("line", c.Line), F("messagesBefore", c.Before), F("messagesAfter", nil), F("summaryMissing", true)}
		}
		b, _ := Marshal(Object{
			F("id", "compaction-line"+strconv.Itoa(c.Line)),
			F("timestamp", c.Timestamp),
			F("category", "event"),
			F("type", "compaction"),
			F("data", data),
		})
		return b
	}
	if rs := it.Resync; rs != nil {
		b, _ := Marshal(Object{
			F("id", "resync-line"+strconv.Itoa(rs.Line)),
			F("timestamp", rs.Timestamp),
			F("category", "event"),
			F("type", "resync"),
			F("data", Object{F("line", rs.Line), F("messagesBefore", rs.Before), F("messagesAfter", rs.After)}),
		})
		return b
	}
	b := make([]byte, 0, len(it.Message)+len(it.ID)+96)
	b = append(b, `{"id":`...)
	b = appendString(b, it.ID)
	b = append(b, `,"timestamp":`...)
	b = append(b, it.Timestamp...)
	b = append(b, `,"category":"chat","type":`...)
	b = appendString(b, it.Role)
	b = append(b, `,"data":`...)
	b = append(b, it.Message...)
	return append(b, '}')
}
