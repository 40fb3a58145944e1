package permission

import (
	"path/filepath"
	"regexp"
	"strings"

	"trail/lazy"
)

// What an awk program does beyond its input: the commands it runs through
// the shell (system("..."), print | "...", "..." | getline) and the files
// it reads and writes itself (getline < "...", print > "...", >> "...").
// A command or file given as a string is judged as written. A command put
// together as awk runs (system("rm " dir), print | cmd, cmd | getline) is
// given as a command named by an expansion, which opaqueCommand takes as
// unseen. A file so put together is beyond what the words say.

// awkProgram is the program text of an awk command, "" for none (or a
// program read from a file with -f).
func awkProgram(toks []token) string {
	switch filepath.Base(toks[0].text) {
	case "awk", "gawk", "mawk", "nawk", "busybox-awk":
	default:
		return ""
	}
	for i := 1; i < len(toks); i++ {
		t := toks[i].text
		switch {
		case t == "-f" || t == "--file":
			return ""
		case t == "-v" || t == "-F":
			i++
		case strings.HasPrefix(t, "-") && !toks[i].quoted:
		default:
			return t
		}
	}
	return ""
}

// awkString is an awk string literal; awkTarget what follows a pipe or a
// redirection: a literal, or the start of any other expression.
const (
	awkString = `"(?:[^"\\]|\\.)*"`
	awkTarget = `(` + awkString + `|[^\s"|&;}])`
)

// awkShell finds the commands a program runs: system(...) (its argument
// a whole literal or not), a print's | target, and what pipes into getline.
var awkShell = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp {
	return regexp.MustCompile(`system\s*\(\s*(` + awkString + `)?\s*(\))?` +
		`|\bprintf?\b[^;{}\n]*?\|\s*` + awkTarget +
		`|(` + awkString + `|[A-Za-z_]\w*|\))\s*\|\s*getline`)
}}

// awkFiles finds the files a program names: a print's > or >> target, and
// getline's < source.
var awkFiles = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp {
	return regexp.MustCompile(`\bprintf?\b[^;{}\n]*?>>?\s*(` + awkString + `)` + `|\bgetline\b[^;{}\n<]*<\s*(` + awkString + `)`)
}}

// awkCommands is what an awk command runs through the shell, one command
// a line.
func awkCommands(toks []token) (string, bool) {
	program := awkProgram(toks)
	if program == "" {
		return "", false
	}
	var cmds []string
	for _, m := range awkShell.Get().FindAllStringSubmatch(program, -1) {
		var lit string
		computed := false
		switch {
		case strings.HasPrefix(m[0], "system"):
			lit, computed = m[1], m[1] == "" || m[2] == "" // system("rm " dir)
		case m[3] != "":
			lit, computed = m[3], !strings.HasPrefix(m[3], `"`)
		default:
			lit, computed = m[4], !strings.HasPrefix(m[4], `"`)
		}
		if computed {
			cmds = append(cmds, "$AWK_COMPUTED_COMMAND")
		}
		if strings.HasPrefix(lit, `"`) {
			cmds = append(cmds, unquoteAwk(lit))
		}
	}
	return strings.Join(cmds, "\n"), len(cmds) > 0
}

// awkFileWords are the files an awk command's program reads and writes by
// name.
func awkFileWords(toks []token) (reads, writes []string) {
	program := awkProgram(toks)
	if program == "" {
		return nil, nil
	}
	for _, m := range awkFiles.Get().FindAllStringSubmatch(program, -1) {
		if m[1] != "" {
			writes = append(writes, unquoteAwk(m[1]))
		} else {
			reads = append(reads, unquoteAwk(m[2]))
		}
	}
	return reads, writes
}

func unquoteAwk(lit string) string {
	return strings.ReplaceAll(strings.ReplaceAll(lit[1:len(lit)-1], `\"`, `"`), `\\`, `\`)
}
