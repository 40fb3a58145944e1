package permission

// The commands a deny or ask rule looks at. Deny rules hold in every mode,
// so what the shell runs must not hide behind how it is written: each
// command of a compound, of its substitutions, of a subshell ( ), a brace
// group { }, a negation !, the bodies of if, while, until, for and case,
// and of a function; a command word quoted ("rm") or given by its path
// (/bin/rm); words quoted or spaced apart (rm '-rf'  d); and the command
// that eval, sh -c, sudo, env or find -exec runs. Seeing a command that is
// not there only makes a deny rule stricter; missing one lets it through.

import (
	"path/filepath"
	"strings"

	"trail/lazy"
)

// maxNesting bounds how deep eval, sh -c and friends are followed.
const maxNesting = 4

// bashParts are the commands of a Bash call a deny or ask rule looks at,
// each with its wrappers and assignments stripped, in the forms a rule
// may match: as written, and with its words unquoted and single-spaced.
func bashParts(cmd string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	var walk func(cmd string, depth int)
	walk = func(cmd string, depth int) {
		parts, _ := splitCommand(cmd)
		parts = append(parts, substitutions(cmd)...)
		for _, part := range parts {
			for _, piece := range ungroup(part) {
				bare := stripPrefix(piece, true)
				add(bare)
				plain := plainWords(bare)
				add(plain)
				if base := pathlessCommand(plain); base != "" {
					add(base)
				}
				if inner, ok := nestedCommand(bare); ok && depth < maxNesting {
					walk(inner, depth+1)
				}
			}
		}
	}
	walk(cmd, 0)
	return out
}

// shellKeywords open or continue a compound command; the command after
// one is what runs.
var shellKeywords = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
		"{": true, "}": true, "!": true, "if": true, "then": true, "elif": true, "else": true,
		"fi": true, "do": true, "done": true, "while": true, "until": true, "esac": true,
		"function": true,
	}
}}

// ungroup splits one part at its unquoted parentheses (a subshell, a
// function's (), a case pattern's )) and drops the keywords and braces
// before its command: "(rm -rf d)", "f(){ rm -rf d", "! rm -rf d" and
// "then rm -rf d" are each "rm -rf d".
func ungroup(part string) []string {
	var pieces []string
	start := 0
	inSingle, inDouble := false, false
	for i := 0; i < len(part); i++ {
		c := part[i]
		switch {
		case inSingle:
			inSingle = c != '\''
		case c == '\\':
			i++
		case inDouble:
			inDouble = c != '"'
		case c == '\'':
			inSingle = true
		case c == '"':
			inDouble = true
		case c == '(' || c == ')':
			pieces = append(pieces, part[start:i])
			start = i + 1
		}
	}
	pieces = append(pieces, part[start:])
	out := pieces[:0]
	for _, p := range pieces {
		if p = dropKeywords(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// dropKeywords removes the shell keywords and braces that start p, and a
// closing brace at its end.
func dropKeywords(p string) string {
	for {
		p = strings.TrimSpace(p)
		word, rest, _ := strings.Cut(p, " ")
		if word == "" || !shellKeywords.Get()[word] {
			break
		}
		p = rest
		if word == "function" { // and the function's name
			_, p, _ = strings.Cut(strings.TrimSpace(p), " ")
		}
	}
	if strings.HasSuffix(p, " }") {
		p = strings.TrimSuffix(p, " }")
	}
	return strings.TrimSpace(p)
}

// plainWords is part as the shell hands it to the command: each word
// unquoted, one space between words ("rm" '-rf'  d is rm -rf d). A part
// whose quotes do not close is returned as it is.
func plainWords(part string) string {
	toks, broken := tokens(part)
	if broken {
		return part
	}
	words := make([]string, len(toks))
	for i, t := range toks {
		words[i] = t.text
	}
	return strings.Join(words, " ")
}

// pathlessCommand is plain with its command word's folder dropped
// (/bin/rm -rf d is rm -rf d), "" when the word names no folder.
func pathlessCommand(plain string) string {
	word, rest, _ := strings.Cut(plain, " ")
	if !strings.Contains(word, "/") || strings.HasSuffix(word, "/") {
		return ""
	}
	return strings.TrimSpace(filepath.Base(word) + " " + rest)
}

// runners are the commands that run another one given in their words:
// what follows their own options (and, for env, assignments) is the
// command. A rule's own wrappers (timeout, nice, xargs...) are stripped by
// stripPrefix already.
var runners = lazy.Value[map[string][]string]{New: func() map[string][]string {
	return map[string][]string{
		"sudo": {"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "--user", "--group", "--chdir", "--prompt"},
		"doas": {"-u", "-C"},
		"exec": {"-a"},
		"env":  {"-u", "--unset", "-C", "--chdir"},
	}
}}

// nestedCommand returns the command another command runs: the words of
// eval, the string of sh -c (bash, zsh, dash, ksh), what follows sudo,
// doas, exec or env and their options, the command of find -exec.
func nestedCommand(part string) (string, bool) {
	toks, broken := tokens(part)
	if broken || len(toks) < 2 {
		return "", false
	}
	name := filepath.Base(toks[0].text)
	switch name {
	case "eval":
		return plainWords(part[toks[1].start:]), true
	case "sh", "bash", "zsh", "dash", "ksh":
		for i := 1; i+1 < len(toks); i++ {
			f := toks[i].text
			if strings.HasPrefix(f, "-") && !strings.HasPrefix(f, "--") && strings.Contains(f, "c") {
				return toks[i+1].text, true
			}
		}
	case "find":
		for i := 1; i < len(toks); i++ {
			switch toks[i].text {
			case "-exec", "-execdir", "-ok", "-okdir":
				var words []string
				for _, t := range toks[i+1:] {
					if t.text == ";" || t.text == "+" {
						break
					}
					words = append(words, t.text)
				}
				return strings.Join(words, " "), len(words) > 0
			}
		}
	}
	withValue, ok := runners.Get()[name]
	if !ok {
		return "", false
	}
	i := 1
	for i < len(toks) {
		t := toks[i].text
		switch {
		case strings.HasPrefix(t, "-") && t != "-":
			i++
			if contains(withValue, t) {
				i++
			}
		case name == "env" && isAssignment(toks[i], part):
			i++
		default:
			return part[toks[i].start:], true
		}
	}
	return "", false
}

// opaqueCommand reports whether some command of cmd is named by an
// expansion ($R a, "$TOOL" x, $(echo rm) a): no rule can tell what runs.
func opaqueCommand(cmd string) bool {
	parts, _ := splitCommand(cmd)
	parts = append(parts, substitutions(cmd)...)
	for _, part := range parts {
		for _, piece := range ungroup(part) {
			toks, broken := tokens(stripPrefix(piece, true))
			if broken || (len(toks) > 0 && toks[0].dollar) {
				return true
			}
		}
	}
	return false
}

// commandRule is the first deny or ask rule among rules that names a Bash
// command pattern: the rule a command it cannot see must answer to.
func commandRule(rules []Rule) (Rule, bool) {
	for _, r := range rules {
		if r.kind == kindBash && r.covers("Bash") {
			return r, true
		}
	}
	return Rule{}, false
}
