package logfmt

import (
	"encoding/base64"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// SPEC 9: appending 100,000 log events takes under a second. The events
// here are the common ones: a streamed text delta and a committed message.

// historyMessage is a ~300-byte message with nothing to redact: the copy path.
var historyMessage = json.RawMessage(`{"id":"msg_01HZX3","role":"assistant","content":[{"type":"text","text":"Here is the plan: read the file, change the function, then run the tests again to confirm."}],"state":"complete","timestamp":"2025-03-04T05:06:07.890Z","metadata":{"model":"claude-sonnet-4","stopReason":"end_turn"}}`)

// usageMessage mentions tokens, so it is walked key by key: the slow path.
var usageMessage = json.RawMessage(`{"id":"msg_01HZX4","role":"assistant","content":[{"type":"text","text":"Done: the tests pass now."}],"state":"complete","metadata":{"model":"claude-sonnet-4","usage":{"inputTokens":1234,"outputTokens":56}}}`)

var benchSecrets = []string{"sk-ant-api03-0123456789abcdefghijklmnopqrstuvwxyz"}

func benchWriter(b *testing.B) *Writer {
	b.Helper()
	w, err := OpenWriter(filepath.Join(b.TempDir(), "s.jsonl"), Options{SessionID: "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", Secrets: benchSecrets})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = w.Close() })
	return w
}

func logTextDelta(w *Writer) error {
	return w.Log("text_delta", F("delta", "the quick brown fox "))
}

func logHistoryMutation(w *Writer, msg json.RawMessage, i int) error {
	return w.Log("history_mutation",
		F("executionId", "exec_01HZX3"), F("conversationId", "conv_01HZX3"), F("round", 1),
		F("mutation", "append_message"), F("index", i), F("message", msg))
}

func BenchmarkLogTextDelta(b *testing.B) {
	w := benchWriter(b)
	b.ReportAllocs()
	for b.Loop() {
		if err := logTextDelta(w); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLogHistoryMutation(b *testing.B) {
	w := benchWriter(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if err := logHistoryMutation(w, historyMessage, i); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkLogHistoryMutationWalked(b *testing.B) {
	w := benchWriter(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if err := logHistoryMutation(w, usageMessage, i); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkAppend100k is the SPEC 9 figure itself: one op opens a fresh log
// and appends 100,000 events (text deltas, one history mutation in ten).
func BenchmarkAppend100k(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		w, err := OpenWriter(filepath.Join(b.TempDir(), "s.jsonl"), Options{SessionID: "0193a1b2", Secrets: benchSecrets})
		if err != nil {
			b.Fatal(err)
		}
		for i := range 100_000 {
			if i%10 == 9 {
				err = logHistoryMutation(w, historyMessage, i)
			} else {
				err = logTextDelta(w)
			}
			if err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Sync(); err != nil {
			b.Fatal(err)
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// The encode benchmarks build a line without writing it: the share of a
// line's cost that encoding and redaction take, which the write(2) in the
// benchmarks above hides.

// toolOutput is what a Bash tool returns: code, underscores and capitals,
// nothing to redact.
var toolOutput = strings.Repeat("func (s *Session) save_state(ctx context.Context) error { // AWS_REGION, ASSET_DIR\n", 24)

func benchEncode(b *testing.B, event string, fields ...Field) {
	w := benchWriter(b)
	b.ReportAllocs()
	for b.Loop() {
		line, err := w.appendLine(w.buf[:0], event, fields)
		if err != nil {
			b.Fatal(err)
		}
		w.buf = line[:0]
	}
}

func BenchmarkEncodeTextDelta(b *testing.B) {
	benchEncode(b, "text_delta", F("delta", "the quick brown fox "))
}

func BenchmarkEncodeHistoryMutation(b *testing.B) {
	benchEncode(b, "history_mutation", F("executionId", "exec_01HZX3"), F("mutation", "append_message"), F("index", 7), F("message", historyMessage))
}

func BenchmarkEncodeToolOutput(b *testing.B) {
	benchEncode(b, "tool_execution_result", F("toolCallId", "call_1"), F("success", true), F("result", toolOutput))
}

// BenchmarkEncodeStreamedTextDelta is a text_delta as core logs it: the
// piece goes through a TextStream (held back while it could grow into a
// key) and the released text is encoded as it is.
func BenchmarkEncodeStreamedTextDelta(b *testing.B) {
	w := benchWriter(b)
	s := NewRedactor(benchSecrets).Stream()
	b.ReportAllocs()
	for b.Loop() {
		released, _ := s.Write("the quick brown fox ")
		line, err := w.appendLine(w.buf[:0], "text_delta", []Field{F("delta", released)})
		if err != nil {
			b.Fatal(err)
		}
		w.buf = line[:0]
	}
}

// BenchmarkRedactLargeText: a 4 MB pasted file (base64, where AKIA and
// ASIA occur by chance about once in 4 MB, and a few real-looking keys)
// redacted as one string, as a prompt or a tool output is. The shapes'
// regular expressions run only around the places their literal starts.
func BenchmarkRedactLargeText(b *testing.B) {
	raw := make([]byte, 3<<20)
	for i := range raw {
		raw[i] = byte(i*7919 + i>>8)
	}
	text := base64.StdEncoding.EncodeToString(raw) +
		" AKIAIOSFODNN7EXAMPLE Bearer abcdefgh12345678 sk-ant-0123456789abcdefghijklmnop"
	r := newRedactor(nil)
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for b.Loop() {
		if out := r.scrub(text); !strings.HasSuffix(out, " [REDACTED] Bearer [REDACTED] [REDACTED]") {
			b.Fatalf("not redacted: %q", out[len(out)-80:])
		}
	}
}
