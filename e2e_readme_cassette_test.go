package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The README's "Testing agents in CI" section works as written: its agent
// script is recorded by the workflow's record job (the script provider
// standing in for the real model, and no git push), then the test job's
// steps play it back against the committed log and validate what it wrote,
// in a fresh home.
func TestReadmeCIWorkflowRecordsAndPlaysBack(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n### Testing agents in CI\n")
	sec, _, _ = strings.Cut(sec, "\n### ")
	script := fencedBlock(t, sec, "sh")
	workflow := fencedBlock(t, sec, "yaml")
	if !ok || !strings.Contains(workflow, "--format github") {
		t.Fatalf("the section or its workflow is missing:\n%s", sec)
	}

	e := newEnv(t)
	e.writeFile("ci/agent.sh", script)
	e.writeFile("ci/fixtures/commits.txt", "a1b2c3 list: faster\nd4e5f6 run: --name\n")
	answers := e.script(
		calls(call("Read", map[string]any{"filePath": "ci/fixtures/commits.txt"})),
		calls(call("Write", map[string]any{"filePath": "RELEASE_NOTES.md", "content": "# Release notes\n\n- faster list\n- run --name\n"})),
		answer("Wrote RELEASE_NOTES.md."),
		calls(call("Write", map[string]any{"filePath": "RELEASE_NOTES.md", "content": "A faster list and named runs.\n\n# Release notes\n\n- faster list\n- run --name\n"})),
		answer("Added the summary."),
	)
	recorded := e.runJob(t, workflow, "record", "TRAIL_PROVIDER=script", "TRAIL_SCRIPT="+answers)
	notes := e.read("RELEASE_NOTES.md")
	if !strings.HasPrefix(notes, "A faster list") {
		t.Fatalf("the recorded run did not write the notes: %q\n%s", notes, recorded)
	}
	if _, err := os.Stat(filepath.Join(e.cwd, "ci/fixtures/agent.cassette.jsonl")); err != nil {
		t.Fatalf("the record job committed no fixture: %v", err)
	}

	os.Remove(filepath.Join(e.cwd, "RELEASE_NOTES.md"))
	played := e.runJob(t, workflow, "test")
	if e.read("RELEASE_NOTES.md") != notes {
		t.Errorf("played back, the script wrote %q, recorded %q", e.read("RELEASE_NOTES.md"), notes)
	}
	if strings.Contains(played, "::error") {
		t.Errorf("validate-log annotated errors:\n%s", played)
	}

	// A change to the script's input is caught on the next push.
	e.writeFile("ci/fixtures/commits.txt", "a1b2c3 list: slower\n")
	e.rawLogs = true // the failed step's log is checked by the job itself
	out, code := e.runJobCode(t, workflow, "test")
	if code == 0 || !strings.Contains(out, "trail: cassette: request 2: message 3 (tool) content differs") {
		t.Errorf("a changed input passed (exit %d):\n%s", code, out)
	}
}

// fencedBlock is the first ```lang block of text.
func fencedBlock(t *testing.T, text, lang string) string {
	t.Helper()
	_, block, ok := strings.Cut(text, "```"+lang+"\n")
	block, _, ok2 := strings.Cut(block, "```")
	if !ok || !ok2 {
		t.Fatalf("no %s block", lang)
	}
	return block
}

// runJob runs a workflow job's steps as GitHub Actions would (bash -e,
// each step's env), failing the test when one fails.
func (e *env) runJob(t *testing.T, workflow, job string, extra ...string) string {
	t.Helper()
	out, code := e.runJobCode(t, workflow, job, extra...)
	if code != 0 {
		t.Fatalf("job %s failed (exit %d):\n%s", job, code, out)
	}
	return out
}

// runJobCode runs the job's run steps in order and stops at the first that
// fails. Steps that check out, set up Go or install trail are the runner's
// (the test's binary is on PATH), and git lines need a remote: they are
// left out. ${{ runner.temp }} is a new folder for each job, secrets are
// empty, and extra variables come last.
func (e *env) runJobCode(t *testing.T, workflow, job string, extra ...string) (string, int) {
	t.Helper()
	_, body, ok := strings.Cut(workflow, "\n  "+job+":\n")
	if !ok {
		t.Fatalf("no job %s", job)
	}
	lines := strings.Split(body, "\n")
	for i, l := range lines { // the job ends at the next line indented two spaces
		if strings.HasPrefix(l, "  ") && !strings.HasPrefix(l, "   ") {
			body = strings.Join(lines[:i], "\n")
			break
		}
	}
	temp := t.TempDir() // each job runs on a runner of its own
	expand := strings.NewReplacer("${{ runner.temp }}", temp, "${{ secrets.ANTHROPIC_API_KEY }}", "").Replace
	var all strings.Builder
	for _, step := range strings.Split(body, "\n      - ")[1:] {
		if strings.Contains(step, "uses:") || strings.Contains(step, "name: Install trail") {
			continue
		}
		var env []string
		var run []string
		mode := ""
		for _, line := range strings.Split(step, "\n") {
			trimmed := strings.TrimSpace(line)
			switch {
			case trimmed == "env:":
				mode = "env"
			case trimmed == "run: |":
				mode = "run"
			case strings.HasPrefix(trimmed, "run: "):
				run, mode = append(run, strings.TrimPrefix(trimmed, "run: ")), ""
			case mode == "env" && strings.HasPrefix(line, "          "):
				k, v, _ := strings.Cut(trimmed, ": ")
				env = append(env, k+"="+expand(v))
			case mode == "run" && strings.HasPrefix(line, "          "):
				if !strings.HasPrefix(trimmed, "git ") {
					run = append(run, trimmed)
				}
			default:
				mode = ""
			}
		}
		c := exec.Command("bash", "-e", "-c", strings.Join(run, "\n"))
		c.Dir = e.cwd
		c.Env = append(append(e.environ(), "PATH="+filepath.Dir(trailBin)+":"+os.Getenv("PATH")), append(env, extra...)...)
		r := e.wait(c)
		all.WriteString(r.stdout + r.stderr)
		if r.code != 0 {
			return all.String(), r.code
		}
	}
	return all.String(), 0
}
