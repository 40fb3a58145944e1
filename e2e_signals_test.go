//go:build linux

package main_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Signals on the built binary: SIGINT or SIGTERM at any moment after the
// handlers are in ends trail with 130 (or 0 when it had already finished),
// never with the Go runtime's death by signal, never with exit 1.

// holdLock takes the session's flock the way store/lock.go does, so trail
// finds the session busy.
func (e *env) holdLock(id string) func() {
	e.t.Helper()
	f, err := os.OpenFile(filepath.Join(e.home, "sessions", id+".lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		e.t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		e.t.Fatal(err)
	}
	release := func() { f.Close() }
	e.t.Cleanup(release)
	return release
}

// opensWatch reports, through inotify, each time a process opens path: a
// step waiting for a busy session opens its lock file on every try.
type opensWatch struct{ fd int }

func watchOpens(t *testing.T, path string) *opensWatch {
	t.Helper()
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := syscall.InotifyAddWatch(fd, path, syscall.IN_OPEN); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	return &opensWatch{fd: fd}
}

// waitOpen waits up to 10 s for an open of the watched file.
func (w *opensWatch) waitOpen(t *testing.T) {
	t.Helper()
	buf := make([]byte, 4096)
	waitFor(t, func() bool {
		n, _ := syscall.Read(w.fd, buf)
		return n > 0
	})
}

// exitOf is c's exit code; it fails the test when c died of a signal.
func exitOf(t *testing.T, c *exec.Cmd) int {
	t.Helper()
	ws, ok := c.ProcessState.Sys().(syscall.WaitStatus)
	if ok && ws.Signaled() {
		t.Fatalf("trail was killed by %v instead of exiting", ws.Signal())
	}
	return c.ProcessState.ExitCode()
}

// start starts trail with args and stderr captured.
func (e *env) start(args ...string) (*exec.Cmd, *bytes.Buffer) {
	e.t.Helper()
	c := e.cmd(args...)
	var errb bytes.Buffer
	c.Stderr = &errb
	if err := c.Start(); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { c.Process.Kill() })
	return c, &errb
}

// waitExit waits for c, failing the test when it takes longer than limit.
func waitExit(t *testing.T, c *exec.Cmd, limit time.Duration) time.Duration {
	t.Helper()
	done := make(chan error, 1)
	start := time.Now()
	go func() { done <- c.Wait() }()
	select {
	case <-done:
		return time.Since(start)
	case <-time.After(limit):
		c.Process.Kill()
		<-done
		t.Fatalf("trail did not exit within %s of the signal", limit)
	}
	return 0
}

// Every command that waits for a session's lock (--wait) says so at once,
// gives up at once on SIGINT or SIGTERM, exits 130 and leaves the session
// as it was.
func TestASignalWhileWaitingForABusySessionExits130(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		sig  syscall.Signal
		args func(id string) []string
		prep func(e *env, id string) // makes the session need the command
		want string                  // stderr's first line; "waiting for session <id>" when empty
	}{
		{name: "resume", sig: syscall.SIGINT, args: func(id string) []string { return []string{"resume", id, "--wait", "30s", "hi"} }},
		{name: "resume on SIGTERM", sig: syscall.SIGTERM, args: func(id string) []string { return []string{"resume", id, "--wait", "30s", "hi"} }},
		{name: "run --session-id", sig: syscall.SIGINT, args: func(id string) []string {
			return []string{"run", "--provider", "echo", "--session-id", id, "--wait", "30s", "hi"}
		}},
		{name: "compact", sig: syscall.SIGINT, args: func(id string) []string { return []string{"compact", id, "--wait", "30s"} }},
		{name: "delete", sig: syscall.SIGINT, args: func(id string) []string { return []string{"delete", id, "--yes", "--wait", "30s"} }},
		{name: "replay --write-record", sig: syscall.SIGINT, args: func(id string) []string {
			return []string{"replay", id, "--write-record", "--force", "--wait", "30s"}
		}},
		{name: "migrate-history", sig: syscall.SIGINT, args: func(string) []string { return []string{"migrate-history", "--wait", "30s"} },
			prep: func(e *env, id string) { e.dropHistory(id) },
			want: "trail: interrupted while migrating records; the records counted above are done, the rest untouched\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.must("", "run", "--provider", "echo", "hello")
			id := e.onlySession()
			if tt.prep != nil {
				tt.prep(e, id)
			}
			before := filesUnder(t, e.home)
			e.holdLock(id)
			w := watchOpens(t, filepath.Join(e.home, "sessions", id+".lock"))
			c, stderr := e.start(tt.args(id)...)
			w.waitOpen(t) // trail is trying the lock
			if err := c.Process.Signal(tt.sig); err != nil {
				t.Fatal(err)
			}
			waitExit(t, c, 10*time.Second)
			if code := exitOf(t, c); code != 130 {
				t.Fatalf("exit %d, want 130; stderr %q", code, stderr)
			}
			want := tt.want
			if want == "" {
				want = "trail: interrupted while waiting for session " + id + "\n"
			}
			// Said at once, so the wait does not look like a hang.
			notice := "trail: session " + id + " is busy: waiting up to 30s for the step that holds it (Ctrl-C stops)\n"
			if got := stderr.String(); !strings.HasPrefix(got, notice) || !strings.HasPrefix(got[len(notice):], want) {
				t.Errorf("stderr = %q, want %q then %q", got, notice, want)
			}
			if !sameFiles(before, filesUnder(t, e.home)) {
				t.Error("the home changed")
			}
		})
	}
}

