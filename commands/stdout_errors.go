package commands

import (
	"errors"
	"io"
	"sync"
	"syscall"
)

// outWriter is standard output, keeping its first write error. A command
// that prints its answer and returns success while the answer went nowhere
// (a full disk, a closed descriptor) would lie to the script reading it:
// Main turns the kept error into exit 1 (stdoutFailure).
type outWriter struct {
	w   io.Writer
	mu  sync.Mutex
	err error
}

func (o *outWriter) Write(p []byte) (int, error) {
	n, err := o.w.Write(p)
	if err != nil {
		o.mu.Lock()
		if o.err == nil {
			o.err = err
		}
		o.mu.Unlock()
	}
	return n, err
}

// OutErr is the first error writing standard output met, if any.
func (s *IOStreams) OutErr() error {
	o, ok := s.Out.(*outWriter)
	if !ok {
		return nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.err
}

// stdoutFailure is the error of a command whose output was lost. A reader
// that went away (EPIPE, when SIGPIPE is ignored) is not news to anyone:
// the exit code says it, with no message.
func stdoutFailure(err error) error {
	if errors.Is(err, syscall.EPIPE) {
		return &exitError{code: ExitFailure}
	}
	return &exitError{code: ExitFailure, msg: "write standard output: " + unwrapPathError(err).Error()}
}

// unwrapPathError drops os.PathError's "write /dev/stdout" wrapping, which
// names the stream the message already names.
func unwrapPathError(err error) error {
	var pe interface{ Unwrap() error }
	if errors.As(err, &pe) {
		if inner := pe.Unwrap(); inner != nil {
			return inner
		}
	}
	return err
}
