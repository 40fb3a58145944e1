package commands

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"trail/core"
	"trail/store"
)

// readPrompt assembles the prompt (SPEC 1.3): -p, else the arguments, else
// standard input when it is not a terminal; with both a prompt and piped
// input, the input follows the prompt after a blank line. It never hangs on
// an idle inherited stdin: with a prompt given, a pipe that yields nothing
// within StdinWait is ignored with a warning.
func readPrompt(o *RunOptions) (string, error) {
	prompt := o.Prompt
	if prompt == "" {
		prompt = strings.Join(o.Args, " ")
	} else if len(o.Args) > 0 {
		return "", core.Usagef("give the prompt either with -p or as arguments", "prompt given twice: -p and %s", store.QuoteInput(o.Args[0]))
	}
	// A resume that decides approvals needs no prompt, so an idle inherited
	// pipe must not hold it up either.
	input, err := readStdin(o, prompt != "" || o.allowsEmptyPrompt())
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
	// A resume without a prompt is judged once its session is loaded: a
	// paused one names the calls it waits for (exit 4).
	if strings.TrimSpace(prompt) == "" && !o.Resume {
		return "", core.Usagef("give a prompt as arguments, with -p, or on standard input", "no prompt")
	}
	return prompt, nil
}

// allowsEmptyPrompt: a resume that only decides pending approvals needs none.
func (o *RunOptions) allowsEmptyPrompt() bool {
	return o.Resume && o.decidesApprovals()
}

func readStdin(o *RunOptions, havePrompt bool) (string, error) {
	if o.NoStdin {
		return "", nil
	}
	switch o.IO.stdinKind() {
	case stdinNone:
		return "", nil
	case stdinFile:
		b, err := io.ReadAll(o.IO.In)
		if err != nil {
			return "", fmt.Errorf("read standard input: %w", err)
		}
		return string(b), nil
	}
	if !havePrompt {
		b, err := io.ReadAll(o.IO.In)
		if err != nil {
			return "", fmt.Errorf("read standard input: %w", err)
		}
		return string(b), nil
	}
	return readPipeUnlessIdle(o, o.Deps.StdinWait)
}

// readPipeUnlessIdle waits up to wait for the first byte. Once input flows it
// is read to the end; if none comes, the pipe is left to the process exit.
func readPipeUnlessIdle(o *RunOptions, wait time.Duration) (string, error) {
	type chunk struct {
		b   []byte
		err error
	}
	first := make(chan chunk, 1)
	go func() {
		buf := make([]byte, 32*1024)
		n, err := o.IO.In.Read(buf)
		first <- chunk{buf[:n], err}
	}()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case c := <-first:
		if c.err != nil && !errors.Is(c.err, io.EOF) {
			return "", fmt.Errorf("read standard input: %w", c.err)
		}
		if errors.Is(c.err, io.EOF) {
			return string(c.b), nil
		}
		rest, err := io.ReadAll(o.IO.In)
		if err != nil {
			return "", fmt.Errorf("read standard input: %w", err)
		}
		return string(c.b) + string(rest), nil
	case <-t.C:
		fmt.Fprintf(o.IO.ErrOut, "trail: warning: standard input sent nothing for %s; ignoring it (pass --no-stdin to skip it)\n", wait)
		return "", nil
	}
}
