package logfmt

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// endless repeats unit until n bytes went out, and cancels its context
// once cancelAt bytes did: the signal arriving mid-read.
type endless struct {
	unit        []byte
	n, cancelAt int64
	read        int64
	cancel      func()
	pos         int
}

func (e *endless) Read(p []byte) (int, error) {
	if e.read >= e.n {
		return 0, io.EOF
	}
	m := 0
	for m < len(p) && e.read < e.n {
		c := copy(p[m:], e.unit[e.pos:])
		e.pos = (e.pos + c) % len(e.unit)
		m += c
		e.read += int64(c)
	}
	if e.read >= e.cancelAt {
		e.cancel()
	}
	return m, nil
}

// A cancelled validation stops within a read of the signal, on a line
// without end as on endless short lines, and says why.
func TestValidateStopsWhenCancelled(t *testing.T) {
	const total, at = 512 << 20, 8 << 20
	for _, unit := range []string{"0", `{"timestamp":"2026-01-01T00:00:00.000Z","sessionId":"s","event":"text_delta","delta":"a"}` + "\n", "y\n"} {
		t.Run(strings.TrimSpace(unit[:1]), func(t *testing.T) {
			at, total := int64(at), int64(total)
			if unit == "y\n" {
				at, total = 1, 4<<20 // a broken line costs more than a good one: fewer of them
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			src := &endless{unit: []byte(unit), n: total, cancelAt: at, cancel: cancel}
			rep, err := ValidateContext(ctx, src, ValidateOptions{Dir: t.TempDir(), MaxIssues: 10})
			if !errors.Is(err, context.Canceled) || rep != nil {
				t.Fatalf("Validate = %v, %v after %d MiB; want context.Canceled", rep != nil, err, src.read>>20)
			}
			if src.read > at+4*readerBufSize {
				t.Errorf("read %d MiB after the cancel at %d MiB", src.read>>20, at>>20)
			}
		})
	}
}

// A read that waits on a pipe nobody writes to does not hold up the
// cancellation.
func TestValidateStopsOnAnIdlePipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close() // ends the read the cancelled validation left behind
	if _, err := w.WriteString(`{"timestamp":"2026-01-01T00:00:00.000Z","sessionId":"s","event":"user","content":"hi"}` + "\n"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := ValidateContext(ctx, r, ValidateOptions{Dir: t.TempDir()})
		done <- err
	}()
	time.Sleep(50 * time.Millisecond) // let it wait in the read, as a reader of an idle pipe does
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Validate = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Validate still waits on the pipe 10s after the cancel")
	}
}

// The same pipe, closed by its writer, reads to its end as before.
func TestValidateReadsAPipeToItsEnd(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	go func() {
		defer w.Close()
		for i := range 3 {
			_, _ = w.WriteString(ev(i, "user", `"content":"hi"`) + "\n")
		}
		_, _ = w.WriteString(`{"torn":`)
	}()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rep, err := ValidateContext(ctx, r, ValidateOptions{Dir: t.TempDir()})
	if err != nil || rep.Entries != 3 || len(rep.Issues) != 1 || rep.Issues[0].Code != CodeTruncatedTail {
		t.Fatalf("Validate = %v, %+v", err, rep)
	}
}

// Every reading path of replay and validate-log stops once the context
// is done, the two-goroutine reader of a big file included.
func TestReadingPathsStopWhenCancelled(t *testing.T) {
	dir := t.TempDir()
	line := ev(0, "history_mutation", `"mutation":"append_message","index":0,"message":{"id":"u","role":"user","content":"hi"}`) + "\n"
	path := filepath.Join(dir, "s.jsonl")
	if err := os.WriteFile(path, []byte(strings.Repeat(line, (pipedMinFile+len(line))/len(line))), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	noop := func(json.RawMessage) error { return nil }
	paths := map[string]func() error{
		"ValidateFileContext": func() error { _, err := ValidateFileContext(ctx, path, ValidateOptions{}); return err },
		"ReplayFileContext":   func() error { _, err := ReplayFileContext(ctx, path, ReplayOptions{Strict: true}); return err },
		"ReplayFileContext, streaming": func() error {
			_, err := ReplayFileContext(ctx, path, ReplayOptions{Strict: true, Context: noop})
			return err
		},
		"ReplayFileContext, transcript": func() error {
			_, err := ReplayFileContext(ctx, path, ReplayOptions{Transcript: true, Emit: func(TranscriptItem) error { return nil }})
			return err
		},
		"ReadRequestsContext": func() error { return ReadRequestsContext(ctx, path, func(Request) error { return nil }) },
	}
	for name, read := range paths {
		if err := read(); !errors.Is(err, context.Canceled) {
			t.Errorf("%s = %v, want context.Canceled", name, err)
		}
	}
	// Without a context the same file reads whole.
	if rep, err := ValidateFile(path, ValidateOptions{}); err != nil || rep.Entries == 0 {
		t.Errorf("ValidateFile = %v", err)
	}
}
