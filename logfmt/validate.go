package logfmt

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tidwall/gjson"
)

// Validation (SPEC 7.2) is one streaming pass over a log. What it keeps in
// memory: the current line, the provider and tool keys still waiting for
// their other half, a fixed-size set of recently closed keys, the payload
// checks already made (bounded), and the issues (bounded by MaxIssues).
//
// The provider and tool matching follows Robota's
// validateSessionReplayLogEntries: a provider key is `${executionId}:${round}`
// with a string executionId and a numeric round; a native payload counts
// only with payloadKind "response" or "stream_event"; a tool key is
// `${executionId}:${toolCallId}` (toolExecutionId when toolCallId is
// absent); order in the file does not matter. trail adds the orphan checks,
// the envelope checks and the payload file checks.

// Issue codes (SPEC 7.2).
const (
	CodeLineInvalidJSON           = "LOG_LINE_INVALID_JSON"
	CodeLineTooLong               = "LOG_LINE_TOO_LONG"
	CodeEnvelopeInvalid           = "LOG_ENVELOPE_INVALID"
	CodeSessionMismatch           = "LOG_SESSION_MISMATCH"
	CodeSequenceGap               = "LOG_SEQUENCE_GAP"
	CodeNativeRawPayloadMissing   = "PROVIDER_NATIVE_RAW_PAYLOAD_MISSING"
	CodeResponseRawMissing        = "PROVIDER_RESPONSE_RAW_MISSING"
	CodeResponseNormalizedMissing = "PROVIDER_RESPONSE_NORMALIZED_MISSING"
	CodeResponseOrphan            = "PROVIDER_RESPONSE_ORPHAN"
	CodeToolResultMissing         = "TOOL_RESULT_MISSING"
	CodeToolRequestMissing        = "TOOL_REQUEST_MISSING"
	CodeTruncatedTail             = "LOG_TRUNCATED_TAIL"
	CodeTimestampRegression       = "LOG_TIMESTAMP_REGRESSION"
	CodeHistoryIndexMismatch      = "HISTORY_INDEX_MISMATCH"
	// CodeRequestDigestMismatch is in validate_digest.go.
)

// Severities.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
)

// Issue is one problem found in a log.
type Issue struct {
	Code        string
	Severity    string
	Message     string
	Line        int // 1-based
	EventIndex  int // 0-based among the non-blank lines
	ExecutionID string
	Round       string // the round as a JSON number; "" when none
	ToolCallID  string
}

// Object is the issue as JSON, in the order SPEC 7.2 lists the keys.
func (is Issue) Object() Object {
	o := Object{F("code", is.Code), F("severity", is.Severity), F("message", is.Message),
		F("line", is.Line), F("eventIndex", is.EventIndex)}
	if is.ExecutionID != "" {
		o = append(o, F("executionId", is.ExecutionID))
	}
	if is.Round != "" {
		o = append(o, F("round", rawNumber(is.Round)))
	}
	if is.ToolCallID != "" {
		o = append(o, F("toolCallId", is.ToolCallID))
	}
	return o
}

// rawNumber writes a number token as it is.
type rawNumber string

func (n rawNumber) MarshalJSON() ([]byte, error) { return []byte(n), nil }

// Report is the outcome of validating one log.
type Report struct {
	Entries  int     // non-blank lines, a torn tail not counted
	Errors   int     // issues of severity error (all of them, kept or not)
	Warnings int     // issues of severity warning
	Issues   []Issue // sorted by line; at most MaxIssues
	Dropped  int     // issues counted but not kept
}

// Valid reports whether the log has no errors.
func (r *Report) Valid() bool { return r.Errors == 0 }

