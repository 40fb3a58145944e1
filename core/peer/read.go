package peer

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/tidwall/gjson"

	"trail/logfmt"
)

// LineError is a line the file may not have: not a JSON object (a torn
// tail, a file of another kind), or not an entry of the format read.
type LineError struct {
	Line int // 1-based; 0 when the whole file is at fault
	Msg  string
	Fix  string // what to do about it, when something can be done
}

func (e *LineError) Error() string {
	if e.Line == 0 {
		return e.Msg
	}
	return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
}

// fixForeign is the hint for a file that is no session Read knows.
const fixForeign = "trail imports the JSONL session files of Claude Code, Codex, Gemini CLI and pi; name the agent with --from when the content does not tell it"

// ErrUnknownFormat is a format name Read does not know.
var ErrUnknownFormat = errors.New("unknown format")

// srcLine is one non-blank line of the source, parsed as a JSON object.
type srcLine struct {
	num int
	raw []byte
	obj gjson.Result
}

func (l srcLine) get(path string) gjson.Result { return l.obj.Get(path) }

// Read turns another agent's session file into a conversation. format is
// one of Formats, or "" to tell it from the content.
func Read(r io.Reader, format string) (*Conversation, error) {
	if format != "" && !slices.Contains(Formats, format) {
		return nil, fmt.Errorf("%w %q", ErrUnknownFormat, format)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	if legacy, ok := geminiLegacy(data); ok && (format == "" || format == Gemini) {
		return readGeminiLegacy(legacy)
	}
	lines, err := splitLines(data)
	if err != nil {
		return nil, err
	}
	if len(lines) == 0 {
		return nil, &LineError{Msg: "the file holds no entries", Fix: fixForeign}
	}
	detected, why := detect(lines[0])
	switch {
	case format == "" && detected == "" && why == whyTrailLog:
		return nil, &LineError{Line: lines[0].num, Msg: why, Fix: "replay it with: trail replay FILE; or put it back as a session with: trail replay ID --write-record"}
	case format == "" && detected == "":
		return nil, &LineError{Line: lines[0].num, Msg: why + "; this is not a session file of " + formatList(), Fix: fixForeign}
	case format == "":
		format = detected
	case detected != format:
		if why == "" {
			why = "it looks like a " + AgentName(detected) + " session (--from " + detected + ")"
		}
		return nil, &LineError{Line: lines[0].num, Msg: "not a " + AgentName(format) + " session: " + why}
	}
	var c *Conversation
	switch format {
	case Claude:
		c, err = readClaude(lines)
	case Codex:
		c, err = readCodex(lines)
	case Gemini:
		c, err = readGemini(lines)
	case Pi:
		c, err = readPi(lines)
	}
	if err != nil {
		return nil, err
	}
	c.Entries = len(lines)
	if !c.hasMessage() {
		return nil, &LineError{Msg: fmt.Sprintf("no conversation found: none of the %d entries is a message", len(lines))}
	}
	return c, nil
}

// splitLines parses every non-blank line. A line that is not a JSON object
// stops the import: a torn last line means the file was cut short (a
// process killed while writing, a partial copy), any other means it is not
// a session file.
func splitLines(data []byte) ([]srcLine, error) {
	rd := logfmt.NewReader(bytes.NewReader(data))
	defer rd.Release()
	var out []srcLine
	for {
		l, err := rd.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if l.Torn {
			return nil, &LineError{Line: l.Num, Msg: "the last line is cut short (no newline, not a JSON object): the file looks truncated",
				Fix: "copy the file again once its agent has stopped: agents append as they go, and a copy taken mid-write ends mid-line"}
		}
		if !l.Object {
			return nil, &LineError{Line: l.Num, Msg: "not a JSON object (" + l.Problem() + ")", Fix: fixForeign}
		}
		raw := bytes.Clone(l.Bytes)
		out = append(out, srcLine{num: l.Num, raw: raw, obj: gjson.ParseBytes(raw)})
	}
}

func formatList() string {
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = AgentName(f)
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// joinTexts joins the "text" of each block of the given type ("" for
// blocks with a text and no type, as Gemini's parts are), and returns the
// blocks of other types.
func joinTexts(blocks gjson.Result, textType, sep string) (string, []gjson.Result) {
	var texts []string
	var other []gjson.Result
	blocks.ForEach(func(_, b gjson.Result) bool {
		t := b.Get("type")
		if b.IsObject() && (t.Str == textType || (textType == "" && !t.Exists())) && b.Get("text").Type == gjson.String {
			texts = append(texts, b.Get("text").Str)
		} else {
			other = append(other, b)
		}
		return true
	})
	return strings.Join(texts, sep), other
}

// rawArgs is a call's arguments as a JSON string: an object the source
// stored is kept with its bytes (key order, spacing), anything else
// encoded.
func rawArgs(v gjson.Result) string {
	if !v.Exists() || v.Type == gjson.Null {
		return "{}"
	}
	if v.IsObject() {
		return v.Raw
	}
	if v.Type == gjson.String {
		return v.Str
	}
	return v.Raw
}

// textOf is a value the source gave as text: a string as it is, anything
// else as its JSON.
func textOf(v gjson.Result) string {
	if v.Type == gjson.String {
		return v.Str
	}
	if !v.Exists() {
		return ""
	}
	return v.Raw
}
