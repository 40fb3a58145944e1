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
// shows no flicker.
type spinner struct {
	w     io.Writer
	color bool
	now   func() time.Time // the injected clock the shown time is read from
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

func newSpinner(w io.Writer, color bool, now func() time.Time) *spinner {
	return &spinner{w: w, color: color, now: now, delay: spinnerDelay, tick: spinnerTick}
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
	width := 0
	for i := 0; ; i++ {
		select {
		case <-stop:
			if width > 0 {
				fmt.Fprint(s.w, "\r"+strings.Repeat(" ", width)+"\r")
			}
			return
		case <-t.C:
		}
		line := fmt.Sprintf("%s %s %s", spinnerFrames[i%len(spinnerFrames)], label, elapsed(s.now().Sub(start)))
		pad := ""
		if n := len([]rune(line)); n < width {
			pad = strings.Repeat(" ", width-n)
		} else {
			width = n
		}
		if s.color {
			line = "\x1b[2m" + line + "\x1b[0m"
		}
		fmt.Fprint(s.w, "\r"+line+pad)
		if s.drawn != nil {
			select {
			case s.drawn <- struct{}{}:
			default:
			}
		}
		t.Reset(s.tick)
	}
}

// elapsed is a short clock for the spinner: "3s", "1m05s".
func elapsed(d time.Duration) string {
	s := int(d.Seconds())
	if s < 60 {
		return fmt.Sprintf("%ds", s)
	}
	return fmt.Sprintf("%dm%02ds", s/60, s%60)
}
