package permission

// Reading a Bash command the way Claude Code's rules read it: words with
// their quotes resolved, redirections apart, and the wrappers and variable
// assignments in front of the real command seen through.
//
//   - Leading NAME=value assignments: a deny or ask rule matches past any
//     of them (FOO=bar rm -rf x is rm); an allow rule only past the
//     known-safe ones (NODE_ENV=test npm test is npm test), whose value
//     expands nothing.
//   - Wrappers that run their argument as the command: timeout, time,
//     nice, nohup, stdbuf, command and builtin (not command -v), zsh's
//     noglob, and xargs without flags.

import (
	"strings"

	"trail/lazy"
)

// token is one word of a command part: its text with quotes resolved, and
// what the rules need to know about how it was written.
type token struct {
	text   string
	start  int  // byte offset of the word in the part
	quoted bool // some of it was quoted
	glob   bool // it holds an unquoted *, ? or [
	dollar bool // it holds an unquoted or double-quoted $ (an expansion)
	redir  string
}

// tokens splits one command part (no control operators left) into words.
// A redirection is its own token with redir set to the operator (">",
// ">>", "<", "&>", "2>", ">&"...); the word after it is its target.
// broken is true when a quote is never closed.
func tokens(part string) (out []token, broken bool) {
	i := 0
	for {
		for i < len(part) && (part[i] == ' ' || part[i] == '\t' || part[i] == '\n' || strings.HasPrefix(part[i:], "\\\n")) {
			i++
		}
		if i >= len(part) {
			return out, false
		}
		if op, n := redirection(part[i:]); n > 0 {
			out = append(out, token{text: op, start: i, redir: op})
			i += n
			continue
		}
		t := token{start: i}
		var b strings.Builder
		for i < len(part) {
			c := part[i]
			if c == ' ' || c == '\t' || c == '\n' {
				break
			}
			if c == '<' || c == '>' {
				break
			}
			switch c {
			case '\\':
				if i+1 < len(part) && part[i+1] == '\n' {
					i += 2 // a line continuation: nothing at all
					continue
				}
				if i+1 < len(part) {
					b.WriteByte(part[i+1])
					i += 2
					t.quoted = true
					continue
				}
			case '\'':
				j := strings.IndexByte(part[i+1:], '\'')
				if j < 0 {
					return out, true
				}
				b.WriteString(part[i+1 : i+1+j])
				i += j + 2
				t.quoted = true
				continue
			case '"':
				j := i + 1
				for j < len(part) && part[j] != '"' {
					if part[j] == '\\' && j+1 < len(part) {
						j++
					}
					if part[j] == '$' || part[j] == '`' {
						t.dollar = true
					}
					j++
				}
				if j >= len(part) {
					return out, true
				}
				b.WriteString(part[i+1 : j])
				i = j + 1
				t.quoted = true
				continue
			case '*', '?', '[':
				t.glob = true
			case '$', '`':
				if c == '$' && i+1 < len(part) && part[i+1] == '\'' {
					// $'...': ANSI-C quoting, a quoted word, no expansion
					text, n, ok := ansiC(part[i+2:])
					if !ok {
						return out, true
					}
					b.WriteString(text)
					i += 2 + n
					t.quoted = true
					continue
				}
				t.dollar = true
				// A substitution is one piece of the word, spaces and
				// all: $(git describe) does not end it.
				end := -1
				if c == '`' {
					if j := strings.IndexByte(part[i+1:], '`'); j >= 0 {
						end = i + 1 + j
					}
				} else if i+1 < len(part) && part[i+1] == '(' {
					end = closing(part, i+1)
				}
				if end > 0 {
					b.WriteString(part[i : end+1])
					i = end + 1
					continue
				}
			}
			b.WriteByte(c)
			i++
		}
		t.text = b.String()
		if t.text == "" && !t.quoted && !t.dollar {
			continue // only line continuations
		}
		out = append(out, t)
	}
}

