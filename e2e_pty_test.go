//go:build linux || darwin

package main_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// pty is a pseudo-terminal pair built with the standard library only; how
// the slave side is unlocked and named differs per system
// (e2e_pty_linux_test.go, e2e_pty_darwin_test.go).
type pty struct {
	master, slave *os.File
}

func openPTY(t *testing.T) *pty {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	name, err := unlockPTY(m)
	if err != nil {
		m.Close()
		t.Fatalf("unlock pty: %v", err)
	}
	s, err := os.OpenFile(name, os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Fatalf("open pty slave: %v", err)
	}
	p := &pty{master: m, slave: s}
	t.Cleanup(func() { m.Close(); s.Close() })
	return p
}

// terminalRun is trail running on a pseudo-terminal.
type terminalRun struct {
	t      *testing.T
	cmd    *exec.Cmd
	out    chan []byte
	seen   bytes.Buffer
	master *os.File
}

// startOnTerminal starts trail with the pty as its stdin, stdout and stderr
// and as its controlling terminal.
func (e *env) startOnTerminal(args ...string) *terminalRun {
	e.t.Helper()
	return e.startCmdOnTerminal(e.cmd(args...))
}

// startCmdOnTerminal starts c (trail, or a shell that runs it) on a pty.
func (e *env) startCmdOnTerminal(c *exec.Cmd) *terminalRun {
	e.t.Helper()
	p := openPTY(e.t)
	if e.cols > 0 {
		ws := [4]uint16{24, uint16(e.cols), 0, 0} // rows, columns, pixels
		if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, p.master.Fd(), syscall.TIOCSWINSZ, uintptr(unsafe.Pointer(&ws))); errno != 0 {
			e.t.Fatalf("set the terminal's width: %v", errno)
		}
	}
	c.Stdin, c.Stdout, c.Stderr = p.slave, p.slave, p.slave
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := c.Start(); err != nil {
		e.t.Fatal(err)
	}
	p.slave.Close()
	tr := &terminalRun{t: e.t, cmd: c, out: make(chan []byte, 64), master: p.master}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := p.master.Read(buf)
			if n > 0 {
				tr.out <- append([]byte(nil), buf[:n]...)
			}
			if err != nil { // EIO once trail exits and the slave closes
				close(tr.out)
				return
			}
		}
	}()
	return tr
}

// expect reads the terminal until text appears.
func (tr *terminalRun) expect(text string) {
	tr.t.Helper()
	deadline := time.After(patience)
	for !strings.Contains(tr.seen.String(), text) {
		select {
		case b, ok := <-tr.out:
			if !ok {
				tr.t.Fatalf("trail ended before %q appeared:\n%s", text, tr.seen.String())
			}
			tr.seen.Write(b)
		case <-deadline:
			tr.t.Fatalf("%q did not appear within %s:\n%s", text, patience, tr.seen.String())
		}
	}
}

func (tr *terminalRun) send(s string) {
	tr.t.Helper()
	if _, err := tr.master.Write([]byte(s)); err != nil {
		tr.t.Fatal(err)
	}
}

// wait reads to the end and returns the exit code and everything shown.
func (tr *terminalRun) wait() (int, string) {
	tr.t.Helper()
	timeout := time.After(patience)
	for open := true; open; {
		select {
		case b, ok := <-tr.out:
			if !ok {
				open = false
				break
			}
			tr.seen.Write(b)
		case <-timeout:
			tr.cmd.Process.Kill()
			tr.t.Fatalf("trail did not finish:\n%s", tr.seen.String())
		}
	}
	err := tr.cmd.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		tr.t.Fatal(err)
	}
	return code, tr.seen.String()
}

