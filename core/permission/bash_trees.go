package permission

import (
	"path/filepath"
	"strings"
)

// Folders a Bash command reads or changes whole. grep -r '' ~/.ssh and
// cp -r ~/.ssh /tmp/k read every key though no word names one, so a
// folder such a command is given is judged by what is under it: a rule
// that covers everything there (Read(~/.ssh/**)) covers the command. A
// folder that merely holds a guarded file (grep -r TODO . beside a
// Read(.env) rule) is not judged that way: refusing every recursive
// search of a project for its .env would refuse the most common command
// an agent runs.

// anyChild stands for whatever file a folder holds when a rule is asked
// whether it covers all of them: no rule names it, and * matches it.
const anyChild = "\x01"

// recursiveTrees adds the folders that recursive readers (grep -r, rg,
// cp -r, rsync -a, scp -r, zip -r) read and rm -r removes.
func (bp *bashPart) recursiveTrees(name string) {
	files := func(skip int) []string {
		var out []string
		for _, a := range bp.args[min(skip, len(bp.args)):] {
			out = append(out, a.text)
		}
		return out
	}
	sources := func() []string {
		if _, ok := bp.flagValue("-t", "--target-directory"); ok {
			return files(0)
		}
		all := files(0)
		return all[:max(len(all)-1, 0)]
	}
	switch name {
	case "grep", "egrep", "fgrep":
		if !bp.shortFlag("rR") && !bp.hasFlag("--recursive", "--dereference-recursive") && !bp.flagIs("recurse", "-d", "--directories") {
			return
		}
		fallthrough
	case "rg", "ag", "ack":
		skip := 1
		if bp.hasFlag("-e", "-f", "--regexp", "--file") {
			skip = 0
		}
		dirs := files(skip)
		if len(dirs) == 0 {
			dirs = []string{"."} // the working directory, searched whole
		}
		bp.treeReads = append(bp.treeReads, dirs...)
	case "cp", "rsync", "scp":
		if bp.shortFlag("rRa") || bp.hasFlag("--recursive", "--archive") {
			bp.treeReads = append(bp.treeReads, sources()...)
			// and whatever lies under the destination may be replaced
			if dest, ok := bp.flagValue("-t", "--target-directory"); ok {
				bp.treeWrites = append(bp.treeWrites, dest)
			} else if all := files(0); len(all) > 1 {
				bp.treeWrites = append(bp.treeWrites, all[len(all)-1])
			}
		} else if name != "cp" {
			bp.reads = append(bp.reads, sources()...)
		}
	case "zip":
		if bp.shortFlag("r") || bp.hasFlag("--recurse-paths") {
			bp.treeReads = append(bp.treeReads, files(1)...)
		} else {
			bp.reads = append(bp.reads, files(1)...)
		}
	case "unzip":
		if dest, ok := bp.flagValue("-d"); ok {
			bp.treeWrites = append(bp.treeWrites, dest) // extracted over what is there
		}
	case "rm":
		if bp.shortFlag("rR") || bp.hasFlag("--recursive") {
			bp.treeWrites = append(bp.treeWrites, files(0)...)
		}
	case "mv":
		// a folder moved away is everything in it gone from its place
		bp.treeWrites = append(bp.treeWrites, sources()...)
	case "diff":
		if bp.shortFlag("r") || bp.hasFlag("--recursive") {
			bp.treeReads = append(bp.treeReads, files(0)...)
		}
	}
}

// tarTrees: tar c (also r and u, which add to an archive) reads each
// path it is given whole, each from -C's folder when one is given. The
// archive's own name is read as a path too; judging it only errs strict.
func (bp *bashPart) tarTrees(toks []token) {
	adds := bp.shortFlag("cru") || bp.hasFlag("--create", "--append", "--update")
	if len(toks) > 1 && !adds {
		// the old form's first word is the options: tar czf out.tgz dir
		w := toks[1].text
		adds = w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") == "" && strings.ContainsAny(w, "cru")
	}
	dir, _ := bp.flagValue("-C", "--directory")
	if !adds {
		extracts := bp.shortFlag("x") || bp.hasFlag("--extract", "--get")
		if len(toks) > 1 && !strings.HasPrefix(toks[1].text, "-") && strings.Trim(toks[1].text, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") == "" {
			extracts = extracts || strings.ContainsRune(toks[1].text, 'x')
		}
		if extracts && dir != "" {
			bp.treeWrites = append(bp.treeWrites, dir) // extracted over what is there
		}
		return
	}
	for _, a := range bp.args {
		bp.treeReads = append(bp.treeReads, a.text)
		if dir != "" && !filepath.IsAbs(a.text) {
			bp.treeReads = append(bp.treeReads, strings.TrimSuffix(dir, "/")+"/"+a.text)
		}
	}
}

// findTrees: the folders find starts from are read whole when it runs a
// command on what it finds (-exec cat {} +) and changed whole when it
// deletes it.
func (bp *bashPart) findTrees(toks []token) {
	var starts []string
	for _, t := range toks[1:] {
		if t.redir != "" {
			break
		}
		if t.text == "-H" || t.text == "-L" || t.text == "-P" {
			continue
		}
		if strings.HasPrefix(t.text, "-") || t.text == "(" || t.text == "!" || t.text == `\(` {
			break
		}
		starts = append(starts, t.text)
	}
	if len(starts) == 0 {
		starts = []string{"."}
	}
	bp.findStarts = starts
	// What find's filters name under its folders: -name .env is the
	// .env in each of them and below (find . -name .env -exec cat {} +
	// reads the .env a Read(.env) rule guards); -path is a path.
	for i := 1; i+1 < len(toks); i++ {
		switch toks[i].text {
		case "-name", "-iname":
			for _, st := range starts {
				name := toks[i+1].text
				bp.findNamed = append(bp.findNamed, st+"/"+name, st+"/"+anyChild+"/"+name)
			}
		case "-path", "-ipath", "-wholename":
			bp.findPaths = append(bp.findPaths, toks[i+1].text)
		}
	}
	if bp.hasFlag("-exec", "-execdir", "-ok", "-okdir") {
		bp.foundRead()
		for i, t := range toks {
			switch t.text {
			case "-exec", "-execdir", "-ok", "-okdir":
				if i+1 < len(toks) && removes(toks[i+1].text) {
					bp.foundRemoved() // -exec rm {} +
				}
			}
		}
	}
	if bp.hasFlag("-delete") {
		bp.foundRemoved()
	}
}

