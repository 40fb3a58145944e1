//go:build linux

package main_test

import (
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

// A session is running while a step holds its lock (SPEC 5.4), from the
// step's start, not only between the rounds it saves: list finds the
// holder through the kernel's lock table, touching no lock. A new
// session is listed before its first save, a resumed one from its first
// round, and both are idle again once the step ends.
func TestListShowsAStepRunningWhileItHoldsTheLock(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.script(map[string]any{"text": "first", "delayMs": 1500}, map[string]any{"text": "second", "delayMs": 1500})
	listed := func(status string) func() bool {
		return func() bool {
			r := e.run("", "list", "--status", status)
			return r.code == 0 && strings.Count(r.stdout, "\n") == 1
		}
	}
	c := e.cmd("run", "--provider", "script", "--script", s, "--name", "slow", "go")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, listed("running"))
	if err := c.Wait(); err != nil {
		t.Fatal(err)
	}
	if r := e.must("", "list"); !strings.Contains(r.stdout, "\tidle\t") {
		t.Errorf("after the step: %s", r)
	}
	c = e.cmd("resume", "slow", "again")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, listed("running"))
	if r := e.must("", "list"); !strings.Contains(r.stdout, "\trunning\t") || !strings.Contains(r.stdout, "\tslow\t") {
		t.Errorf("resumed: %s", r)
	}
	if err := c.Wait(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, listed("idle"))
}

// A first step on its first provider call has no record yet (it saves at
// the end of its round): list used to show it with an empty name, cwd
// and creation time, --here hid it, and `resume NAME` said no session had
// that name. Now what its log says is shown, and a resume by name waits
// for that step as for any other, then carries on; so does one by a
// custom id shorter than an id prefix may be (it was "has a log but no
// record", with a hint to rebuild the record of a running session).
func TestAFirstStepBeforeItsRecordIsListedAndWaitedFor(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ ref, flag string }{{"slow", "--name"}, {"abc", "--session-id"}, {"--last", "--last"}} {
		t.Run(c.flag, func(t *testing.T) {
			t.Parallel()
			firstStepWaitedFor(t, c.ref, c.flag)
		})
	}
}

// firstStepWaitedFor runs a slow first step (named by flag ref, or with
// flag --last, beside an older idle session of the same folder) and
// resumes it by ref while it runs.
func firstStepWaitedFor(t *testing.T, ref, flag string) {
	e := newEnv(t)
	s := e.script(map[string]any{"text": "first", "delayMs": 2000}, answer("second"))
	args := []string{"run", "--provider", "script", "--script", s, flag, ref, "go on"}
	if flag == "--last" {
		e.must("", "run", "--provider", "echo", "--name", "older", "hi")
		args = []string{"run", "--provider", "script", "--script", s, "go on"}
	}
	c := e.cmd(args...)
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	var row map[string]any
	waitFor(t, func() bool {
		r := e.run("", "list", "--here", "--json")
		var rows []map[string]any
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &rows) != nil || len(rows) == 0 || rows[0]["status"] != "running" {
			return false
		}
		row = rows[0] // newest first
		return true
	})
	if row["createdAt"] == "" || row["cwd"] == nil ||
		flag == "--name" && row["name"] != ref || flag == "--session-id" && row["id"] != ref {
		t.Errorf("the running first step is listed as %v", row)
	}
	// it is young: a delete by age passes it over without a word
	if r := e.run("", "delete", "--older-than", "1h", "--yes"); r.code != 0 || r.stderr != "trail: no sessions to delete\n" {
		t.Errorf("delete --older-than 1h beside the running first step: %s", r)
	}
	r := e.run("", "resume", ref, "--wait", "20s", "again")
	if err := c.Wait(); err != nil {
		t.Fatal(err)
	}
	if r.code != 0 || r.stdout != "second\n" || !strings.Contains(r.stderr, "is busy: waiting") {
		t.Fatalf("resume %s during the first step: %s", ref, r)
	}
	if got := len(e.messages(row["id"].(string))); got != 5 {
		t.Fatalf("%d messages after both steps, want 5", got)
	}
}

// A first step killed before its first save leaves the newest session of
// the folder with a log and no record: resume --last says so, with the
// repair, rather than sending the prompt to the older session.
func TestResumeLastOfAKilledFirstStepSaysSo(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.rawLogs = true // killed mid-step
	e.must("", "run", "--provider", "echo", "--name", "older", "hi")
	older := e.onlySession()
	s := e.script(map[string]any{"text": "first", "delayMs": 60000})
	c := e.cmd("run", "--provider", "script", "--script", s, "go on")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	killed := ""
	waitFor(t, func() bool {
		logs, _ := filepath.Glob(filepath.Join(e.home, "logs", "*.jsonl"))
		for _, l := range logs {
			if id := strings.TrimSuffix(filepath.Base(l), ".jsonl"); id != older {
				killed = id
			}
		}
		b, _ := os.ReadFile(e.logPath(killed))
		return killed != "" && strings.Contains(string(b), `"provider_request"`) // on its provider call
	})
	c.Process.Signal(syscall.SIGKILL)
	c.Wait()
	r := e.run("", "resume", "--last", "--provider", "echo", "continue")
	if r.code != 3 || !strings.Contains(r.stderr, "has a log but no record") || !strings.Contains(r.stderr, "trail replay "+killed+" --write-record") {
		t.Errorf("resume --last after a killed first step: %s", r)
	}
	if got := len(e.messages(older)); got != 3 {
		t.Errorf("the older session got the prompt: %d messages", got)
	}
	// replay reads the log: --last shows it, as its id does
	if r := e.run("", "replay", "--last", "--format", "jsonl"); r.code != 0 || !strings.Contains(r.stdout, "go on") {
		t.Errorf("replay --last of a killed first step: %s", r)
	}
}

