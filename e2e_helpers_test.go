package main_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"trail/logfmt"
)

// trailBin is the binary built once for every end-to-end test.
var trailBin string

// releaseBuild is `go build` as Makefile's build target runs it (with
// CGO_ENABLED=0 in the environment), version left out.
var releaseBuild = []string{"build", "-trimpath", "-tags", "urfave_cli_no_docs", "-ldflags", "-s -w"}

func TestMain(m *testing.M) {
	flag.Parse()
	// The tests spend most of their time waiting on trail processes, not
	// computing: run more of them at once than there are cores (go test's
	// default), unless -parallel says how many.
	if !flagGiven("test.parallel") {
		_ = flag.Set("test.parallel", strconv.Itoa(4*runtime.GOMAXPROCS(0)))
	}
	// Every test's home is written and fsynced many times over. On a RAM
	// file system no test waits on a disk that other jobs on the machine
	// keep busy (a step took 0.6 s instead of 40 ms on the shared 2-core
	// machine while others wrote). Benchmarks stay on the disk: their
	// figures include the fsyncs, and their fixtures are gigabytes. A
	// TMPDIR the caller set is used as it is.
	root := ""
	if os.Getenv("TMPDIR") == "" && !flagGiven("test.bench") && writableDir("/dev/shm") {
		root = "/dev/shm"
	}
	dir, err := os.MkdirTemp(root, "trail-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// t.TempDir makes each test's folders under TMPDIR. Set once, before
	// any test runs, and never changed: no test reads it while it changes.
	if err := os.Setenv("TMPDIR", dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	trailBin = filepath.Join(dir, "trail")
	// Benchmarks may time another build (an older one, to compare):
	// TRAIL_BENCH_BIN names it.
	if bin := os.Getenv("TRAIL_BENCH_BIN"); bin != "" && flagGiven("test.bench") {
		trailBin = bin
		code := m.Run()
		os.RemoveAll(dir)
		os.Exit(code)
	}
	// The release build (Makefile build): the tests run the program users get.
	build := exec.Command("go", append(releaseBuild, "-o", trailBin, ".")...)
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build trail:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// flagGiven reports whether the command line set the flag name.
func flagGiven(name string) bool {
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// writableDir reports whether dir is a folder this process can write in.
func writableDir(dir string) bool {
	f, err := os.CreateTemp(dir, ".trail-probe-")
	if err != nil {
		return false
	}
	f.Close()
	return os.Remove(f.Name()) == nil
}

// statSources looks at every file the built binary and its tests depend
// on. go test caches a package's result until a file the test binary opened
// or stat'ed changes, or the binary itself does; these tests run a binary go
// build makes, and the linker drops the rest of trail from the test binary,
// so without this a change to commands/ or core/ came back "ok (cached)".
// go test only records what happens inside m.Run, hence newEnv calls it.
var statSources = sync.OnceValue(func() error {
	return filepath.WalkDir(".", func(p string, d os.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && p != "." && strings.HasPrefix(d.Name(), "."):
			return filepath.SkipDir // .git, .ci
		case d.IsDir():
			return nil
		}
		_, err = os.Stat(p)
		return err
	})
})

// env is one test's world: a temp TRAIL_HOME, a temp HOME (so no real
// ~/.claude settings leak in) and a temp working directory.
type env struct {
	t *testing.T
	// rawLogs turns off the end-of-test log check, for tests that break logs
	// or records on purpose (corruption, SIGKILL, --no-log gaps).
	rawLogs bool
	home    string // TRAIL_HOME
	user    string // HOME
	cwd     string
	extra   []string
	cols    int // the width of the terminal startOnTerminal gives trail; 0: the pty's default
}

func newEnv(t *testing.T) *env {
	t.Helper()
	if err := statSources(); err != nil {
		t.Fatalf("stat sources: %v", err)
	}
	root := t.TempDir()
	e := &env{t: t, home: filepath.Join(root, "trail-home"), user: filepath.Join(root, "user"), cwd: filepath.Join(root, "work")}
	for _, d := range []string{e.user, e.cwd} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		if !t.Failed() && !e.rawLogs {
			e.checkLogs()
		}
	})
	return e
}

// checkLogs holds every test to SPEC 7: each log trail wrote validates
// clean (as validate-log --strict: warnings count), and each session's log
// replays to its record's messages. It calls the code validate-log and
// replay run rather than the binary: two processes for every test were a
// third of the suite's, on two cores; the binary's own validate-log and
// replay are tested on their own, and tests that want them on the way call
// validateAll and checkReplayMatchesRecord.
func (e *env) checkLogs() {
	e.t.Helper()
	logs, _ := filepath.Glob(filepath.Join(e.home, "logs", "*.jsonl"))
	for _, path := range logs {
		report, err := logfmt.ValidateFile(path, logfmt.ValidateOptions{})
		if err != nil {
			e.t.Fatalf("validate %s: %v", path, err)
		}
		for _, is := range report.Issues {
			e.t.Errorf("a log trail wrote does not validate: %s:%d: %s %s", path, is.Line, is.Code, is.Message)
		}
		// Every request the log names by digest is rebuilt and proven
		// (replay --view requests), unless a killed step never logged it.
		err = logfmt.ReadRequests(path, func(r logfmt.Request) error {
			if !r.DigestOK && r.Missing == 0 {
				e.t.Errorf("%s:%d: the request's messages do not hash to its digest", path, r.Line)
			}
			return nil
		})
		if err != nil {
			e.t.Errorf("read requests %s: %v", path, err)
		}
	}
	if e.t.Failed() {
		return
	}
	for _, id := range e.sessionIDs() {
		if _, err := os.Stat(e.logPath(id)); err != nil {
			continue
		}
		e.sameMessages(id, e.replayInProcess(id))
	}
}

// replayInProcess is what `trail replay ID --format json` says the
// session's messages are, from the code it runs.
func (e *env) replayInProcess(id string) []json.RawMessage {
	e.t.Helper()
	rep, err := logfmt.ReplayFile(e.logPath(id), logfmt.ReplayOptions{Transcript: true})
	if err != nil {
		e.t.Fatalf("replay %s: %v", e.logPath(id), err)
	}
	return rep.Messages
}

func (e *env) setenv(kv ...string) { e.extra = append(e.extra, kv...) }

func (e *env) environ() []string {
	base := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + e.user, "TRAIL_HOME=" + e.home, "TERM=dumb"}
	return append(base, e.extra...)
}

