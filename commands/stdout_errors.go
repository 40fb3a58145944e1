package commands

import (
	"context"
	"errors"
	"io"
	"os"
	"sync"
	"syscall"
	"time"
)

// outWriter is standard output, keeping its first write error. A command
// that prints its answer and returns success while the answer went nowhere
// (a full disk, a closed descriptor) would lie to the script reading it:
// Main turns the kept error into exit 1 (stdoutFailure).
//
// A step into a pipe writes through a buffer that a goroutine of its own
// empties (detach): a reader that pauses (a `while read` loop running a
// command per line, a stalled ssh) then no longer stops the step reading
// its provider's stream, whose idle timer would blame the server, nor its
// save, which an interrupt must reach. Main waits for the buffer to empty
// before exit, or for a signal. A reader that went away (EPIPE: SIGPIPE
// is ignored, signals.go) calls broken, which ends the step as an
// interrupt would: the partial answer is saved, and nobody is left to
// read the rest.
type outWriter struct {
	w      io.Writer
	mu     sync.Mutex
	err    error
	broken func() // called once, on the first EPIPE
	help   bool   // what was written is help (help_reader_gone.go)
	wrote  bool   // anything was written (json_asked.go)
	// helpWidth is the terminal's width help is wrapped to, 0 for none
	helpWidth int

	// detached writing
	async   bool
	cond    *sync.Cond
	buf     []byte
	writing bool
}

// afterInterrupt is how long an interrupted command's last output may take
// to reach a reader.
const afterInterrupt = 2 * time.Second

// maxPending bounds what a detached writer holds for a slow reader; past
// it, writes wait as they did before (a replay of gigabytes must not be
// read into memory).
const maxPending = 16 << 20

func (o *outWriter) Write(p []byte) (int, error) {
	o.mu.Lock()
	o.wrote = o.wrote || len(p) > 0
	if !o.async {
		o.mu.Unlock()
		n, err := o.w.Write(p)
		if err != nil {
			o.fail(err)
		}
		return n, err
	}
	defer o.mu.Unlock()
	for o.err == nil && len(o.buf) >= maxPending {
		o.cond.Wait()
	}
	if o.err != nil {
		return 0, o.err
	}
	o.buf = append(o.buf, p...)
	o.cond.Broadcast()
	return len(p), nil
}

// fail keeps err as the first error and calls broken for a reader gone.
func (o *outWriter) fail(err error) {
	o.mu.Lock()
	first := o.err == nil
	if first {
		o.err = err
	}
	broken := o.broken
	o.mu.Unlock()
	if first && broken != nil && errors.Is(err, syscall.EPIPE) {
		broken()
	}
}

// detach starts the goroutine that empties the buffer.
func (o *outWriter) detach() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.async {
		return
	}
	o.async, o.cond = true, sync.NewCond(&o.mu)
	go o.drain()
}

func (o *outWriter) drain() {
	var spare []byte
	for {
		o.mu.Lock()
		for len(o.buf) == 0 {
			o.cond.Wait()
		}
		chunk := o.buf
		o.buf, o.writing = spare[:0], true
		o.cond.Broadcast() // room for writers waiting on maxPending
		o.mu.Unlock()
		_, err := o.w.Write(chunk)
		spare = chunk
		if err != nil {
			o.fail(err)
		}
		o.mu.Lock()
		o.writing = false
		if o.err != nil {
			o.buf = nil // nobody will read it
		}
		o.cond.Broadcast()
		o.mu.Unlock()
	}
}

// flush waits until what was written has reached the descriptor, or ctx
// ends (a signal: the session is saved, and a reader that does not read
// must not keep trail from exiting). After an interrupt, what is left (a
// stream-json result line) still gets afterInterrupt to arrive.
func (o *outWriter) flush(ctx context.Context) {
	if ctx.Err() != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), afterInterrupt)
		defer cancel()
	}
	o.mu.Lock()
	async := o.async
	o.mu.Unlock()
	if !async {
		return
	}
	done := make(chan struct{})
	go func() {
		o.mu.Lock()
		for o.err == nil && (len(o.buf) > 0 || o.writing) {
			o.cond.Wait()
		}
		o.mu.Unlock()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// DetachOut makes standard output a pipe's buffered writer (outWriter):
// for the step commands, when it is not a terminal, where what a person
// reads keeps its order with stderr's progress lines.
func (s *IOStreams) DetachOut() {
	if o, ok := s.Out.(*outWriter); ok && !s.stdoutTTY {
		o.detach()
	}
}

// FlushOut waits for a detached standard output to empty, or for ctx.
func (s *IOStreams) FlushOut(ctx context.Context) {
	if o, ok := s.Out.(*outWriter); ok {
		o.flush(ctx)
	}
}

// OnBrokenOut sets what a reader gone away (EPIPE) calls, once.
func (s *IOStreams) OnBrokenOut(f func()) {
	if o, ok := s.Out.(*outWriter); ok {
		o.mu.Lock()
		o.broken = f
		o.mu.Unlock()
	}
}

// OutErr is the first error writing standard output met, if any.
// wroteNothing reports whether nothing was written to stdout; false when
// stdout is no outWriter, which cannot tell.
func (s *IOStreams) wroteNothing() bool {
	o, ok := s.Out.(*outWriter)
	if !ok {
		return false
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return !o.wrote
}

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
// that went away (EPIPE) is not news to anyone: the exit code says it,
// with no message.
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

// stdoutFile is standard output, checked on its first write for a stream
// the shell closed (closedAtStart): then every write fails, and the command
// ends with exit 1 as for any output that cannot be written, rather than
// exit 0 with the answer gone.
type stdoutFile struct {
	once   sync.Once
	closed bool
}

var errStdoutClosed = errors.New("it was closed (>&-)")

// StdoutClosed reports whether standard output was closed when trail
// started, for main's --version, which writes without an IOStreams.
func StdoutClosed() bool { return closedAtStart(os.Stdout) }

func (s *stdoutFile) Write(p []byte) (int, error) {
	s.once.Do(func() { s.closed = closedAtStart(os.Stdout) })
	if s.closed {
		return 0, errStdoutClosed
	}
	return os.Stdout.Write(p)
}
