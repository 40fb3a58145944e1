package permission

// What a Bash command does to files, as far as its words tell: the files
// it reads (the arguments of cat, head, grep..., its < redirections, a -f
// script) and the files it writes (> and >> targets, tee, cp, mv, rm,
// touch, sed -i). Claude Code applies Read and Edit rules to "file commands
// it recognizes in Bash, such as cat, head, tail and sed": a Read deny on
// .env stops `cat config/.env` in every mode, and an Edit deny stops
// `echo x > src/a.go`. Programs that open files themselves (a script, a
// compiler) are beyond what the words say.

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"trail/lazy"
)

// bashPart is one command of a Bash call, read for its files.
type bashPart struct {
	name   string
	args   []token  // positional arguments: options, their values and redirections removed
	flags  []string // the options as written
	values []string // each option's value, attached or the next word ("" when none)
	reads  []string
	writes []string
	// folders read or changed whole, everything under them: grep -r
	// pattern ~/.ssh, cp -r ~/.ssh x, tar c, rm -r
	treeReads  []string
	treeWrites []string
	findStarts []string // the folders a find starts from
	findNamed  []string // the files its -name filters name in them
	findPaths  []string // its -path filters
	glob       bool     // an argument holds an unquoted glob
	dollar     bool     // something expands ($VAR, $(...))
	broken     bool     // a quote is never closed
}

// fileCommands lists the commands whose positional arguments are files
// they read; skip is how many leading arguments are not files (a grep
// pattern, a sed script, a jq filter) when no -e/-f option gives them.
var fileCommands = lazy.Value[map[string]int]{New: func() map[string]int {
	return map[string]int{
		"cat": 0, "head": 0, "tail": 0, "less": 0, "more": 0, "wc": 0, "sort": 0,
		"uniq": 0, "cut": 0, "nl": 0, "tac": 0, "rev": 0, "od": 0, "xxd": 0,
		"hexdump": 0, "strings": 0, "base64": 0, "diff": 0, "cmp": 0, "source": 0,
		".": 0, "bat": 0, "column": 0, "fold": 0, "fmt": 0, "paste": 0, "expand": 0,
		"md5sum": 0, "sha1sum": 0, "sha256sum": 0, "file": 0, "vi": 0, "vim": 0,
		"nano": 0, "view": 0, "iconv": 0, "comm": 0, "join": 0, "perl": 0, "sdiff": 0, "diff3": 0, "split": 0, "look": 1,
		"grep": 1, "egrep": 1, "fgrep": 1, "rg": 1, "ag": 1, "ack": 1, "sed": 1, "awk": 1, "gawk": 1, "mawk": 1, "nawk": 1, "jq": 1,
		"csplit": 0, "pr": 0, "shuf": 0,
	}
}}

// valueFlags are, per command, the options whose value is the next word.
// A value of -f (or --file) is a file the command reads.
var valueFlags = lazy.Value[map[string][]string]{New: func() map[string][]string {
	return map[string][]string{
		"grep":    {"-e", "-f", "-m", "-A", "-B", "-C", "-d", "-D", "--regexp", "--file"},
		"rg":      {"-e", "-f", "-g", "-t", "-T", "-A", "-B", "-C", "-m", "-j", "--type", "--glob", "--regexp", "--file"},
		"sed":     {"-e", "-f", "-l", "--expression", "--file"},
		"awk":     {"-f", "-v", "-F"},
		"jq":      {"-f", "--arg", "--argjson", "--from-file"},
		"head":    {"-n", "-c"},
		"tail":    {"-n", "-c"},
		"sort":    {"-o", "-k", "-t", "-S", "-T", "--output"},
		"cut":     {"-d", "-f", "-b", "-c"},
		"tree":    {"-o", "-L", "-P", "-I"},
		"cp":      {"-t", "--target-directory", "-S", "--suffix"},
		"mv":      {"-t", "--target-directory", "-S", "--suffix"},
		"install": {"-t", "--target-directory", "-m", "--mode", "-o", "--owner", "-g", "--group", "-S", "--suffix"},
		"unzip":   {"-d", "-x"},
		"perl":    {"-e", "-E", "-I", "-M", "-m", "-x"},
		"tar":     {"-f", "--file", "-C", "--directory", "-T", "--files-from", "-X", "--exclude-from", "-b", "-H", "--format"},
		"rsync":   {"-e", "--rsh", "--exclude", "--include", "--exclude-from", "--include-from", "--files-from", "-f", "--filter"},
		"scp":     {"-i", "-P", "-o", "-F", "-c", "-l", "-J", "-S"},
		"zip":     {"-x", "-i", "-b", "-n", "-t", "-tt"},
		"find":    {"-name", "-iname", "-path", "-ipath", "-type", "-newer", "-maxdepth", "-mindepth", "-size", "-mtime", "-perm", "-user", "-group", "-regex"},
	}
}}

