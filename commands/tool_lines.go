package commands

import (
	"encoding/json"
	"fmt"
	"strings"

	"trail/core"
	"trail/core/chat"
	"trail/core/permission"
)

// Tool activity on stderr:
//   - on a terminal (or with --verbose), one line per finished call:
//     "✓ Bash(go test ./...)", "✗ Write(a.go) denied: no terminal to ask…";
//   - with --verbose, the first lines of each call's output under it, dimmed;
//   - piped, in text mode, a denied call still gets one line, since the
//     answer on stdout may rest on a call that never ran:
//     "trail: denied Bash(rm -rf build): no terminal to ask; allow with
//     --allow-tool 'Bash(rm *)'". --quiet silences all of it;
//   - what a model, a tool or a hook wrote (calls, outputs, hook messages)
//     is escaped for the terminal (safe_text.go) before trail colours it.

// outputLines is how many lines of a tool's output --verbose shows.
const outputLines = 4

// toolEvent shows tool activity, and hook messages unless --quiet.
func (r *renderer) toolEvent(e core.StepEvent) {
	switch e.Kind {
	case core.EvNotice:
		if !r.o.Globals.Quiet {
			fmt.Fprintf(r.o.IO.ErrOut, "trail: %s\n", safeText(e.Text))
		}
	case core.EvToolFinished:
		r.running = 0
		if e.ToolCall == nil || e.Tool == nil || r.o.Globals.Quiet {
			return
		}
		switch {
		case r.progress || r.verbose:
			r.spin.Stop()
			fmt.Fprintln(r.o.IO.ErrOut, toolLine(*e.ToolCall, *e.Tool, r.color, r.ci))
			if r.verbose && !e.Tool.Denied {
				for _, l := range outputHead(e.Tool.Result, outputLines) {
					fmt.Fprintln(r.o.IO.ErrOut, r.dim("  │ "+safeText(l)))
				}
			}
		case e.Tool.Denied && r.o.Output == outText:
			fmt.Fprintf(r.o.IO.ErrOut, "trail: denied %s\n", safeLine(describeJudged(*e.ToolCall, *e.Tool)+": "+denialWhy(*e.ToolCall, *e.Tool, r.ci)))
		}
	}
}

// toolLine is "✓ Bash(go test ./...)", "✗ Write(a.go) denied: why",
// "✗ Bash(make) exit 2" or "✗ Read(x): File not found: x".
func toolLine(call chat.ToolCall, out core.ToolOutcome, color, ci bool) string {
	desc := describeJudged(call, out)
	mark, note := "✓", ""
	switch {
	case out.Denied:
		mark, note = "✗", " denied: "+denialWhy(call, out, ci)
	case !out.Success:
		mark, note = "✗", ": "+oneLine(out.Summary)
	case out.ExitCode != nil && *out.ExitCode != 0:
		mark, note = "✗", fmt.Sprintf(" exit %d", *out.ExitCode)
	}
	if color {
		if mark == "✓" {
			mark = "\x1b[32m" + mark + "\x1b[0m"
		} else {
			mark = "\x1b[31m" + mark + "\x1b[0m"
		}
	}
	return mark + " " + safeLine(desc+note)
}

// describeJudged names the call as it was judged and run: when a hook
// rewrote it, the rewritten call, then the model's ("Bash(rm -f x),
// rewritten by a hook from Bash(ls)"), so a deny rule reads against what
// it matched.
func describeJudged(call chat.ToolCall, out core.ToolOutcome) string {
	desc := permission.DescribeCall(call.Name, call.Args())
	if out.Rewritten == nil {
		return desc
	}
	return permission.DescribeCall(call.Name, out.Rewritten) + ", rewritten by a hook from " + desc
}

// denialWhy says who denied a call and, when a flag would have allowed
// it, which one. ci: CI is set, so no one was asked even on a terminal.
func denialWhy(call chat.ToolCall, out core.ToolOutcome, ci bool) string {
	switch out.Source {
	case permission.SourceNoTerminal:
		noOne := "no terminal to ask"
		if ci {
			noOne = "CI is set, no one to ask"
		}
		if out.AskedBy != "" {
			// No allow rule or flag answers a forced question: only a
			// person can, later.
			return noOne + ", and " + out.AskedBy + " always asks; to decide later, run with --on-ask pause, then trail resume ID --approve all"
		}
		rule := allowRule(call)
		if rule == "" {
			return noOne + "; to decide later, run with --on-ask pause, then trail resume ID --approve all"
		}
		return noOne + "; allow with --allow-tool " + shellQuote(rule)
	case permission.SourceRule:
		return "deny rule " + out.Rule
	case permission.SourceMode:
		return fmt.Sprintf("not allowed in %s mode", out.Mode)
	case permission.SourcePrompt:
		if out.Summary == core.DeniedAtInterrupt {
			return "interrupted at the question"
		}
		return "not approved"
	case permission.SourceHook:
		return "a hook said no: " + oneLineCut(strings.TrimPrefix(out.Summary, "Blocked by hook: "), 200)
	}
	return oneLine(out.Summary)
}

// allowRule is the narrowest rule a person would likely write to allow a
// call like this one: the command's first word for Bash, the file for a
// file tool.
func allowRule(call chat.ToolCall) string {
	var args map[string]any
	_ = json.Unmarshal(call.Args(), &args)
	switch call.Name {
	case "Bash":
		cmd, _ := args["command"].(string)
		f := strings.Fields(cmd)
		if len(f) == 0 || !plainWord(f[0]) {
			// A subshell, a group, a quoted or expanded command word: no
			// narrow rule names it, and Bash alone would allow every
			// command.
			return ""
		}
		if len(f) == 1 {
			return "Bash(" + f[0] + ")"
		}
		return "Bash(" + f[0] + " *)"
	case "Write", "Edit", "Read":
		if p, _ := args["filePath"].(string); p != "" && !strings.ContainsAny(p, "()*") {
			return call.Name + "(" + p + ")"
		}
	}
	return call.Name
}

// plainWord reports whether a command word is a program's name as
// written, with nothing the shell would expand or group, and no keyword.
func plainWord(w string) bool {
	switch w {
	case "if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac", "function", "!", "{", "}":
		return false
	}
	for _, c := range w {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_./+:@", c)) {
			return false
		}
	}
	return true
}

// shellQuote quotes s for a POSIX shell, so the hint can be pasted.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`*?[]()<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// outputHead is the first n lines of a tool result's output (the result
// is JSON {success, output, error}), and a line counting the rest.
func outputHead(result string, n int) []string {
	var res struct {
		Output string `json:"output"`
		Error  string `json:"error"`
	}
	text := result
	if json.Unmarshal([]byte(result), &res) == nil {
		text = res.Output
		if text == "" {
			text = res.Error
		}
	}
	text = strings.TrimRight(text, "\n")
	if strings.TrimSpace(text) == "" {
		return nil
	}
	lines := strings.Split(text, "\n")
	out := make([]string, 0, n+1)
	for i, l := range lines {
		if i == n {
			more := len(lines) - n
			out = append(out, fmt.Sprintf("… %d more %s", more, map[bool]string{true: "line", false: "lines"}[more == 1]))
			break
		}
		out = append(out, cutEnd(strings.TrimRight(l, "\r"), 200))
	}
	return out
}