// ValidateOptions configure a validation.
type ValidateOptions struct {
	// Dir is the folder payload paths are relative to: the log's folder.
	Dir string
	// SessionID names the payload folder when no line carries a session
	// id (the log file's base name, say).
	SessionID string
	// MaxIssues caps the issues kept (not counted); 0 means 10,000.
	MaxIssues int
	// Live says a step is writing the log now (its session is locked):
	// the requests its last session_init opened that have no answer yet
	// are that step's, under way, and are warnings, not errors.
	Live bool

	ctx     context.Context // ValidateContext's; nil: never stopped
	maxLine int             // the line cap; 0: maxLineLen (tests set less)
}

// ValidateFile validates the log at path. The error is for a file that
// cannot be opened or read; everything wrong inside it is in the report.
func ValidateFile(path string, opts ValidateOptions) (*Report, error) {
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
	return Validate(f, opts)
}

// ValidateFileContext is ValidateFile stopping with ctx.Err() once ctx is
// done.
func ValidateFileContext(ctx context.Context, path string, opts ValidateOptions) (*Report, error) {
	opts.ctx = ctx
	return ValidateFile(path, opts)
}

// ValidateContext is Validate stopping with ctx.Err() once ctx is done,
// a read that waits on a pipe or a terminal included.
func ValidateContext(ctx context.Context, r io.Reader, opts ValidateOptions) (*Report, error) {
	opts.ctx = ctx
	return Validate(r, opts)
}

// Validate reads a log from r and reports its issues.
func Validate(r io.Reader, opts ValidateOptions) (*Report, error) {
	if opts.MaxIssues <= 0 {
		opts.MaxIssues = 10_000
	}
	if opts.Dir == "" {
		opts.Dir = "."
	}
	v := &validator{
		opts:      opts,
		rep:       &Report{},
		payloads:  newPayloadReader(opts.Dir),
		providers: make(map[string]*providerKey),
		tools:     make(map[string]*toolKey),
		closed:    newClosedSet(),
	}
	v.dg.d = &historyDigest{done: v.digestSettled}
	v.payloads.sessionID = opts.SessionID
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
		v.line(l)
	}
	v.endCompactions()
	v.dg.d.close()
	v.finish()
	v.rep.Entries = rd.Entries()
	slices.SortStableFunc(v.rep.Issues, func(a, b Issue) int { return cmp.Compare(a.Line, b.Line) })
	return v.rep, nil
}

type validator struct {
	opts     ValidateOptions
	rep      *Report
	payloads *payloadReader
	e        entry

	sessionID  string // the first line's
	prevSeq    int64
	prevHasSeq bool
	prevTime   time.Time
	prevTS     string

	// position is where the next append_message lands, as replay counts;
	// -1 when unknown (after a replace_all whose list could not be read).
	position       int
	appended       bool // an append_message or replace_all was seen
	systemFromInit bool // a session_init or pre_run gave a system message before any append
	compact        compactions

	providers map[string]*providerKey
	tools     map[string]*toolKey
	lastInit  int             // the line of the last session_init: where the latest step began
	closed    *closedSet      // recently closed keys
	dg        validatorDigest // request digests (validate_digest.go)
}

func (v *validator) add(is Issue) {
	if is.Severity == SeverityError {
		v.rep.Errors++
	} else {
		v.rep.Warnings++
	}
	if len(v.rep.Issues) >= v.opts.MaxIssues {
		v.rep.Dropped++
		return
	}
	v.rep.Issues = append(v.rep.Issues, is)
}

func (v *validator) issue(l Line, code, severity, msg string) {
	v.add(Issue{Code: code, Severity: severity, Message: msg, Line: l.Num, EventIndex: l.Index})
}