// result is one finished process.
type result struct {
	stdout, stderr string
	code           int
	elapsed        time.Duration
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\nstdout: %q\nstderr: %q", r.code, r.stdout, r.stderr)
}

// cmd prepares trail with args; stdin is empty (/dev/null) unless set.
func (e *env) cmd(args ...string) *exec.Cmd {
	c := exec.Command(trailBin, args...)
	c.Dir = e.cwd
	c.Env = e.environ()
	return c
}

// run runs trail to completion with stdin from a string (a real pipe).
func (e *env) run(stdin string, args ...string) result {
	e.t.Helper()
	c := e.cmd(args...)
	if stdin != "" {
		c.Stdin = strings.NewReader(stdin)
	}
	return e.wait(c)
}

func (e *env) wait(c *exec.Cmd) result {
	e.t.Helper()
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	start := time.Now()
	err := c.Run()
	r := result{stdout: out.String(), stderr: errb.String(), elapsed: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		e.t.Fatalf("run trail: %v", err)
	}
	if strings.Contains(r.stderr, "goroutine ") || strings.Contains(r.stderr, "panic:") {
		e.t.Fatalf("trail panicked:\n%s", r.stderr)
	}
	return r
}

// must runs trail and fails the test unless it exits 0.
func (e *env) must(stdin string, args ...string) result {
	e.t.Helper()
	r := e.run(stdin, args...)
	if r.code != 0 {
		e.t.Fatalf("trail %s: %s", strings.Join(args, " "), r)
	}
	return r
}

