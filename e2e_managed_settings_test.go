package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

// An organization's managed settings (Claude Code's managed scope,
// /etc/claude-code/managed-settings.json and managed-settings.d/ on
// Linux) hold on a managed machine: their values win over every file and
// --settings, their rules add to the others, and
// allowManagedPermissionRulesOnly and allowManagedHooksOnly set aside
// every other file's rules and hooks, --allow-tool's too. The tests cannot
// write the system's folder: they build trail with another one at link
// time, as no user can at run time.

var managed struct {
	once     sync.Once
	bin, dir string
	err      error
}

func managedTrail(t *testing.T) (bin, dir string) {
	t.Helper()
	managed.once.Do(func() {
		root := filepath.Dir(trailBin)
		managed.dir = filepath.Join(root, "managed-policy")
		managed.bin = filepath.Join(root, "trail-managed")
		args := slices.Clone(releaseBuild)
		i := slices.Index(args, "-ldflags")
		args[i+1] += " -X trail/core/settings.managedDir=" + managed.dir
		build := exec.Command("go", append(args, "-o", managed.bin, ".")...)
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			managed.err = err
			t.Logf("%s", out)
		}
	})
	if managed.err != nil {
		t.Fatalf("build trail with a managed folder: %v", managed.err)
	}
	return managed.bin, managed.dir
}