// writeCommands write (or remove) the files they name.
var writeCommands = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{"tee": true, "rm": true, "touch": true, "truncate": true, "mv": true, "unlink": true, "shred": true}
}}

// analyzeBash reads one command part (no control operators left; its
// wrappers and assignments already stripped by the caller).
func analyzeBash(part, dir string) bashPart {
	toks, broken := tokens(part)
	bp := bashPart{broken: broken}
	if broken || len(toks) == 0 {
		return bp
	}
	name := ""
	vflags := []string(nil)
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		bp.dollar = bp.dollar || t.dollar
		if t.redir != "" {
			if i+1 >= len(toks) {
				break
			}
			target := toks[i+1]
			i++
			bp.dollar = bp.dollar || target.dollar
			switch {
			case strings.HasSuffix(t.redir, "&") || strings.HasPrefix(t.redir, "<<"):
				// a descriptor copy (2>&1), a here-document or here-string
			case strings.Contains(t.redir, "<"):
				bp.reads = append(bp.reads, target.text)
			case target.text != "/dev/null":
				bp.writes = append(bp.writes, target.text)
			}
			continue
		}
		if name == "" {
			name = t.text
			vflags = valueFlags.Get()[name]
			continue
		}
		if strings.HasPrefix(t.text, "-") && t.text != "-" && !t.quoted {
			flag, value, attached := strings.Cut(t.text, "=")
			bp.flags = append(bp.flags, flag)
			if !attached && contains(vflags, flag) && i+1 < len(toks) {
				i++
				value = toks[i].text
				if flag == "-f" || flag == "--file" || flag == "--from-file" {
					bp.reads = append(bp.reads, toks[i].text)
				}
			}
			bp.values = append(bp.values, value)
			continue
		}
		bp.glob = bp.glob || t.glob
		bp.args = append(bp.args, t)
	}
	bp.name = name
	files := bp.args
	if skip, ok := fileCommands.Get()[name]; ok {
		if skip > 0 && !bp.hasFlag("-e", "-f", "--regexp", "--file", "--expression") && len(files) > 0 {
			files = files[skip:]
		}
		for _, f := range files {
			bp.reads = append(bp.reads, f.text)
		}
		if name == "sed" {
			scripts, _ := sedScripts(toks, dir)
			for _, script := range scripts {
				bp.writes = append(bp.writes, sedWrites(script)...)
			}
		}
		if (name == "sed" || name == "perl") && sedInPlace(bp.flags) {
			for _, f := range files {
				bp.writes = append(bp.writes, f.text)
			}
		}
	}
	if writeCommands.Get()[name] {
		for _, f := range bp.args {
			bp.writes = append(bp.writes, f.text)
		}
	}
	switch {
	case (name == "cp" || name == "mv" || name == "install") && len(bp.args) > 0:
		// into a folder (cp .bashrc ~, mv -t ~ .bashrc): each source's
		// name there is written too
		srcs, dir := bp.args, ""
		if t, ok := bp.flagValue("-t", "--target-directory"); ok {
			dir = t
		} else if len(srcs) > 1 {
			srcs, dir = srcs[:len(srcs)-1], srcs[len(srcs)-1].text
			if name != "mv" {
				for _, f := range srcs {
					bp.reads = append(bp.reads, f.text)
				}
			}
			bp.writes = append(bp.writes, dir)
		}
		if dir != "" {
			for _, f := range srcs {
				bp.writes = append(bp.writes, strings.TrimSuffix(dir, "/")+"/"+filepath.Base(f.text))
			}
		}
	case name == "ln" && len(bp.args) > 1:
		// the link replaces what was at its name (ln -sf evil ~/.bashrc)
		bp.writes = append(bp.writes, bp.args[len(bp.args)-1].text)
	case name == "find":
		bp.findTrees(toks)
	case awkProgram(toks) != "":
		r, w := awkFileWords(toks)
		bp.reads, bp.writes = append(bp.reads, r...), append(bp.writes, w...)
	case name == "tar" || name == "bsdtar":
		bp.tarTrees(toks)
	}
	bp.recursiveTrees(name)
	switch {
	case name == "git":
		bp.gitFiles(toks)
	case name == "dd":
		for _, a := range bp.args {
			if f, ok := strings.CutPrefix(a.text, "if="); ok {
				bp.reads = append(bp.reads, f)
			} else if f, ok := strings.CutPrefix(a.text, "of="); ok {
				bp.writes = append(bp.writes, f)
			}
		}
	}
	return bp
}