func (v *validator) line(l Line) {
	if !l.Object {
		v.compact.pending = Line{} // the line may have been its replace_all
		switch {
		case l.tooLong > 0:
			v.issue(l, CodeLineTooLong, SeverityError,
				fmt.Sprintf("Line is %d bytes long, over the %d-byte line limit; it is skipped unread.", l.tooLong, l.lineCap))
			v.brokenLine(l) // from its start, as a line cut short
		case l.Torn:
			v.issue(l, CodeTruncatedTail, SeverityWarning,
				fmt.Sprintf("The last line is incomplete (no newline, not valid JSON); its %d bytes are ignored.", len(l.Bytes)))
		default:
			v.issue(l, CodeLineInvalidJSON, SeverityError, "Line is not a JSON object: "+l.Problem()+".")
			v.brokenLine(l) // its partners are not its knock-on errors
		}
		v.prevHasSeq = false
		return
	}
	e := &v.e
	parseEntry(l.Bytes, e, -1)
	if foreign := v.envelope(l, e); foreign {
		// Another session's line: reported once, as itself. It is no part
		// of this log's sequence, requests or history (replay leaves it
		// out), so it is not checked against them: the seq gap, digest
		// and index errors it caused were its knock-on errors.
		return
	}
	responseOK := true
	if l.mayRef { // mayHoldRef(l.Bytes), found by the reader
		responseOK = v.refs(l)
	}
	event := eventName(e.event)
	switch event {
	case "provider_request":
		v.provider(l, e, event)
		v.digestRequest(l, e)
	case "provider_response_raw", "provider_native_raw_payload":
		v.provider(l, e, event)
	case "provider_response_normalized":
		// Like Robota, a normalized response whose payload cannot be
		// resolved does not answer its request.
		if responseOK {
			v.provider(l, e, event)
		}
	case "tool_execution_request", "tool_execution_result":
		v.tool(l, e, event)
	case "history_mutation":
		v.compactMutation(l, e)
		v.mutation(l, e)
	case "context_compact":
		v.compactLine(l)
	case "pre_run":
		// Robota's pre_run lists the conversation it sends, its unlogged
		// system message first: replay takes that one.
		if !v.appended && gjson.GetBytes(l.Bytes, "history.0.role").Str == "system" {
			v.systemFromInit = true
		}
		if !v.appended {
			v.digestPreRun(l)
		}
	case "session_init":
		v.lastInit = l.Num
		if !v.appended && len(unquoteToken(e.systemPrompt)) > 0 {
			v.systemFromInit = true
		}
		v.digestInit(l, e)
	case "log_resync", "abandoned_requests":
		v.dg.d.close() // a request still waiting for its messages never got them
	}
}

// envelope checks the keys every line must have, the session, seq and
// time; foreign reports a line of another session than the log's.
func (v *validator) envelope(l Line, e *entry) (foreign bool) {
	var bad []string
	check := func(name string, tok []byte) bool {
		switch {
		case tok == nil:
			bad = append(bad, name+" is missing")
		case !isString(tok):
			bad = append(bad, name+" is not a string")
		default:
			return true
		}
		return false
	}
	tsOK := check(KeyTimestamp, e.timestamp)
	idOK := check(KeySessionID, e.sessionID)
	check(KeyEvent, e.event)
	var ts time.Time
	if tsOK {
		var ok bool
		if ts, ok = parseTimestamp(e.timestamp); !ok {
			bad = append(bad, fmt.Sprintf("timestamp %s does not parse", e.timestamp))
			tsOK = false
		}
	}
	seq, seqOK := int64(0), false
	if e.seq != nil {
		if seq, seqOK = tokenInt(e.seq); !seqOK || seq < 0 {
			bad = append(bad, "seq is not a non-negative integer")
			seqOK = false
		}
	}
	if len(bad) > 0 {
		v.issue(l, CodeEnvelopeInvalid, SeverityError, "Envelope "+strings.Join(bad, "; ")+".")
	}
	// The same session as the line before, most often: compared in place.
	if idOK && (v.sessionID == "" || !stringIs(e.sessionID, v.sessionID)) {
		id := unquoteToken(e.sessionID)
		switch {
		case v.sessionID == "":
			v.sessionID = id
			v.payloads.sessionID = id
		case id != v.sessionID:
			v.issue(l, CodeSessionMismatch, SeverityError,
				fmt.Sprintf("sessionId %s differs from the log's session %s.", quoteValue(id), quoteValue(v.sessionID)))
			foreign = true
		}
	}
	if seqOK {
		want := int64(l.Index)
		if v.prevHasSeq {
			want = v.prevSeq + 1
		}
		if foreign {
			// The log's own writer with a wrong id keeps the log's
			// sequence; another log's lines do not, and are left out of it.
			if seq == want {
				v.prevSeq = seq
			}
			return true
		}
		if seq != want {
			v.issue(l, CodeSequenceGap, SeverityError, fmt.Sprintf("seq %d is not the expected %d.", seq, want))
		}
		v.prevSeq = seq
	}
	if foreign {
		return true
	}
	v.prevHasSeq = seqOK
	if tsOK {
		if !v.prevTime.IsZero() && ts.Before(v.prevTime.Add(-time.Second)) {
			v.issue(l, CodeTimestampRegression, SeverityWarning,
				fmt.Sprintf("Timestamp %s is %s earlier than the previous line's %s.", unquoteToken(e.timestamp), v.prevTime.Sub(ts), v.prevTS))
		}
		v.prevTime, v.prevTS = ts, unquoteToken(e.timestamp)
	}
	return false
}

