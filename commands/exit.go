package commands

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"trail/core/errs"
	"trail/logfmt"
	"trail/store"
)

// Exit codes (SPEC 1.1). Frozen: scripts depend on them.
const (
	ExitOK             = 0
	ExitFailure        = 1
	ExitUsage          = 2
	ExitNotFound       = 3
	ExitRequiresAction = 4
	ExitBusy           = 5
	ExitProvider       = 6
	ExitInvalidData    = 7
	ExitInterrupted    = 130
)

// ExitCodesHelp is appended to every command's help (and is the manual
// page's EXIT CODES).
const ExitCodesHelp = exitCodesHelp

// exitCodesHelp is appended to every command's help.
const exitCodesHelp = `EXIT CODES:
   0    success (also: nothing to list)
   1    failure: I/O error, a hook blocked the prompt, a tool loop error,
        --max-turns reached, the model refused, the answer hit its output limit
   2    usage: bad flag or argument, no prompt, confirmation needed but no terminal
   3    not found: unknown or ambiguous session, missing log file or file to import
   4    requires action: the session paused for approval, or a PreToolUse
        hook deferred a call
   5    busy: the session is locked by another running step
   6    provider: the model provider failed after retries
   7    invalid data: broken log, unparsable or wrong-typed record or settings
        file, a link or special file inside the home, a file to import cut
        short or of no agent trail knows, a problem config --check found
   130  interrupted (the partial answer is saved)
`

// exitError carries a code for a command that has already reported what
// went wrong (validate-log's report, list's warnings).
type exitError struct {
	code int
	msg  string // printed as "trail: msg" when not empty
}

func (e *exitError) Error() string { return e.msg }

// ExitCode maps an error to its exit code. It is the only place that does.
func ExitCode(err error) int {
	var (
		ee    *exitError
		usage *errs.UsageError
		nf    *errs.NotFoundError
		amb   *errs.AmbiguousError
		ra    *errs.RequiresActionError
		busy  *store.BusyError
		prov  *errs.ProviderError
		bad   *errs.InvalidDataError
		rec   *store.CorruptError
		nrRec *store.NotRegularError
		nrLog *logfmt.NotRegularError
		hook  *errs.HookBlockedError
	)
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &ee):
		return ee.code
	case errors.Is(err, errs.ErrInterrupted), errors.Is(err, context.Canceled):
		// The only context trail cancels is the signal one (signals.go).
		return ExitInterrupted
	case errors.As(err, &usage), errors.Is(err, store.ErrInvalidID):
		return ExitUsage
	case errors.As(err, &nf), errors.As(err, &amb), errors.Is(err, store.ErrNotFound):
		return ExitNotFound
	case errors.As(err, &ra):
		return ExitRequiresAction
	case errors.As(err, &busy):
		return ExitBusy
	case errors.As(err, &prov):
		return ExitProvider
	case errors.As(err, &bad), errors.As(err, &rec), errors.As(err, &nrRec), errors.As(err, &nrLog):
		return ExitInvalidData
	case errors.As(err, &hook):
		return ExitFailure
	}
	return ExitFailure
}

// reportError prints err as "trail: <what failed>: <why>" and its hint;
// an ambiguous reference lists its candidates between the two, their ages
// told from now.
func reportError(w io.Writer, err error, now time.Time) {
	if err == nil {
		return
	}
	// An error may quote what a session, a hook or a server said:
	// escaped, as all such text on a terminal is (safe_text.go).
	msg := safeLine(oneLine(err.Error()))
	if msg != "" {
		fmt.Fprintf(w, "trail: %s\n", msg)
	}
	writeCandidates(w, err, now)
	if h := hintOf(err); h != "" {
		fmt.Fprintf(w, "hint: %s\n", safeLine(oneLine(h)))
	}
}

func hintOf(err error) string {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if h, ok := e.(errs.Hinter); ok && h.Hint() != "" {
			return h.Hint()
		}
	}
	var rec *store.CorruptError
	var busy *store.BusyError
	var nrRec *store.NotRegularError
	var nrLog *logfmt.NotRegularError
	switch {
	case errors.As(err, &nrRec), errors.As(err, &nrLog):
		return notRegularHint
	case errors.As(err, &rec):
		return "the record was left untouched; rebuild it from the log with: trail replay " + idFromRecordPath(rec.Path) + " --write-record"
	case errors.As(err, &busy) && busy.Names():
		return "trail steps naming sessions queue for the home's names lock, each for the time of a check; many at once (xargs -P), or one stopped with Ctrl-Z, can hold it this long: try again, or start fewer at once"
	case errors.As(err, &busy):
		return "another trail step holds the session; wait for it, or pass --wait with a longer duration"
	}
	return ""
}

// notRegularHint explains a link or special file inside the home, which
// trail refuses rather than follow (README: "Links and special files").
const notRegularHint = "trail never follows a link or opens a special file inside its home; " +
	"move the real file there, or remove it (the home and its sessions/ and logs/ folders may be links)"

func idFromRecordPath(p string) string {
	base := p[strings.LastIndexByte(p, '/')+1:]
	return strings.TrimSuffix(base, ".json")
}

// oneLine keeps errors to a single line, whatever the cause printed.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.Join(strings.Fields(strings.NewReplacer("\r", " ", "\n", " ").Replace(s)), " ")
}