func (e *env) writeFile(name, content string) string {
	e.t.Helper()
	p := name
	if !filepath.IsAbs(p) {
		p = filepath.Join(e.cwd, name)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
	return p
}

// script writes a script provider file of responses.
func (e *env) script(responses ...map[string]any) string {
	e.t.Helper()
	b, err := json.Marshal(responses)
	if err != nil {
		e.t.Fatal(err)
	}
	return e.writeFile(fmt.Sprintf("script-%d.json", time.Now().UnixNano()), string(b))
}

func (e *env) recordPath(id string) string { return filepath.Join(e.home, "sessions", id+".json") }
func (e *env) logPath(id string) string    { return filepath.Join(e.home, "logs", id+".jsonl") }

// record reads a session record as a generic object.
func (e *env) record(id string) map[string]any {
	e.t.Helper()
	b, err := os.ReadFile(e.recordPath(id))
	if err != nil {
		e.t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		e.t.Fatalf("record %s does not parse: %v", id, err)
	}
	return m
}

func (e *env) messages(id string) []map[string]any {
	e.t.Helper()
	raw, _ := e.record(id)["messages"].([]any)
	out := make([]map[string]any, len(raw))
	for i, m := range raw {
		out[i], _ = m.(map[string]any)
	}
	return out
}

// logLines parses every line of a session's log, failing on any that does not parse.
func (e *env) logLines(id string) []map[string]any {
	e.t.Helper()
	b, err := os.ReadFile(e.logPath(id))
	if err != nil {
		e.t.Fatal(err)
	}
	var out []map[string]any
	for i, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			e.t.Fatalf("log line %d does not parse: %v\n%s", i+1, err, line)
		}
		out = append(out, m)
	}
	return out
}

// sessionIDs lists the ids of the records in the home.
func (e *env) sessionIDs() []string {
	e.t.Helper()
	ents, err := os.ReadDir(filepath.Join(e.home, "sessions"))
	if err != nil && !os.IsNotExist(err) {
		e.t.Fatal(err)
	}
	var ids []string
	for _, en := range ents {
		if n := en.Name(); strings.HasSuffix(n, ".json") {
			ids = append(ids, strings.TrimSuffix(n, ".json"))
		}
	}
	return ids
}

// onlySession returns the id of the single session in the home.
func (e *env) onlySession() string {
	e.t.Helper()
	ids := e.sessionIDs()
	if len(ids) != 1 {
		e.t.Fatalf("want 1 session, have %v", ids)
	}
	return ids[0]
}

// filesUnder returns every regular file below dir with its bytes.
func filesUnder(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err == nil {
			out[p] = b
		}
		return nil
	})
	return out
}

// patience bounds every wait for an event of another process (a file, a
// log line, a prompt on a terminal). Tests wait for the event itself, so
// the bound costs nothing when all is well; it is generous because the
// suite runs in parallel on two shared cores, where a process can be
// starved for seconds.
const patience = 30 * time.Second

// waitFor polls cond until it holds, failing the test after patience. The
// poll starts fast and backs off, so a quick event is seen at once and a
// slow one costs little CPU.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(patience)
	pause := time.Millisecond
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("condition not met within %s", patience)
		}
		time.Sleep(pause)
		pause = min(2*pause, 20*time.Millisecond)
	}
}

// call is one scripted tool call for the script provider.
func call(name string, args map[string]any) map[string]any {
	return map[string]any{"name": name, "arguments": args}
}

// calls is a scripted response that calls tools (ids call_<k>_<i>).
func calls(c ...map[string]any) map[string]any {
	list := make([]any, len(c))
	for i := range c {
		list[i] = c[i]
	}
	return map[string]any{"toolCalls": list}
}

// answer is a scripted final text response.
func answer(text string) map[string]any { return map[string]any{"text": text} }

// jsonResult parses `-o json` output.
func jsonResult(t *testing.T, r result) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &m); err != nil {
		t.Fatalf("-o json output does not parse: %v\n%s", err, r)
	}
	return m
}

