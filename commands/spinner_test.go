package commands

import (
	"bytes"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// syncBuffer is a buffer the spinner's goroutine writes while a test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

var sgr = regexp.MustCompile(`\x1b\[[0-9;]*[A-Za-z]`)

// testSpinner draws frames fast; width says the terminal's columns frame
// by frame.
func testSpinner(escape bool, width func() int) (*spinner, *syncBuffer, chan struct{}) {
	var buf syncBuffer
	s := newSpinner(&buf, escape, time.Now)
	drawn := make(chan struct{}, 1)
	s.delay, s.tick, s.drawn, s.width = time.Millisecond, time.Millisecond, drawn, width
	return s, &buf, drawn
}

// frames are what each \r starts on the line: its text, escapes removed.
func frames(out string) []string {
	var fs []string
	for _, f := range strings.Split(out, "\r")[1:] {
		fs = append(fs, sgr.ReplaceAllString(f, ""))
	}
	return fs
}

// On a terminal narrower than "⠋ waiting for anthropic 0s" every frame is
// cut to the width less one column, its padding too: a frame that wrapped
// would leave a line behind at every redraw.
func TestSpinnerFramesFitANarrowTerminal(t *testing.T) {
	for _, escape := range []bool{true, false} {
		s, buf, drawn := testSpinner(escape, func() int { return 20 })
		s.Start("waiting for anthropic")
		for range 3 {
			waitDrawn(t, drawn)
		}
		s.Stop()
		fs := frames(buf.String())
		if len(fs) < 4 {
			t.Fatalf("escape %v: %q", escape, buf.String())
		}
		for _, f := range fs {
			if w := displayWidth(f); w > 19 {
				t.Errorf("escape %v: a frame of %d columns on a 20-column terminal: %q", escape, w, f)
			}
		}
		if !strings.HasPrefix(fs[0], "⠋ waiting for anth") {
			t.Errorf("escape %v: first frame %q", escape, fs[0])
		}
		want := "\r" + strings.Repeat(" ", 19) + "\r"
		if escape {
			want = "\r\x1b[K"
		}
		if !strings.HasSuffix(buf.String(), want) {
			t.Errorf("escape %v: the line is not cleared with %q: %q", escape, want, buf.String())
		}
	}
}

// A window made narrower while the spinner runs: the next frames and the
// spaces that blank the old one fit the new width.
func TestSpinnerFollowsAWindowMadeNarrower(t *testing.T) {
	var cols atomic.Int32
	cols.Store(80)
	s, buf, drawn := testSpinner(false, func() int { return int(cols.Load()) })
	s.Start("waiting for anthropic")
	waitDrawn(t, drawn)
	cols.Store(12)
	n := len(buf.String())
	for len(buf.String()) == n {
		waitDrawn(t, drawn)
	}
	waitDrawn(t, drawn)
	s.Stop()
	out := buf.String()
	fs := frames(out[n:])
	for _, f := range fs {
		if w := displayWidth(f); w > 11 {
			t.Errorf("a frame of %d columns after the window shrank to 12: %q", w, f)
		}
	}
	if displayWidth(frames(out)[0]) < 20 {
		t.Errorf("the first frame was cut on 80 columns: %q", out)
	}
}

// A background job draws nothing; brought back to the foreground (fg), it
// draws again.
func TestSpinnerDrawsOnlyInTheForeground(t *testing.T) {
	var fg atomic.Bool
	asked := make(chan struct{}, 1)
	s, buf, drawn := testSpinner(true, func() int { return 80 })
	s.foreground = func() bool {
		select {
		case asked <- struct{}{}:
		default:
		}
		return fg.Load()
	}
	s.Start("waiting for anthropic")
	for range 5 {
		select {
		case <-asked:
		case <-time.After(10 * time.Second):
			t.Fatal("the spinner did not check the foreground")
		}
	}
	if got := buf.String(); got != "" {
		t.Fatalf("a background job drew %q", got)
	}
	fg.Store(true)
	waitDrawn(t, drawn)
	s.Stop()
	if got := buf.String(); !strings.Contains(got, "waiting for anthropic") || !strings.HasSuffix(got, "\r\x1b[K") {
		t.Errorf("back in the foreground: %q", got)
	}
}

// Stopped while in the background, the spinner writes nothing over the
// shell to clear its line.
func TestSpinnerStoppedInTheBackgroundLeavesTheShellAlone(t *testing.T) {
	var fg atomic.Bool
	fg.Store(true)
	s, buf, drawn := testSpinner(true, func() int { return 80 })
	s.foreground = fg.Load
	s.Start("waiting for anthropic")
	waitDrawn(t, drawn)
	fg.Store(false)
	s.Stop()
	if got := buf.String(); strings.HasSuffix(got, "\r\x1b[K") {
		t.Errorf("cleared its line from the background: %q", got)
	}
}

// TERM=dumb (Emacs' shell, IDE consoles) shows each frame as text of its
// own: no spinner there, as cargo shows no progress.
func TestNoSpinnerOnADumbTerminal(t *testing.T) {
	for term, want := range map[string]bool{"dumb": false, "xterm-256color": true, "": true} {
		ios, _, _, _ := TestIO()
		ios.SetTTY(false, false, true)
		d := testDeps(t, ios)
		d.Env = func(k string) string {
			if k == "TERM" {
				return term
			}
			return ""
		}
		if r := newRenderer(&RunOptions{IO: ios, Deps: d, Output: outText}); (r.spin != nil) != want {
			t.Errorf("TERM=%q: spinner %v, want %v", term, r.spin != nil, want)
		}
	}
}
