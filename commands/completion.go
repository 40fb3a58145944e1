package commands

import (
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"trail/core"
	"trail/core/errs"
	"trail/core/permission"
	"trail/store"
)

// Shell completion. Each script asks the binary itself what fits
// (`trail __complete WORDS...`, the words typed so far before the one being
// completed), so commands, options and the sessions of the home are never
// out of date with the trail on the PATH. __complete prints one candidate
// a line and nothing on error: a completion must never spill errors over
// the command line.

// completeCmd is the hidden command the completion scripts call.
const completeCmd = "__complete"

// sessionArgs says whether a command's positional argument number n
// (0-based) names a session.
func sessionArgs(cmd string, n int) bool {
	switch cmd {
	case "resume", "compact", "replay":
		return n == 0
	case "validate-log", "delete":
		return true
	}
	return false
}

// valueChoices are the values of an option that takes one of a few words.
func valueChoices(cmd, option string) []string {
	switch option {
	case "provider":
		return []string{"anthropic", "openai", "echo", "script", "cassette"}
	case "cassette-mode":
		return []string{"strict", "lenient"}
	case "cassette-speed":
		return []string{"full", "recorded"}
	case "output-format", "o":
		if cmd == "compact" {
			return []string{"text", "json"}
		}
		return []string{"text", "json", "stream-json"}
	case "permission-mode":
		return []string{"default", "plan", "acceptEdits", "dontAsk", "bypassPermissions"}
	case "on-ask":
		return []string{"deny", "pause"}
	case "view":
		return []string{"context", "transcript"}
	case "status":
		return []string{"idle", "running", "requires_action", "terminated", "corrupt"}
	case "to":
		return []string{"claude", "markdown"}
	case "log-requests":
		return []string{"digest", "full"}
	case "approve", "deny":
		if cmd == "resume" {
			return []string{"all"}
		}
	case "format", "f":
		switch cmd {
		case "replay":
			return []string{"text", "json", "jsonl", "record"}
		case "validate-log":
			return []string{"text", "json", "github", "junit"}
		}
	}
	return nil
}

// The bash script reads the candidates line by line and filters them
// itself: compgen -W would expand each one ($(...), backquotes, ~, globs),
// running whatever a session's name says at every TAB. What it inserts is
// quoted with printf %q, so a name with a space or a quote stays one word
// and runs nothing. bash splits a word at a colon or an equals sign
// (COMP_WORDBREAKS), so "fix:te" and "--format=js" reach the function as
// three words: they are joined back, an option's value after = is
// completed as the value, and only what follows the last such sign is
// inserted, since bash replaces only that. It keeps to bash 3.2 (macOS):
// no mapfile, no negative indexes.
const bashCompletion = `# bash completion for trail: source <(trail completion bash)
_trail() {
    local -a words=()
    local i w q n cur pre= oq=
    for ((i = 1; i <= COMP_CWORD; i++)); do
        w=${COMP_WORDS[i]}
        n=${#words[@]}
        if ((n > 0)) && [[ $w == [:=] || ${COMP_WORDS[i-1]} == [:=] ]]; then
            words[n-1]+=$w
        else
            words+=("$w")
        fi
    done
    n=${#words[@]}
    cur=${words[n-1]}
    if [[ $cur == --*=* ]]; then
        # --option=value: the value is completed as after --option
        words[n-1]=${cur%%=*}
        cur=${cur#*=}
        words+=("$cur")
        n=${#words[@]}
    fi
    case $cur in
    [\'\"]*) oq=${cur:0:1}; cur=${cur:1} ;;
    *[:=]*) pre=${cur%[:=]*}; pre=${cur:0:${#pre}+1} ;;
    esac
    COMPREPLY=()
    while IFS= read -r w; do
        if [[ -n $oq ]]; then
            # after an opening quote the candidate goes in as it is, and
            # its closing quote after it; one that the quote cannot hold
            # as it is ($, backquote, backslash or the quote) is left out
            if [[ $w == "$cur"* && $w != *"$oq"* && ($oq == "'" || $w != *[\\\$\"$'\x60']*) ]]; then
                COMPREPLY+=("$w$oq")
            fi
            continue
        fi
        printf -v q '%q' "$w"
        if [[ $w == "$cur"* || $q == "$cur"* ]]; then
            COMPREPLY+=("${q#"$pre"}")
        fi
    done < <(trail __complete --typed "${words[@]:0:n-1}" 2>/dev/null)
}
complete -o default -o bashdefault -F _trail trail
`

// zsh's compadd quotes what it inserts (no -Q), so a name is one word
// and never runs.
const zshCompletion = `#compdef trail
# zsh completion for trail: trail completion zsh > "${fpath[1]}/_trail"
_trail() {
    local -a candidates
    candidates=("${(@f)$(trail __complete --typed "${(@)words[2,CURRENT-1]}" 2>/dev/null)}")
    candidates=(${candidates:#})
    if (( ${#candidates} )); then
        compadd -- "${candidates[@]}"
    else
        _files
    fi
}
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
    _trail "$@"
else
    compdef _trail trail
fi
`

