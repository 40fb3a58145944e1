package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The README's first block of examples runs as it is, top to bottom, in a
// fresh home: what a newcomer does first must work first.
func TestReadmeUseBlockRunsTopToBottom(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"bash", "git", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s", tool)
		}
	}
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	_, use, ok := strings.Cut(readme, "\n## Use\n")
	if !ok {
		t.Fatal("README has no Use section")
	}
	_, block, ok := strings.Cut(use, "```sh\n")
	block, _, ok2 := strings.Cut(block, "```")
	if !ok || !ok2 {
		t.Fatal("the Use section has no sh block")
	}
	e := newEnv(t)
	e.writeFile("notes.txt", "v1.2: faster list\n")
	e.writeFile("ci.log", "FAIL TestX\n")
	e.writeFile("answers.json", `[{"text": "first answer"}]`)
	git := exec.Command("bash", "-c", "git init -q && git -c user.email=a@b -c user.name=a commit -q --allow-empty -m x && echo change > notes.txt")
	git.Dir = e.cwd
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git: %v\n%s", err, out)
	}
	c := exec.Command("bash", "-c", "set -euo pipefail\n"+block)
	c.Dir = e.cwd
	c.Env = append(e.environ(), "PATH="+filepath.Dir(trailBin)+":"+os.Getenv("PATH"))
	r := e.wait(c)
	if r.code != 0 {
		t.Fatalf("the README's Use block failed:\n%s\n--- block ---\n%s", r, block)
	}
	if !strings.Contains(r.stdout, "echo: what does grep -v do\n") || !strings.Contains(r.stdout, "first answer\n") || !strings.Contains(r.stdout, "KEY") {
		t.Errorf("stdout:\n%s", r.stdout)
	}
	if got := e.read("summary.md"); !strings.HasPrefix(got, "echo: summarise the release notes") {
		t.Errorf("summary.md = %q", got)
	}
}