// refs checks every external payload reference on the line, and reports
// whether the ones under "response" (if any) are all usable.
func (v *validator) refs(l Line) (responseOK bool) {
	responseOK = true
	v.payloads.forget() // a line's digest reads only its own payloads
	v.payloads.checkRefs(l.Bytes, "", 1, func(h refHit, perr *PayloadError) {
		if h.path == "response" || strings.HasPrefix(h.path, "response.") || strings.HasPrefix(h.path, "response[") {
			responseOK = false
		}
		v.issue(l, perr.Code, SeverityError, perr.Message)
	})
	return responseOK
}

// role reads a message's role, following a reference to it.
func (v *validator) role(msg []byte) string {
	if len(msg) > 0 && msg[0] == '{' && isRefObject(msg) {
		ref, why := parseRef(msg)
		if why != "" {
			return ""
		}
		data, perr := v.payloads.load(ref)
		if perr != nil {
			return ""
		}
		msg = data
	}
	return gjson.GetBytes(msg, "role").Str
}

// listLen counts the elements of a list, following a reference to it; -1
// when it is not a readable array.
func (v *validator) listLen(list []byte) int {
	if len(list) > 0 && list[0] == '{' && isRefObject(list) {
		ref, why := parseRef(list)
		if why != "" {
			return -1
		}
		data, perr := v.payloads.load(ref)
		if perr != nil {
			return -1
		}
		list = data
	}
	if len(list) == 0 || list[0] != '[' {
		return -1
	}
	n := 0
	eachElement(list, func(int, []byte) bool { n++; return true })
	return n
}

// mutation tracks where replay puts each message and warns, on lines
// trail wrote (they carry seq), when the writer's index disagrees.
func (v *validator) mutation(l Line, e *entry) {
	switch {
	case stringIs(e.mutation, "append_message"):
		v.digestAppend(e, !v.appended)
		if !v.appended && v.systemFromInit && v.role(e.message) != "system" {
			v.position = 1 // Robota's system message is not logged: replay adds it
		}
		v.appended = true
		if e.seq != nil && v.position >= 0 {
			idx, ok := tokenInt(e.index)
			switch {
			case !ok:
				v.issue(l, CodeHistoryIndexMismatch, SeverityWarning,
					fmt.Sprintf("append_message has no integer index; replay puts the message at %d.", v.position))
			case idx != int64(v.position):
				v.issue(l, CodeHistoryIndexMismatch, SeverityWarning,
					fmt.Sprintf("append_message index %d is not the next position %d.", idx, v.position))
			}
		}
		if v.position >= 0 {
			v.position++
		}
	case stringIs(e.mutation, "replace_all"):
		v.appended = true
		v.position = v.listLen(e.messages)
		v.digestReplace(e)
	}
}
