package main_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"trail/logfmt"
)

// The crash campaign (SPEC 9's reliability paragraph): a real trail
// process is SIGKILLed at random points of a streaming tool round (an
// Anthropic tool_use round that writes a file, then a final text round,
// from a local server that sleeps between events), 100 times, each in its
// own home. After each kill:
//
//   - the record parses, and it is a prefix of what the log replays to: no
//     saved turn is missing from the log;
//   - validate-log reports nothing but what SPEC 9 allows a killed step:
//     a LOG_TRUNCATED_TAIL warning and the killed step's missing responses
//     (errors, so --strict cannot pass on the killed log itself);
//   - the next resume works, and after it the log validates --strict (the
//     killed step's requests are closed, its torn line cut, the log
//     re-synced with the record) and replays to the record exactly.
//
// The log is read in-process, with the code validate-log and replay run
// (two processes fewer a trial on two cores); one trial in ten also asks
// the binary's `validate-log --strict` and `replay --format json` after
// the next resume.
//
// Kill points come from a seeded PRNG (TRAIL_CRASH_SEED to replay a run,
// printed on failure), spread over the stages of the step: starting up,
// each streamed event of both rounds, the tool run and the round's save,
// and the final save and finish. TRAIL_CRASH_TRIALS changes the count.

const crashTrials = 100

// The codes SPEC 9 allows a log right after a kill.
var killedStepCodes = []string{
	"LOG_TRUNCATED_TAIL",
	"PROVIDER_NATIVE_RAW_PAYLOAD_MISSING", "PROVIDER_RESPONSE_RAW_MISSING", "PROVIDER_RESPONSE_NORMALIZED_MISSING",
	"TOOL_RESULT_MISSING",
}

func TestCrashCampaign(t *testing.T) {
	t.Parallel()
	if err := statSources(); err != nil {
		t.Fatal(err)
	}
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("TRAIL_CRASH_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("TRAIL_CRASH_SEED: %v", err)
		}
		seed = v
	}
	trials := crashTrials
	if s := os.Getenv("TRAIL_CRASH_TRIALS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("TRAIL_CRASH_TRIALS=%q: want a count", s)
		}
		trials = n
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	plans := make([]killPlan, trials)
	for i := range plans {
		plans[i] = newKillPlan(rng)
	}

	root := t.TempDir()
	tpl, err := newCrashTemplate(filepath.Join(root, "tpl"))
	if err != nil {
		t.Fatal(err)
	}
	results := make([]trialResult, trials)
	var wg sync.WaitGroup
	work := make(chan int)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				results[i] = runCrashTrial(filepath.Join(root, fmt.Sprintf("%03d", i)), tpl, plans[i], i%10 == 0)
			}
		}()
	}
	for i := range plans {
		work <- i
	}
	close(work)
	wg.Wait()

	var temps []string
	stages := map[string]int{}
	failed := 0
	for i, r := range results {
		stages[plans[i].stage]++
		temps = append(temps, r.temps...)
		if r.err == nil {
			continue
		}
		if failed++; failed <= 5 { // the first ones whole, with their log's tail
			t.Errorf("trial %d (kill %s): %v", i, plans[i], r.err)
		} else {
			t.Errorf("trial %d (kill %s): %.200s", i, plans[i], r.err)
		}
	}
	t.Logf("%d trials, seed %d, kills by stage: %v", trials, seed, stages)
	if t.Failed() {
		t.Logf("replay this run with TRAIL_CRASH_SEED=%d", seed)
		return
	}
	t.Run("no temp file left in the project", func(t *testing.T) {
		if len(temps) == 0 {
			return
		}
		t.Fatalf("a kill inside the Write tool left %d temp file(s) in the project after the next resume: %v (TRAIL_CRASH_SEED=%d)", len(temps), temps, seed)
	})
}

// killPlan is when one trial's process dies: at a time after it starts,
// or some time after the server flushed event `event` of response `response`
// (1: the tool_use round, 2: the final text round).
type killPlan struct {
	stage           string
	response, event int // response 0: timed from the start
	delay           time.Duration
}