// dropHistory rewrites a record without its history, which migrate-history
// then wants to fill.
func (e *env) dropHistory(id string) {
	e.t.Helper()
	var rec map[string]json.RawMessage // messages keep their bytes
	if err := json.Unmarshal([]byte(readFile(e.t, e.recordPath(id))), &rec); err != nil {
		e.t.Fatal(err)
	}
	delete(rec, "history")
	b, err := json.Marshal(rec)
	if err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(e.recordPath(id), b, 0o600); err != nil {
		e.t.Fatal(err)
	}
}

// notifyInstalled reports whether pid has called signal.Notify for SIGINT
// and SIGTERM. The Go runtime keeps one thread for os/signal whose mask
// blocks every signal nobody asked for (SIGUSR1 among them) and unblocks
// the ones Notify was given; no other thread of a Go process blocks
// SIGUSR1 with SIGINT open.
func notifyInstalled(pid int) bool {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/status", pid))
	for _, p := range tasks {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		_, rest, ok := strings.Cut(string(b), "\nSigBlk:")
		if !ok {
			continue
		}
		hex, _, _ := strings.Cut(strings.TrimSpace(rest), "\n")
		mask, err := strconv.ParseUint(hex, 16, 64)
		if err != nil {
			continue
		}
		bit := func(s syscall.Signal) bool { return mask&(1<<(uint(s)-1)) != 0 }
		if bit(syscall.SIGUSR1) && !bit(syscall.SIGINT) && !bit(syscall.SIGTERM) {
			return true
		}
	}
	return false
}

// running reports whether pid is alive and not yet a zombie.
func running(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name.
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && b[i+2] != 'Z' && b[i+2] != 'X'
}

// A Ctrl-C from the moment trail's handlers are in (the first thing main
// does) to its exit ends it cleanly: 130, or 0 when the step had finished.
// The signals are spread over the whole of a short run (reading stdin,
// settings, the lock, the answer, the save, the exit).
func TestSIGINTAtAnyMomentOfARunExits130Or0(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.rawLogs = true // checked below, per session
	codes := map[int]int{}
	for i := range 40 {
		c, stderr := e.start("run", "--provider", "echo", "hi")
		for deadline := time.Now().Add(patience); !notifyInstalled(c.Process.Pid) && running(c.Process.Pid); {
			if time.Now().After(deadline) {
				t.Fatalf("trail neither installed its handlers nor ended within %s", patience)
			}
			time.Sleep(50 * time.Microsecond)
		}
		time.Sleep(time.Duration(i%20) * 250 * time.Microsecond)
		c.Process.Signal(syscall.SIGINT)
		waitExit(t, c, 10*time.Second)
		code := exitOf(t, c)
		codes[code]++
		if code != 0 && code != 130 {
			t.Fatalf("run %d: exit %d, want 130 or 0; stderr %q", i, code, stderr)
		}
		if strings.Contains(stderr.String(), "context canceled") {
			t.Errorf("run %d: stderr %q", i, stderr)
		}
	}
	t.Logf("exit codes: %v", codes)
	// Whatever the moment, each record parses and its log replays to it
	// (in-process: the code trail replay runs, 40 processes fewer).
	for _, id := range e.sessionIDs() {
		e.record(id)
		if _, err := os.Stat(e.logPath(id)); err == nil {
			e.sameMessages(id, e.replayInProcess(id))
		}
	}
}

// A signal while trail waits for standard input ends the wait: an idle
// inherited pipe is read for StdinWait with a prompt, for ever without.
func TestSIGINTWhileReadingStandardInputExits130(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"run", "--provider", "echo", "hi"},
		{"run", "--provider", "echo"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			pr, pw, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer pw.Close()
			c := e.cmd(args...)
			c.Stdin = pr
			var stderr bytes.Buffer
			c.Stderr = &stderr
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			pr.Close()
			t.Cleanup(func() { c.Process.Kill() })
			waitFor(t, func() bool { return notifyInstalled(c.Process.Pid) })
			c.Process.Signal(syscall.SIGINT)
			waitExit(t, c, 10*time.Second)
			if code := exitOf(t, c); code != 130 {
				t.Fatalf("exit %d, want 130; stderr %q", code, stderr.String())
			}
			// Not the wait for stdin running out (StdinWait, 3 s, with a
			// prompt), then a signal during the step: the signal ended the
			// read. Said by trail, so a loaded machine cannot blur it.
			if want := "trail: interrupted while reading standard input\n"; !strings.HasPrefix(stderr.String(), want) {
				t.Errorf("stderr = %q, want %q", stderr.String(), want)
			}
			if ids := e.sessionIDs(); len(ids) != 0 {
				t.Errorf("sessions written: %v", ids)
			}
		})
	}
}

// Waiting for a busy session: --wait takes a number of seconds as
// --timeout does (`--wait 2` used to be a parse error), the wait is said
// at once, and --quiet keeps it to itself; the busy error at the end
// still says why the step did not run.
func TestWaitingForABusySession(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.must("", "run", "--provider", "echo", "hello")
	id := e.onlySession()
	e.holdLock(id)
	for _, tt := range []struct {
		args   []string
		notice bool
	}{
		{[]string{"--wait", "0.5"}, true},
		{[]string{"-q", "--wait", "1s"}, false},
	} {
		r := e.run("", append(append([]string{"resume", id}, tt.args...), "hi")...)
		if r.code != 5 || r.elapsed < 400*time.Millisecond || !strings.Contains(r.stderr, "busy") ||
			strings.Contains(r.stderr, "is busy: waiting up to "+tt.args[len(tt.args)-1]) != tt.notice {
			t.Errorf("resume %v: %s (%s)", tt.args, r, r.elapsed)
		}
	}
}