// A trail killed outright (SIGKILL: the OOM killer, `timeout -s KILL`)
// cannot end its tool; the kernel does: the command it ran dies with it,
// where it used to run on with no one to read it.
func TestAToolDiesWithAKilledTrail(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.rawLogs = true // killed mid-step
	s := e.script(calls(call("Bash", map[string]any{"command": "echo $$ > tool.pid; exec sleep 300"})), answer("done"))
	c := e.cmd("run", "--provider", "script", "--script", s, "--allow-tool", "Bash", "go")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return strings.TrimSpace(e.read("tool.pid")) != "" })
	pid, err := strconv.Atoi(strings.TrimSpace(e.read("tool.pid")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	c.Process.Kill()
	c.Wait()
	waitFor(t, func() bool {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		return err != nil || strings.Contains(string(stat), ") Z ") // gone, or a zombie not yet reaped
	})
}

// validate-log of a session whose step is running (a CI job checking
// logs/ while another job runs an agent): the request that step waits on
// is under way, a warning saying so, and the log is valid (exit 0).
func TestValidateLogOfARunningSessionIsValid(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.script(answer("first"), map[string]any{"text": "slow", "delayMs": 3000})
	e.must("", "run", "--provider", "script", "--script", s, "--name", "busy", "go")
	c := e.cmd("resume", "busy", "again")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer c.Wait()
	waitFor(t, func() bool {
		r := e.run("", "list", "--status", "running")
		return strings.Count(r.stdout, "\n") == 1
	})
	r := e.run("", "validate-log", "busy")
	if r.code != 0 || !strings.Contains(r.stdout, "0 errors") || !strings.Contains(r.stdout, "Its step is still running.") {
		t.Errorf("validate-log while its step runs: %s", r)
	}
	// the same log by another way: a link to the logs folder, from a
	// command whose home is elsewhere
	link := filepath.Join(e.cwd, "linked-logs")
	if err := os.Symlink(filepath.Join(e.home, "logs"), link); err != nil {
		t.Fatal(err)
	}
	// relative paths too (README's own 'logs/*.jsonl', run in the home)
	c3 := e.cmd("validate-log", "logs/")
	c3.Dir = e.home
	if r := e.wait(c3); r.code != 0 || !strings.Contains(r.stdout, "Its step is still running.") {
		t.Errorf("validate-log logs/ in the home: %s", r)
	}
	c2 := e.cmd("validate-log", link)
	c2.Env = append(c2.Env, "TRAIL_HOME="+filepath.Join(e.cwd, "another-home"))
	if r := e.wait(c2); r.code != 0 || !strings.Contains(r.stdout, "Its step is still running.") {
		t.Errorf("validate-log of the logs through a link, from another home: %s", r)
	}
	if err := c.Wait(); err != nil {
		t.Fatal(err)
	}
	if r := e.must("", "validate-log", "busy"); !strings.Contains(r.stdout, "valid") || strings.Contains(r.stdout, "still running") {
		t.Errorf("once the step ended: %s", r)
	}
}

// A step that takes its lock after validate-log has read the lock table,
// and writes its request before validate-log reaches its log, is under
// way too: it was reported as errors (exit 7), now and then, in a CI job
// checking logs/ beside a running agent. Here validate-log has long logs
// to read first, and the step starts once it runs.
func TestValidateLogOfAStepStartedWhileItReadsIsValid(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// a log that takes a while to validate: a few MB of prompt
	big := strings.Repeat(strings.Repeat("0123456789abcdef", 6)+"\n", 30000)
	e.must(big, "run", "--provider", "echo", "--context-window", "100000000", "--session-id", "big", "summarise")
	s := e.script(answer("first"), map[string]any{"text": "slow", "delayMs": 4000})
	e.must("", "run", "--provider", "script", "--script", s, "--session-id", "zz-busy", "go")
	args := []string{"validate-log"}
	for range 12 {
		args = append(args, e.logPath("big"))
	}
	args = append(args, e.logPath("zz-busy"))
	v := e.cmd(args...)
	var out strings.Builder
	v.Stdout = &out
	if err := v.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(150 * time.Millisecond) // past its reading of the lock table
	c := e.cmd("resume", "zz-busy", "again")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer c.Wait()
	// On a machine so slow that validate-log reaches the log before the
	// step writes to it, the log is simply complete: exit 0 either way.
	if err := v.Wait(); err != nil {
		t.Errorf("validate-log while a step started: %v\n%s", err, out.String())
	}
}

// A log that validate-log found in a folder or by a pattern, deleted
// before it was read (trail delete beside a CI check), is skipped with a
// note; it was exit 3, as if a log named on the command line were missing.
func TestValidateLogSkipsALogDeletedWhileItRuns(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	big := strings.Repeat(strings.Repeat("0123456789abcdef", 6)+"\n", 60000)
	e.must(big, "run", "--provider", "echo", "--context-window", "100000000", "--session-id", "aaa-big", "summarise")
	e.must("", "run", "--provider", "echo", "--session-id", "zzz-gone", "hi")
	// the big log first, several times over, then the folder (listed at
	// the start, read last): zzz-gone is read well after it is deleted
	args := []string{"validate-log"}
	for range 8 {
		args = append(args, e.logPath("aaa-big"))
	}
	v := e.cmd(append(args, filepath.Join(e.home, "logs")+"/")...)
	var out, errOut strings.Builder
	v.Stdout, v.Stderr = &out, &errOut
	if err := v.Start(); err != nil {
		t.Fatal(err)
	}
	// once it reads the first log, it has listed the folder too
	waitFor(t, func() bool {
		fds, _ := filepath.Glob(fmt.Sprintf("/proc/%d/fd/*", v.Process.Pid))
		for _, fd := range fds {
			if target, _ := os.Readlink(fd); strings.Contains(target, "aaa-big") {
				return true
			}
		}
		return false
	})
	if err := os.Remove(e.logPath("zzz-gone")); err != nil {
		t.Fatal(err)
	}
	if err := v.Wait(); err != nil || !strings.Contains(errOut.String(), "zzz-gone.jsonl was deleted while validate-log ran; skipped") {
		t.Errorf("validate-log of a folder whose log was deleted meanwhile: %v\n%s%s", err, out.String(), errOut.String())
	}
}

// Parallel jobs: resume --last beside a first step that ends while it
// looks (an echo step takes milliseconds) found the session's log, then
// no lock holder, and said "has a log but no record" (exit 3) of a
// session saved a moment later. The record that came is found now.
func TestResumeLastBesideFirstStepsEndingFindsThemSaved(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.setenv("TRAIL_PROVIDER=echo")
	e.must("", "run", "first")
	var failures []string
	for round := 0; round < 4; round++ {
		var runs, resumes []*exec.Cmd
		var outs []*strings.Builder
		for i := 0; i < 12; i++ {
			r := e.cmd("run", fmt.Sprintf("r%d-%d", round, i))
			c := e.cmd("resume", "--last", "after")
			var errb strings.Builder
			c.Stderr = &errb
			outs = append(outs, &errb)
			if err := r.Start(); err != nil {
				t.Fatal(err)
			}
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			runs, resumes = append(runs, r), append(resumes, c)
		}
		for i := range runs {
			runs[i].Wait()
			if err := resumes[i].Wait(); err != nil && strings.Contains(outs[i].String(), "has a log but no record") {
				failures = append(failures, outs[i].String())
			}
		}
	}
	if len(failures) > 0 {
		t.Errorf("%d of 48 resumes took a session being saved for a killed one: %q", len(failures), failures[0])
	}
}

// Two containers sharing a home do not see each other's processes: the
// kernel's lock table (/proc/locks) hides a step that runs in the other
// PID namespace. validate-log, list and resume looked at the session's
// lock only through it, and took a running step for a killed one: a CI
// check beside a running agent failed (exit 7), and resume of its first
// step said "has a log but no record" (exit 3). They look at the lock
// itself when a session looks killed.
func TestAStepInAnotherPIDNamespaceIsSeenRunning(t *testing.T) {
	t.Parallel()
	if err := exec.Command("unshare", "-p", "-f", "--mount-proc", "true").Run(); err != nil {
		t.Skipf("no PID namespaces here: %v", err)
	}
	e := newEnv(t)
	s := e.script(map[string]any{"text": "slow", "delayMs": 4000})
	holder := e.cmd("run", "--provider", "script", "--script", s, "--name", "far", "go")
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer holder.Wait()
	// the step takes its lock before it makes its log
	waitFor(t, func() bool { logs, _ := filepath.Glob(filepath.Join(e.home, "logs", "*.jsonl")); return len(logs) == 1 })
	inNamespace := func(args ...string) result {
		c := exec.Command("unshare", append([]string{"-p", "-f", "--mount-proc", trailBin}, args...)...)
		c.Dir, c.Env = e.cwd, e.environ()
		return e.wait(c)
	}
	if r := inNamespace("list"); r.code != 0 || !strings.Contains(r.stdout, "running") || strings.Contains(r.stderr, "log but no record") {
		t.Errorf("list in another namespace: %s", r)
	}
	if r := inNamespace("validate-log", filepath.Join(e.home, "logs")); r.code != 0 {
		t.Errorf("validate-log in another namespace: %s", r)
	}
	if r := inNamespace("resume", "far", "--provider", "echo", "--wait", "30", "more"); r.code != 0 || !strings.Contains(r.stdout, "echo: more") {
		t.Errorf("resume of the running first step from another namespace: %s", r)
	}
}
