package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBadInputGetsOneClearLineAndTheRightCode(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	badSettings := e.writeFile(".trail/settings.json", "{\n  \"model\": \"x\",\n  oops\n}\n")
	_ = badSettings
	tests := []struct {
		name      string
		dir       string // "" = a clean directory
		env       []string
		args      []string
		wantCode  int
		wantInErr string
	}{
		{name: "unknown flag", args: []string{"run", "--provider", "echo", "--bogus", "hi"}, wantCode: 2, wantInErr: "bogus"},
		{name: "unknown flag before the prompt", args: []string{"run", "--nope", "hi"}, wantCode: 2, wantInErr: "nope"},
		{name: "misspelt command", args: []string{"rnu"}, wantCode: 2, wantInErr: "rnu"},
		{name: "missing prompt", args: []string{"run", "--provider", "echo"}, wantCode: 2, wantInErr: "no prompt"},
		{name: "bad output format", args: []string{"run", "--provider", "echo", "-o", "xml", "hi"}, wantCode: 2, wantInErr: "xml"},
		{name: "bad flag value", args: []string{"run", "--provider", "echo", "--max-turns", "many", "hi"}, wantCode: 2, wantInErr: "max-turns"},
		{name: "unknown provider", args: []string{"run", "--provider", "nope", "hi"}, wantCode: 2, wantInErr: "nope"},
		{name: "no provider configured", args: []string{"run", "hi"}, wantCode: 2, wantInErr: "no model provider"},
		{name: "settings that do not parse", dir: "bad", args: []string{"run", "--provider", "echo", "hi"}, wantCode: 7, wantInErr: "line 3"},
		{name: "missing --settings file", args: []string{"--settings", "/nonexistent/s.json", "run", "--provider", "echo", "hi"}, wantCode: 2, wantInErr: "/nonexistent/s.json"},
		{name: "missing script file", args: []string{"run", "--provider", "script", "--script", "/nonexistent/script.json", "hi"}, wantCode: 2, wantInErr: "/nonexistent/script.json"},
		{name: "script without --script", args: []string{"run", "--provider", "script", "hi"}, wantCode: 2, wantInErr: "script"},
		{name: "resume without a session", args: []string{"resume"}, wantCode: 2, wantInErr: "no session"},
		{name: "resume --last with no sessions", args: []string{"resume", "--last", "hi"}, wantCode: 3, wantInErr: "no session"},
		{name: "list with a bad limit", args: []string{"list", "--limit", "-1"}, wantCode: 2, wantInErr: "limit"},
		{name: "list with a bad duration", args: []string{"list", "--since", "soon"}, wantCode: 2, wantInErr: "soon"},
		{name: "delete with nothing selected", args: []string{"delete"}, wantCode: 2, wantInErr: "nothing to delete"},
		{name: "a --wait that is no duration", args: []string{"run", "--provider", "echo", "--wait", "soon", "hi"}, wantCode: 2, wantInErr: "--wait"},
		{name: "a negative --wait", args: []string{"resume", "--last", "--wait", "-1", "hi"}, wantCode: 2, wantInErr: "--wait"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sub := newEnv(t)
			if tt.dir == "bad" {
				sub.writeFile(".trail/settings.json", "{\n  \"model\": \"x\",\n  oops\n}\n")
			}
			sub.setenv(tt.env...)
			r := sub.run("", tt.args...)
			if r.code != tt.wantCode {
				t.Fatalf("exit %d, want %d\n%s", r.code, tt.wantCode, r)
			}
			if r.stdout != "" {
				t.Errorf("stdout = %q, want nothing on failure", r.stdout)
			}
			lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n")
			if !strings.HasPrefix(lines[0], "trail: ") || len(lines) > 2 || (len(lines) == 2 && !strings.HasPrefix(lines[1], "hint: ")) {
				t.Errorf("stderr is not one error line and an optional hint:\n%s", r.stderr)
			}
			if !strings.Contains(r.stderr, tt.wantInErr) {
				t.Errorf("stderr %q does not mention %q", r.stderr, tt.wantInErr)
			}
		})
	}
}

func TestHelpListsExitCodes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, cmd := range []string{"run", "resume", "list", "delete"} {
		r := e.must("", cmd, "--help")
		if !strings.Contains(r.stdout, "EXIT CODES") || !strings.Contains(r.stdout, "130") {
			t.Errorf("trail %s --help does not list the exit codes", cmd)
		}
	}
	r := e.must("", "--version")
	if !strings.HasPrefix(r.stdout, "trail ") {
		t.Errorf("--version = %q", r.stdout)
	}
}

// A service account's HOME that does not exist (/nonexistent in many
// containers) is refused: trail's folders were made from the root down.
func TestAHomeFolderThatDoesNotExistIsRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	missing := filepath.Join(e.user, "nonexistent", "x")
	c := e.cmd("run", "--provider", "echo", "hi")
	c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + missing, "TERM=dumb"}
	r := e.wait(c)
	if r.code != 2 || !strings.Contains(r.stderr, "does not exist") || !strings.Contains(r.stderr, "hint: set TRAIL_HOME or pass --home") {
		t.Errorf("HOME that does not exist: %s", r)
	}
	if _, err := os.Stat(filepath.Join(e.user, "nonexistent")); err == nil {
		t.Error("trail made the missing home folder")
	}
	// what needs no home runs: a log by its path, on stdin, list (none)
	e.must("", "run", "--provider", "echo", "hi")
	log := e.logPath(e.onlySession())
	for _, args := range [][]string{{"validate-log", log}, {"replay", log}, {"list"}, {"validate-log", "-"}} {
		c := e.cmd(args...)
		c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + missing, "TERM=dumb"}
		if args[len(args)-1] == "-" {
			f, err := os.Open(log)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			c.Stdin = f
		}
		if r := e.wait(c); r.code != 0 {
			t.Errorf("%s with HOME missing: %s", args, r)
		}
	}
	// Claude Code's folder under it is not made either
	c = e.cmd("export", "--last", "--any-dir", "--to", "claude", "--install")
	c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + missing, "TRAIL_HOME=" + e.home, "TERM=dumb"}
	if r := e.wait(c); r.code != 2 || !strings.Contains(r.stderr, "does not exist") {
		t.Errorf("export --install with HOME missing: %s", r)
	}
	if _, err := os.Stat(filepath.Join(e.user, "nonexistent")); err == nil {
		t.Error("trail made the missing home folder")
	}
}
