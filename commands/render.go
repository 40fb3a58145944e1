package commands

import (
	"errors"
	"fmt"
	"strings"

	"trail/core"
	"trail/core/errs"
	"trail/core/permission"
	"trail/core/provider"
	"trail/logfmt"
	"trail/store"
)

// renderer shows a step: it observes events while the step runs and writes
// the result at the end. Stdout carries only the result: with -o text on a
// terminal (or with --stream) the text is streamed as it arrives, otherwise
// the final answer is written once, complete, as claude -p does; -o
// stream-json streams block events (stream_json.go).
// Progress goes to stderr, and only on a terminal (or with --verbose): a
// spinner while waiting for the model's first byte, retries, the session id.
type renderer struct {
	o        *RunOptions
	color    bool
	ci       bool // CI is set: a call that needs approval is not asked even on a terminal
	progress bool // stderr shows progress: a terminal, not --quiet
	verbose  bool
	session  string
	provider string
	running  int // tool calls started since the last finished (they run at once)

	live     bool // -o text on a terminal, or --stream: deltas go to stdout as they come
	streamed bool // live text was written
	lineOpen bool // the last live byte was not a newline
	thinking bool // thinking text is being shown on stderr, its line open
	spin     *spinner
	sj       *streamJSON
}

func newRenderer(o *RunOptions) *renderer {
	io := o.IO
	r := &renderer{
		o:        o,
		color:    io.ColorEnabled(o.Deps.Env),
		ci:       inCI(o.Deps.Env),
		progress: io.IsStderrTTY() && !o.Globals.Quiet,
		verbose:  o.Globals.Verbose,
		live:     o.Output == outText && io.IsStdoutTTY(),
	}
	// -o stream-json on the terminal would have its lines land between
	// the spinner's frames; the lines themselves show progress there.
	if r.progress && io.CanAnimate(o.Deps.Env) && !(o.Output == outStreamJSON && io.IsStdoutTTY()) {
		r.spin = newSpinner(io.ErrOut, r.color, o.Deps.Now)
		r.spin.width, r.spin.foreground = io.StderrWidth, io.StderrForeground
	}
	if o.Output == outStreamJSON {
		r.sj = newStreamJSON(io.Out, o.Deps.NewID, o.Deps.Now)
	}
	return r
}

// Event implements core.Observer.
// toolLabelLen caps, in columns, the call a running tool's spinner names:
// its line must fit a terminal with the clock after it.
const toolLabelLen = 60

func (r *renderer) Event(e core.StepEvent) {
	r.o.IO.EndQuestion() // a Ctrl-C at a question: what follows starts a line
	if r.sj != nil {
		r.sj.Event(e)
	}
	switch e.Kind {
	case core.EvSession:
		r.session, r.provider = e.SessionID, e.Provider
		// --stream (or the setting): text goes out as it comes, as on a
		// terminal, for a script that reads the pipe as it fills.
		if e.Stream && r.o.Output == outText {
			r.live = true
		}
	case core.EvProviderWaiting:
		r.running = 0
		r.spin.Start("waiting for " + r.provider)
	case core.EvToolStarted:
		// A test suite a Bash call runs can take minutes: without a line
		// that moves, an approved call looked like a hang. The call's line
		// (tool_lines.go) replaces it when the call ends; a Ctrl-C's "^C"
		// echo goes with it.
		// Calls of one round run at once and end together: with more
		// than one the spinner counts them, since naming the last one
		// started named a call that may have ended long ago.
		if e.ToolCall != nil {
			r.running++
			label := "running " + cutEnd(safeLine(permission.DescribeCall(e.ToolCall.Name, e.ToolCall.Args())), toolLabelLen)
			if r.running > 1 {
				label = fmt.Sprintf("running %d calls", r.running)
			}
			r.spin.Start(label)
		}
	case core.EvTextDelta:
		r.spin.Stop()
		r.endThinking()
		if r.live && e.Text != "" {
			fmt.Fprint(r.o.IO.Out, r.answerText(e.Text))
			r.streamed = true
			r.lineOpen = !strings.HasSuffix(e.Text, "\n")
		}
	case core.EvThinkingDelta:
		r.showThinking(e.Text)
	case core.EvWarning:
		r.spin.Stop()
		r.endThinking()
		fmt.Fprintf(r.o.IO.ErrOut, "trail: warning: %s\n", safeText(e.Text))
	case core.EvRetry:
		// Said whether or not stderr is a terminal: a CI job waiting on
		// a rate limit should show why it waits.
		if !r.o.Globals.Quiet {
			r.spin.Stop()
			fmt.Fprintln(r.o.IO.ErrOut, retryLine(e))
			r.spin.Start("waiting for " + r.provider)
		}
	case core.EvToolFinished, core.EvNotice:
		r.toolEvent(e)
	case core.EvAssistantMessage:
		r.spin.Stop()
		r.endThinking()
		// A streamed answer that goes on with tool calls ends its line
		// before the tool activity.
		r.endLine()
		// Intermediate answers of a tool loop are progress, not the result:
		// escaped as every model text on stderr is (safe_text.go). They
		// are left out only where they were just shown, streamed to the
		// same terminal; with stdout in a file they had no other place.
		shownHere := r.live && r.o.IO.IsStdoutTTY() && r.o.IO.IsStderrTTY()
		if r.verbose && !shownHere && e.Message != nil && len(e.Message.ToolCalls) > 0 && e.Message.Content != "" {
			fmt.Fprintln(r.o.IO.ErrOut, safeText(e.Message.Content))
		}
	}
}

