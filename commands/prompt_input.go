package commands

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"trail/core"
	"trail/core/chat"
	"trail/core/errs"
	"trail/store"
)

// readPrompt assembles the prompt (SPEC 1.3): -p, else the arguments, else
// standard input when it is not a terminal; with both a prompt and piped
// input, the input follows the prompt after a blank line. It never hangs on
// an idle inherited stdin: with a prompt given, a pipe that yields nothing
// within StdinWait is ignored with a warning. It never reads more input
// than the model's context window could hold (core.InputWindow), and a
// signal ends the read at once.
func readPrompt(ctx context.Context, o *RunOptions) (string, error) {
	prompt := o.Prompt
	if prompt == "" {
		prompt = strings.Join(o.Args, " ")
	} else if len(o.Args) > 0 {
		return "", errs.Usagef("give the prompt either with -p or as arguments", "prompt given twice: -p and %s", store.QuoteInput(o.Args[0]))
	}
	// A resume that decides approvals needs no prompt, so an idle inherited
	// pipe must not hold it up either.
	input, err := readStdin(ctx, o, prompt != "" || o.allowsEmptyPrompt())
	if err != nil {
		return "", err
	}
	input = strings.TrimRight(input, "\r\n")
	switch {
	case strings.TrimSpace(input) == "":
	case strings.TrimSpace(prompt) == "":
		prompt = input
	default:
		prompt = prompt + "\n\n" + input
	}
	// Whether a prompt is needed is the step's to judge (no prompt: exit
	// 2; a paused session resumed without one names its calls, exit 4).
	return prompt, nil
}

// allowsEmptyPrompt: a resume that only decides pending approvals needs none.
func (o *RunOptions) allowsEmptyPrompt() bool {
	return o.Step.Resume && o.decidesApprovals()
}

// stdinSlack is read past window*4 bytes before input is called too large:
// trailing newlines are trimmed, and the bound should never be what decides
// for an input the window can take.
const stdinSlack = 64 << 10

func readStdin(ctx context.Context, o *RunOptions, havePrompt bool) (string, error) {
	if o.NoStdin {
		return "", nil
	}
	var idle time.Duration // how long a pipe may stay silent; 0: no limit
	switch o.IO.stdinKind() {
	case stdinNone:
		return "", nil
	case stdinPipe:
		if havePrompt {
			idle = o.Deps.StdinWait
		}
	}
	window, exact := core.InputWindow(&o.Step, o.Deps.Env)
	limit := window*chat.BytesPerToken + stdinSlack
	b, err := readInput(ctx, o, limit, idle)
	if err != nil {
		return "", err
	}
	if int64(len(b)) > limit {
		return "", core.StdinTooLarge(limit, window, exact)
	}
	return string(b), nil
}

// readInput reads standard input to its end, or to one byte past limit. The
// read runs on a goroutine so that a signal, or a pipe silent for idle
// (when idle > 0), ends the wait: an inherited pipe may never send anything
// nor close, and the goroutine is then left to the process exit.
func readInput(ctx context.Context, o *RunOptions, limit int64, idle time.Duration) ([]byte, error) {
	type result struct {
		b   []byte
		err error
	}
	began := make(chan struct{})
	done := make(chan result, 1)
	go func() {
		r := &io.LimitedReader{R: o.IO.In, N: limit + 1}
		var buf bytes.Buffer
		first := make([]byte, 32<<10)
		n, err := r.Read(first)
		buf.Write(first[:n])
		close(began)
		if err == nil {
			_, err = buf.ReadFrom(r)
		}
		if errors.Is(err, io.EOF) {
			err = nil
		}
		done <- result{buf.Bytes(), err}
	}()
	var silent <-chan time.Time
	if idle > 0 {
		t := time.NewTimer(idle)
		defer t.Stop()
		silent = t.C
	}
	select {
	case <-began:
	case <-silent:
		fmt.Fprintf(o.IO.ErrOut, "trail: warning: standard input sent nothing for %s; ignoring it (pass --no-stdin to skip it)\n", idle)
		return nil, nil
	case <-ctx.Done():
		return nil, errs.Interrupted(ctx.Err(), "reading standard input")
	}
	select {
	case r := <-done:
		if r.err != nil {
			return nil, fmt.Errorf("read standard input: %w", r.err)
		}
		return r.b, nil
	case <-ctx.Done():
		return nil, errs.Interrupted(ctx.Err(), "reading standard input")
	}
}
