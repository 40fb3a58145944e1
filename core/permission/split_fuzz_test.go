package permission

import (
	"slices"
	"strings"
	"testing"
)

// FuzzSplitCommand: the splitter deny and allow rules rely on never panics,
// and what it returns is what a rule may judge: trimmed, non-empty pieces of
// the command itself; one piece when there is no operator to split at; not
// opaque without a character that can open a substitution; text in single
// quotes is never split; and a simple command (no quote, escape or &)
// followed by ";" and another splits into the pieces of each.
func FuzzSplitCommand(f *testing.F) {
	for _, s := range []string{
		"echo hi; rm -rf .", "git diff && go test ./... || true", "ls | wc -l", "a\nb",
		`echo "a;b" ; c`, "echo 'x|y'", "echo $(whoami)", "echo `id`", "diff <(ls a) <(ls b)",
		"make 2>&1 | tee log", "cmd &> out & next", `echo a\;b`,
	} {
		f.Add(s, "rm -rf /")
	}
	f.Fuzz(func(t *testing.T, cmd, next string) {
		parts, opaque := splitCommand(cmd)
		for _, p := range parts {
			if p == "" || p != strings.TrimSpace(p) || !strings.Contains(cmd, p) {
				t.Fatalf("splitCommand(%q): part %q is not a trimmed piece of the command", cmd, p)
			}
		}
		if !strings.ContainsAny(cmd, ";&|\n") && len(parts) > 1 {
			t.Fatalf("splitCommand(%q) = %q: split with no operator", cmd, parts)
		}
		if !strings.ContainsAny(cmd, "$`<>") && opaque {
			t.Fatalf("splitCommand(%q): opaque without a substitution", cmd)
		}
		if !strings.Contains(cmd, "'") {
			quoted := "echo '" + cmd + "'"
			if got, op := splitCommand(quoted); len(got) != 1 || got[0] != strings.TrimSpace(quoted) || op {
				t.Fatalf("splitCommand(%q) = %q, %v: single quotes must hide everything", quoted, got, op)
			}
		}
		if !strings.ContainsAny(cmd, `'"\&`) {
			joined, jop := splitCommand(cmd + ";" + next)
			nextParts, nop := splitCommand(next)
			if want := append(slices.Clone(parts), nextParts...); !slices.Equal(joined, want) || jop != (opaque || nop) {
				t.Fatalf("splitCommand(%q) = %q, %v; want %q, %v", cmd+";"+next, joined, jop, want, opaque || nop)
			}
		}
	})
}

// FuzzBashAnalysis: what the rules read of a command (its words, the
// wrappers stripped, its substitutions, its files, whether it only reads)
// never panics on any text, and the stripped command is the end of the
// part as written: stripping only ever drops words in front.
func FuzzBashAnalysis(f *testing.F) {
	readHome, err := parseRule("Read(~/.ssh/**)", true, "")
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{
		"FOO=bar timeout 30 rm -rf x", "cat config/.env | wc -l", "echo $(rm -rf /) `id`",
		"grep -e x -f pats .env 2>&1 > out", "xargs -n1 grep", "nice -n", "'unterminated", "a\\",
		"git -C x log", "sed -i s/a/b/ f", "cp a b c", "<(x) >(y)", "&>out ls", "2>&",
		"tar cf - -C ~ .ssh", "tar", "find", "find -L", "grep -r", "rm -r", "zip -r",
		`awk 'BEGIN{system("rm " x)}'`, `awk '{print | "sh"}'`, "git submodule foreach", "git rebase -x",
		"sed 's/a/b/e'", "sed -n '1,/x/e ls'", "sed s", "sed 's", "git -c alias.x=!y x", "tar -I", "find d | xargs rm",
		"git -C d diff --no-index a b", "git clean -fdx p",
		`awk '{ c = "a"; c | getline; print | c }'`, "sed -n '1!G;h;$p'", "sed 's/a/b/w f'", "tar cIf x y", "tar --to-c=x",
		"git -c alias.a=!b a", "zip -TTx",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		p := &Policy{Cwd: "/proj", Home: "/home/u"}
		_ = p.readOnly(cmd)
		_, _ = p.fileRule(nil, cmd)
		_, _ = p.fileRule([]Rule{readHome}, cmd)
		_ = opaqueCommand(cmd, "") != ""
		_ = hasExpansion(cmd)
		for _, part := range bashParts(cmd, "") {
			_ = analyzeBash(part, "")
		}
		parts, _ := splitCommand(cmd)
		for _, part := range parts {
			for _, anyEnv := range []bool{true, false} {
				if got := stripPrefix(part, anyEnv); !strings.HasSuffix(part, got) {
					t.Fatalf("stripPrefix(%q, %v) = %q: not the end of the part", part, anyEnv, got)
				}
			}
		}
	})
}
