package peer

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"trail/core/chat"
)

// FuzzRead feeds Read any bytes, seeded with every fixture: it must never
// panic or hang, and whatever it accepts keeps trail's rule (every call
// answered right after its round), exports to Claude's format, and reads
// back from that export.
func FuzzRead(f *testing.F) {
	files, _ := filepath.Glob("../../testdata/peers/*.jsonl")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b, "")
		}
	}
	f.Add([]byte(`{"sessionId":"g","projectHash":"p","messages":[{"id":"1","type":"user","content":"hi"}]}`), "")
	f.Add([]byte(`{"type":"session","version":1,"id":"x"}`+"\n"+`{"type":"message","message":{"role":"user","content":"a"}}`+"\n"), Pi)
	f.Fuzz(func(t *testing.T, data []byte, format string) {
		switch format {
		case "", Claude, Codex, Gemini, Pi:
		default:
			format = ""
		}
		c, err := Read(bytes.NewReader(data), format)
		if err != nil {
			return
		}
		assertAnswered(t, c)
		var buf bytes.Buffer
		if _, err := WriteClaude(&buf, ClaudeSession{ID: "fuzz", Cwd: "/w", Messages: c.Messages()}); err != nil {
			t.Fatalf("export: %v", err)
		}
		if err := WriteMarkdown(io.Discard, MarkdownSession{Title: "t", Items: transcriptOf(c.Messages())}); err != nil {
			t.Fatalf("markdown: %v", err)
		}
		if buf.Len() == 0 {
			return
		}
		back, err := Read(&buf, Claude)
		if err != nil {
			t.Fatalf("the Claude export of an accepted file does not read back: %v\n%s", err, buf.String())
		}
		assertAnswered(t, back)
	})
}

func transcriptOf(msgs []chat.Message) []TranscriptItem {
	out := make([]TranscriptItem, len(msgs))
	for i := range msgs {
		out[i] = TranscriptItem{Message: &msgs[i]}
	}
	return out
}