// toolMessages maps tool call ids to their parsed tool result content.
func (e *env) toolResults(id string) map[string]map[string]any {
	e.t.Helper()
	out := map[string]map[string]any{}
	for _, m := range e.messages(id) {
		if m["role"] != "tool" {
			continue
		}
		var content map[string]any
		if err := json.Unmarshal([]byte(m["content"].(string)), &content); err != nil {
			e.t.Fatalf("tool result %v is not JSON: %v", m["content"], err)
		}
		out[m["toolCallId"].(string)] = content
	}
	return out
}

// events returns the log lines of one event name.
func (e *env) events(id, name string) []map[string]any {
	e.t.Helper()
	var out []map[string]any
	for _, l := range e.logLines(id) {
		if l["event"] == name {
			out = append(out, l)
		}
	}
	return out
}

// exists reports whether a file below the working directory exists.
func (e *env) exists(name string) bool {
	_, err := os.Stat(filepath.Join(e.cwd, name))
	return err == nil
}

// read returns a file below the working directory ("" when missing).
func (e *env) read(name string) string {
	b, _ := os.ReadFile(filepath.Join(e.cwd, name))
	return string(b)
}

// replayedMessages rebuilds the message list from the log's
// history_mutation append_message lines (SPEC 7.1's replay invariant).
func (e *env) replayedMessages(id string) []any {
	e.t.Helper()
	var out []any
	for _, l := range e.events(id, "history_mutation") {
		if l["mutation"] == "append_message" {
			out = append(out, l["message"])
		}
	}
	return out
}

func fmtSscan(s string, v *int) (int, error) { return fmt.Sscan(s, v) }

// validateAll runs validate-log --strict over every log in the home and
// fails the test on any issue: every log trail writes must validate clean.
func (e *env) validateAll() {
	e.t.Helper()
	logs, _ := filepath.Glob(filepath.Join(e.home, "logs", "*.jsonl"))
	if len(logs) == 0 {
		e.t.Fatal("validateAll: no logs in the home")
	}
	r := e.run("", append([]string{"validate-log", "--strict"}, logs...)...)
	if r.code != 0 {
		e.t.Fatalf("a log trail wrote does not validate:\n%s", r.stdout)
	}
}

// replayMessages is what `trail replay ID --format json` says the
// session's messages are.
func (e *env) replayMessages(ref string) []json.RawMessage {
	e.t.Helper()
	r := e.must("", "replay", ref, "--format", "json")
	var doc struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		e.t.Fatalf("replay --format json: %v\n%s", err, r.stdout)
	}
	return doc.Messages
}

// recordMessages is the record's messages, each compacted.
func (e *env) recordMessages(id string) []json.RawMessage {
	e.t.Helper()
	b, err := os.ReadFile(e.recordPath(id))
	if err != nil {
		e.t.Fatal(err)
	}
	var rec struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		e.t.Fatal(err)
	}
	for i, m := range rec.Messages {
		var buf bytes.Buffer
		if err := json.Compact(&buf, m); err != nil {
			e.t.Fatal(err)
		}
		rec.Messages[i] = buf.Bytes()
	}
	return rec.Messages
}

// checkReplayMatchesRecord is SPEC 7.1's invariant for one session: the
// log replays to the record's messages, byte for byte once compacted
// (ids, roles, content, tool calls, tool call ids, states and the rest).
func (e *env) checkReplayMatchesRecord(id string) {
	e.t.Helper()
	e.sameMessages(id, e.replayMessages(id))
}

// sameMessages fails the test unless got, compacted, are the record's
// messages.
func (e *env) sameMessages(id string, got []json.RawMessage) {
	e.t.Helper()
	want := e.recordMessages(id)
	for i, m := range got {
		var buf bytes.Buffer
		if err := json.Compact(&buf, m); err != nil {
			e.t.Fatalf("session %s: replayed message %d: %v", id, i, err)
		}
		got[i] = buf.Bytes()
	}
	if len(got) != len(want) {
		e.t.Fatalf("session %s: replay has %d messages, the record %d", id, len(got), len(want))
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			e.t.Fatalf("session %s message %d:\nreplay %s\nrecord %s", id, i, got[i], want[i])
		}
	}
}
