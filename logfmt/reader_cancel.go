package logfmt

import (
	"context"
	"io"
	"os"
)

// A reader given a context stops at its cancellation (SIGINT, SIGTERM),
// however much of the log is left. The check sits where the buffer is
// refilled, once per read, never per line: a line costs nothing more, and
// every refill is at most a megabyte away, a line without end included.
// A read that waits (a pipe with no writer yet, a terminal) cannot be
// cut short by a check before it, so a source that can block is read by
// a goroutine of its own and the wait for its next piece is what the
// cancellation ends; that goroutine is left to the process exit if the
// source never answers (commands' readInput leaves its own the same way).

// cancelReader fails every read once ctx is done.
type cancelReader struct {
	ctx  context.Context
	done <-chan struct{}
	src  io.Reader
}

func (c *cancelReader) Read(p []byte) (int, error) {
	select {
	case <-c.done:
		return 0, c.ctx.Err()
	default:
	}
	return c.src.Read(p)
}

// cancelable returns r read under ctx, and the pump reading it when it has
// one (nil otherwise), to stop on Release. A context that is never done
// costs nothing.
func cancelable(ctx context.Context, r io.Reader) (io.Reader, *pump) {
	if ctx == nil || ctx.Done() == nil {
		return r, nil
	}
	c := &cancelReader{ctx: ctx, done: ctx.Done(), src: r}
	var p *pump
	if mayBlock(r) {
		p = startPump(ctx, r)
		c.src = p
	}
	return c, p
}

// mayBlock reports whether a read of r can wait on another process: a
// pipe, a FIFO, a terminal, a device. A regular file's reads do not, and
// it must stay readable (Seek) after Release, which a goroutine still
// reading ahead would spoil; readers that are not files are left as
// they are for the same reason.
func mayBlock(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err != nil || !st.Mode().IsRegular()
}

const (
	pumpChunk  = 128 << 10 // a pipe hands over at most 64 KiB a read
	pumpChunks = 3
)

type pumpPiece struct {
	buf []byte
	n   int
	err error
}

// pump reads src in its own goroutine, a chunk at a time, so that the
// reader waits on a channel it can leave instead of on the read itself.
type pump struct {
	done  <-chan struct{}
	ctx   context.Context
	full  chan pumpPiece
	free  chan []byte
	stop  chan struct{}
	cur   pumpPiece // the piece being handed out
	off   int
	held  bool // cur.buf is out of the free list
	ended bool // cur.err is the source's last word
}

func startPump(ctx context.Context, src io.Reader) *pump {
	p := &pump{
		ctx:  ctx,
		done: ctx.Done(),
		full: make(chan pumpPiece, pumpChunks),
		free: make(chan []byte, pumpChunks),
		stop: make(chan struct{}),
	}
	for range pumpChunks {
		p.free <- make([]byte, pumpChunk)
	}
	go p.run(src)
	return p
}

func (p *pump) run(src io.Reader) {
	for {
		var buf []byte
		select {
		case buf = <-p.free:
		case <-p.stop:
			return
		}
		n, err := src.Read(buf)
		select {
		case p.full <- pumpPiece{buf: buf, n: n, err: err}:
		case <-p.stop:
			return
		}
		if err != nil {
			return
		}
	}
}

func (p *pump) Read(b []byte) (int, error) {
	for p.off >= p.cur.n {
		if p.ended {
			return 0, p.cur.err
		}
		if p.held {
			p.free <- p.cur.buf // never blocks: the list holds every buffer
			p.held = false
		}
		select {
		case p.cur = <-p.full:
			p.off, p.held, p.ended = 0, true, p.cur.err != nil
		case <-p.done:
			return 0, p.ctx.Err()
		}
	}
	n := copy(b, p.cur.buf[p.off:p.cur.n])
	p.off += n
	return n, nil
}

// close ends the goroutine once its read in progress returns; it does
// not wait for it, since that read may never return.
func (p *pump) close() { close(p.stop) }
