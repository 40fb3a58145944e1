package permission

// The commands a deny or ask rule looks at. Deny rules hold in every mode,
// so what the shell runs must not hide behind how it is written: each
// command of a compound, of its substitutions, of a subshell ( ), a brace
// group { }, a negation !, the bodies of if, while, until, for and case,
// and of a function; a command word quoted ("rm") or given by its path
// (/bin/rm); words quoted or spaced apart (rm '-rf'  d) or in a brace
// list ({rm,-rf,d}); git's subcommand past its own options; and the
// command that eval, sh -c, sudo, env, xargs, trap or find -exec runs.
// Seeing a command that is not there only makes a deny rule stricter;
// missing one lets it through. What no rule can see (a command named by
// an expansion) is opaqueCommand's, and asked.

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
func bashParts(cmd, dir string) []string {
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
				add(braceWords(bare))
				if base := pathlessCommand(plain); base != "" {
					add(base)
				}
				add(gitSubcommand(plain))
				if inner, ok := nestedCommand(bare, dir); ok && depth < maxNesting {
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
		"function": true, "coproc": true,
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
		case (c == '$' || c == '<' || c == '>') && i+1 < len(part) && part[i+1] == '(':
			// a substitution: its commands are substitutions()'s
			if j := closing(part, i+1); j > 0 {
				i = j
			}
		case c == '`':
			if j := strings.IndexByte(part[i+1:], '`'); j >= 0 {
				i += j + 1
			}
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
		if word == "coproc" { // coproc NAME { ...; }: and the name
			if _, after, ok := strings.Cut(strings.TrimSpace(p), " "); ok && strings.HasPrefix(strings.TrimSpace(after), "{") {
				p = after
			}
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
		// xargs with options (a bare xargs is stripPrefix's wrapper)
		// (-i, -l and -e take their value attached, if any)
		"xargs": {"-I", "-n", "-L", "-P", "-s", "-d", "-E", "-a", "--arg-file", "--delimiter", "--max-args", "--max-procs"},
		// runners of a command with their own options, the command after them
		"runuser": {"-u", "-g", "-G", "--user", "--group"},
		"unshare": {"--propagation", "--setgroups", "-S", "-G", "--map-user", "--map-group", "-R", "-w", "--root", "--wd"},
		"nsenter": {"-t", "--target", "-S", "-G", "--setuid", "--setgid", "-R", "-w", "--root", "--wd"},
		"prlimit": {"-p", "--pid"},
		"busybox": nil,
		"nohup":   nil,
		"stdbuf":  {"-i", "-o", "-e"},
		"time":    {"-f", "-o", "--format", "--output"},
	}
}}