// ansiC reads the body of a $'...' word up to its closing quote: the text
// with its escapes resolved (the common ones; others kept as written), the
// bytes read including the quote, and false when it never closes.
func ansiC(s string) (string, int, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\'':
			return b.String(), i + 1, true
		case c == '\\' && i+1 < len(s):
			i++
			switch e := s[i]; e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case '\\', '\'', '"', '?':
				b.WriteByte(e)
			default:
				b.WriteByte('\\')
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, false
}

// redirection reports the redirection operator s starts with and its
// length: [n]> [n]>> [n]>| [n]< [n]<> << <<< &> &>> >& <& (n a digit).
func redirection(s string) (string, int) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	j := i
	if i == 0 && strings.HasPrefix(s, "&>") {
		j = 2
		if strings.HasPrefix(s[j:], ">") {
			j++
		}
		return s[:j], j
	}
	if j >= len(s) || (s[j] != '<' && s[j] != '>') {
		return "", 0
	}
	j++
	switch {
	case j >= len(s):
	case s[j] == '|' && s[j-1] == '>': // >| writes past noclobber
		j++
	case s[j] == '>' || s[j] == '&' || (s[j] == '<' && s[j-1] == '<'):
		j++
		if j < len(s) && s[j] == '<' && s[j-1] == '<' { // <<< a here-string
			j++
		}
	}
	return s[:j], j
}

// isAssignment: NAME=value with an unquoted, valid name.
func isAssignment(t token, part string) bool {
	raw := part[t.start:]
	eq := strings.IndexByte(raw, '=')
	if eq <= 0 || t.redir != "" {
		return false
	}
	name := raw[:eq]
	for i, c := range name {
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// safeEnv are the variables an allow rule sees past (Claude Code strips
// "certain known-safe" ones): they change how a tool reports, never what
// program runs or what it loads.
var safeEnv = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
		"NODE_ENV": true, "RAILS_ENV": true, "RACK_ENV": true, "APP_ENV": true, "CI": true,
		"RUST_BACKTRACE": true, "RUST_LOG": true, "NO_COLOR": true, "FORCE_COLOR": true,
		"TZ": true, "LANG": true, "LC_ALL": true, "LC_CTYPE": true, "TERM": true, "COLUMNS": true,
		"GOOS": true, "GOARCH": true, "CGO_ENABLED": true, "PYTHONUNBUFFERED": true,
		"PYTHONDONTWRITEBYTECODE": true, "DEBUG": true,
	}
}}

// wrapperArgs is, for one wrapper, how many of its own words follow it
// before the wrapped command: flagsWithValue take the next word too;
// operands are positional arguments of the wrapper itself (timeout's
// duration).
type wrapperArgs struct {
	flagsWithValue []string
	operands       int
}

// wrappers are the commands an allow rule sees through.
var wrappers = lazy.Value[map[string]wrapperArgs]{New: func() map[string]wrapperArgs {
	return map[string]wrapperArgs{
		"timeout": {[]string{"-s", "-k", "--signal", "--kill-after"}, 1},
		"time":    {nil, 0},
		"nice":    {[]string{"-n", "--adjustment"}, 0},
		"nohup":   {nil, 0},
		"stdbuf":  {[]string{"-i", "-o", "-e", "--input", "--output", "--error"}, 0},
		"command": {nil, 0},
		"builtin": {nil, 0},
		"noglob":  {nil, 0},
		"xargs":   {nil, 0},
		"setsid":  {nil, 0},
		"ionice":  {[]string{"-c", "-n", "-p", "-P", "-u", "--class", "--classdata"}, 0},
	}
}}