// answerText is the model's answer as stdout gets it: exact into a pipe
// or a file (it is the result a script reads), escaped on a terminal
// (safe_text.go), where an escape sequence in it would retitle the window
// or clear the screen. A text delta is whole characters (a decoded JSON
// string), so escaping delta by delta gives the text's escaping.
func (r *renderer) answerText(text string) string {
	if r.o.IO.IsStdoutTTY() {
		return safeText(text)
	}
	return text
}

// retryLine is one provider retry on stderr:
// "trail: anthropic: 429 rate_limit_error, retrying in 2.0 s (2 of 4)".
// The brief quotes the server's words, escaped (safe_text.go).
func retryLine(e core.StepEvent) string {
	of := ""
	if e.Of >= e.Attempt {
		of = fmt.Sprintf(" of %d", e.Of)
	}
	return fmt.Sprintf("trail: %s, retrying in %.1f s (%d%s)", safeLine(oneLine(e.Brief)), e.Wait.Seconds(), e.Attempt, of)
}

// showThinking shows the model's thinking as it streams: dimmed on the
// terminal's stderr, never on stdout (the answer's place) and not when
// stderr is piped, where a spinner label says the model is thinking.
func (r *renderer) showThinking(text string) {
	if !r.progress || (r.o.Output == outStreamJSON && r.o.IO.IsStdoutTTY()) {
		if r.spin.Running() && r.spin.label != "thinking" {
			r.spin.Start("thinking")
		}
		return
	}
	if text == "" {
		return
	}
	r.spin.Stop()
	r.endLine()
	r.thinking = !strings.HasSuffix(text, "\n")
	fmt.Fprint(r.o.IO.ErrOut, r.dim(safeText(text)))
}

// endThinking ends the thinking's last line before anything else shows.
func (r *renderer) endThinking() {
	if r.thinking {
		fmt.Fprintln(r.o.IO.ErrOut)
		r.thinking = false
	}
}

// endLine finishes a live answer's last line.
func (r *renderer) endLine() {
	if r.lineOpen {
		fmt.Fprintln(r.o.IO.Out)
		r.lineOpen = false
	}
}

