package commands

import "strconv"

// defaultWidth is assumed when a terminal will not say how wide it is.
const defaultWidth = 80

// TerminalWidth is the width in columns of the terminal stdout writes to:
// what the terminal says, else $COLUMNS, else 80.
func (s *IOStreams) TerminalWidth(env func(string) string) int {
	if s.width > 0 {
		return s.width
	}
	if s.outFile != nil {
		if n := ttyWidth(s.outFile); n > 0 {
			return n
		}
	}
	if n, err := strconv.Atoi(env("COLUMNS")); err == nil && n > 0 {
		return n
	}
	return defaultWidth
}

// SetWidth fixes the terminal width (tests).
func (s *IOStreams) SetWidth(n int) { s.width = n }

// StderrWidth is the width in columns of the terminal stderr writes to, 0
// when it will not say. Asked afresh on each call (one ioctl): the spinner
// follows a window being resized.
func (s *IOStreams) StderrWidth() int {
	if s.width > 0 {
		return s.width
	}
	if s.errFile != nil {
		return ttyWidth(s.errFile)
	}
	return 0
}