// stripPrefix removes the assignments and wrappers before a part's real
// command and returns what is left, as written. anyEnv strips every
// assignment (deny and ask rules); otherwise only safeEnv ones whose value
// expands nothing (allow rules). A part that would be left empty is
// returned whole.
func stripPrefix(part string, anyEnv bool) string {
	toks, broken := tokens(part)
	if broken {
		return part
	}
	i := 0
	for i < len(toks) {
		t := toks[i]
		if isAssignment(t, part) {
			name := part[t.start : t.start+strings.IndexByte(part[t.start:], '=')]
			if !anyEnv && (!safeEnv.Get()[name] || t.dollar) {
				break
			}
			i++
			continue
		}
		w, ok := wrappers.Get()[t.text]
		if !ok || (t.quoted && !anyEnv) {
			// a quoted wrapper ("command", \command) runs all the same: a
			// deny rule sees through it, an allow rule does not trust it
			break
		}
		j := i + 1
		switch t.text {
		case "command":
			if j < len(toks) && (toks[j].text == "-v" || toks[j].text == "-V") {
				return strings.TrimSpace(part[toks[i].start:])
			}
		case "xargs":
			if j < len(toks) && strings.HasPrefix(toks[j].text, "-") {
				return strings.TrimSpace(part[toks[i].start:])
			}
		}
		for j < len(toks) && strings.HasPrefix(toks[j].text, "-") && toks[j].text != "-" {
			flag := toks[j].text
			j++
			for _, f := range w.flagsWithValue {
				if flag == f {
					j++
				}
			}
		}
		j += w.operands
		if j >= len(toks) {
			break
		}
		i = j
	}
	if i >= len(toks) {
		return part
	}
	return strings.TrimSpace(part[toks[i].start:])
}

// substitutions returns the commands inside $(...), `...`, <(...) and
// >(...) of cmd, each split at its own control operators, recursively.
// Text in single quotes is not a substitution.
func substitutions(cmd string) []string {
	var out []string
	inSingle, inDouble := false, false
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case inSingle:
			if c == '\'' {
				inSingle = false
			}
			continue
		case c == '\\':
			i++
			continue
		case c == '\'' && !inDouble:
			inSingle = true
			continue
		case c == '"':
			inDouble = !inDouble
			continue
		}
		var inner string
		switch {
		case c == '`':
			j := strings.IndexByte(cmd[i+1:], '`')
			if j < 0 {
				return out
			}
			inner = cmd[i+1 : i+1+j]
			i += j + 1
		case c == '$' && strings.HasPrefix(cmd[i+1:], "(("):
			// $((...)) is arithmetic, not a command: only the
			// substitutions inside it run ($(( $(nproc) * 2 ))).
			j := closing(cmd, i+1)
			if j < 0 {
				return out
			}
			out = append(out, substitutions(cmd[i+3:j])...)
			i = j
			continue
		case (c == '$' || c == '<' || c == '>') && i+1 < len(cmd) && cmd[i+1] == '(':
			j := closing(cmd, i+1)
			if j < 0 {
				return out
			}
			inner = cmd[i+2 : j]
			i = j
		default:
			continue
		}
		parts, _ := splitCommand(inner)
		out = append(out, parts...)
		out = append(out, substitutions(inner)...)
	}
	return out
}

// closing finds the parenthesis closing the one at open, -1 when none.
func closing(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// hasExpansion reports whether cmd holds a substitution or a $VAR outside
// single quotes: what a rule cannot see into.
func hasExpansion(cmd string) bool {
	parts, opaque := splitCommand(cmd)
	if opaque {
		return true
	}
	for _, p := range parts {
		toks, _ := tokens(p)
		for _, t := range toks {
			if t.dollar {
				return true
			}
		}
	}
	return false
}

// ShellWord is one word as typed at a shell prompt, its quotes and
// backslashes resolved ("~/my\ home" is ~/my home), for shell completion,
// which is handed the words of the line as typed. ok is false for what is
// no single plain word: an unclosed quote, an expansion, a glob.
func ShellWord(w string) (text string, ok bool) {
	toks, broken := tokens(w)
	if broken || len(toks) != 1 || toks[0].redir != "" || toks[0].dollar || toks[0].glob {
		return "", false
	}
	return toks[0].text, true
}