func (p killPlan) String() string {
	if p.response == 0 {
		return fmt.Sprintf("%s: %v after the start", p.stage, p.delay)
	}
	return fmt.Sprintf("%s: %v after event %d of response %d", p.stage, p.delay, p.event, p.response)
}

func newKillPlan(rng *rand.Rand) killPlan {
	us := func(max int) time.Duration { return time.Duration(rng.IntN(max*1000)) * time.Microsecond }
	switch x := rng.IntN(100); {
	case x < 10:
		return killPlan{stage: "start-up", delay: us(40)}
	case x < 40:
		return killPlan{stage: "tool_use stream", response: 1, event: rng.IntN(len(toolUseEvents(0))), delay: us(3)}
	case x < 60:
		return killPlan{stage: "tool run and round save", response: 1, event: len(toolUseEvents(0)) - 1, delay: us(30)}
	case x < 75:
		return killPlan{stage: "text stream", response: 2, event: rng.IntN(len(finalEvents())), delay: us(3)}
	default:
		return killPlan{stage: "final save and finish", response: 2, event: len(finalEvents()) - 1, delay: us(30)}
	}
}

// crashTemplate is a session made once and copied into each trial's home,
// its paths rewritten to the trial's: a process per trial saved. The
// trial folders' names are as long as the template's, so the record's log
// checkpoint still points at the right byte.
type crashTemplate struct {
	dir     string
	record  []byte
	log     []byte
	session string
}

const crashID = "crash"

func newCrashTemplate(dir string) (*crashTemplate, error) {
	c := &crashTrial{home: filepath.Join(dir, "home"), cwd: filepath.Join(dir, "work")}
	if err := os.MkdirAll(c.cwd, 0o755); err != nil {
		return nil, err
	}
	c.env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "TRAIL_HOME=" + c.home, "TERM=dumb"}
	// Its requests are logged whole: install rewrites the template's folder
	// in the log and record, which a digest of the messages sent would
	// rightly no longer match. The steps under test log digests.
	if _, stderr, code, err := c.run("run", "--provider", "echo", "--no-stdin", "--log-requests", "full", "--session-id", crashID, "first"); err != nil || code != 0 {
		return nil, fmt.Errorf("template session: exit %d %v\n%s", code, err, stderr)
	}
	rec, err := os.ReadFile(filepath.Join(c.home, "sessions", crashID+".json"))
	if err != nil {
		return nil, err
	}
	log, err := os.ReadFile(filepath.Join(c.home, "logs", crashID+".jsonl"))
	if err != nil {
		return nil, err
	}
	return &crashTemplate{dir: dir, record: rec, log: log}, nil
}

// install copies the session into a trial's home.
func (tp *crashTemplate) install(c *crashTrial, dir string) error {
	if len(dir) != len(tp.dir) {
		return fmt.Errorf("trial folder %s is not as long as the template's %s", dir, tp.dir)
	}
	for _, f := range []struct {
		sub  string
		data []byte
	}{{"sessions/" + crashID + ".json", tp.record}, {"logs/" + crashID + ".jsonl", tp.log}} {
		path := filepath.Join(c.home, f.sub)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return err
		}
		if err := os.WriteFile(path, bytes.ReplaceAll(f.data, []byte(tp.dir), []byte(dir)), 0o600); err != nil {
			return err
		}
	}
	return nil
}

type trialResult struct {
	err   error
	temps []string // Write temp files left in the project after the next resume
}

// crashTrial is one home, project and server.
type crashTrial struct {
	home, cwd string
	env       []string
}

func (c *crashTrial) run(args ...string) (stdout, stderr string, code int, err error) {
	cmd := exec.Command(trailBin, args...)
	cmd.Dir, cmd.Env = c.cwd, c.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	if panicked(errb.String()) {
		return "", "", 0, fmt.Errorf("trail %s panicked:\n%s", args[0], errb.String())
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return out.String(), errb.String(), ee.ExitCode(), nil
	}
	return out.String(), errb.String(), 0, err
}

