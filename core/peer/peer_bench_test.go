package peer

import (
	"bytes"
	"fmt"
	"testing"
)

// claudeTranscript makes a Claude Code transcript of n turns, each a
// prompt, an answer calling Bash and its 1 KB result.
func claudeTranscript(n int) []byte {
	var b bytes.Buffer
	parent := "null"
	out := bytes.Repeat([]byte("x"), 1024)
	for i := range n {
		fmt.Fprintf(&b, `{"parentUuid":%s,"isSidechain":false,"type":"user","message":{"role":"user","content":"step %d"},"uuid":"u%d","timestamp":"2026-01-01T00:00:00.000Z","sessionId":"s","cwd":"/w"}`+"\n", parent, i, i)
		fmt.Fprintf(&b, `{"parentUuid":"u%d","isSidechain":false,"type":"assistant","message":{"id":"m%d","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"t%d","name":"Bash","input":{"command":"ls"}}],"stop_reason":"tool_use","usage":{"input_tokens":10,"output_tokens":5}},"uuid":"a%d","timestamp":"2026-01-01T00:00:00.000Z","sessionId":"s"}`+"\n", i, i, i, i)
		fmt.Fprintf(&b, `{"parentUuid":"a%d","isSidechain":false,"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t%d","content":"%s"}]},"uuid":"r%d","timestamp":"2026-01-01T00:00:00.000Z","sessionId":"s"}`+"\n", i, i, out, i)
		parent = fmt.Sprintf(`"r%d"`, i)
	}
	return b.Bytes()
}

// BenchmarkReadClaude reads a 10,000-turn transcript (30,000 lines, about
// 15 MB): the cost of an import before anything is written.
func BenchmarkReadClaude(b *testing.B) {
	data := claudeTranscript(10_000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Read(bytes.NewReader(data), ""); err != nil {
			b.Fatal(err)
		}
	}
}