const fishCompletion = `# fish completion for trail: trail completion fish > ~/.config/fish/completions/trail.fish
function __trail_complete
    set -l words (commandline -opc)
    trail __complete $words[2..-1] 2>/dev/null
end
complete -c trail -f -a '(__trail_complete)'
complete -c trail -n 'test -z "$(__trail_complete)"' -F
`

func newCompletionCmd(d *Deps) *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script (bash, zsh or fish)",
		ArgsUsage: "bash|zsh|fish",
		Description: "Completes commands, options, their values, and the names and short ids of the\n" +
			"sessions in the home.",
		Action: func(c *cli.Context) error {
			if c.Args().Len() > 1 {
				return errs.Usagef("trail completion bash, zsh or fish", "unexpected argument %s", store.QuoteInput(c.Args().Get(1)))
			}
			var script string
			switch sh := c.Args().First(); sh {
			case "bash":
				script = bashCompletion
			case "zsh":
				script = zshCompletion
			case "fish":
				script = fishCompletion
			case "":
				return errs.Usagef("trail completion bash, zsh or fish", "name the shell to complete for")
			default:
				return errs.Usagef("trail completion bash, zsh or fish", "unknown shell %s", store.QuoteInput(sh))
			}
			_, err := fmt.Fprint(d.IO.Out, script)
			return err
		},
	}
}

// complete prints the candidates for the word after words.
func complete(app *cli.App, d *Deps, words []string) {
	out := func(list []string) {
		for _, s := range list {
			fmt.Fprintln(d.IO.Out, s)
		}
	}
	globals := flagTable(app.Flags)
	home := ""
	var cmd *cli.Command
	var positional []string
	prev := ""
	// bash and zsh hand over the words as typed, quotes and all (their
	// scripts say so first); fish hands them over unquoted.
	typed := len(words) > 0 && words[0] == typedWords
	if typed {
		words = words[1:]
	}
	endOfOptions, unknownHome := false, false
	for i := 0; i < len(words); i++ {
		w := words[i]
		if !endOfOptions && optionName(w) == "home" {
			if v, ok := strings.CutPrefix(w, "--home="); ok {
				home = v
			} else if i+1 < len(words) {
				home = words[i+1]
			}
			var ok bool
			if home, ok = homeAsTyped(d, home, typed); !ok {
				unknownHome = true
			}
		}
		switch {
		case endOfOptions:
			positional = append(positional, w)
		case w == "--" && cmd != nil:
			endOfOptions = true // what follows is the prompt, or arguments only
		case isOption(w):
			table := globals
			if cmd != nil && flagTable(cmd.Flags).knows(w) {
				table = flagTable(cmd.Flags)
			}
			if table.takesValue(w) {
				if i+1 == len(words) {
					prev = optionName(w) // the value is being completed
				}
				i++
			}
		case cmd == nil:
			cmd = app.Command(w)
			if cmd == nil {
				cmd = app.Command("run") // trail "prompt"
			}
		default:
			positional = append(positional, w)
		}
	}
	if prev != "" {
		name := ""
		if cmd != nil {
			name = cmd.Name
		}
		out(valueChoices(name, prev))
		return
	}
	if cmd == nil {
		out(commandNames(app))
		out(dashedNames(globals.long))
		return
	}
	if !endOfOptions {
		out(dashedNames(flagTable(cmd.Flags).long))
	}
	if sessionArgs(cmd.Name, len(positional)) && !unknownHome {
		out(sessionCandidates(d, home))
	}
	if cmd.Name == "completion" && len(positional) == 0 {
		out([]string{"bash", "zsh", "fish"})
	}
}

// typedWords comes first in the words of the bash and zsh scripts: the
// words are as typed, quotes and backslashes in them.
const typedWords = "--typed"

// homeAsTyped is the folder a --home value on the command line names: the
// shell has not expanded it yet, so ~ is the user's home where the shell
// would expand it (not in quotes), and quotes and backslashes are resolved
// ("~/my\ home", "'/srv/trail home'").
// ok is false for a value the shell would expand ("$HOME/x", a glob):
// completion cannot know that folder, and offers no sessions rather than
// the default home's.
func homeAsTyped(d *Deps, h string, typed bool) (string, bool) {
	if typed {
		unquoted, ok := permission.ShellWord(h)
		if !ok {
			return "", false
		}
		if !strings.HasPrefix(h, "~") {
			return unquoted, true
		}
		h = unquoted
	}
	return tildeHome(d, h), true
}

func dashedNames(names []string) []string {
	out := make([]string, 0, len(names))
	for _, n := range names {
		if n != "help" {
			out = append(out, "--"+n)
		}
	}
	slices.Sort(out)
	return out
}

// sessionCandidates are the names and short ids of the home's sessions,
// newest first.
func sessionCandidates(d *Deps, home string) []string {
	if home == "" {
		var err error
		if home, err = defaultHome(d); err != nil {
			return nil
		}
	}
	heads, err := d.openStore(home).ListHeads()
	if err != nil {
		return nil
	}
	short := core.ShortIDs(heads)
	sortHeads(heads)
	var out []string
	for _, h := range heads {
		if h.Name != "" && !strings.ContainsAny(h.Name, "\n\t") {
			out = append(out, h.Name)
		}
		out = append(out, short[h.ID])
	}
	return out
}