// foundRead: what find found is read (by -exec, or by xargs after it).
func (bp *bashPart) foundRead() {
	bp.treeReads = append(append(bp.treeReads, bp.findStarts...), bp.findPaths...)
	bp.reads = append(bp.reads, bp.findNamed...)
}

// foundRemoved: what find found is removed: what its filters name, and
// its folders whole for a rule that covers all of one.
func (bp *bashPart) foundRemoved() {
	bp.writes = append(bp.writes, bp.findNamed...)
	bp.treeWrites = append(append(bp.treeWrites, bp.findPaths...), bp.findStarts...)
}

// removes reports whether a command removes or moves away the files it is
// given.
func removes(name string) bool {
	switch filepath.Base(name) {
	case "rm", "unlink", "shred", "mv", "truncate":
		return true
	}
	return false
}

// pipedTrees: what goes to xargs is read by the command xargs runs, and
// removed when that command removes (| xargs rm): find's folders, or what
// its filters name (find ~/.ssh -type f | xargs cat), and the paths echo,
// printf or ls print (echo ~/.ssh/id_rsa | xargs cat).
func pipedTrees(cmd string, parts []bashPart) (reads, writes, treeReads, treeWrites []string) {
	remove := false
	for _, bp := range parts {
		remove = remove || removes(bp.name)
	}
	// xargs itself is stripped from the parts as a wrapper: look for it in
	// the command's own words
	xargs := false
	for _, part := range splitParts(cmd) {
		if f := strings.Fields(part); len(f) > 0 && filepath.Base(f[0]) == "xargs" {
			xargs = true
		}
	}
	if !xargs {
		return nil, nil, nil, nil
	}
	for _, bp := range parts {
		found := bp
		found.reads, found.writes, found.treeReads, found.treeWrites = nil, nil, nil, nil
		if len(bp.findStarts) > 0 {
			found.foundRead()
			if remove {
				found.foundRemoved()
			}
		}
		switch bp.name {
		case "echo", "printf", "ls":
			// the words they print are the paths xargs hands on
			for _, a := range bp.args {
				found.reads = append(found.reads, a.text)
				if remove {
					found.writes = append(found.writes, a.text)
				}
			}
		}
		reads, writes = append(reads, found.reads...), append(writes, found.writes...)
		treeReads, treeWrites = append(treeReads, found.treeReads...), append(treeWrites, found.treeWrites...)
	}
	return reads, writes, treeReads, treeWrites
}

// shortFlag reports whether any of letters is among the short options,
// alone or in a cluster (-rn, -av, -czf).
func (bp bashPart) shortFlag(letters string) bool {
	for _, f := range bp.flags {
		if len(f) > 1 && f[0] == '-' && f[1] != '-' && strings.ContainsAny(f[1:], letters) {
			return true
		}
	}
	return false
}

// flagIs reports whether one of names was given with value v.
func (bp bashPart) flagIs(v string, names ...string) bool {
	got, ok := bp.flagValue(names...)
	return ok && got == v
}

// coversTree reports whether a path rule covers a folder whole: the
// folder itself, or anything at all inside it.
func (p *Policy) coversTree(pp *pathPattern, dir string) bool {
	return p.matchPath(pp, dir, true) || p.matchPath(pp, filepath.Join(dir, anyChild), true)
}

// gitFiles: the files git diff --no-index compares (anywhere on disk) are
// read, and the paths git clean is given are removed whole; relative ones
// are taken in git -C's folder.
func (bp *bashPart) gitFiles(toks []token) {
	dir, sub := "", ""
	var words []string
	for i := 1; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.redir != "":
			i++
		case sub == "" && (t.text == "-C" || t.text == "-c" || t.text == "--git-dir" || t.text == "--work-tree" || t.text == "--namespace") && i+1 < len(toks):
			if t.text == "-C" {
				dir = filepath.Join(dir, toks[i+1].text)
				if filepath.IsAbs(toks[i+1].text) || strings.HasPrefix(toks[i+1].text, "~") {
					dir = toks[i+1].text
				}
			}
			i++
		case sub == "" && strings.HasPrefix(t.text, "-"):
		case sub == "":
			sub = t.text
		case t.text == "--" || strings.HasPrefix(t.text, "-"):
		default:
			words = append(words, t.text)
		}
	}
	in := func(w string) string {
		if dir == "" || filepath.IsAbs(w) || strings.HasPrefix(w, "~") || strings.HasPrefix(w, "$") {
			return w
		}
		return strings.TrimSuffix(dir, "/") + "/" + w
	}
	switch {
	case sub == "diff" && slicesHas(toks, "--no-index"):
		for _, w := range words {
			bp.reads = append(bp.reads, in(w))
		}
	case sub == "clean":
		if len(words) == 0 {
			words = []string{"."}
		}
		for _, w := range words {
			bp.treeWrites = append(bp.treeWrites, in(w))
		}
	}
}

func splitParts(cmd string) []string {
	parts, _ := splitCommand(cmd)
	return parts
}
