//go:build unix

package main_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// validate-log and replay read logs of any size, from files, FIFOs and
// standard input: SIGINT or SIGTERM ends them within moments, exit 130,
// however much is left to read, even a log that never ends; a line that
// never ends does not take the memory with it.
func TestASignalStopsReadingALogThatNeverEnds(t *testing.T) {
	t.Parallel()
	line := `{"timestamp":"2026-01-01T00:00:00.000Z","sessionId":"s","event":"text_delta","delta":"the quick brown fox"}` + "\n"
	lines := []byte(strings.Repeat(line, (64<<10)/len(line)))
	zeros := make([]byte, 64<<10)
	tests := []struct {
		name    string
		sig     syscall.Signal
		fifo    bool     // the log is a FIFO given by path, else standard input
		args    []string // "LOG" stands for the FIFO's path
		chunk   []byte
		before  int64  // bytes written before the signal
		maxRSS  int64  // KiB; 0: not checked
		wantErr string // stderr's first line, "LOG" standing for the path
	}{
		{"validate-log - on endless lines", syscall.SIGINT, false, []string{"validate-log", "-"}, lines, 4 << 20, 0,
			"trail: interrupted while validating <stdin>; no report written"},
		// Alone it peaks near 80 MiB (the 64 MiB cap's pieces); a busy
		// machine starves the collector, so the bound tells a capped line
		// from one held whole by reading far more than it.
		{"validate-log - on one endless line, SIGTERM", syscall.SIGTERM, false, []string{"validate-log", "-"}, zeros, 1 << 30, 448 << 10,
			"trail: interrupted while validating <stdin>; no report written"},
		{"validate-log FIFO --format json", syscall.SIGINT, true, []string{"validate-log", "LOG", "--format", "json"}, lines, 4 << 20, 0,
			"trail: interrupted while validating LOG; no report written"},
		{"replay FIFO --format jsonl", syscall.SIGINT, true, []string{"replay", "LOG", "--format", "jsonl"}, lines, 4 << 20, 0,
			"trail: interrupted while replaying LOG"},
		{"replay FIFO --format json, SIGTERM", syscall.SIGTERM, true, []string{"replay", "LOG", "--format", "json"}, lines, 4 << 20, 0,
			"trail: interrupted while replaying LOG"},
		{"replay FIFO --view requests", syscall.SIGINT, true, []string{"replay", "LOG", "--view", "requests"}, lines, 4 << 20, 0,
			"trail: interrupted while replaying LOG"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			fifo := filepath.Join(e.cwd, "endless.jsonl")
			args := make([]string, len(tt.args))
			for i, a := range tt.args {
				args[i] = strings.ReplaceAll(a, "LOG", fifo)
			}
			c := e.cmd(args...)
			var stdout, stderr bytes.Buffer
			c.Stdout, c.Stderr = &stdout, &stderr
			var open func() (*os.File, error)
			if tt.fifo {
				if err := mkfifo(fifo); err != nil {
					t.Fatal(err)
				}
				open = func() (*os.File, error) { return os.OpenFile(fifo, os.O_WRONLY, 0) }
				// Should trail never open it, this ends the writer's wait.
				t.Cleanup(func() {
					if f, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
						f.Close()
					}
				})
			} else {
				r, w, err := os.Pipe()
				if err != nil {
					t.Fatal(err)
				}
				c.Stdin = r
				open = func() (*os.File, error) { return w, nil }
			}
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Process.Kill() })
			if c.Stdin != nil {
				c.Stdin.(*os.File).Close() // trail holds the only reading end: its exit ends the writer
			}
			var written atomic.Int64
			go func() {
				w, err := open()
				if err != nil {
					return
				}
				defer w.Close()
				for {
					n, err := w.Write(tt.chunk)
					written.Add(int64(n))
					if err != nil {
						return // trail exited: a broken pipe
					}
				}
			}()
			// Only a reading trail takes this much through a pipe: its
			// signal handlers are in.
			waitFor(t, func() bool { return written.Load() >= tt.before })
			if err := c.Process.Signal(tt.sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- c.Wait() }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				c.Process.Kill()
				<-done
				t.Fatalf("trail still read %d MiB later, 10s after the signal; stderr %q", written.Load()>>20, stderr.String())
			}
			if ws, ok := c.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				t.Fatalf("trail was killed by %v instead of exiting", ws.Signal())
			}
			want := strings.ReplaceAll(tt.wantErr, "LOG", fifo) + "\n"
			if code := c.ProcessState.ExitCode(); code != 130 || stderr.String() != want {
				t.Fatalf("exit %d, stderr %q; want 130 and %q", code, stderr.String(), want)
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout = %.200q, want nothing", stdout.String())
			}
			if rss, ok := peakRSSKiB(c.ProcessState); tt.maxRSS > 0 && ok && rss > tt.maxRSS {
				t.Errorf("peak RSS %d MiB reading %d MiB of one line, want under %d MiB", rss>>10, written.Load()>>20, tt.maxRSS>>10)
			}
		})
	}
}
