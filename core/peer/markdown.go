package peer

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/tidwall/gjson"

	"trail/core/chat"
	"trail/lazy"
)

// A readable transcript, in GitHub-flavoured Markdown: a heading per turn,
// the text as the model and the person wrote it (Markdown already, as a
// rule), each tool call folded (<details>) with its result under it,
// context the harness added folded too, and a rule with a note where the
// context was compacted. Code blocks use a fence longer than any run of
// backticks inside them, so no content can close one early.

// MarkdownSession is what WriteMarkdown needs of a session.
type MarkdownSession struct {
	Title string
	// Facts are the header's "- **key:** value" lines, in order.
	Facts [][2]string
	Items []TranscriptItem
}

// TranscriptItem is a message, or a note (a compaction) between messages.
type TranscriptItem struct {
	Message *chat.Message
	Note    string
}

// WriteMarkdown writes the transcript.
func WriteMarkdown(w io.Writer, s MarkdownSession) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# %s\n\n", oneLineText(s.Title))
	for _, f := range s.Facts {
		fmt.Fprintf(bw, "- **%s:** %s\n", f[0], f[1])
	}
	results := map[string]*chat.Message{}
	for _, it := range s.Items {
		if m := it.Message; m != nil && m.Role == chat.RoleTool && m.ToolCallID != "" {
			if _, dup := results[m.ToolCallID]; !dup {
				results[m.ToolCallID] = m
			}
		}
	}
	shown := map[*chat.Message]bool{}
	for _, it := range s.Items {
		if it.Note != "" {
			fmt.Fprintf(bw, "\n---\n\n*%s*\n\n---\n", it.Note)
			continue
		}
		m := it.Message
		if shown[m] {
			continue
		}
		writeMarkdownMessage(bw, withText(*m), results, shown)
	}
	return bw.Flush()
}

func writeMarkdownMessage(w *bufio.Writer, m *chat.Message, results map[string]*chat.Message, shown map[*chat.Message]bool) {
	md := gjson.ParseBytes(m.Metadata)
	switch {
	case m.Role == chat.RoleSystem:
		fmt.Fprintf(w, "\n## System\n\n")
		folded(w, fmt.Sprintf("System prompt (%d characters)", len([]rune(m.Content))), "", m.Content)
	case md.Get("synthetic").Bool() && m.Role != chat.RoleTool && summaryType(md.Get("sourceType").Str):
		fmt.Fprintf(w, "\n## Context summary\n\n%s\n", strings.TrimRight(m.Content, "\n"))
	case md.Get("synthetic").Bool() && m.Role != chat.RoleTool:
		fmt.Fprintf(w, "\n## Context\n\n")
		folded(w, "Added by the agent's harness ("+md.Get("sourceType").Str+")", "", m.Content)
	case m.Role == chat.RoleUser:
		fmt.Fprintf(w, "\n## User\n\n%s\n", strings.TrimRight(m.Content, "\n"))
	case m.Role == chat.RoleAssistant:
		heading := "Assistant"
		content := m.Content
		if rest, ok := strings.CutPrefix(content, ContextSummaryPrefix); ok {
			heading, content = "Context summary", rest
		}
		fmt.Fprintf(w, "\n## %s\n", heading)
		if strings.TrimSpace(content) != "" {
			fmt.Fprintf(w, "\n%s\n", strings.TrimRight(content, "\n"))
		}
		if m.State == chat.StateInterrupted {
			fmt.Fprintf(w, "\n*(interrupted)*\n")
		}
		for _, tc := range m.ToolCalls {
			res := results[tc.ID]
			if res != nil {
				shown[res] = true
			}
			writeToolCall(w, tc, res)
		}
	case m.Role == chat.RoleTool:
		fmt.Fprintf(w, "\n## Tool result\n\n")
		folded(w, "Result of "+m.Name+" ("+m.ToolCallID+"), "+outcome(m), "", m.Content)
	}
}

func writeToolCall(w *bufio.Writer, tc chat.ToolCall, res *chat.Message) {
	state := "no result"
	if res != nil {
		res = withText(*res)
		state = outcome(res)
	}
	summary := "Tool call: " + tc.Name + " " + argsPreview(tc.Arguments) + " — " + state
	fmt.Fprintf(w, "\n<details>\n<summary>%s</summary>\n\n", escapeHTML(summary))
	fmt.Fprintf(w, "Input:\n\n")
	fence(w, "json", tc.Arguments)
	if res != nil {
		fmt.Fprintf(w, "\nResult:\n\n")
		fence(w, "", res.Content)
		if gjson.GetBytes(res.Metadata, "synthetic").Bool() {
			fmt.Fprintf(w, "\n*(no result was recorded; trail added this one)*\n")
		}
	}
	fmt.Fprintf(w, "\n</details>\n")
}

func outcome(m *chat.Message) string {
	if ToolFailed(*m) {
		return "failed"
	}
	return "ok"
}

// folded writes text in a <details> block under summary.
func folded(w *bufio.Writer, summary, lang, text string) {
	fmt.Fprintf(w, "<details>\n<summary>%s</summary>\n\n", escapeHTML(summary))
	fence(w, lang, text)
	fmt.Fprintf(w, "\n</details>\n")
}

// fence writes text as a code block whose fence no backtick run in the
// text can close.
func fence(w *bufio.Writer, lang, text string) {
	longest, run := 0, 0
	for _, r := range text {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", max(3, longest+1))
	fmt.Fprintf(w, "%s%s\n%s\n%s\n", f, lang, strings.TrimRight(text, "\n"), f)
}

// summaryType reports whether sourceType is one of the summaries agents
// open a compacted context with.
func summaryType(sourceType string) bool {
	switch sourceType {
	case "isCompactSummary", "compacted", "compaction", "compactionSummary":
		return true
	}
	return false
}

// previewKeys are the arguments that say what a call does, for its one line.
var previewKeys = []string{"command", "file_path", "filePath", "path", "absolute_path", "pattern", "query", "url"}

// argsPreview is a call's arguments on one line: the argument that says
// what it does when there is one, else the arguments' JSON, cut short.
func argsPreview(args string) string {
	for _, k := range previewKeys {
		v := gjson.Get(args, k)
		switch {
		case v.Type == gjson.String:
			return chat.FirstLine(v.Str, 80)
		case v.IsArray():
			var parts []string
			v.ForEach(func(_, p gjson.Result) bool {
				parts = append(parts, p.String())
				return true
			})
			return chat.FirstLine(strings.Join(parts, " "), 80)
		}
	}
	return chat.FirstLine(args, 80)
}

// escapeHTML escapes what would open or close a tag inside <summary>.
func escapeHTML(s string) string { return htmlEscaper.Get().Replace(s) }

var htmlEscaper = lazy.Value[*strings.Replacer]{New: func() *strings.Replacer {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
}}

// oneLineText keeps a heading on one line.
func oneLineText(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