func (bp bashPart) hasFlag(names ...string) bool {
	for _, f := range bp.flags {
		if contains(names, f) {
			return true
		}
	}
	return false
}

// sedInPlace reports whether sed's options edit its files in place: -i,
// -i.bak, --in-place, or i in a cluster (-Ei, -ni).
func sedInPlace(flags []string) bool {
	for _, f := range flags {
		if strings.HasPrefix(f, "--in-place") || (!strings.HasPrefix(f, "--") && strings.ContainsRune(strings.SplitN(f, ".", 2)[0][1:], 'i')) {
			return true
		}
	}
	return false
}

// flagValue is the value of the first of names given, attached
// (--target-directory=d) or as the next argument ("" when neither).
func (bp bashPart) flagValue(names ...string) (string, bool) {
	for i, f := range bp.flags {
		if contains(names, f) {
			if i < len(bp.values) {
				return bp.values[i], bp.values[i] != ""
			}
		}
	}
	return "", false
}

func (bp bashPart) hasFlagPrefix(prefixes ...string) bool {
	for _, f := range bp.flags {
		for _, p := range prefixes {
			if strings.HasPrefix(f, p) {
				return true
			}
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// fileRule returns the first of rules (Read, Edit or Write path rules)
// covering a file cmd reads (Read rules) or writes (every path rule: a
// Read deny guards writes too).
func (p *Policy) fileRule(rules []Rule, cmd string) (Rule, bool) {
	hasPathRule := false
	for _, r := range rules {
		hasPathRule = hasPathRule || r.kind == kindPath
	}
	if !hasPathRule {
		return Rule{}, false
	}
	var reads, writes, treeReads, treeWrites []string
	var analyzed []bashPart
	for _, part := range bashParts(cmd, p.Cwd) {
		bp := analyzeBash(part, p.Cwd)
		analyzed = append(analyzed, bp)
		reads = append(reads, bp.reads...)
		writes = append(writes, bp.writes...)
		treeReads = append(treeReads, bp.treeReads...)
		treeWrites = append(treeWrites, bp.treeWrites...)
	}
	pr, pw, ptr, ptw := pipedTrees(cmd, analyzed)
	reads, writes = append(reads, pr...), append(writes, pw...)
	treeReads, treeWrites = append(treeReads, ptr...), append(treeWrites, ptw...)
	lists := []*[]string{&reads, &writes, &treeReads, &treeWrites}
	// After a cd, relative words name files in the folder it went to:
	// cd ~/.ssh && cat id_rsa reads ~/.ssh/id_rsa.
	for _, dir := range cdTargets(cmd) {
		for _, list := range lists {
			for _, w := range *list {
				if w != "" && !filepath.IsAbs(w) && !strings.HasPrefix(w, "~") && !strings.HasPrefix(w, "$") {
					*list = append(*list, filepath.Join(dir, w))
				}
			}
		}
	}
	if len(reads)+len(writes)+len(treeReads)+len(treeWrites) == 0 {
		return Rule{}, false
	}
	set := setVariables(cmd)
	for _, list := range lists {
		*list = p.expandGlobs(p.expandWords(*list, set))
	}
	for _, r := range rules {
		if r.kind != kindPath {
			continue
		}
		if r.Tool == "Read" {
			for _, f := range reads {
				if p.matchPath(r.path, f, true) {
					return r, true
				}
			}
			for _, d := range treeReads {
				if p.coversTree(r.path, d) {
					return r, true
				}
			}
		}
		for _, f := range writes {
			if p.matchPath(r.path, f, true) {
				return r, true
			}
		}
		for _, d := range treeWrites {
			if p.coversTree(r.path, d) {
				return r, true
			}
		}
	}
	return Rule{}, false
}

// expandWords adds, for each file word that starts with ~ or names a
// variable, the path the shell makes of it: cat ~/.ssh/id_rsa and cat
// "$HOME/.ssh/id_rsa" read the file a Read(~/.ssh/**) rule guards. A
// variable the environment does not hold is left as written. A quoted ~
// (which the shell keeps) is expanded too: a deny rule that sees a file
// the command does not read only errs on the strict side.
func (p *Policy) expandWords(words []string, set map[string][]string) []string {
	out := words
	for _, w := range words {
		for _, x := range p.expandWord(w, set) {
			if p.Home != "" && (x == "~" || strings.HasPrefix(x, "~/")) {
				x = p.Home + x[1:]
			}
			if x != w {
				out = append(out, x)
			}
		}
	}
	return out
}

// maxExpansions bounds the forms one word is expanded to.
const maxExpansions = 64

// expandWord is w with its variables given their values: each value the
// command itself gives a variable (set, the loop's words included), else
// the environment's. Nothing when a variable has no value anywhere.
func (p *Policy) expandWord(w string, set map[string][]string) []string {
	if !strings.Contains(w, "$") {
		return []string{w}
	}
	forms := []string{w}
	for name, values := range set {
		if !strings.Contains(w, "$"+name) && !strings.Contains(w, "${"+name+"}") {
			continue
		}
		var next []string
		for _, f := range forms {
			for _, v := range values {
				if len(next) < maxExpansions {
					next = append(next, os.Expand(f, func(n string) string {
						if n == name {
							return v
						}
						return "${" + n + "}"
					}))
				}
			}
		}
		forms = next
	}
	var out []string
	for _, f := range forms {
		unknown := false
		x := os.Expand(f, func(name string) string {
			v := p.lookup(name)
			unknown = unknown || v == ""
			return v
		})
		if !unknown {
			out = append(out, x)
		}
	}
	return out
}

// setVariables are the values a command gives its variables itself, for
// its later words: NAME=value (also after export, local, declare,
// readonly) and the words of for NAME in ...; a value's ~ is the home,
// as the shell expands it on assignment.
func setVariables(cmd string) map[string][]string {
	set := map[string][]string{}
	parts, _ := splitCommand(cmd)
	for _, part := range parts {
		for _, piece := range ungroup(part) {
			toks, broken := tokens(piece)
			if broken || len(toks) == 0 {
				continue
			}
			if toks[0].text == "for" && len(toks) > 3 && toks[2].text == "in" {
				for _, t := range toks[3:] {
					if t.text == "do" {
						break
					}
					set[toks[1].text] = append(set[toks[1].text], t.text)
				}
				continue
			}
			for _, t := range toks {
				switch t.text {
				case "export", "local", "declare", "readonly", "typeset":
					continue
				}
				name, value, ok := strings.Cut(t.text, "=")
				if !ok || !isAssignment(t, piece) {
					break
				}
				set[name] = append(set[name], value)
			}
		}
	}
	return set
}

// lookup is a variable's value for expandWords: HOME is the policy's.
func (p *Policy) lookup(name string) string {
	if name == "HOME" && p.Home != "" {
		return p.Home
	}
	if p.Env == nil {
		return ""
	}
	return p.Env(name)
}

// cdTargets are the folders a command's cd (or pushd) parts go to, in
// order, each from the one before (cd ~ && cd .ssh is ~/.ssh); a bare cd
// goes home. ~ and variables are expandWords's; a first relative one is
// taken from the working directory.
func cdTargets(cmd string) []string {
	var dirs []string
	dir := ""
	parts, _ := splitCommand(cmd)
	for _, part := range parts {
		for _, piece := range ungroup(part) {
			toks, broken := tokens(stripPrefix(piece, true))
			if broken || len(toks) == 0 || (toks[0].text != "cd" && toks[0].text != "pushd") {
				continue
			}
			target := ""
			for i := 1; i < len(toks); i++ {
				switch t := toks[i]; {
				case t.redir != "":
					i++ // and its target
				case target == "" && strings.HasPrefix(t.text, "-") && t.text != "-":
					// -P, -L, --
				case target == "":
					target = t.text
				}
			}
			switch {
			case target == "" || target == "-":
				target = "~"
			case dir != "" && !filepath.IsAbs(target) && !strings.HasPrefix(target, "~") && !strings.HasPrefix(target, "$"):
				target = filepath.Join(dir, target)
			}
			dir = target
			dirs = append(dirs, dir)
		}
	}
	return dirs
}

// maxGlobMatches bounds what one glob argument is expanded to.
const maxGlobMatches = 10000

// maxGlobSegments bounds the folders with wildcards a glob argument may
// have to be expanded: /*/*/*/*/* would walk the whole disk for one check.
const maxGlobSegments = 2

// expandGlobs adds, for each word with an unquoted-looking glob, the files
// it names now (as the shell will expand it): cat config/.en? reads
// config/.env.
func (p *Policy) expandGlobs(words []string) []string {
	out := words
	for _, w := range words {
		if !strings.ContainsAny(w, "*?[") {
			continue
		}
		wild := 0
		for _, seg := range strings.Split(w, "/") {
			if strings.ContainsAny(seg, "*?[") {
				wild++
			}
		}
		if wild > maxGlobSegments {
			continue
		}
		pattern := w
		if !filepath.IsAbs(pattern) && p.Cwd != "" {
			pattern = filepath.Join(p.Cwd, pattern)
		}
		matches, err := filepath.Glob(pattern)
		if err != nil {
			continue
		}
		matches = slices.DeleteFunc(matches, func(m string) bool { return hiddenByGlob(pattern, m) })
		out = append(out, matches[:min(len(matches), maxGlobMatches)]...)
	}
	return out
}

// hiddenByGlob reports whether match is one the shell's glob would not
// give: a wildcard segment that does not itself start with "." never
// matches a name that does (cat * does not read .env), though Go's Glob
// matches it.
func hiddenByGlob(pattern, match string) bool {
	ps, ms := strings.Split(pattern, string(filepath.Separator)), strings.Split(match, string(filepath.Separator))
	if len(ps) != len(ms) {
		return false
	}
	for i := range ps {
		if strings.ContainsAny(ps[i], "*?[") && !strings.HasPrefix(ps[i], ".") && strings.HasPrefix(ms[i], ".") {
			return true
		}
	}
	return false
}

// inside reports whether a path argument, made absolute against cwd, stays
// in the working directory, also once symlinks are resolved. A word that
// starts with ~ or holds a glob is judged by its fixed part.
func (p *Policy) inside(word string) bool {
	if strings.HasPrefix(word, "~") || p.Cwd == "" {
		return false
	}
	if i := strings.IndexAny(word, "*?["); i >= 0 {
		word = word[:i]
		if word == "" {
			return true
		}
	}
	abs, real := p.pathForms(word)
	cwd := filepath.Clean(p.Cwd)
	realCwd := cwd
	if rc, err := CanonicalPath(cwd); err == nil {
		realCwd = rc
	}
	return within(cwd, abs) && within(realCwd, real)
}

func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}
