package commands

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// spinner shows that trail is waiting (for the model's first byte) on a
// terminal's stderr. Start and Stop are called from the step's goroutine;
// Stop waits until the line is cleared, so whatever the caller writes next
// (to stderr or to stdout on the same terminal) never interleaves with a
// frame. The first frame waits a moment: an answer that arrives at once
// shows no flicker. Rules for a frame:
//   - it is cut to the terminal's width less one column, the width read
//     afresh for each frame: a line that wraps cannot be redrawn with \r,
//     and each frame would leave a line behind (the last column stays
//     free, as git's progress does, for terminals that wrap on filling it);
//   - it is drawn only while trail is the terminal's foreground job,
//     checked for each frame (fg and bg move a job): a background job's
//     frames would land on the shell's prompt;
//   - with escapes allowed (colour on) the line is cleared with \x1b[K,
//     else with spaces over the columns the last frame took.
type spinner struct {
	w      io.Writer
	escape bool             // colour, \x1b[K
	now    func() time.Time // the injected clock the shown time is read from
	// width is the terminal's columns (0: unknown, nothing is cut);
	// foreground is false while trail is a background job.
	width      func() int
	foreground func() bool
	// delay before the first frame and between frames (spinnerDelay,
	// spinnerTick); drawn, when set, is told of every frame drawn, so a
	// test waits for the frame instead of sleeping.
	delay, tick time.Duration
	drawn       chan<- struct{}
	label       string
	start       time.Time
	stop        chan struct{}
	done        chan struct{}
}

const (
	spinnerDelay = 150 * time.Millisecond
	spinnerTick  = 100 * time.Millisecond
)

var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

func newSpinner(w io.Writer, escape bool, now func() time.Time) *spinner {
	return &spinner{w: w, escape: escape, now: now, delay: spinnerDelay, tick: spinnerTick,
		width: func() int { return 0 }, foreground: func() bool { return true }}
}

// Start shows label with a clock from zero, replacing a spinner already shown.
func (s *spinner) Start(label string) {
	if s == nil {
		return
	}
	if s.stop != nil {
		s.Stop()
	}
	s.label, s.start = label, s.now()
	s.stop, s.done = make(chan struct{}), make(chan struct{})
	go s.run(s.label, s.start, s.stop, s.done)
}

// Running reports whether the spinner is shown (or about to be).
func (s *spinner) Running() bool { return s != nil && s.stop != nil }

// Stop clears the spinner's line and returns once it is gone.
func (s *spinner) Stop() {
	if s == nil || s.stop == nil {
		return
	}
	close(s.stop)
	<-s.done
	s.stop, s.done = nil, nil
}

func (s *spinner) run(label string, start time.Time, stop, done chan struct{}) {
	defer close(done)
	t := time.NewTimer(s.delay)
	defer t.Stop()
	shown := 0 // the columns of the frame on the screen
	for i := 0; ; i++ {
		select {
		case <-stop:
			if w := s.width(); w > 0 {
				shown = min(shown, w-1)
			}
			if shown > 0 && s.foreground() {
				fmt.Fprint(s.w, s.clear(shown))
			}
			return
		case <-t.C:
		}
		t.Reset(s.tick)
		if !s.foreground() {
			continue
		}
		line := fmt.Sprintf("%s %s %s", spinnerFrames[i%len(spinnerFrames)], label, elapsed(s.now().Sub(start)))
		if w := s.width(); w > 0 {
			line = cutTo(line, w-1)
			shown = min(shown, w-1) // a narrower window: spaces past it would wrap
		}
		if line == "" {
			continue
		}
		fmt.Fprint(s.w, s.frame(line, shown))
		shown = max(shown, displayWidth(line))
		if s.drawn != nil {
			select {
			case s.drawn <- struct{}{}:
			default:
			}
		}
	}
}

// frame is line drawn over the frame before it, which took shown columns.
func (s *spinner) frame(line string, shown int) string {
	if s.escape {
		return "\r\x1b[2m" + line + "\x1b[0m\x1b[K"
	}
	return "\r" + line + strings.Repeat(" ", max(0, shown-displayWidth(line)))
}

// clear blanks the spinner's line, shown columns of it, and leaves the
// cursor at its start.
func (s *spinner) clear(shown int) string {
	if s.escape {
		return "\r\x1b[K"
	}
	return "\r" + strings.Repeat(" ", shown) + "\r"
}

// elapsed is a short clock for the spinner: "3s", "1m05s".
func elapsed(d time.Duration) string {
	s := int(d.Seconds())
	if s < 60 {
		return fmt.Sprintf("%ds", s)
	}
	return fmt.Sprintf("%dm%02ds", s/60, s%60)
}