func panicked(stderr string) bool {
	return strings.Contains(stderr, "panic:") || strings.Contains(stderr, "goroutine ")
}

func runCrashTrial(dir string, tpl *crashTemplate, plan killPlan, viaBinary bool) (res trialResult) {
	c := &crashTrial{home: filepath.Join(dir, "home"), cwd: filepath.Join(dir, "work")}
	if err := os.MkdirAll(c.cwd, 0o755); err != nil {
		return trialResult{err: err}
	}
	if err := tpl.install(c, dir); err != nil {
		return trialResult{err: err}
	}
	srv := &crashServer{plan: plan}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	c.env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "TRAIL_HOME=" + c.home, "TERM=dumb",
		"ANTHROPIC_API_KEY=" + anthropicKey, "TRAIL_RETRY_BASE_MS=1"}
	const id = crashID
	step := []string{"--provider", "anthropic", "--base-url", hs.URL, "--permission-mode", "acceptEdits", "--no-stdin"}

	// The step that dies.
	cmd := exec.Command(trailBin, append([]string{"resume", id}, append(step, "[slow] write the file")...)...)
	cmd.Dir, cmd.Env = c.cwd, c.env
	var killedErr bytes.Buffer
	cmd.Stderr = &killedErr
	if err := cmd.Start(); err != nil {
		return trialResult{err: err}
	}
	var once sync.Once
	kill := func() { once.Do(func() { _ = cmd.Process.Signal(syscall.SIGKILL) }) }
	srv.mu.Lock()
	srv.slow, srv.kill = true, kill
	srv.mu.Unlock()
	if plan.response == 0 {
		time.AfterFunc(plan.delay, kill)
	}
	_ = cmd.Wait()
	kill() // a plan that came after the process finished changes nothing
	srv.mu.Lock()
	srv.slow = false
	srv.mu.Unlock()

	if panicked(killedErr.String()) {
		return trialResult{err: fmt.Errorf("the step panicked before the kill:\n%s", killedErr.String())}
	}
	fail := func(format string, a ...any) trialResult {
		logTail, _ := os.ReadFile(filepath.Join(c.home, "logs", id+".jsonl"))
		if len(logTail) > 3000 {
			logTail = logTail[len(logTail)-3000:]
		}
		return trialResult{err: fmt.Errorf(format+"\nlog tail:\n%s", append(a, logTail)...)}
	}
	// The log is read in-process (what validate-log and replay run), to
	// spare processes on two cores; one trial in ten also asks the binary
	// after the next resume.
	logPath := filepath.Join(c.home, "logs", id+".jsonl")
	rec, err := c.recordMessages(id)
	if err != nil {
		return fail("after the kill: %v", err)
	}
	report, err := logfmt.ValidateFile(logPath, logfmt.ValidateOptions{})
	if err != nil {
		return fail("after the kill, validate-log: %v", err)
	}
	for _, is := range report.Issues {
		if !slices.Contains(killedStepCodes, is.Code) {
			return fail("after the kill, validate-log: %s (line %d) %s", is.Code, is.Line, is.Message)
		}
	}
	rep, err := logfmt.ReplayFile(logPath, logfmt.ReplayOptions{})
	if err != nil {
		return fail("after the kill, replay: %v", err)
	}
	if len(rep.Messages) < len(rec) {
		return fail("after the kill the log replays to %d messages, fewer than the record's %d", len(rep.Messages), len(rec))
	}
	for i := range rec {
		if !bytes.Equal(rep.Messages[i], rec[i]) {
			return fail("after the kill, message %d differs:\nreplay %.300s\nrecord %.300s", i, rep.Messages[i], rec[i])
		}
	}

	// The next step works, and leaves log and record in line.
	stdout, stderr, code, err := c.run(append([]string{"resume", id}, append(step, "again")...)...)
	if err != nil || code != 0 || stdout != "The file is written.\n" {
		return fail("the next resume: exit %d %v\nstdout %q\nstderr %s", code, err, stdout, stderr)
	}
	if rec, err = c.recordMessages(id); err != nil {
		return fail("after the next resume: %v", err)
	}
	var issues []crashIssue
	var replayed []json.RawMessage
	if viaBinary {
		if issues, err = c.issues(id, true); err != nil {
			return fail("after the next resume: %v", err)
		}
		if replayed, err = c.replayMessages(id); err != nil {
			return fail("after the next resume: %v", err)
		}
	} else {
		if report, err = logfmt.ValidateFile(logPath, logfmt.ValidateOptions{}); err != nil {
			return fail("after the next resume, validate-log: %v", err)
		}
		for _, is := range report.Issues { // --strict: warnings count
			issues = append(issues, crashIssue{Code: is.Code, Message: is.Message, Line: is.Line})
		}
		if rep, err = logfmt.ReplayFile(logPath, logfmt.ReplayOptions{}); err != nil {
			return fail("after the next resume, replay: %v", err)
		}
		replayed = rep.Messages
	}
	if len(issues) > 0 {
		return fail("after the next resume, validate-log --strict: %s (line %d) %s", issues[0].Code, issues[0].Line, issues[0].Message)
	}
	if len(replayed) != len(rec) {
		return fail("after the next resume the log replays to %d messages, the record has %d", len(replayed), len(rec))
	}
	for i := range rec {
		if !bytes.Equal(replayed[i], rec[i]) {
			return fail("after the next resume, message %d differs:\nreplay %.300s\nrecord %.300s", i, replayed[i], rec[i])
		}
	}
	if b, _ := os.ReadFile(filepath.Join(c.cwd, "out.txt")); string(b) != crashWrite {
		return fail("out.txt holds %d bytes, not what the model wrote", len(b))
	}
	temps, _ := filepath.Glob(filepath.Join(c.cwd, "*.tmp-*"))
	return trialResult{temps: temps}
}

