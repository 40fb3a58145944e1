package commands

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/tidwall/gjson"

	"trail/core/chat"
	"trail/logfmt"
)

// The text view of a replay, for people: who said what, which tools were
// called with what and how they ended, and where the conversation was
// compacted. Every message is shown whole; nothing is summarised away.
// Everything read from the log is escaped for the terminal (safe_text.go):
// content keeps its newlines and tabs, one-line fields (ids, names, times,
// tool calls) are escaped whole; a log is text a model or a tool wrote.

func writeReplayText(w io.Writer, rep *logfmt.Replay, view string) error {
	if rep.Entries == 0 {
		_, err := fmt.Fprintln(w, "(an empty log)")
		return err
	}
	fmt.Fprintf(w, "session %s\n", safeLine(rep.SessionID))
	if rep.Cwd != "" {
		fmt.Fprintf(w, "cwd     %s\n", safeLine(rep.Cwd))
	}
	if rep.CreatedAt != "" {
		fmt.Fprintf(w, "time    %s → %s\n", safeLine(rep.CreatedAt), safeLine(rep.UpdatedAt))
	}
	if view == viewTranscript {
		for _, it := range rep.Transcript {
			if c := it.Compaction; c != nil && c.SummaryMissing {
				// Robota compacts without logging the summary it keeps.
				fmt.Fprintf(w, "\n═══ compacted at %s (log line %d), summary not in the log: the context after this point cannot be rebuilt from the log (the record holds it) ═══\n", safeLine(c.Timestamp), c.Line)
				continue
			}
			if c := it.Compaction; c != nil {
				fmt.Fprintf(w, "\n═══ compacted at %s (log line %d): %s → %d ═══\n", safeLine(c.Timestamp), c.Line, plural(c.Before, "message"), c.After)
				continue
			}
			if rs := it.Resync; rs != nil {
				// The record is the conversation: what the log said beyond
				// it stays above, as it was said, but the model never sees it.
				fmt.Fprintf(w, "\n═══ re-synced with the record at %s (log line %d): the log had %s, the record %d; the conversation goes on from the record's ═══\n",
					safeLine(rs.Timestamp), rs.Line, plural(rs.Before, "message"), rs.After)
				continue
			}
			writeTextMessage(w, it.Message)
		}
	} else {
		if n := rep.Compactions; n > 0 {
			fmt.Fprintf(w, "note    compacted %s; --view transcript shows everything\n", plural(n, "time"))
		}
		if n := rep.SummariesMissing; n > 0 {
			fmt.Fprintf(w, "note    %s without a summary in the log: the context shown may not be the model's\n", plural(n, "compaction"))
		}
		if n := rep.Resyncs; n > 0 {
			fmt.Fprintf(w, "note    re-synced with the record %s; --view transcript shows where\n", plural(n, "time"))
		}
		for _, m := range rep.Messages {
			writeTextMessage(w, m)
		}
	}
	return nil
}

func writeTextMessage(w io.Writer, raw json.RawMessage) {
	m, err := chat.DecodeMessage(raw)
	if err != nil {
		fmt.Fprintf(w, "\n● ?\n%s\n", indent(safeText(string(raw))))
		return
	}
	head := safeLine(m.Role)
	switch m.Role {
	case chat.RoleTool:
		ok, text := toolOutcome(m.Content)
		head = fmt.Sprintf("tool %s (%s): %s", safeLine(m.Name), safeLine(m.ToolCallID), ok)
		fmt.Fprintf(w, "\n● %s  %s\n", head, safeLine(m.Timestamp))
		if text != "" {
			fmt.Fprintln(w, indent(safeText(text)))
		}
		return
	case chat.RoleAssistant:
		if m.State == chat.StateInterrupted {
			head += " (interrupted)"
		}
	}
	fmt.Fprintf(w, "\n● %s  %s\n", head, safeLine(m.Timestamp))
	if text := messageText(m, raw); text != "" {
		fmt.Fprintln(w, indent(safeText(text)))
	}
	for _, tc := range m.ToolCalls {
		fmt.Fprintf(w, "  ↳ %s(%s)  [%s]\n", safeLine(tc.Name), safeLine(tc.Arguments), safeLine(tc.ID))
	}
}

// messageText is a message's text: the content string, or the text parts
// of a content list, or the raw content when it is neither.
func messageText(m chat.Message, raw json.RawMessage) string {
	if m.Content != "" || m.ContentNull {
		return m.Content
	}
	c := gjson.GetBytes(raw, "content")
	if !c.IsArray() {
		return ""
	}
	var parts []string
	c.ForEach(func(_, p gjson.Result) bool {
		if t := p.Get("text"); t.Type == gjson.String {
			parts = append(parts, t.Str)
		} else {
			parts = append(parts, p.Raw)
		}
		return true
	})
	return strings.Join(parts, "\n")
}

// toolOutcome reads trail's tool result content, {success, output, error},
// and falls back to the content as it is.
func toolOutcome(content string) (string, string) {
	r := gjson.Parse(content)
	if !gjson.Valid(content) || !r.IsObject() || !r.Get("success").IsBool() {
		return "result", content
	}
	out, errText := r.Get("output").String(), r.Get("error").String()
	if r.Get("success").Bool() {
		return "ok", out
	}
	switch {
	case out != "" && errText != "":
		return "failed", errText + "\n" + out
	case errText != "":
		return "failed", errText
	}
	return "failed", out
}

// indent shifts every non-empty line two spaces right.
func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = "  " + l
		}
	}
	return strings.Join(lines, "\n")
}