// nestedCommand returns the command another command runs: the words of
// eval, the string of sh -c (bash, zsh, dash, ksh), what follows sudo,
// doas, exec or env and their options, the command of find -exec.
func nestedCommand(part, dir string) (string, bool) {
	toks, broken := tokens(part)
	if broken || len(toks) < 2 {
		return "", false
	}
	name := filepath.Base(toks[0].text)
	if inner, ok := awkCommands(toks); ok {
		return inner, true
	}
	// what the command's options make it run (sed e, tar -I, git -c...),
	// beside what git runs as its subcommand's work
	byOptions, ok := programCommands(toks, dir)
	if name == "git" {
		runs, ok2 := gitRunsCommand(part, toks)
		return strings.Trim(byOptions+"\n"+runs, "\n"), ok || ok2
	}
	if ok {
		return byOptions, true
	}
	switch name {
	case "eval":
		from := 1
		if toks[1].text == "--" && len(toks) > 2 {
			from = 2
		}
		return plainWords(part[toks[from].start:]), true
	case "trap": // trap 'commands' SIGNAL...
		return toks[1].text, toks[1].text != "-" && !strings.HasPrefix(toks[1].text, "-")
	case "sh", "bash", "zsh", "dash", "ksh":
		for i := 1; i+1 < len(toks); i++ {
			f := toks[i]
			switch {
			case f.redir == "<<<": // the script as a here-string
				return toks[i+1].text, true
			case f.redir != "":
			case strings.HasPrefix(f.text, "-") && !strings.HasPrefix(f.text, "--") && strings.Contains(f.text, "c"):
				j := i + 1
				if toks[j].text == "--" && j+1 < len(toks) {
					j++
				}
				return toks[j].text, true
			}
		}
	case "find":
		for i := 1; i < len(toks); i++ {
			switch toks[i].text {
			case "-exec", "-execdir", "-ok", "-okdir":
				// the command as written, quotes kept: -exec sh -c '...' {} +
				if i+1 >= len(toks) {
					return "", false
				}
				end := len(part)
				for _, t := range toks[i+1:] {
					if t.text == ";" || t.text == "+" {
						end = t.start
						break
					}
				}
				return strings.TrimSpace(part[toks[i+1].start:end]), true
			}
		}
	}
	switch name {
	case "su", "script":
		// su -c 'cmd', script -c 'cmd' file
		for i := 1; i+1 < len(toks); i++ {
			f := toks[i].text
			if f == "--command" || (strings.HasPrefix(f, "-") && !strings.HasPrefix(f, "--") && strings.HasSuffix(f, "c")) {
				return toks[i+1].text, true
			}
		}
		return "", false
	case "watch": // watch [options] 'cmd': the command is its last word
		return toks[len(toks)-1].text, true
	case "taskset", "chrt", "flock":
		// options, one operand (a CPU mask, a priority, a lock file),
		// then the command; flock -c 'cmd' runs a string
		i := 1
		for i < len(toks) && strings.HasPrefix(toks[i].text, "-") {
			if name == "flock" && (toks[i].text == "-c" || toks[i].text == "--command") && i+1 < len(toks) {
				return toks[i+1].text, true
			}
			if name == "flock" && (toks[i].text == "-w" || toks[i].text == "-E" || toks[i].text == "--timeout" || toks[i].text == "--conflict-exit-code") {
				i++
			}
			i++
		}
		if i+1 < len(toks) {
			if name == "flock" && (toks[i+1].text == "-c" || toks[i+1].text == "--command") && i+2 < len(toks) {
				return toks[i+2].text, true
			}
			return part[toks[i+1].start:], true
		}
		return "", false
	}
	withValue, ok := runners.Get()[name]
	if !ok {
		return "", false
	}
	i := 1
	for i < len(toks) {
		t := toks[i].text
		switch {
		case t == "--":
			if i+1 < len(toks) {
				return part[toks[i+1].start:], true
			}
			return "", false
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

// opaqueCommand says why some command of cmd cannot be seen, "" when all
// can: it is named by an expansion ($R a, "$TOOL" x, $(echo rm) a), it is
// a string eval or sh -c runs that is itself an expansion (eval "$X", sh
// -c "$X"), a shell reads its script from standard input (... | sh, bash
// <<< s), or a program puts it together as it runs (sed's e, awk's
// system() of a built string). A part that only assigns variables
// (X=$(date)) runs no command.
func opaqueCommand(cmd, dir string) string { return opaqueAt(cmd, dir, 0) }

func opaqueAt(cmd, dir string, depth int) string {
	parts, _ := splitCommand(cmd)
	parts = append(parts, substitutions(cmd)...)
	for _, part := range parts {
		for _, piece := range ungroup(part) {
			bare := stripPrefix(piece, true)
			toks, broken := tokens(bare)
			switch {
			case broken:
				return "its quotes do not close"
			case len(toks) == 0 || isAssignment(toks[0], bare):
				continue // assignments only
			case toks[0].dollar:
				return unseenWhy(toks[0].text)
			case readsStdinScript(toks):
				return "a shell runs what comes on its input"
			case strings.Contains(piece, "GIT_CONFIG_"):
				// GIT_CONFIG_KEY_0=alias.x ... sets git's settings unseen
				return "git takes settings from GIT_CONFIG_* variables"
			}
			inner, ok := nestedCommand(bare, dir)
			if !ok {
				continue
			}
			if depth >= maxNesting {
				return "commands run commands too deep to follow"
			}
			if why := opaqueAt(inner, dir, depth+1); why != "" {
				return why
			}
		}
	}
	return ""
}

// readsStdinScript reports whether a command is a shell that runs what
// comes on its standard input (sh, bash -s, source /dev/stdin, . <(...)).
func readsStdinScript(toks []token) bool {
	name := filepath.Base(toks[0].text)
	switch name {
	case "sh", "bash", "zsh", "dash", "ksh":
		for i := 1; i < len(toks); i++ {
			t := toks[i]
			switch {
			case t.redir != "":
				if t.redir == "<<<" {
					return false // a here-string: nestedCommand reads it
				}
				i++ // and its target
			case t.text == "-s" || t.text == "-":
				return true
			case strings.HasPrefix(t.text, "-"):
				if !strings.HasPrefix(t.text, "--") && strings.Contains(t.text, "c") {
					return false // sh -c: nestedCommand's
				}
			default:
				return false // a script file
			}
		}
		return true
	case "source", ".":
		return len(toks) > 1 && (toks[1].text == "/dev/stdin" || toks[1].text == "-" || strings.HasPrefix(toks[1].text, "<(") || toks[1].redir != "")
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

// braceWords is part with each unquoted word holding one brace list
// ({rm,-rf,d}, a{b,c}) expanded as the shell expands it, "" when there is
// none: {rm,-rf,d} runs rm -rf d.
func braceWords(part string) string {
	toks, broken := tokens(part)
	if broken {
		return ""
	}
	var words []string
	found := false
	for _, t := range toks {
		open, close := strings.IndexByte(t.text, '{'), strings.LastIndexByte(t.text, '}')
		if t.quoted || open < 0 || close < open || !strings.Contains(t.text[open:close], ",") || strings.ContainsAny(t.text[open+1:close], "{}") {
			words = append(words, t.text)
			continue
		}
		found = true
		for _, alt := range strings.Split(t.text[open+1:close], ",") {
			words = append(words, t.text[:open]+alt+t.text[close+1:])
		}
	}
	if !found {
		return ""
	}
	return strings.Join(words, " ")
}

// gitGlobal are git's options before the subcommand, with whether each
// takes the next word as its value.
var gitGlobal = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
		"-C": true, "-c": true, "--git-dir": true, "--work-tree": true, "--namespace": true, "--exec-path": false,
		"--no-pager": false, "--paginate": false, "-p": false, "-P": false, "--bare": false,
		"--no-replace-objects": false, "--literal-pathspecs": false, "--no-optional-locks": false,
	}
}}

// gitSubcommand is a git command with its global options dropped (git -C
// . push is git push), "" for any other command or when there are none.
func gitSubcommand(plain string) string {
	words := strings.Fields(plain)
	if len(words) < 2 || filepath.Base(words[0]) != "git" {
		return ""
	}
	i := 1
	for i < len(words) && strings.HasPrefix(words[i], "-") {
		name, _, attached := strings.Cut(words[i], "=")
		value, known := gitGlobal.Get()[name]
		if !known {
			return ""
		}
		i++
		if value && !attached {
			i++
		}
	}
	if i == 1 || i >= len(words) {
		return ""
	}
	return strings.Join(append([]string{"git"}, words[i:]...), " ")
}