func TestManagedSettingsHoldOnAManagedMachine(t *testing.T) {
	bin, dir := managedTrail(t)
	policy := func(t *testing.T, base string, dropIns map[string]string) {
		t.Helper()
		os.RemoveAll(dir)
		if err := os.MkdirAll(filepath.Join(dir, "managed-settings.d"), 0o755); err != nil {
			t.Fatal(err)
		}
		if base != "" {
			os.WriteFile(filepath.Join(dir, "managed-settings.json"), []byte(base), 0o644)
		}
		for name, body := range dropIns {
			os.WriteFile(filepath.Join(dir, "managed-settings.d", name), []byte(body), 0o644)
		}
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	run := func(e *env, args ...string) result {
		c := exec.Command(bin, args...)
		c.Dir, c.Env = e.cwd, e.environ()
		return e.wait(c)
	}
	// decisions runs one turn of Bash calls in bypassPermissions mode
	// unless told otherwise, and says which ran.
	decisions := func(t *testing.T, e *env, flags []string, commands ...string) map[string]bool {
		t.Helper()
		var cs []map[string]any
		for _, c := range commands {
			cs = append(cs, call("Bash", map[string]any{"command": c}))
		}
		s := e.script(calls(cs...), answer("done"))
		r := run(e, append([]string{"run", "--provider", "script", "--script", s, "-o", "json", "go"}, flags...)...)
		if r.code != 0 {
			t.Fatalf("%s", r)
		}
		ran := map[string]bool{}
		for i, c := range commands {
			ran[c] = e.exists("ran-" + string(rune('a'+i)))
		}
		return ran
	}

	t.Run("a deny rule in the policy beats the user's allow and bypassPermissions", func(t *testing.T) {
		policy(t, `{"permissions": {"deny": ["Bash(touch ran-a)"]}}`, nil)
		e := newEnv(t)
		writeClaudeSettings(t, e, map[string]any{"permissions": map[string]any{"allow": []string{"Bash(touch ran-a)"}}})
		got := decisions(t, e, []string{"--permission-mode", "bypassPermissions"}, "touch ran-a", "touch ran-b")
		if got["touch ran-a"] || !got["touch ran-b"] {
			t.Errorf("ran: %v", got)
		}
	})

	t.Run("a drop-in's value wins over --settings; the drop-ins go in name order", func(t *testing.T) {
		policy(t, `{"maxTurns": 7}`, map[string]string{"10-a.json": `{"maxTurns": 3}`, "20-b.json": `{"maxTurns": 1}`, ".hidden.json": `{"maxTurns": 9}`})
		e := newEnv(t)
		r := run(e, "--settings", `{"maxTurns": 5}`, "config")
		if !regexp.MustCompile(`(?m)^maxTurns +1 +\S*managed-settings\.d/20-b\.json$`).MatchString(r.stdout) {
			t.Errorf("config does not show the last drop-in's maxTurns:\n%s", r.stdout)
		}
		for _, f := range []string{"managed-settings.json", "10-a.json", "20-b.json"} {
			if !strings.Contains(r.stdout, f) {
				t.Errorf("config's files lack %s:\n%s", f, r.stdout)
			}
		}
		if strings.Contains(r.stdout, ".hidden.json") {
			t.Errorf("a hidden drop-in is read:\n%s", r.stdout)
		}
	})

	t.Run("allowManagedPermissionRulesOnly sets aside every other rule, --allow-tool too", func(t *testing.T) {
		policy(t, `{"allowManagedPermissionRulesOnly": true, "permissions": {"allow": ["Bash(touch ran-a)"]}}`, nil)
		e := newEnv(t)
		writeClaudeSettings(t, e, map[string]any{"permissions": map[string]any{"allow": []string{"Bash(touch ran-b)"}}})
		e.writeFile(".claude/settings.json", `{"permissions": {"allow": ["Bash(touch ran-c)"]}}`)
		got := decisions(t, e, []string{"--allow-tool", "Bash(touch ran-d)"}, "touch ran-a", "touch ran-b", "touch ran-c", "touch ran-d")
		if !got["touch ran-a"] || got["touch ran-b"] || got["touch ran-c"] || got["touch ran-d"] {
			t.Errorf("ran: %v", got)
		}
		r := run(e, "run", "--provider", "echo", "--allow-tool", "Bash(ls)", "hi")
		for _, want := range []string{"2 permission rules of other settings files are ignored", "--allow-tool is ignored"} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("no warning %q: %s", want, r)
			}
		}
		if r := run(e, "config", "--check"); r.code != 0 || !strings.Contains(r.stdout, `permissions.allow "Bash(touch ran-b)" is ignored: the managed settings`) {
			t.Errorf("config --check: %s", r)
		}
	})

	t.Run("the same key in a user's file does nothing", func(t *testing.T) {
		policy(t, "", nil)
		e := newEnv(t)
		writeClaudeSettings(t, e, map[string]any{"allowManagedPermissionRulesOnly": true, "permissions": map[string]any{"allow": []string{"Bash(touch ran-a)"}}})
		if got := decisions(t, e, nil, "touch ran-a"); !got["touch ran-a"] {
			t.Errorf("a user's allowManagedPermissionRulesOnly set aside the user's own rule")
		}
	})

	t.Run("allowManagedHooksOnly runs the policy's hooks alone", func(t *testing.T) {
		policy(t, `{"allowManagedHooksOnly": true, "hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "touch policy-hook"}]}]}}`, nil)
		e := newEnv(t)
		writeClaudeSettings(t, e, map[string]any{"hooks": map[string]any{"UserPromptSubmit": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "touch user-hook"}}}}}})
		r := run(e, "run", "--provider", "echo", "hi")
		if r.code != 0 || !e.exists("policy-hook") || e.exists("user-hook") {
			t.Errorf("policy hook ran %v, user hook ran %v: %s", e.exists("policy-hook"), e.exists("user-hook"), r)
		}
		if !strings.Contains(r.stderr, "1 hook of other settings files is not run") {
			t.Errorf("no warning: %s", r)
		}
	})

	t.Run("disableAllHooks of a repository's file or --settings leaves the policy's hooks running", func(t *testing.T) {
		policy(t, `{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "touch policy-hook"}]}]}}`, nil)
		e := newEnv(t)
		e.writeFile(".claude/settings.local.json", `{"disableAllHooks": true, "hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "touch repo-hook"}]}]}}`)
		r := run(e, "run", "--provider", "echo", "hi")
		if r.code != 0 || !e.exists("policy-hook") || e.exists("repo-hook") || !strings.Contains(r.stderr, "the managed settings' own still run") {
			t.Errorf("policy hook ran %v, repo hook ran %v: %s", e.exists("policy-hook"), e.exists("repo-hook"), r)
		}
		os.Remove(filepath.Join(e.cwd, "policy-hook"))
		os.RemoveAll(filepath.Join(e.cwd, ".claude"))
		if r := run(e, "--settings", `{"disableAllHooks": true}`, "run", "--provider", "echo", "hi"); r.code != 0 || !e.exists("policy-hook") {
			t.Errorf("--settings disableAllHooks stopped the policy's hook: %s", r)
		}
	})

	t.Run("the user's own allowManaged keys are said to do nothing", func(t *testing.T) {
		policy(t, "", nil)
		e := newEnv(t)
		writeClaudeSettings(t, e, map[string]any{"allowManagedHooksOnly": true})
		if r := run(e, "config", "--check"); r.code != 0 || !strings.Contains(r.stdout, "allowManagedHooksOnly does nothing here: only the managed settings may set it") {
			t.Errorf("config --check: %s", r)
		}
	})

	t.Run("a policy that is no JSON stops every step", func(t *testing.T) {
		policy(t, `{"permissions": `, nil)
		e := newEnv(t)
		if r := run(e, "run", "--provider", "echo", "hi"); r.code != 7 || !strings.Contains(r.stderr, "managed-settings.json") || !strings.Contains(r.stderr, "ask whoever manages this machine") {
			t.Errorf("a broken policy: %s", r)
		}
	})

	t.Run("a drop-in folder this user cannot list stops every step", func(t *testing.T) {
		if os.Getuid() != 0 {
			t.Skip("needs root to make a folder another user cannot list")
		}
		if _, err := exec.LookPath("setpriv"); err != nil {
			t.Skip("no setpriv")
		}
		policy(t, "", map[string]string{"10.json": `{"permissions": {"deny": ["Bash(touch *)"]}}`})
		os.Chmod(dir, 0o755)
		os.Chmod(filepath.Join(dir, "managed-settings.d"), 0o700)
		e := newEnv(t)
		root := os.Getenv("TMPDIR")
		for d := e.user; strings.HasPrefix(d, root) && len(d) >= len(root); d = filepath.Dir(d) {
			os.Chmod(d, 0o777)
		}
		c := exec.Command("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", bin, "run", "--provider", "echo", "hi")
		c.Dir, c.Env = e.cwd, e.environ()
		if r := e.wait(c); r.code != 7 || !strings.Contains(r.stderr, "managed-settings.d: list the managed settings: permission denied") || !strings.Contains(r.stderr, "ask whoever manages this machine") {
			t.Errorf("an unlistable drop-in folder: %s", r)
		}
	})
}
