package logfmt

import (
	"io"
	"os"
	"runtime"
)

// A big log file is read in two goroutines when there is a second core: one
// reads, splits and validates the lines (most of the cost on a log of short
// lines), the caller gets them and does the rest. Lines go across in
// batches of about pipedBatchSize bytes, copied out of the read buffer, and
// pipedBatches of them at most exist at once, so memory stays flat: a few
// megabytes, or the longest line.
const (
	pipedBatchSize  = 1 << 20
	pipedBatches    = 3
	pipedMinFile    = 8 << 20 // smaller logs: one goroutine is as fast
	pipedBatchLines = 16 << 10
)

type pipedBatch struct {
	buf   []byte
	lines []Line // Bytes is set from buf when the line is handed out
	ends  []int  // where each line's bytes end in buf
	err   error  // what ended the reading after these lines (io.EOF at the end)
}

type pipe struct {
	full, free chan *pipedBatch
	stop, done chan struct{}
	cur        *pipedBatch
	next       int // the next line of cur
	start      int // where it starts in cur.buf
	entries    int
	err        error
}

// piped reports whether r is worth reading in two goroutines: a regular
// file of pipedMinFile bytes or more (its reads never wait for a writer,
// so Release can wait for the reading goroutine) and a second core.
func piped(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok || runtime.GOMAXPROCS(0) < 2 {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode().IsRegular() && st.Size() >= pipedMinFile
}

// startPipe starts reading src (the reader's own sequential path) in a
// goroutine.
func startPipe(src *Reader) *pipe {
	p := &pipe{
		full: make(chan *pipedBatch, pipedBatches),
		free: make(chan *pipedBatch, pipedBatches),
		stop: make(chan struct{}),
		done: make(chan struct{}),
	}
	for range pipedBatches {
		p.free <- &pipedBatch{}
	}
	go p.run(src)
	return p
}

func (p *pipe) run(src *Reader) {
	defer close(p.done)
	for {
		var b *pipedBatch
		select {
		case b = <-p.free:
		case <-p.stop:
			return
		}
		if cap(b.buf) > maxKeptLong {
			b.buf = nil // a long line's batch is not kept
		}
		b.buf, b.lines, b.ends, b.err = b.buf[:0], b.lines[:0], b.ends[:0], nil
		for len(b.buf) < pipedBatchSize && len(b.lines) < pipedBatchLines {
			l, err := src.Next()
			if err != nil {
				b.err = err
				break
			}
			b.buf = append(b.buf, l.Bytes...)
			l.Bytes = nil
			b.lines = append(b.lines, l)
			b.ends = append(b.ends, len(b.buf))
		}
		select {
		case p.full <- b:
		case <-p.stop:
			return
		}
		if b.err != nil {
			return
		}
	}
}

// next is Reader.Next for a piped reader.
func (p *pipe) nextLine() (Line, error) {
	for p.cur == nil || p.next >= len(p.cur.lines) {
		if p.err != nil {
			return Line{}, p.err
		}
		if p.cur != nil {
			if p.cur.err != nil {
				p.err = p.cur.err
			}
			p.free <- p.cur // the lines handed out of it are no longer valid
			p.cur = nil
			continue
		}
		p.cur, p.next, p.start = <-p.full, 0, 0
	}
	l := p.cur.lines[p.next]
	end := p.cur.ends[p.next]
	l.Bytes = p.cur.buf[p.start:end:end]
	p.next++
	p.start = end
	if !l.Torn {
		p.entries++
	}
	return l, nil
}

// close stops the reading goroutine and waits for it: the source may be
// closed once Release returns.
func (p *pipe) close() {
	close(p.stop)
	<-p.done
}
