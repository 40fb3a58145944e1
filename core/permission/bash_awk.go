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

// awkString is an awk string literal.
const awkString = `"(?:[^"\\]|\\.)*"`

// awkShell finds where a program hands a command to the shell: system(,
// a print's | (not ||), and | getline. The command is the operand there.
var awkShell = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp {
	return regexp.MustCompile(`\bsystem\s*\(|\bprintf?\b[^;{}\n|]*\|[^|&]|\|\s*getline\b`)
}}

// awkStringAt matches a string literal at the start of a text.
var awkStringAt = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^` + awkString) }}

// awkAssign finds assignments of a string to a variable: cmd = "ls".
var awkAssign = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp {
	return regexp.MustCompile(`\b([A-Za-z_]\w*)\s*=([^=]|$)`)
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
	consts := awkConstants(program)
	var cmds []string
	for _, loc := range awkShell.Get().FindAllStringIndex(program, -1) {
		var operand string
		switch m := program[loc[0]:loc[1]]; {
		case strings.HasPrefix(m, "system"):
			operand = awkOperandAfter(program, loc[1])
		case strings.HasSuffix(strings.TrimSpace(m), "getline"):
			operand = awkOperandBefore(program, loc[0])
		default: // print ... | cmd: the match ends one past the |
			operand = awkOperandAfter(program, loc[1]-1)
		}
		switch {
		case strings.HasPrefix(operand, `"`) && awkWholeString(operand):
			cmds = append(cmds, unquoteAwk(operand))
		case consts[operand] != nil:
			for _, lit := range consts[operand] {
				cmds = append(cmds, unquoteAwk(lit))
			}
		default:
			cmds = append(cmds, awkBuildsCommand)
		}
	}
	return strings.Join(cmds, "\n"), len(cmds) > 0
}

// awkOperandAfter is the expression that starts at i, up to the end of
// its statement or a closing parenthesis.
func awkOperandAfter(program string, i int) string {
	end := i
	depth := 0
	for end < len(program) {
		c := program[end]
		if c == '"' {
			if l := awkStringAt.Get().FindString(program[end:]); l != "" {
				end += len(l)
				continue
			}
		}
		if c == '(' {
			depth++
		}
		if c == ')' {
			if depth == 0 {
				break
			}
			depth--
		}
		if depth == 0 && (c == ';' || c == '}' || c == '\n' || c == ',' || c == '>') {
			break
		}
		end++
	}
	return strings.TrimSpace(program[i:end])
}

// awkOperandBefore is the expression that ends at i: back to the start of
// its statement or an opening parenthesis.
func awkOperandBefore(program string, i int) string {
	start := i
	depth := 0
	inString := false
	for start > 0 {
		c := program[start-1]
		switch {
		case c == '"' && (start < 2 || program[start-2] != '\\'):
			inString = !inString
		case inString:
		case c == ')':
			depth++
		case c == '(':
			if depth == 0 {
				return strings.TrimSpace(program[start:i])
			}
			depth--
		case depth == 0 && (c == ';' || c == '{' || c == '\n' || c == '='):
			return strings.TrimSpace(program[start:i])
		}
		start--
	}
	return strings.TrimSpace(program[start:i])
}

// awkWholeString reports whether an operand is one string literal, not a
// concatenation ("r" "m -rf v").
func awkWholeString(operand string) bool {
	return awkStringAt.Get().FindString(operand) == operand
}

// awkConstants are the variables a program only ever gives whole string
// literals (cmd = "ls"), with those literals: a command in such a
// variable is as seen as one written in place.
func awkConstants(program string) map[string][]string {
	consts := map[string][]string{}
	other := map[string]bool{}
	for _, loc := range awkAssign.Get().FindAllStringSubmatchIndex(program, -1) {
		name := program[loc[2]:loc[3]]
		if loc[2] > 0 && (program[loc[2]-1] == '!' || program[loc[2]-1] == '<' || program[loc[2]-1] == '>') {
			continue
		}
		eq := loc[3] + strings.IndexByte(program[loc[3]:], '=')
		value := awkOperandAfter(program, eq+1)
		if strings.HasPrefix(value, `"`) && awkWholeString(value) {
			consts[name] = append(consts[name], value)
		} else {
			other[name] = true
		}
	}
	for name := range other {
		delete(consts, name)
	}
	return consts
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
