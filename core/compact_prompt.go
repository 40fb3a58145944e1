package core

// The summary request's prompt (SPEC 5.6). Robota writes each message as
// "role: content" and nothing else, which loses what the prompt asks the
// summary to keep and has no size bound. trail keeps Robota's header and its
// line for every plain text turn, and differs from the SPEC's literal copy
// where Robota's prompt fails its own purpose:
//
//   - an assistant message's tool calls follow its text on its line, as
//     "[tool call NAME ARGS]", ARGS cut to toolArgsLimit characters: the file
//     paths, commands and code of Write, Edit and Bash live only there;
//   - a tool result is cut to toolResultLimit characters, with a note of how
//     much was cut (the prompt itself says to drop verbose tool outputs);
//   - the whole prompt fits a token budget (the model's window less room for
//     the answer, session.compactionBudget): past it, the oldest messages
//     after the first user prompt are left out, with one line saying how
//     many, and the first prompt and the most recent messages stay, since
//     they say what was asked and where the work stands. A session over its
//     window could otherwise never be compacted: the provider refuses the
//     request.

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"trail/core/chat"
	"trail/logfmt"
)

const (
	toolArgsLimit   = 2000 // characters of a tool call's arguments in the prompt
	toolResultLimit = 1000 // characters of a tool result in the prompt
	// minConversationCost keeps a few lines of conversation when a tiny
	// window (--context-window 50) leaves no room after the instructions.
	minConversationCost = 2048
	// messageOverhead is what the estimator counts besides the content in
	// the summary request's user message: its keys, id, state and timestamp.
	messageOverhead = 256
)

// CompactionPrompt is SPEC 5.6's summarise prompt over msgs, extended as the
// file comment says. budget is the most tokens the prompt may take, as the
// context estimator counts them; 0: no bound.
func CompactionPrompt(msgs []chat.Message, instructions string, budget int64) string {
	header := compactionHeader(instructions)
	lines := make([]string, len(msgs))
	for i, m := range msgs {
		lines[i] = promptLine(m)
	}
	if budget > 0 {
		room := budget*chat.BytesPerToken - int64(jsonCost(header)) - messageOverhead
		lines = fitLines(lines, promptHead(msgs), max(int(room), minConversationCost))
	}
	return header + strings.Join(lines, "\n")
}

// compactionHeader is the prompt up to its conversation, byte for byte as
// Robota writes it.
func compactionHeader(instructions string) string {
	var b strings.Builder
	b.WriteString("Summarize the following conversation concisely, preserving:\n")
	b.WriteString("- User's original requests and goals\n")
	b.WriteString("- Key decisions and conclusions\n")
	b.WriteString("- Important code changes and file paths\n")
	b.WriteString("- Current task status and next steps\n")
	// The instructions section is a line of its own, empty when none are given.
	if instructions != "" {
		fmt.Fprintf(&b, "\nAdditional focus:\n%s\n", instructions)
	}
	b.WriteString("\nDrop verbose tool outputs, debugging steps, and exploratory work that didn't lead to results.\n")
	b.WriteString("\nConversation:\n")
	return b.String()
}

// promptLine is one message of the conversation. Robota writes content that
// is not a string (null, a list of parts) with JSON.stringify, so the
// summary still sees its text; an assistant message that only calls tools
// shows its calls instead of "null".
func promptLine(m chat.Message) string {
	text := m.ContentText()
	switch {
	case m.Role == chat.RoleTool:
		text = cutText(text, toolResultLimit)
	case len(m.ToolCalls) > 0:
		var b strings.Builder
		if !m.ContentNull && text != "" {
			b.WriteString(text)
		}
		for _, tc := range m.ToolCalls {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			args := string(logfmt.CompactJSON(tc.Args()))
			fmt.Fprintf(&b, "[tool call %s %s]", tc.Name, cutText(args, toolArgsLimit))
		}
		text = b.String()
	}
	return m.Role + ": " + text
}

// promptHead is how many leading messages always stay: through the first
// user prompt (after a previous compaction's summary, that summary too),
// else the first message.
func promptHead(msgs []chat.Message) int {
	for i, m := range msgs {
		if m.Role == chat.RoleUser {
			return i + 1
		}
	}
	return min(1, len(msgs))
}

// fitLines keeps lines within room, counted as the request's JSON counts
// them: the head lines (cut to half the room at most), then the most recent
// lines that fit, and one line in place of those left out between.
func fitLines(lines []string, head, room int) []string {
	total := 0
	for _, l := range lines {
		total += jsonCost(l) + 2 // the "\n" between lines is escaped
	}
	if total <= room {
		return lines
	}
	const noteRoom = 128
	out := make([]string, 0, head+1)
	headRoom := room / 2 / max(head, 1)
	used := noteRoom
	for _, l := range lines[:head] {
		l = cutToCost(l, headRoom)
		used += jsonCost(l) + 2
		out = append(out, l)
	}
	start := len(lines)
	for start > head {
		c := jsonCost(lines[start-1]) + 2
		if used+c > room {
			if start == len(lines) {
				// The most recent message alone is too large: its start
				// says more than nothing.
				start--
				lines[start] = cutToCost(lines[start], room-used-2)
				used = room
			}
			break
		}
		used += c
		start--
	}
	if left := start - head; left > 0 {
		noun := "messages"
		if left == 1 {
			noun = "message"
		}
		out = append(out, fmt.Sprintf("[... %s earlier %s left out to fit the model's context window ...]", Thousands(int64(left)), noun))
	}
	return append(out, lines[start:]...)
}

// cutText keeps the first limit characters of s and says how many more
// there were.
func cutText(s string, limit int) string {
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	i, n := 0, 0
	for i < len(s) && n < limit {
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
		n++
	}
	return s[:i] + cutNote(utf8.RuneCountInString(s[i:]))
}

// cutToCost keeps as much of s as costs at most room in the request's JSON,
// the note of what was cut included.
func cutToCost(s string, room int) string {
	if jsonCost(s) <= room {
		return s
	}
	room -= len(cutNote(len(s))) // the note's count is at most len(s)
	i, used := 0, 0
	for i < len(s) {
		r, w := utf8.DecodeRuneInString(s[i:])
		if used+runeCost(r) > room {
			break
		}
		used += runeCost(r)
		i += w
	}
	return s[:i] + cutNote(utf8.RuneCountInString(s[i:]))
}

func cutNote(n int) string {
	return " [... " + Thousands(int64(n)) + " more characters cut]"
}

// jsonCost is len(s) once written as a JSON string, quotes left out, as
// the estimator counts it; at least as long as any encoder writes it.
func jsonCost(s string) int {
	n := 0
	for _, r := range s {
		n += runeCost(r)
	}
	return n
}

func runeCost(r rune) int {
	switch {
	case r == '"', r == '\\', r == '\n', r == '\r', r == '\t', r == '\b', r == '\f':
		return 2
	case r < 0x20, r == '<', r == '>', r == '&', r == '\u2028', r == '\u2029', r == utf8.RuneError:
		return 6 // \u00XX; an invalid byte becomes \ufffd
	}
	return utf8.RuneLen(r)
}