// finish writes the result and returns the error that decides the exit code.
func (r *renderer) finish(res *core.Result, err error) error {
	io := r.o.IO
	io.EndQuestion()
	r.spin.Stop()
	r.endThinking()
	r.endLine()
	if res != nil {
		switch r.o.Output {
		case outJSON:
			b, jerr := logfmt.Marshal(resultObject(res, err, newUUID(r.o.Deps.NewID)))
			if jerr == nil {
				fmt.Fprintf(io.Out, "%s\n", b)
			}
		case outStreamJSON:
			r.sj.finish(res, err)
		default:
			// a step whose log or record failed has its answer whole
			answered := err == nil || errors.As(err, new(*errs.LogWriteError)) || errors.As(err, new(*errs.SaveError))
			if answered && res.Text != "" && !r.streamed && res.Subtype != core.SubtypeRefusal {
				text := r.answerText(res.Text)
				if !strings.HasSuffix(text, "\n") {
					text += "\n"
				}
				fmt.Fprint(io.Out, text)
			}
		}
		if err == nil {
			r.noteEmptyAnswer(res)
		}
		if r.progress {
			fmt.Fprintf(io.ErrOut, "%s\n", r.dim("session "+res.SessionID))
		}
	} else if r.sj != nil && r.session != "" {
		r.sj.finish(nil, err)
	} else if err != nil && (r.o.Output == outJSON || r.o.Output == outStreamJSON) {
		// The step never began (no such session, busy, a refused
		// option): a script reading one result object still gets one,
		// saying why, beside the stderr line and the exit code.
		writeFailureObject(r.o.Deps, err)
	}
	if err == nil && res != nil {
		switch res.Subtype {
		case core.SubtypeMaxTurns:
			return &exitError{code: ExitFailure, msg: fmt.Sprintf("stopped after %s (--max-turns); the session is saved: trail resume %s", plural(res.NumTurns, "turn"), res.SessionID)}
		case core.SubtypeMaxTokens:
			if res.ModelStopReason == provider.StopContextFull {
				// Not the output cap: the conversation and the answer
				// filled the model's window, and a bigger cap cannot help.
				return &stoppedError{
					msg: "the answer filled the model's context window and is cut short (stop reason " + res.ModelStopReason + ")",
					fix: fmt.Sprintf("compact the conversation, then ask the model to go on: trail compact %s; trail resume %s \"continue\"", res.SessionID, res.SessionID),
				}
			}
			if res.MaxTokens == 0 {
				return &stoppedError{
					msg: "the server ended the answer at its own output limit; it is cut short (stop reason " + res.ModelStopReason + ")",
					fix: fmt.Sprintf("ask for a longer answer with --max-tokens N, or ask the model to go on: trail resume %s \"continue\"", res.SessionID),
				}
			}
			return &stoppedError{
				msg: fmt.Sprintf("the answer hit its output limit of %d tokens and is cut short (stop reason %s)", res.MaxTokens, res.ModelStopReason),
				fix: fmt.Sprintf("raise --max-tokens and ask again, or ask the model to go on: trail resume %s \"continue\"", res.SessionID),
			}
		case core.SubtypeRefusal:
			return &stoppedError{msg: refusalLine(res)}
		}
	}
	if pe := (*errs.ProviderError)(nil); res != nil && errors.As(err, &pe) && pe.ContextFull {
		// The provider could not name the session to compact; this can.
		pe.Fix = errs.ContextFullFix(res.SessionID, pe.ContextWindow)
	}
	if errors.Is(err, errs.ErrInterrupted) && res != nil {
		if res.Text == "" {
			// Nothing of an answer had come: saying it was saved would
			// send the person looking for text that is not there.
			return &exitError{code: ExitInterrupted, msg: "interrupted with no answer yet; session " + res.SessionID + " is saved"}
		}
		return &exitError{code: ExitInterrupted, msg: "interrupted; the partial answer is saved in session " + res.SessionID}
	}
	return err
}

func (r *renderer) dim(s string) string {
	if !r.color {
		return s
	}
	return "\x1b[2m" + s + "\x1b[0m"
}

// writeFailureObject writes the result of a step that never began.
func writeFailureObject(d *Deps, err error) {
	if b, jerr := logfmt.Marshal(failureObject(err, newUUID(d.NewID))); jerr == nil {
		fmt.Fprintf(d.IO.Out, "%s\n", b)
	}
}

// failureObject is the result of a step that never began: Claude Code's
// result shape with what is known, which is why.
func failureObject(err error, uuid string) logfmt.Object {
	msg := oneLine(err.Error())
	return logfmt.Object{
		logfmt.F("type", "result"),
		logfmt.F("schema_version", 1),
		logfmt.F("subtype", core.SubtypeError),
		logfmt.F("is_error", true),
		logfmt.F("result", ""),
		logfmt.F("session_id", nullIfEmpty(sessionOfError(err))),
		logfmt.F("uuid", uuid),
		logfmt.F("error", msg),
		logfmt.F("errors", []string{msg}),
	}
}

