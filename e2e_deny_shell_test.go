package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// "Allow everything, deny the dangerous few" (Bash(*) or
// bypassPermissions beside a deny list) is a common setup. The shell's own
// syntax must not carry a denied command past the list, and a file a Read
// or Edit rule guards must not be reached through ~ or $HOME.
func TestDenyRulesHoldWhateverTheShellSyntax(t *testing.T) {
	t.Parallel()
	needPrograms(t, "bash")
	envFile := map[string]string{"d/keep.txt": "keep\n"}
	keep := wantFile("d/keep.txt", "keep\n")
	var rows []compatRow
	for _, cmd := range []string{
		"(rm -rf d)", "{ rm -rf d; }", "! rm -rf d", "if true; then rm -rf d; fi",
		"case x in x) rm -rf d;; esac", "f(){ rm -rf d; }; f", `"rm" -rf d`, "rm  -rf d",
		`eval "rm -rf d"`, "sh -c 'rm -rf d'", "env rm -rf d",
	} {
		rows = append(rows, compatRow{name: cmd, mode: "bypassPermissions",
			settings: rules([]string{"Bash(*)"}, []string{"Bash(rm -rf *)"}),
			calls:    []map[string]any{bashCall(cmd)},
			decide:   map[string]string{"call_0_0": "deny"},
			check:    keep})
	}
	rows = append(rows, compatRow{name: "a command named by a variable is asked, not run", mode: "bypassPermissions",
		settings: rules([]string{"Bash(*)"}, []string{"Bash(rm -rf *)"}),
		calls:    []map[string]any{bashCall("R=rm; $R -rf d")},
		decide:   map[string]string{"call_0_0": "deny"}, // asked, and no terminal to ask
		check: func(t *testing.T, e *env, id string, r result) {
			keep(t, e, id, r)
			if !strings.Contains(r.stderr, "a command whose words do not say all it runs (its command $R is an expansion, so deny rule Bash(rm -rf *) cannot judge it) always asks") {
				t.Errorf("stderr does not name what hides the command and the rule the call answered to:\n%s", r.stderr)
			}
		}})
	rows = append(rows, compatRow{name: "a command sed puts together is asked, and the line says so", mode: "bypassPermissions",
		settings: rules([]string{"Bash(*)"}, []string{"Bash(rm -rf *)"}),
		calls:    []map[string]any{bashCall("echo d | sed 's/^/rm -rf /e'")},
		decide:   map[string]string{"call_0_0": "deny"},
		check: func(t *testing.T, e *env, id string, r result) {
			keep(t, e, id, r)
			if !strings.Contains(r.stderr, "(sed's e runs the text it edits, so deny rule Bash(rm -rf *) cannot judge it)") {
				t.Errorf("stderr does not say sed's e hides the command:\n%s", r.stderr)
			}
		}})
	rows = append(rows, compatRow{name: "a string eval runs is as unseen as a command named by a variable", mode: "bypassPermissions",
		settings: rules([]string{"Bash(*)"}, []string{"Bash(rm -rf *)"}),
		calls:    []map[string]any{bashCall(`X="rm -rf d"; eval "$X"`), bashCall(`echo rm -rf d | sh`)},
		decide:   map[string]string{"call_0_0": "deny", "call_0_1": "deny"},
		check:    keep})
	rows = append(rows, compatRow{name: "assignments and loops run as before", mode: "bypassPermissions",
		settings: rules([]string{"Bash(*)"}, []string{"Bash(rm -rf *)"}),
		calls: []map[string]any{bashCall(`X=$(date); TMP=$(mktemp); echo "$X" > out.txt`),
			bashCall(`for f in d/*.txt; do cat $f; done`), bashCall(`git commit -m "fix (rm) bug" || true`),
			bashCall("cat > Makefile <<'EOF'\nclean:\n\trm -rf build\nEOF"), bashCall(`echo $(( $(nproc) * 2 ))`)},
		decide: map[string]string{"call_0_0": "allow", "call_0_1": "allow", "call_0_2": "allow", "call_0_3": "allow", "call_0_4": "allow"},
		check: func(t *testing.T, e *env, id string, r result) {
			if !strings.Contains(e.read("Makefile"), "rm -rf build") {
				t.Errorf("the here-document was not written")
			}
		}})
	rows = append(rows, compatRow{name: "a subshell reading .env", mode: "bypassPermissions",
		settings: rules(nil, []string{"Read(.env)"}),
		files:    map[string]string{".env": "KEY=secret\n"},
		calls:    []map[string]any{bashCall("(cat .env)"), bashCall("{ cat .env; }")},
		decide:   map[string]string{"call_0_0": "deny", "call_0_1": "deny"},
		check:    secretStaysOut})
	runCompatRows(t, rows, envFile)
}

func TestHomeFilesStayGuardedThroughBash(t *testing.T) {
	t.Parallel()
	needPrograms(t, "bash")
	for _, tt := range []struct {
		name, rule, cmd string
		flags           []string
	}{
		{"cat ~/", "Read(~/.ssh/**)", "cat ~/.ssh/id_rsa", []string{"--allow-tool", "Bash(cat *)"}},
		{"cat $HOME", "Read(~/.ssh/**)", `cat "$HOME/.ssh/id_rsa"`, []string{"--allow-tool", "Bash(cat *)"}},
		{"a glob under ~/", "Read(~/.ssh/**)", "cat ~/.ssh/*", []string{"--permission-mode", "bypassPermissions"}},
		{"< ~/", "Read(~/.ssh/**)", "cat < ~/.ssh/id_rsa", []string{"--permission-mode", "bypassPermissions"}},
		{">> ~/", "Edit(~/.bashrc)", "echo evil >> ~/.bashrc", []string{"--permission-mode", "bypassPermissions"}},
		// a folder read whole: no word names the key
		{"grep -r", "Read(~/.ssh/**)", "grep -r '' ~/.ssh", []string{"--permission-mode", "bypassPermissions"}},
		{"find -exec", "Read(~/.ssh/**)", "find ~/.ssh -type f -exec cat {} +", []string{"--permission-mode", "bypassPermissions"}},
		{"tar -C", "Read(~/.ssh/**)", "tar cf - -C ~ .ssh", []string{"--permission-mode", "bypassPermissions"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.writeFile(filepath.Join(e.user, ".ssh", "id_rsa"), "PRIVATE KEY\n")
			e.writeFile(filepath.Join(e.user, ".bashrc"), "orig\n")
			e.withSettings(rules(nil, []string{tt.rule}))
			s := e.script(calls(bashCall(tt.cmd)), answer("done"))
			r := e.run("", append(append([]string{"run", "--provider", "script", "--script", s}, tt.flags...), "go")...)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r)
			}
			id := e.sessionIDs()[0]
			if d := e.decisions(id)["call_0_0"]; d != "deny" {
				t.Errorf("decision %q, want deny by %s\n%s", d, tt.rule, r)
			}
			if out, _ := json.Marshal(e.toolResults(id)); strings.Contains(string(out), "PRIVATE KEY") {
				t.Errorf("the key reached the model: %.300q", out)
			}
			if got, _ := os.ReadFile(filepath.Join(e.user, ".bashrc")); string(got) != "orig\n" {
				t.Errorf(".bashrc is %q", got)
			}
		})
	}
}