// recordMessages reads the record (it must parse) and compacts its messages.
func (c *crashTrial) recordMessages(id string) ([]json.RawMessage, error) {
	b, err := os.ReadFile(filepath.Join(c.home, "sessions", id+".json"))
	if err != nil {
		return nil, err
	}
	var rec struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, fmt.Errorf("the record does not parse: %v", err)
	}
	for i, m := range rec.Messages {
		var buf bytes.Buffer
		if err := json.Compact(&buf, m); err != nil {
			return nil, err
		}
		rec.Messages[i] = buf.Bytes()
	}
	return rec.Messages, nil
}

func (c *crashTrial) replayMessages(id string) ([]json.RawMessage, error) {
	stdout, stderr, code, err := c.run("replay", id, "--format", "json")
	if err != nil || code != 0 {
		return nil, fmt.Errorf("replay: exit %d %v: %s", code, err, stderr)
	}
	var doc struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		return nil, fmt.Errorf("replay --format json: %v", err)
	}
	return doc.Messages, nil
}

type crashIssue struct {
	Code, Message string
	Line          int
}

func (c *crashTrial) issues(id string, strict bool) ([]crashIssue, error) {
	args := []string{"validate-log", "--format", "json", id}
	if strict {
		args = append(args, "--strict")
	}
	stdout, stderr, code, err := c.run(args...)
	if err != nil || (code != 0 && code != 7) {
		return nil, fmt.Errorf("validate-log: exit %d %v: %s", code, err, stderr)
	}
	var report struct {
		Files []struct{ Issues []crashIssue }
	}
	if err := json.Unmarshal([]byte(stdout), &report); err != nil || len(report.Files) != 1 {
		return nil, fmt.Errorf("validate-log --format json: %v\n%s", err, stdout)
	}
	if strict && code != 0 && len(report.Files[0].Issues) == 0 {
		return nil, fmt.Errorf("validate-log --strict exit %d with no issue", code)
	}
	return report.Files[0].Issues, nil
}
