//go:build unix

package permission

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"trail/core/settings"
)

// A sed script named by -f is read for its commands only if it is a
// regular file: /dev/stdin or a FIFO would read trail's own input, or
// block the decision.
func TestASedScriptFromStdinOrAFIFOIsNotRead(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "f.sed")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	p, err := Build(ModeBypass, &settings.Settings{}, nil, []string{"Bash(rm -rf *)"}, dir)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan Verdict, 1)
	go func() { done <- p.Check("Bash", args("command", "sed -f "+fifo+" a.txt")) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the decision blocked on a FIFO named by sed -f")
	}
}
