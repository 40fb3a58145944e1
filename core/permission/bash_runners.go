package permission

import "strings"

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
		case t == "foreach" && afterSubmodule(toks[:i]):
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

// afterSubmodule reports whether toks end with submodule and its options
// (git submodule --quiet foreach).
func afterSubmodule(toks []token) bool {
	for i := len(toks) - 1; i > 0; i-- {
		switch t := toks[i].text; {
		case t == "submodule":
			return true
		case !strings.HasPrefix(t, "-"):
			return false
		}
	}
	return false
}

func slicesHas(toks []token, text string) bool {
	for _, t := range toks {
		if t.text == text {
			return true
		}
	}
	return false
}