func TestTerminalPromptYRunsTheTool(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.script(calls(call("Bash", map[string]any{"command": "touch made"})), answer("done"))
	tr := e.startOnTerminal("run", "--provider", "script", "--script", s, "go")
	tr.expect("allow Bash(touch made)?")
	tr.expect("[y/a/N]")
	if e.exists("made") {
		t.Fatal("the tool ran before the answer")
	}
	tr.send("y\r")
	code, shown := tr.wait()
	if code != 0 || !e.exists("made") {
		t.Fatalf("exit %d, made exists %v:\n%s", code, e.exists("made"), shown)
	}
	t.Logf("terminal:\n%s", shown)
	if !strings.Contains(shown, "✓ Bash(touch made)") || !strings.Contains(shown, "done") {
		t.Errorf("terminal shows:\n%s", shown)
	}
	d := e.events(e.onlySession(), "permission_decision")[0]
	if d["decision"] != "allow" || d["source"] != "prompt" {
		t.Errorf("permission_decision = %v", d)
	}
}

func TestTerminalPromptNDenies(t *testing.T) {
	t.Parallel()
	for _, answer := range []string{"n\r", "\r"} { // n, and Enter for the default
		e := newEnv(t)
		s := e.script(calls(call("Write", map[string]any{"filePath": "a.txt", "content": "x"})), map[string]any{"text": "ok"})
		tr := e.startOnTerminal("run", "--provider", "script", "--script", s, "go")
		tr.expect("[y/a/N]")
		tr.send(answer)
		code, shown := tr.wait()
		if code != 0 || e.exists("a.txt") {
			t.Fatalf("answer %q: exit %d, a.txt exists %v:\n%s", answer, code, e.exists("a.txt"), shown)
		}
		if !strings.Contains(shown, "✗ Write(a.txt) denied") {
			t.Errorf("terminal shows:\n%s", shown)
		}
		if got := e.toolResults(e.onlySession())["call_0_0"]["error"]; got != "Permission denied. The user did not approve this action." {
			t.Errorf("result = %v", got)
		}
	}
}

func TestTerminalPromptAIsRememberedByTheNextResume(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.script(
		calls(call("Bash", map[string]any{"command": "touch one"})), answer("first"),
		calls(call("Bash", map[string]any{"command": "touch two"})), answer("second"))
	tr := e.startOnTerminal("run", "--provider", "script", "--script", s, "go")
	tr.expect("[y/a/N]")
	tr.send("a\r")
	if code, shown := tr.wait(); code != 0 || !e.exists("one") {
		t.Fatalf("exit %d:\n%s", code, shown)
	}
	id := e.onlySession()
	if got := fmt.Sprint(e.record(id)["sessionAllowedTools"]); got != "[Bash]" {
		t.Fatalf("sessionAllowedTools = %s", got)
	}
	// piped now: no one could be asked, yet Bash is allowed for this session
	r := e.must("", "resume", id, "again")
	if r.stdout != "second\n" || !e.exists("two") {
		t.Fatalf("%s", r)
	}
	var sources []string
	for _, d := range e.events(id, "permission_decision") {
		sources = append(sources, d["source"].(string))
	}
	if strings.Join(sources, ",") != "prompt,session" {
		t.Errorf("sources = %v", sources)
	}
}

// A CI job with a pseudo-terminal (docker run -t, some runners) has no one
// to answer: with CI set, a call that needs approval is denied as when
// piped, not asked until the job's time limit.
func TestCIOnATerminalDoesNotAsk(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.setenv("CI=true")
	s := e.script(calls(call("Bash", map[string]any{"command": "touch made"})), answer("done"))
	tr := e.startOnTerminal("run", "--provider", "script", "--script", s, "go")
	code, shown := tr.wait()
	if code != 0 || e.exists("made") || strings.Contains(shown, "[y/a/N]") || !strings.Contains(shown, "denied: CI is set, no one to ask") {
		t.Fatalf("exit %d, made %v:\n%s", code, e.exists("made"), shown)
	}
}

