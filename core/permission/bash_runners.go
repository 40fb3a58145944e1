package permission

import (
	"path/filepath"
	"regexp"
	"strings"

	"trail/lazy"
)

// gitRunsCommand is the shell command git itself runs: git submodule
// foreach CMD, git bisect run CMD..., git rebase --exec CMD (or -x CMD).
// A rule must see `git submodule foreach 'git push'` as a git push.
func gitRunsCommand(part string, toks []token) (string, bool) {
	rest := func(j int) (string, bool) {
		if j >= len(toks) {
			return "", false
		}
		if j == len(toks)-1 {
			return toks[j].text, true // one word: the string sh -c is given
		}
		return part[toks[j].start:], true
	}
	for i := 1; i < len(toks); i++ {
		switch t := toks[i].text; {
		case t == "foreach" && toks[i-1].text == "submodule":
			j := i + 1
			for j < len(toks) && (toks[j].text == "--recursive" || toks[j].text == "-q" || toks[j].text == "--quiet") {
				j++
			}
			return rest(j)
		case t == "run" && toks[i-1].text == "bisect":
			return rest(i + 1)
		case (t == "--exec" || t == "-x") && i+1 < len(toks) && slicesHas(toks[:i], "rebase"):
			return toks[i+1].text, true
		case strings.HasPrefix(t, "--exec=") && slicesHas(toks[:i], "rebase"):
			return strings.TrimPrefix(t, "--exec="), true
		}
	}
	return "", false
}

func slicesHas(toks []token, text string) bool {
	for _, t := range toks {
		if t.text == text {
			return true
		}
	}
	return false
}

// awkCalls finds, in an awk program, system("...") and the commands it
// pipes to or reads from ("cmd" | getline, print | "cmd").
var awkCalls = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp {
	return regexp.MustCompile(`system\s*\(\s*("(?:[^"\\]|\\.)*")?\s*(\))?|\|\s*("(?:[^"\\]|\\.)*")|("(?:[^"\\]|\\.)*")\s*\|\s*getline`)
}}

// awkCommands is what an awk program runs through the shell, one command
// a line. A system() whose argument is not a plain string is computed
// when awk runs, so no rule can see it: it is given as a command named by
// an expansion, which opaqueCommand takes as unseen.
func awkCommands(toks []token) (string, bool) {
	switch filepath.Base(toks[0].text) {
	case "awk", "gawk", "mawk", "nawk", "busybox-awk":
	default:
		return "", false
	}
	program := ""
	for i := 1; i < len(toks); i++ {
		t := toks[i].text
		if t == "-f" || t == "--file" {
			return "", false // a program file: beyond what the words say
		}
		if t == "-v" || t == "-F" {
			i++
			continue
		}
		if strings.HasPrefix(t, "-") && !toks[i].quoted {
			continue
		}
		program = t
		break
	}
	var cmds []string
	for _, m := range awkCalls.Get().FindAllStringSubmatch(program, -1) {
		lit := m[1] + m[3] + m[4]
		if lit == "" || (m[1] != "" && m[2] == "") {
			// system("rm -rf " dir): made when awk runs
			cmds = append(cmds, "$AWK_COMPUTED_COMMAND")
		}
		if lit == "" {
			continue
		}
		cmds = append(cmds, strings.ReplaceAll(strings.ReplaceAll(lit[1:len(lit)-1], `\"`, `"`), `\\`, `\`))
	}
	return strings.Join(cmds, "\n"), len(cmds) > 0
}
