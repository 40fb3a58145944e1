package commands

// StderrForeground is false while trail is a background job of the
// terminal stderr writes to (term_foreground_*.go).
func (s *IOStreams) StderrForeground() bool {
	return s.errFile == nil || inForeground(s.errFile)
}
