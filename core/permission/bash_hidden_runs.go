package permission

import (
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Commands that programs run from their own options, beyond anything the
// shell's words say: sed's e command, git -c settings whose value is a
// command (alias.x=!cmd, core.sshCommand, core.pager...), tar's
// --to-command, -I and --checkpoint-action=exec, zip's -TT. Each is judged
// as a command of its own: `tar -I zstd` runs zstd, `git -c
// alias.x='!rm -rf d' x` runs rm -rf d. What such an option runs that no
// word gives (sed's s///e and a bare e run the text being edited) is
// unseen, as a command named by an expansion: asked when a rule names
// Bash commands.

// Each of these stands for a command put together as a program runs: a
// command named by an expansion, which opaqueCommand takes as unseen and
// unseenWhy explains.
const (
	sedRunsItsText   = "$SED_RUNS_THE_TEXT_IT_EDITS"
	sedScriptUnread  = "$SED_SCRIPT_NOT_READ"
	gitEnvSetting    = "$GIT_SETTING_FROM_THE_ENVIRONMENT"
	awkBuildsCommand = "$AWK_COMPUTED_COMMAND"
)

// unseenWhy says why a command named by the expansion word cannot be seen.
func unseenWhy(word string) string {
	switch word {
	case sedRunsItsText:
		return "sed's e runs the text it edits"
	case sedScriptUnread:
		return "its sed -f script cannot be read before it runs"
	case gitEnvSetting:
		return "git takes a setting from the environment"
	case awkBuildsCommand:
		return "awk builds a command as it runs"
	}
	return "its command " + word + " is an expansion"
}

// programCommands is what a command's options make it run, one command a
// line; ok is false when they run none.
func programCommands(toks []token, dir string) (string, bool) {
	var cmds []string
	switch filepath.Base(toks[0].text) {
	case "sed", "gsed":
		scripts, unread := sedScripts(toks, dir)
		for _, script := range scripts {
			cmds = append(cmds, sedRuns(script)...)
		}
		if unread {
			cmds = append(cmds, sedScriptUnread) // its e commands are not to be seen
		}
	case "tar", "gtar", "bsdtar":
		cmds = tarRuns(toks)
	case "zip":
		for i := 1; i < len(toks); i++ {
			switch t := toks[i].text; {
			case (t == "-TT" || t == "--unzip-command") && i+1 < len(toks):
				cmds = append(cmds, toks[i+1].text)
				i++
			case strings.HasPrefix(t, "--unzip-command="):
				cmds = append(cmds, strings.TrimPrefix(t, "--unzip-command="))
			case strings.HasPrefix(t, "-TT"):
				cmds = append(cmds, t[3:])
			}
		}
	case "git":
		for i := 1; i+1 < len(toks); i++ {
			t := toks[i].text
			if t == "-c" {
				if c, ok := gitSettingRuns(toks[i+1].text); ok {
					cmds = append(cmds, c)
				}
				i++
				continue
			}
			if strings.HasPrefix(t, "--config-env") {
				cmds = append(cmds, gitEnvSetting)
			}
			if !strings.HasPrefix(t, "-") {
				break // the subcommand: its own -c means something else
			}
			if t == "-C" || t == "--git-dir" || t == "--work-tree" || t == "--namespace" {
				i++
			}
		}
	}
	return strings.Join(cmds, "\n"), len(cmds) > 0
}

// gitSettingRuns is the command a git -c setting (key=value) makes git
// run, if any.
func gitSettingRuns(kv string) (string, bool) {
	key, value, _ := strings.Cut(kv, "=")
	key = strings.ToLower(key)
	value = strings.TrimSpace(value)
	switch value {
	case "", "true", "false", "yes", "no", "on", "off", "0", "1":
		return "", false // a switch, or a reset
	}
	switch {
	case strings.HasPrefix(key, "alias."), key == "credential.helper":
		// only a value after ! is a shell command; credential.helper=store
		// names a helper program of git's own
		cmd, ok := strings.CutPrefix(value, "!")
		return cmd, ok
	case strings.HasPrefix(key, "pager."), strings.HasPrefix(key, "filter."),
		strings.HasPrefix(key, "merge.") && strings.HasSuffix(key, ".driver"),
		strings.HasPrefix(key, "diff.") && (strings.HasSuffix(key, ".textconv") || strings.HasSuffix(key, ".command")),
		(strings.HasPrefix(key, "difftool.") || strings.HasPrefix(key, "mergetool.")) && strings.HasSuffix(key, ".cmd"),
		strings.HasPrefix(key, "remote.") && (strings.HasSuffix(key, ".uploadpack") || strings.HasSuffix(key, ".receivepack")):
		return value, true
	}
	switch key {
	case "core.fsmonitor", "core.sshcommand", "core.pager", "core.editor", "core.askpass",
		"sequence.editor", "diff.external", "gpg.program", "gpg.ssh.program", "gpg.x509.program",
		"uploadpack.packobjectshook", "ssh.variant":
		return value, true
	}
	return "", false
}

// tarCommandOptions are tar's long options whose value is a command; GNU
// tar takes any unambiguous start of a long option (--to-com=...).
var tarCommandOptions = []string{"--to-command", "--use-compress-program", "--checkpoint-action", "--info-script", "--new-volume-script", "--rsh-command"}

// tarRuns is what a tar command runs from its options.
func tarRuns(toks []token) []string {
	var cmds []string
	add := func(option, value string) {
		if option == "--checkpoint-action" {
			v, ok := strings.CutPrefix(value, "exec=")
			if !ok {
				return // echo, dot, sleep...: tar's own actions
			}
			value = v
		}
		cmds = append(cmds, value)
	}
	for i := 1; i < len(toks); i++ {
		t := toks[i].text
		if i == 1 && !strings.HasPrefix(t, "-") && strings.Trim(t, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") == "" {
			// the old form's bundle (tar cIf CMD out.tar): the letters that
			// take a value take the next words, in order
			next := i + 1
			for _, c := range t {
				if strings.ContainsRune("fbCFgHIKLNTVX", c) && next < len(toks) {
					if c == 'I' || c == 'F' {
						cmds = append(cmds, toks[next].text)
					}
					next++
				}
			}
			continue
		}
		name, value, attached := strings.Cut(t, "=")
		if strings.HasPrefix(name, "--") && len(name) > 4 {
			for _, o := range tarCommandOptions {
				if strings.HasPrefix(o, name) {
					if !attached && i+1 < len(toks) {
						i++
						value = toks[i].text
					}
					add(o, value)
					break
				}
			}
			continue
		}
		switch {
		case (t == "-I" || t == "-F") && i+1 < len(toks):
			cmds = append(cmds, toks[i+1].text)
			i++
		case strings.HasPrefix(t, "-I") && len(t) > 2:
			cmds = append(cmds, t[2:])
		}
	}
	return cmds
}

// sedScripts are the scripts a sed command runs: each -e (or
// --expression) value, and each -f file's text, else its first argument.
// A -f file is found from dir, where the command runs; unread is true when
// one cannot be read now (missing, not a small regular file, or written
// by the same command first), so what it runs is beyond what the words
// say.
func sedScripts(toks []token, dir string) (scripts []string, unread bool) {
	first, fromFiles := "", false
	for i := 1; i < len(toks); i++ {
		t := toks[i].text
		switch {
		case t == "-e" || t == "--expression":
			if i+1 < len(toks) {
				scripts = append(scripts, toks[i+1].text)
				i++
			}
		case strings.HasPrefix(t, "--expression="):
			scripts = append(scripts, strings.TrimPrefix(t, "--expression="))
		case strings.HasPrefix(t, "-e") && len(t) > 2 && !toks[i].quoted:
			scripts = append(scripts, t[2:])
		case t == "-f" || t == "--file" || strings.HasPrefix(t, "--file="):
			name := strings.TrimPrefix(t, "--file=")
			if name == t {
				if i+1 >= len(toks) {
					continue
				}
				i++
				name = toks[i].text
			}
			fromFiles = true
			if !filepath.IsAbs(name) && dir != "" {
				name = filepath.Join(dir, name)
			}
			if b, err := readSmall(name); err == nil {
				scripts = append(scripts, string(b))
			} else {
				unread = true
			}
		case strings.HasPrefix(t, "-") && !toks[i].quoted:
		case first == "":
			first = t
		}
	}
	if len(scripts) == 0 && !fromFiles && first != "" {
		scripts = append(scripts, first)
	}
	return scripts, unread
}

// readSmall reads a script file of at most 64 KiB. Only a regular file:
// /dev/stdin, a FIFO or a terminal would be read from trail's own input,
// or block the decision.
func readSmall(name string) ([]byte, error) {
	if fi, err := os.Stat(name); err != nil || !fi.Mode().IsRegular() || fi.Size() > 64<<10 {
		return nil, os.ErrInvalid
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, 64<<10)
	n, err := io.ReadFull(f, b)
	switch {
	case n == len(b):
		return nil, os.ErrInvalid // grew past the limit since the Stat
	case err == io.ErrUnexpectedEOF || err == io.EOF:
		err = nil // the whole file, or an empty one
	}
	return b[:n], err
}

// sedRuns is what a sed script runs: GNU sed's e command runs its
// argument, or with none the pattern space; the e flag of an s command
// runs the pattern space. Those last two are computed.
func sedRuns(script string) []string {
	var cmds []string
	for _, cmd := range sedCommands(script) {
		cmd = strings.TrimLeft(sedSkipAddress(strings.TrimSpace(cmd)), " !")
		switch {
		case cmd == "e":
			cmds = append(cmds, sedRunsItsText)
		case strings.HasPrefix(cmd, "e ") || strings.HasPrefix(cmd, "e\t"):
			cmds = append(cmds, strings.TrimSpace(cmd[1:]))
		case len(cmd) > 1 && cmd[0] == 's':
			if flags, _, ok := sedSubstituteFlags(cmd); ok && strings.ContainsRune(flags, 'e') {
				cmds = append(cmds, sedRunsItsText)
			}
		}
	}
	return cmds
}

// sedWrites are the files a sed script writes: the w command's and the w
// flag's of an s command (W, likewise).
func sedWrites(script string) []string {
	var files []string
	for _, cmd := range sedCommands(script) {
		cmd = strings.TrimLeft(sedSkipAddress(strings.TrimSpace(cmd)), " !")
		switch {
		case len(cmd) > 1 && (cmd[0] == 'w' || cmd[0] == 'W') && (cmd[1] == ' ' || cmd[1] == '\t'):
			files = append(files, strings.TrimSpace(cmd[1:]))
		case len(cmd) > 1 && cmd[0] == 's':
			if _, file, ok := sedSubstituteFlags(cmd); ok && file != "" {
				files = append(files, file)
			}
		}
	}
	return files
}

// sedCommands splits a script into its commands, in one pass: at
// newlines; at ; { } between commands; never inside an s command's text;
// and after w, W, r, R, e, a, i, c (or an s command's w flag) not before
// the line ends, their argument running to it.
func sedCommands(script string) []string {
	var out []string
	for _, line := range strings.Split(script, "\n") {
		for line != "" {
			line = strings.TrimLeft(line, " \t;{}")
			if line == "" {
				break
			}
			rest := strings.TrimLeft(sedSkipAddress(line), " !")
			at := len(line) - len(rest) // where the command letter is
			end := len(line)
			switch {
			case rest == "":
			case rest[0] == 's' && len(rest) > 1:
				_, file, ok := sedSubstituteFlags(rest)
				if ok && file == "" {
					if k := strings.IndexAny(rest[sedBodyEnd(rest):], ";}"); k >= 0 {
						end = at + sedBodyEnd(rest) + k
					}
				}
			case strings.ContainsRune("wWrReaic", rune(rest[0])) && (len(rest) == 1 || rest[1] == ' ' || rest[1] == '\t'):
				// the argument runs to the end of the line
			default:
				if k := strings.IndexAny(rest, ";}"); k >= 0 {
					end = at + k
				}
			}
			out = append(out, line[:end])
			line = line[end:]
		}
	}
	return out
}

// sedBodyEnd is where an s command's pattern and replacement end (its
// flags start), or the command's length when they never do.
func sedBodyEnd(cmd string) int {
	d := cmd[1]
	n, j := 0, 2
	for ; j < len(cmd) && n < 2; j++ {
		if cmd[j] == '\\' {
			j++
		} else if cmd[j] == d {
			n++
		}
	}
	return min(j, len(cmd))
}

// sedSkipAddress drops a command's address: line numbers, $, /regex/,
// and a range of them.
func sedSkipAddress(cmd string) string {
	for range 2 {
		switch {
		case cmd == "":
			return cmd
		case cmd[0] >= '0' && cmd[0] <= '9':
			cmd = strings.TrimLeft(cmd, "0123456789~")
		case cmd[0] == '$':
			cmd = cmd[1:]
		case cmd[0] == '/':
			j := 1
			for j < len(cmd) && cmd[j] != '/' {
				if cmd[j] == '\\' {
					j++
				}
				j++
			}
			cmd = cmd[min(j+1, len(cmd)):]
		}
		if !strings.HasPrefix(cmd, ",") {
			break
		}
		cmd = cmd[1:]
	}
	return cmd
}

// sedSubstituteFlags are the flags after an s command's replacement, up to
// a w flag, and the w flag's file ("" for none).
func sedSubstituteFlags(cmd string) (flags, file string, ok bool) {
	j := sedBodyEnd(cmd)
	if j >= len(cmd) && !sedClosed(cmd) {
		return "", "", false
	}
	flags = cmd[j:]
	if k := strings.IndexAny(flags, ";}"); k >= 0 && !strings.ContainsRune(flags[:k], 'w') {
		flags = flags[:k]
	}
	if w := strings.IndexByte(flags, 'w'); w >= 0 {
		return flags[:w], strings.TrimSpace(flags[w+1:]), true
	}
	return flags, "", true
}

// sedClosed reports whether an s command's replacement is closed.
func sedClosed(cmd string) bool {
	d := cmd[1]
	n := 0
	for j := 2; j < len(cmd); j++ {
		if cmd[j] == '\\' {
			j++
		} else if cmd[j] == d {
			n++
		}
	}
	return n >= 2
}
