package errs

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"trail/store"
)

// FailureError is a failure (exit 1) that says how to go on.
type FailureError struct{ Msg, Fix string }

func (e *FailureError) Error() string { return e.Msg }
func (e *FailureError) Hint() string  { return e.Fix }

// LogWriteError ends a step whose log could not be written (exit 1): its
// answer and record are whole, so the answer is still shown.
type LogWriteError struct{ Err error }

func (e *LogWriteError) Error() string {
	return "log not written: " + e.Err.Error() + "; the answer and the session are saved, but the log lacks this step's events from there on"
}
func (e *LogWriteError) Hint() string {
	return "free the space (or raise the limit); the session's next step brings its log back in line with the record"
}

// SaveError ends a step whose record could not be saved after its answer
// came: the answer is still shown. Fix, when set, says how to get the
// session back.
type SaveError struct{ Hinted }

// Hinted gives err a hint, keeping what it is (exit code, kind).
type Hinted struct {
	Err error
	Fix string
}

func (e *Hinted) Error() string { return e.Err.Error() }
func (e *Hinted) Unwrap() error { return e.Err }
func (e *Hinted) Hint() string  { return e.Fix }

// Hinter is implemented by errors that know the obvious fix; commands prints
// it on a second "hint:" line.
type Hinter interface{ Hint() string }

// UsageError is a bad flag, argument or missing input (exit 2).
type UsageError struct {
	Msg string
	Fix string
	Err error
}

func (e *UsageError) Error() string {
	if e.Err != nil && e.Msg != "" {
		return e.Msg + ": " + e.Err.Error()
	}
	if e.Err != nil {
		return e.Err.Error()
	}
	return e.Msg
}
func (e *UsageError) Unwrap() error { return e.Err }
func (e *UsageError) Hint() string  { return e.Fix }

// Usagef builds a UsageError with a hint.
func Usagef(hint, format string, args ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, args...), Fix: hint}
}

// NotFoundError is an unknown session or missing file (exit 3).
type NotFoundError struct {
	What string
	Fix  string
	// LogOnly is the id of a session that has a log and no record (a
	// first step killed before its first save): delete may remove it.
	LogOnly string
}

func (e *NotFoundError) Error() string { return e.What }
func (e *NotFoundError) Hint() string  { return e.Fix }

// AmbiguousError is a session reference matching several sessions (exit 3).
type AmbiguousError struct {
	Ref        string
	Candidates []Candidate // newest first
	// ByName: the reference is a name several sessions hold, so more
	// characters would not help.
	ByName bool
}

// Candidate is one session an ambiguous reference matched, with what a
// person needs to tell it from the others.
type Candidate struct {
	ID, ShortID, Name, UpdatedAt string
	Label                        string // the title or first prompt
}

// MaxCandidates is how many candidates are listed; the rest are counted.
const MaxCandidates = 10

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("session %s is ambiguous: it matches %d sessions", store.QuoteInput(e.Ref), len(e.Candidates))
}
func (e *AmbiguousError) Hint() string {
	if e.ByName {
		return fmt.Sprintf("several sessions are named %s; give the short id trail list shows, or rename one with trail resume ID --name NEW", store.QuoteInput(e.Ref))
	}
	return "give more characters, or the short id trail list shows"
}

// RequiresActionError reports a session paused for approval (exit 4).
type RequiresActionError struct {
	SessionID string
	Pending   []string // "id Tool(args)" descriptions
}

func (e *RequiresActionError) Error() string {
	msg := fmt.Sprintf("session %s is waiting for approval of %d tool call(s)", e.SessionID, len(e.Pending))
	if len(e.Pending) > 0 {
		msg += ": " + strings.Join(e.Pending, "; ")
	}
	return msg
}
func (e *RequiresActionError) Hint() string {
	return fmt.Sprintf("approve with: trail resume %s --approve all (or --deny all)", e.SessionID)
}

// ProviderError is a model provider failure after retries (exit 6).
type ProviderError struct {
	Provider string
	Status   int    // HTTP status, 0 when none
	Message  string // the provider's own message, or the transport error
	Type     string // the provider's error type or code (rate_limit_error), "" when none
	Fix      string
	Err      error
	// ContextFull: the request did not fit the model's context window
	// (Fix is ContextFullFix's); ContextWindow is the size the server
	// stated, 0 when none.
	ContextFull   bool
	ContextWindow int64
}

func (e *ProviderError) Error() string {
	var b strings.Builder
	b.WriteString(e.Provider)
	b.WriteString(": ")
	// A plain-text error page often starts with its status already
	// ("404 page not found"): said once.
	if status := strconv.Itoa(e.Status); e.Status != 0 && !strings.HasPrefix(e.Message, status+" ") {
		b.WriteString(status)
		b.WriteByte(' ')
	}
	b.WriteString(e.Message)
	return b.String()
}
func (e *ProviderError) Unwrap() error { return e.Err }

// Brief names the failure in a few words for a progress line: provider,
// status and error type (anthropic: 429 rate_limit_error), or the whole
// error when the provider gave no type.
func (e *ProviderError) Brief() string {
	if e.Type == "" {
		return e.Error()
	}
	if e.Status == 0 {
		return e.Provider + ": " + e.Type
	}
	return fmt.Sprintf("%s: %d %s", e.Provider, e.Status, e.Type)
}
func (e *ProviderError) Hint() string { return e.Fix }

// InvalidDataError is a settings file, record or log that does not parse (exit 7).
type InvalidDataError struct {
	Path string
	Err  error
	Fix  string
}

func (e *InvalidDataError) Error() string { return e.Path + ": " + e.Err.Error() }
func (e *InvalidDataError) Unwrap() error { return e.Err }
func (e *InvalidDataError) Hint() string  { return e.Fix }

// HookBlockedError is a hook refusing the prompt or the step (exit 1).
type HookBlockedError struct {
	Event  string
	Reason string
}

func (e *HookBlockedError) Error() string {
	if e.Reason == "" {
		return e.Event + " hook blocked the step"
	}
	return e.Event + " hook blocked the step: " + e.Reason
}

// ErrInterrupted is returned when SIGINT/SIGTERM cancelled the step after the
// partial answer was saved (exit 130).
var ErrInterrupted = errors.New("interrupted")

// InterruptedError is SIGINT/SIGTERM ending a command before it changed
// anything: while it waited for a session's lock or read its input. It is
// ErrInterrupted for errors.Is, so it exits 130 like an interrupted step.
type InterruptedError struct {
	While string // "waiting for session <id>", "reading standard input"
}

func (e *InterruptedError) Error() string        { return "interrupted while " + e.While }
func (e *InterruptedError) Is(target error) bool { return target == ErrInterrupted }

// Interrupted turns the context error of a wait that a signal cut short
// into an InterruptedError; any other error is returned as it is.
func Interrupted(err error, while string) error {
	if errors.Is(err, context.Canceled) {
		return &InterruptedError{While: while}
	}
	return err
}
