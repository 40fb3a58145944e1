//go:build unix

package tools

import (
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// mkfifo makes a named pipe at path (platform_windows_test.go: none there).
func mkfifo(path string) error { return syscall.Mkfifo(path, 0o644) }

// setUmask sets the process umask and returns a func that restores it.
func setUmask(mask int) (restore func()) {
	old := syscall.Umask(mask)
	return func() { syscall.Umask(old) }
}

// The stop command a background call gives stops a pipeline whole: kill of
// the pid alone left `server | tee log`'s server running.
func TestTheStopCommandOfABackgroundCallStopsItsPipeline(t *testing.T) {
	r := call(t, Bash{}, world(t, nil), `{"command":"sleep 30 | cat","run_in_background":true}`)
	i := strings.Index(r.Output, "kill -- -")
	if !r.Success || i < 0 {
		t.Fatalf("%+v", r)
	}
	stop := strings.TrimSuffix(strings.TrimSuffix(r.Output[i:], "."), "`")
	pgid, err := strconv.Atoi(strings.TrimPrefix(stop, "kill -- -"))
	if err != nil {
		t.Fatalf("%q: %v", stop, err)
	}
	if err := syscall.Kill(-pgid, 0); err != nil {
		t.Fatalf("the pipeline is not running in group %d: %v", pgid, err)
	}
	if out, err := exec.Command("sh", "-c", stop).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v %s", stop, err, out)
	}
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(-pgid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("group %d still runs after %s", pgid, stop)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