// A tool that wants the terminal (sudo's password question, an ssh
// passphrase, `read </dev/tty`) fails at once: tools run in a session of
// their own, without trail's terminal. In trail's session the kernel
// stopped it (SIGTTIN) and the step hung until the tool's time limit.
func TestAToolThatOpensTheTerminalFailsAtOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.script(calls(call("Bash", map[string]any{"command": "read x </dev/tty; echo got:$x", "timeout": 20000})), answer("done"))
	tr := e.startOnTerminal("run", "--provider", "script", "--script", s, "--allow-tool", "Bash", "go")
	code, shown := tr.wait()
	if code != 0 || !strings.Contains(shown, "done") {
		t.Fatalf("exit %d:\n%s", code, shown)
	}
	res := e.toolResults(e.onlySession())["call_0_0"]
	out, _ := json.Marshal(res)
	if strings.Contains(string(out), "timed out") || !strings.Contains(strings.ToLower(string(out)), "no such device") {
		t.Fatalf("the tool did not fail at once for want of a terminal: %s", out)
	}
}

// Keys typed before a question is shown do not answer it: "y" and Enter
// typed while a hook (or the model) was still busy used to approve a call
// the person had never seen.
func TestTypeaheadDoesNotAnswerTheQuestion(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.withSettings(map[string]any{"hooks": map[string]any{"PreToolUse": []any{
		map[string]any{"matcher": "Bash", "hooks": []any{map[string]any{"type": "command", "command": "touch hook-started; sleep 1"}}},
	}}})
	s := e.script(calls(call("Bash", map[string]any{"command": "touch made"})), answer("done"))
	tr := e.startOnTerminal("run", "--provider", "script", "--script", s, "go")
	waitFor(t, func() bool { return e.exists("hook-started") })
	tr.send("y\r")
	tr.expect("[y/a/N]")
	time.Sleep(200 * time.Millisecond) // an answer taken from the typeahead would run the tool now
	if e.exists("made") {
		t.Fatal("the keys typed before the question approved the call")
	}
	tr.send("n\r")
	code, shown := tr.wait()
	if code != 0 || e.exists("made") || !strings.Contains(shown, "denied") {
		t.Fatalf("exit %d, made %v:\n%s", code, e.exists("made"), shown)
	}
}

// The question shows what the call is, not what its text makes a terminal
// display: a bidi override in the model's command used to reach the
// terminal raw in the question (and only there), so the command could read
// reordered at the one place a person decides on it.
func TestTheQuestionEscapesWhatWouldDisguiseTheCall(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.cols = 120
	s := e.script(calls(call("Bash", map[string]any{"command": "echo harmless # \u202e; ~ fr- mr \x1b[2J"})), answer("done"))
	tr := e.startOnTerminal("run", "--provider", "script", "--script", s, "go")
	tr.expect("[y/a/N]")
	tr.send("n\r")
	code, shown := tr.wait()
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, shown)
	}
	question := shown[strings.Index(shown, "allow Bash("):]
	question = question[:strings.Index(question, "[y/a/N]")]
	if strings.ContainsRune(question, '\u202e') || strings.ContainsRune(question, '\x1b') {
		t.Fatalf("the question carries the raw characters: %q", question)
	}
	if !strings.Contains(question, `\u202e`) {
		t.Fatalf("the question does not show the override as text: %q", question)
	}
	for _, line := range strings.Split(question, "\n") {
		if !strings.Contains(line, "arguments:") && len([]rune(strings.TrimRight(line, "\r"))) > 80 {
			t.Errorf("question line wider than 80 columns: %q", line)
		}
	}
}