// sessionOfError is the session a failure before the step names, when it
// names one: a session busy with another step, a broken record, one with
// only its log. "" for none (not found, a refused option).
func sessionOfError(err error) string {
	var busy *store.BusyError
	var rec *store.CorruptError
	var nf *errs.NotFoundError
	switch {
	case errors.As(err, &busy) && !busy.Names():
		return busy.ID
	case errors.As(err, &rec):
		return idFromRecordPath(rec.Path)
	case errors.As(err, &nf):
		return nf.LogOnly
	}
	return ""
}

// resultObject is Claude Code's result shape (SPEC 6); fields are only ever
// added. Beside trail's own keys it carries the keys of Claude Code's
// result message that scripts read: terminal_reason, uuid (this result's
// own id), total_cost_usd and modelUsage (null until trail has a price
// table), deferred_tool_use when a hook deferred a call, and errors on a
// failed step.
func resultObject(res *core.Result, err error, uuid string) logfmt.Object {
	denials := make([]any, 0, len(res.PermissionDenials))
	for _, d := range res.PermissionDenials {
		denials = append(denials, d)
	}
	pending := make([]any, 0, len(res.PendingToolCalls))
	for _, p := range res.PendingToolCalls {
		pending = append(pending, p)
	}
	o := logfmt.Object{
		logfmt.F("type", "result"),
		logfmt.F("schema_version", 1),
		logfmt.F("subtype", res.Subtype),
		logfmt.F("is_error", res.IsError || err != nil),
		logfmt.F("result", res.Text),
		logfmt.F("session_id", res.SessionID),
		logfmt.F("num_turns", res.NumTurns),
		logfmt.F("duration_ms", res.DurationMS),
		logfmt.F("duration_api_ms", res.DurationAPIMS),
		logfmt.F("usage", usageObject(res.Usage)),
		logfmt.F("permission_denials", denials),
		logfmt.F("pending_tool_calls", pending),
		logfmt.F("provider", res.Provider),
		logfmt.F("model", res.Model),
		logfmt.F("stop_reason", res.StopReason),
		logfmt.F("model_stop_reason", nullIfEmpty(res.ModelStopReason)),
		logfmt.F("total_cost_usd", costValue(res.CostUSD)),
		logfmt.F("modelUsage", modelUsageObject(res.ModelUsage)),
		logfmt.F("terminal_reason", res.TerminalReason),
		logfmt.F("uuid", uuid),
	}
	if res.Refusal != "" {
		o = append(o, logfmt.F("refusal", res.Refusal))
	}
	if res.Deferred != nil {
		o = append(o, logfmt.F("deferred_tool_use", res.Deferred))
	}
	if err != nil && !errors.Is(err, errs.ErrInterrupted) {
		o = append(o, logfmt.F("error", oneLine(err.Error())))
	}
	if msgs := resultErrors(res, err); len(msgs) > 0 {
		o = append(o, logfmt.F("errors", msgs))
	}
	return o
}

// stoppedError is a step the model ended without an answer to use: a
// refusal, or an answer cut at the output limit (exit 1, SPEC 1.1's
// "unclassified failure"). The session is saved and usable.
type stoppedError struct{ msg, fix string }

func (e *stoppedError) Error() string { return e.msg }
func (e *stoppedError) Hint() string  { return e.fix }

// refusalLine says the model refused, in its words when it gave any,
// escaped for the terminal it is printed on (safe_text.go).
func refusalLine(res *core.Result) string {
	if res.Refusal != "" {
		return "the model refused to answer: " + safeText(res.Refusal)
	}
	return "the model refused to answer (stop_reason " + safeLine(res.ModelStopReason) + ")"
}

// resultErrors is Claude Code's errors list of a failed result: what went
// wrong, one sentence each.
func resultErrors(res *core.Result, err error) []string {
	switch {
	case res.Subtype == core.SubtypeMaxTurns:
		return []string{fmt.Sprintf("Reached maximum number of turns (%d)", res.NumTurns)}
	case err != nil && !errors.Is(err, errs.ErrInterrupted) && (res.IsError || res.Subtype == core.SubtypeError):
		return []string{oneLine(err.Error())}
	}
	return nil
}

// newUUID is a fresh id for a Claude-shaped message ("" when none can be made).
func newUUID(newID func() (string, error)) string {
	if newID == nil {
		return ""
	}
	id, err := newID()
	if err != nil {
		return ""
	}
	return id
}
