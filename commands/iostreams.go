package commands

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"

	"github.com/mattn/go-isatty"
)

// IOStreams is every byte trail reads or writes to the user. Nothing else in
// commands touches os.Stdin/Stdout/Stderr, so tests can swap in buffers.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	inFile    *os.File // for Stat: pipes, files and /dev/null are read differently
	outFile   *os.File // for the terminal's width
	errFile   *os.File // for the spinner: its terminal's width, and whether trail is in the foreground there
	width     int      // a fixed width (tests); 0: ask the terminal
	stdinTTY  bool
	stdoutTTY bool
	stderrTTY bool
	noColor   bool
	// asking: a question is on stderr and its answer line has not been
	// read, so stderr's cursor sits after "[y/N] " (see EndQuestion).
	asking atomic.Bool
}

// EndQuestion ends the line of a question left unanswered (Ctrl-C at the
// prompt), so what is printed next starts a line of its own.
func (s *IOStreams) EndQuestion() {
	if s.asking.Swap(false) {
		fmt.Fprintln(s.ErrOut)
	}
}

// SystemIO wires the process's standard streams.
func SystemIO() *IOStreams {
	return &IOStreams{
		In: os.Stdin, Out: &outWriter{w: &stdoutFile{}}, ErrOut: os.Stderr,
		inFile:    os.Stdin,
		outFile:   os.Stdout,
		errFile:   os.Stderr,
		stdinTTY:  isTTY(os.Stdin),
		stdoutTTY: isTTY(os.Stdout),
		stderrTTY: isTTY(os.Stderr),
	}
}

func isTTY(f *os.File) bool {
	fd := f.Fd()
	return isatty.IsTerminal(fd) || isatty.IsCygwinTerminal(fd)
}

// TestIO returns streams backed by buffers, with no terminal anywhere.
func TestIO() (ios *IOStreams, in, out, errOut *bytes.Buffer) {
	in, out, errOut = &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: in, Out: out, ErrOut: errOut}, in, out, errOut
}

func (s *IOStreams) IsStdinTTY() bool  { return s.stdinTTY }
func (s *IOStreams) IsStdoutTTY() bool { return s.stdoutTTY }
func (s *IOStreams) IsStderrTTY() bool { return s.stderrTTY }

// SetTTY overrides terminal detection (tests).
func (s *IOStreams) SetTTY(stdin, stdout, stderr bool) {
	s.stdinTTY, s.stdoutTTY, s.stderrTTY = stdin, stdout, stderr
}

// CanPrompt is true when a person can answer: stdin and stderr are terminals.
func (s *IOStreams) CanPrompt() bool { return s.stdinTTY && s.stderrTTY }

// SetNoColor turns color off (--no-color).
func (s *IOStreams) SetNoColor() { s.noColor = true }

// ColorEnabled decides, for all of trail, whether stderr gets colour:
//   - never with --no-color, NO_COLOR (no-color.org: set and not empty);
//   - always with CLICOLOR_FORCE or FORCE_COLOR set, not empty, not "0"
//     and not "false" (chalk's FORCE_COLOR=false is off), terminal or not
//     (a CI log that shows colour, a pager that reads it): forcing colour
//     turns on colour only, never the spinner or a question;
//   - else only on a terminal, and not with CLICOLOR=0 or TERM=dumb.
func (s *IOStreams) ColorEnabled(env func(string) string) bool {
	if s.noColor {
		return false
	}
	if _, set := lookupEnv(env, "NO_COLOR"); set {
		return false
	}
	if forced(env("CLICOLOR_FORCE")) || forced(env("FORCE_COLOR")) {
		return true
	}
	return s.stderrTTY && env("CLICOLOR") != "0" && env("TERM") != "dumb"
}

func forced(v string) bool { return v != "" && v != "0" && !strings.EqualFold(v, "false") }

// CanAnimate is true when stderr is a terminal that can redraw a line in
// place: not TERM=dumb (Emacs' shell, some IDE consoles), where each frame
// of a spinner would show as text of its own, as cargo also judges.
func (s *IOStreams) CanAnimate(env func(string) string) bool {
	return s.stderrTTY && env("TERM") != "dumb"
}

func lookupEnv(env func(string) string, key string) (string, bool) {
	v := env(key)
	return v, v != ""
}

// stdinKind tells how standard input may be read without hanging.
type stdinKind int

const (
	stdinNone stdinKind = iota // a terminal: never read implicitly
	stdinFile                  // a regular file, /dev/null or a buffer: read at once
	stdinPipe                  // a pipe or socket: may stay open and idle
)

func (s *IOStreams) stdinKind() stdinKind {
	if s.stdinTTY {
		return stdinNone
	}
	if s.inFile == nil {
		if s.In == nil {
			return stdinNone
		}
		return stdinFile
	}
	fi, err := s.inFile.Stat()
	if err != nil {
		return stdinNone
	}
	m := fi.Mode()
	if m&(os.ModeNamedPipe|os.ModeSocket) != 0 {
		return stdinPipe
	}
	return stdinFile
}
