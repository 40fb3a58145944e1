package permission

// Read-only Bash commands run without a question in every mode, as Claude
// Code runs them (its permissions documentation, "Read-only commands"):
// ls, cat, echo, pwd, head, tail, grep, find, wc, which, diff, stat, du,
// cd and read-only forms of git, and a few more that only read files (tree,
// file, cmp, cut, sort...). trail is stricter in what it counts:
//
//   - every part of a compound command must qualify, and nothing may
//     expand ($VAR, $(...), backquotes) or fail to parse;
//   - no output redirection except to /dev/null;
//   - every path argument stays inside the working directory (a file a
//     Read rule denies was refused before this point);
//   - options that write or run something disqualify (sort -o, find
//     -exec/-delete, git --output), and so does an unquoted glob for
//     find, sort and git, which could expand to such an option;
//   - a cd into another folder together with git disqualifies (git would
//     run that folder's hooks); commands over 10,000 characters do too.

import (
	"path/filepath"
	"strings"

	"trail/lazy"
)

// maxReadOnlyLen: longer commands always ask (Claude Code's limit).
const maxReadOnlyLen = 10000

// printOnly commands read no file the rules could care about.
var printOnly = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{"echo": true, "pwd": true, "which": true}
}}

// pathCommands read the files or folders their arguments name.
var pathCommands = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
		"ls": true, "cat": true, "head": true, "tail": true, "grep": true, "wc": true,
		"diff": true, "stat": true, "du": true, "cd": true, "tree": true, "file": true,
		"cmp": true, "cut": true, "nl": true, "tac": true, "rev": true, "sort": true,
		"readlink": true, "realpath": true, "find": true,
	}
}}

// writingFlags disqualify a command that otherwise only reads.
var writingFlags = lazy.Value[map[string][]string]{New: func() map[string][]string {
	return map[string][]string{
		"sort": {"-o", "--output"},
		"tree": {"-o"},
		"file": {"-m", "-f", "-C", "--magic-file", "--files-from", "--compile"},
		"find": {"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"},
	}
}}

// globWrites: commands an unquoted glob could hand a writing option.
var globWrites = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{"find": true, "sort": true, "git": true}
}}

// gitReadOnly lists git subcommands that only read.
var gitReadOnly = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
		"status": true, "log": true, "diff": true, "show": true, "rev-parse": true,
		"ls-files": true, "blame": true, "describe": true, "shortlog": true,
		"branch": true, "tag": true, "remote": true,
	}
}}

// ReadOnlyCommand reports whether a Bash command only reads, in the sense
// above: the engine runs such commands beside other reads.
func (p *Policy) ReadOnlyCommand(cmd string) bool { return p.readOnly(cmd) }

// readOnly reports whether a Bash command only reads, in the sense above.
func (p *Policy) readOnly(cmd string) bool {
	if len(cmd) > maxReadOnlyLen {
		return false
	}
	parts, opaque := splitCommand(cmd)
	if opaque || len(parts) == 0 {
		return false
	}
	cdElsewhere, git := false, false
	for _, part := range parts {
		bare := stripPrefix(part, false)
		// xargs hands the command file names no rule can see (echo
		// /etc/shadow | xargs cat): a rule may see past it, the
		// read-only judgement may not, wrapped or not.
		toks, _ := tokens(part)
		for _, t := range toks {
			if t.text == "xargs" && !t.quoted {
				return false
			}
		}
		bp := analyzeBash(bare, p.Cwd)
		if bp.broken || bp.dollar || len(bp.writes) > 0 || bp.name == "" {
			return false
		}
		for _, f := range writingFlags.Get()[bp.name] {
			if bp.hasFlagPrefix(f) {
				return false
			}
		}
		if bp.glob && globWrites.Get()[bp.name] {
			return false
		}
		switch {
		case printOnly.Get()[bp.name]:
		case bp.name == "git":
			if !gitReads(part) {
				return false
			}
			git = true
		case pathCommands.Get()[bp.name]:
			args := bp.args
			if bp.name == "grep" && !bp.hasFlag("-e", "-f", "--regexp", "--file") && len(args) > 0 {
				args = args[1:] // the pattern
			}
			for _, a := range args {
				if !p.inside(a.text) {
					return false
				}
			}
			for _, f := range bp.reads {
				if !p.inside(f) {
					return false
				}
			}
			if bp.name == "cd" && len(args) == 0 {
				return false // home, outside the working directory
			}
			if bp.name == "cd" {
				abs, _ := p.pathForms(args[0].text)
				cdElsewhere = cdElsewhere || abs != cleanPath(p.Cwd)
			}
		default:
			return false
		}
	}
	return !(cdElsewhere && git)
}

// gitReads: a git command whose subcommand only reads, with no global
// option before it (-C, -c and --git-dir can point git elsewhere or run a
// program) and no option that writes a file or runs one.
func gitReads(part string) bool {
	toks, broken := tokens(stripPrefix(part, false))
	if broken || len(toks) < 2 || toks[0].text != "git" {
		return false
	}
	sub := toks[1].text
	if !gitReadOnly.Get()[sub] {
		return false
	}
	var positional []string
	for _, t := range toks[2:] {
		switch {
		case strings.HasPrefix(t.text, "--output"), t.text == "--ext-diff", t.text == "--textconv",
			strings.HasPrefix(t.text, "--open-files-in-pager"), t.text == "-O":
			return false
		case !strings.HasPrefix(t.text, "-"):
			positional = append(positional, t.text)
		}
	}
	switch sub {
	case "branch", "tag":
		// Listing only: a name would create, a -d/-m/-D... would change.
		for _, t := range toks[2:] {
			if strings.HasPrefix(t.text, "-") && !contains([]string{"-a", "-r", "-v", "-vv", "-l", "--list", "--all", "--remotes", "--show-current", "-n"}, t.text) {
				return false
			}
		}
		return len(positional) == 0 || (sub == "tag" && contains(flagTexts(toks[2:]), "-l"))
	case "remote":
		return len(positional) == 0
	}
	return true
}

func flagTexts(toks []token) []string {
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = t.text
	}
	return out
}

func cleanPath(p string) string { return filepath.Clean(p) }
