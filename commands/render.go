package commands

import (
	"errors"
	"fmt"
	"strings"

	"trail/core"
	"trail/logfmt"
)

// renderer shows a step: it observes events while the step runs and writes
// the result at the end. Stdout carries only the result; progress goes to
// stderr, and only on a terminal (or with --verbose).
type renderer struct {
	o        *RunOptions
	color    bool
	progress bool // stderr shows progress: a terminal, not --quiet
	verbose  bool
	session  string
}

func newRenderer(o *RunOptions) *renderer {
	io := o.IO
	return &renderer{
		o:        o,
		color:    io.ColorEnabled(o.Deps.Env),
		progress: io.IsStderrTTY() && !o.Globals.Quiet,
		verbose:  o.Globals.Verbose,
	}
}

// Event implements core.Observer.
func (r *renderer) Event(e core.StepEvent) {
	switch e.Kind {
	case core.EvSession:
		r.session = e.SessionID
	case core.EvWarning:
		fmt.Fprintf(r.o.IO.ErrOut, "trail: warning: %s\n", e.Text)
	case core.EvRetry:
		if r.progress || r.verbose {
			fmt.Fprintf(r.o.IO.ErrOut, "trail: retrying in %s (attempt %d): %s\n", e.Wait.Round(1e6), e.Attempt, e.Text)
		}
	case core.EvToolFinished, core.EvNotice:
		r.toolEvent(e)
	case core.EvAssistantMessage:
		// Intermediate answers of a tool loop are progress, not the result.
		if r.verbose && !r.o.IO.IsStderrTTY() && e.Message != nil && len(e.Message.ToolCalls) > 0 && e.Message.Content != "" {
			fmt.Fprintln(r.o.IO.ErrOut, e.Message.Content)
		}
	}
}

// finish writes the result and returns the error that decides the exit code.
func (r *renderer) finish(res *core.Result, err error) error {
	io := r.o.IO
	if res != nil {
		switch r.o.Output {
		case outJSON:
			b, jerr := logfmt.Marshal(resultObject(res, err))
			if jerr == nil {
				fmt.Fprintf(io.Out, "%s\n", b)
			}
		default:
			if err == nil && res.Text != "" {
				text := res.Text
				if !strings.HasSuffix(text, "\n") {
					text += "\n"
				}
				fmt.Fprint(io.Out, text)
			}
		}
		if r.progress {
			fmt.Fprintf(io.ErrOut, "%s\n", r.dim("session "+res.SessionID))
		}
	}
	if err == nil && res != nil && res.Subtype == core.SubtypeMaxTurns {
		return &exitError{code: ExitFailure, msg: fmt.Sprintf("stopped after %d turns (--max-turns); the session is saved: trail resume %s", res.NumTurns, res.SessionID)}
	}
	if errors.Is(err, core.ErrInterrupted) && res != nil {
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

// resultObject is Claude Code's result shape (SPEC 6); fields are only ever added.
func resultObject(res *core.Result, err error) logfmt.Object {
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
		logfmt.F("usage", logfmt.Object{
			logfmt.F("input_tokens", res.Usage.InputTokens),
			logfmt.F("output_tokens", res.Usage.OutputTokens),
		}),
		logfmt.F("permission_denials", denials),
		logfmt.F("pending_tool_calls", pending),
		logfmt.F("provider", res.Provider),
		logfmt.F("model", res.Model),
		logfmt.F("stop_reason", res.StopReason),
	}
	if err != nil && !errors.Is(err, core.ErrInterrupted) {
		o = append(o, logfmt.F("error", oneLine(err.Error())))
	}
	return o
}