// Reads of one round run at once: the spinner counts them rather than
// naming the last one started (which may have ended long before). Each
// read here waits on a FIFO until the test writes to it.
func TestRunningToolsOfOneRoundAreCounted(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.setenv("TERM=xterm", "NO_COLOR=1")
	for _, f := range []string{"f1", "f2"} {
		if err := syscall.Mkfifo(filepath.Join(e.cwd, f), 0o600); err != nil {
			t.Skipf("no FIFOs here: %v", err)
		}
	}
	s := e.script(calls(call("Bash", map[string]any{"command": "cat f1"}), call("Bash", map[string]any{"command": "cat f2"})), answer("done"))
	tr := e.startOnTerminal("run", "--provider", "script", "--script", s, "go")
	tr.expect("running 2 calls")
	for _, f := range []string{"f1", "f2"} {
		if err := os.WriteFile(filepath.Join(e.cwd, f), []byte("x\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if code, shown := tr.wait(); code != 0 || strings.Contains(shown, "running Bash(cat f2)") {
		t.Fatalf("exit %d:\n%s", code, shown)
	}
}

// A running tool shows that it runs: after the approval nothing moved
// until the call ended, which for a test suite looked like a hang.
func TestARunningToolShowsOnTheTerminal(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.setenv("TERM=xterm", "NO_COLOR=1") // TERM=dumb shows no spinner; the marks uncoloured
	s := e.script(calls(call("Bash", map[string]any{"command": "sleep 1"})), answer("done"))
	tr := e.startOnTerminal("run", "--provider", "script", "--script", s, "--allow-tool", "Bash", "go")
	tr.expect("running Bash(sleep 1)")
	code, shown := tr.wait()
	if code != 0 || !strings.Contains(shown, "✓ Bash(sleep 1)") {
		t.Fatalf("exit %d:\n%s", code, shown)
	}
}

// Ctrl-Z at the question, then fg: the shell's job lines pushed the
// question out of sight, so trail shows it again when it is continued.
func TestTheQuestionIsShownAgainAfterFg(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.script(calls(call("Bash", map[string]any{"command": "touch made"})), answer("done"))
	tr := e.startOnTerminal("run", "--provider", "script", "--script", s, "go")
	tr.expect("[y/a/N] ")
	tr.cmd.Process.Signal(syscall.SIGSTOP)
	tr.cmd.Process.Signal(syscall.SIGCONT) // what fg sends
	waitFor(t, func() bool {
		select {
		case b := <-tr.out:
			tr.seen.Write(b)
		case <-time.After(50 * time.Millisecond):
		}
		return strings.Count(tr.seen.String(), "allow Bash(touch made)?") == 2
	})
	tr.send("y\r")
	if code, shown := tr.wait(); code != 0 || !e.exists("made") {
		t.Fatalf("exit %d:\n%s", code, shown)
	}
}

// Ctrl-Z stops a running tool with trail, and fg continues both: a tool
// runs in a session of its own, out of the terminal's job control, and
// used to go on while trail was stopped.
func TestCtrlZStopsTheRunningToolToo(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.script(calls(call("Bash", map[string]any{"command": "for i in $(seq 60); do echo $i >> ticks; sleep 0.05; done"})), answer("done"))
	tr := e.startOnTerminal("run", "--provider", "script", "--script", s, "--allow-tool", "Bash", "go")
	ticks := func() int { return strings.Count(e.read("ticks"), "\n") }
	waitFor(t, func() bool { return e.exists("ticks") && ticks() >= 3 })
	tr.cmd.Process.Signal(syscall.SIGTSTP) // what Ctrl-Z sends
	waitFor(t, func() bool {               // the stop reaches the tool
		n := ticks()
		time.Sleep(200 * time.Millisecond)
		return ticks() == n
	})
	stopped := ticks()
	time.Sleep(600 * time.Millisecond)
	if n := ticks(); n > stopped+1 {
		t.Fatalf("the tool went on while trail was stopped: %d ticks, then %d", stopped, n)
	}
	tr.cmd.Process.Signal(syscall.SIGCONT) // what fg sends
	code, shown := tr.wait()
	if code != 0 || ticks() != 60 || !strings.Contains(shown, "done") {
		t.Fatalf("exit %d, %d ticks:\n%s", code, ticks(), shown)
	}
}
