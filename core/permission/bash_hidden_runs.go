package permission

import (
	"path/filepath"
	"strings"
)

// Commands that programs run from their own options, beyond anything the
// shell's words say: sed's e command and s///e flag, git -c settings whose
// value is a command (alias.x=!cmd, core.fsmonitor, core.sshCommand...),
// tar's --to-command, --checkpoint-action=exec, -I and scripts, zip -TT.
// Such a command is unseen, as one named by an expansion: asked when a
// rule names Bash commands.

// runsUnseen reports whether a command's options make it run a command.
func runsUnseen(toks []token) bool {
	switch filepath.Base(toks[0].text) {
	case "sed", "gsed":
		for _, script := range sedScripts(toks) {
			if sedExecutes(script) {
				return true
			}
		}
	case "tar", "gtar", "bsdtar":
		for _, t := range toks[1:] {
			for _, p := range []string{"--to-command", "--checkpoint-action", "--use-compress-program", "--info-script", "--new-volume-script", "--rsh-command"} {
				if strings.HasPrefix(t.text, p) {
					return true
				}
			}
			if t.text == "-F" || strings.HasPrefix(t.text, "-I") {
				return true
			}
		}
	case "zip":
		for _, t := range toks[1:] {
			if t.text == "-TT" || strings.HasPrefix(t.text, "--unzip-command") {
				return true
			}
		}
	case "git":
		for i := 1; i+1 < len(toks); i++ {
			if toks[i].text == "-c" && gitRunsSetting(toks[i+1].text) {
				return true
			}
			if strings.HasPrefix(toks[i].text, "--config-env") {
				return true
			}
			if !strings.HasPrefix(toks[i].text, "-") && toks[i-1].text != "-c" && toks[i-1].text != "-C" {
				break // the subcommand: its own -c means something else
			}
		}
	}
	return false
}

// gitRunsSetting reports whether a git -c setting (key=value) makes git
// run a command.
func gitRunsSetting(kv string) bool {
	key, value, _ := strings.Cut(kv, "=")
	key = strings.ToLower(key)
	switch {
	case strings.HasPrefix(key, "alias."):
		return strings.HasPrefix(strings.TrimSpace(value), "!")
	case strings.HasPrefix(key, "pager."), strings.HasPrefix(key, "filter."), strings.HasPrefix(key, "merge.") && strings.HasSuffix(key, ".driver"),
		strings.HasPrefix(key, "diff.") && (strings.HasSuffix(key, ".textconv") || strings.HasSuffix(key, ".command")):
		return true
	}
	switch key {
	case "core.fsmonitor", "core.sshcommand", "core.pager", "core.editor", "core.askpass", "core.hookspath",
		"sequence.editor", "diff.external", "credential.helper", "gpg.program", "gpg.ssh.program",
		"uploadpack.packobjectshook", "remote.origin.uploadpack", "remote.origin.receivepack", "protocol.ext.allow":
		return true
	}
	return false
}

// sedScripts are the scripts a sed command runs: each -e (or
// --expression) value, else its first argument.
func sedScripts(toks []token) []string {
	var scripts []string
	first := ""
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
		case t == "-f" || t == "--file":
			i++
		case strings.HasPrefix(t, "-") && !toks[i].quoted:
		case first == "":
			first = t
		}
	}
	if len(scripts) == 0 && first != "" {
		scripts = append(scripts, first)
	}
	return scripts
}

// sedExecutes reports whether a sed script runs a command: GNU sed's e
// command, or the e flag of an s command.
func sedExecutes(script string) bool {
	for _, cmd := range sedCommands(script) {
		cmd = strings.TrimLeft(sedSkipAddress(strings.TrimSpace(cmd)), " !")
		switch {
		case cmd == "e" || strings.HasPrefix(cmd, "e ") || strings.HasPrefix(cmd, "e\t"):
			return true
		case len(cmd) > 1 && cmd[0] == 's':
			if flags, ok := sedSubstituteFlags(cmd); ok && strings.ContainsRune(flags, 'e') {
				return true
			}
		}
	}
	return false
}

// sedCommands splits a script at ; and newlines outside s commands' text.
func sedCommands(script string) []string {
	var out []string
	start := 0
	for i := 0; i < len(script); i++ {
		switch script[i] {
		case ';', '\n', '{', '}':
			out = append(out, script[start:i])
			start = i + 1
		case 's':
			if strings.TrimSpace(sedSkipAddress(strings.TrimSpace(script[start:i]))) == "" && i+1 < len(script) {
				// skip the s command's pattern and replacement
				d := script[i+1]
				n, j := 0, i+2
				for ; j < len(script) && n < 2; j++ {
					if script[j] == '\\' {
						j++
					} else if script[j] == d {
						n++
					}
				}
				i = j - 1
			}
		}
	}
	return append(out, script[start:])
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

// sedSubstituteFlags are the flags after an s command's replacement.
func sedSubstituteFlags(cmd string) (string, bool) {
	d := cmd[1]
	n, j := 0, 2
	for ; j < len(cmd) && n < 2; j++ {
		if cmd[j] == '\\' {
			j++
		} else if cmd[j] == d {
			n++
		}
	}
	if n < 2 {
		return "", false
	}
	return cmd[j:], true
}
