package commands

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"trail/core/errs"
	"trail/store"
)

// appDescription is the top of trail --help: what the bare forms do.
const appDescription = `trail "PROMPT" and trail -p "PROMPT" are trail run: they start a session;
so is a bare trail with its input piped (echo "PROMPT" | trail).
A session is named by its id, the short id trail list shows, a name
(run --name), or --last. Run trail help COMMAND, or trail COMMAND --help.
Claude Code habits work too: trail -c "next" (--continue) resumes the latest
session of this folder, trail -r ID "next" (--resume ID) resumes that one.

EXAMPLES:
   trail run --provider echo "hi"           # offline, prints: echo: hi
   git diff | trail "review this change"    # the diff follows the prompt
   trail resume --last -o json "and now?" | jq -r .result
   trail list                               # short ids, newest first`

// examples are shown at the end of each command's help.
func examples(cmd string) []string {
	// A switch, not a map literal: help is built for every command on each
	// run, and a map would be built with it.
	switch cmd {
	case "run":
		return []string{
			`trail run "summarise the release notes" < notes.txt > summary.md`,
			`trail run --name triage --provider echo "what does grep -v do"  # -v too`,
			`trail run -o json -- "-v or --verbose?" | jq -r .result`,
		}
	case "resume":
		return []string{
			`trail resume triage "and how do I fix it?"`,
			`trail resume 3f9a2c --approve all     # run the calls it paused on`,
			`trail resume --last --fork "try another way"`,
		}
	case "compact":
		return []string{
			`trail compact triage --keep-last 4`,
			`trail compact --last --instructions "keep the file paths"`,
		}
	case "delete":
		return []string{
			`trail delete 3f9a2c`,
			`trail delete --older-than 30d --dry-run`,
			`trail delete --all --yes`,
		}
	case "replay":
		return []string{
			`trail replay triage                   # the conversation, as text`,
			`trail replay 3f9a2c --format json | jq '.messages | length'`,
			`trail replay 3f9a2c --write-record && trail resume 3f9a2c "go on"`,
		}
	case "validate-log":
		return []string{
			`trail validate-log 'logs/*.jsonl' --format github -q`,
			`trail validate-log ~/.trail/logs/ --format junit > validate-log.xml`,
			`cat session.jsonl | trail validate-log -`,
		}
	case "migrate-history":
		return []string{
			`trail migrate-history --dry-run`,
			`trail migrate-history --backup`,
		}
	case "list":
		return []string{
			`trail list --here --limit 5`,
			`trail list --json --status requires_action | jq -r '.[].shortId'`,
			`trail list --since 2h --status idle`,
		}
	case "import":
		return []string{
			`trail import ~/.claude/projects/-home-me-app/59f7c1e2.jsonl`,
			`trail import --dry-run rollout-2026-11-01.jsonl  # what it would create`,
			`trail resume "$(trail import session.json)" --provider echo "go on"`,
		}
	case "export":
		return []string{
			`trail export triage --to markdown > triage.md`,
			`trail export --last --to claude --install      # then: claude --resume ID`,
		}
	case "config":
		return []string{
			`trail config               # the settings in effect, and the file of each`,
			`trail config --check       # exit 7 on an unknown key or a bad value`,
			`trail config --json | jq .provider`,
		}
	case "completion":
		return []string{
			`source <(trail completion bash)                 # in ~/.bashrc`,
			`trail completion zsh > "${fpath[1]}/_trail"`,
			`trail completion fish > ~/.config/fish/completions/trail.fish`,
		}
	}
	return nil
}

// withExamples appends a command's examples to its description.
func withExamples(c *cli.Command) {
	ex := examples(c.Name)
	if len(ex) == 0 {
		return
	}
	var b strings.Builder
	b.WriteString(c.Description)
	if c.Description != "" {
		b.WriteString("\n\n")
	}
	b.WriteString("EXAMPLES:")
	for _, e := range ex {
		b.WriteString("\n   " + e)
	}
	c.Description = b.String()
}

// newHelpCmd replaces urfave/cli's help command, which answers an unknown
// topic with exit 1 and no list.
func newHelpCmd() *cli.Command {
	return &cli.Command{
		Name:      "help",
		Aliases:   []string{"h"},
		Usage:     "show the commands, or one command's help",
		ArgsUsage: "[COMMAND]",
		HideHelp:  true,
		Action: func(c *cli.Context) error {
			topic := c.Args().First()
			if topic == "" {
				return cli.ShowAppHelp(c)
			}
			if c.App.Command(topic) != nil {
				return cli.ShowCommandHelp(c, topic)
			}
			names := commandNames(c.App)
			fix := "topics: " + strings.Join(names, ", ")
			if s := suggest(topic, names); s != "" {
				fix = fmt.Sprintf("did you mean trail help %s? topics: %s", s, strings.Join(names, ", "))
			}
			return &errs.UsageError{Msg: "no help topic " + store.QuoteInput(topic), Fix: fix}
		},
	}
}
