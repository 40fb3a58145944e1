package cassette

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkLoadAndCheck reads a recording of 300 rounds whose requests each
// carry the conversation so far (the full form, the larger one), then
// checks and plays its last request: the cost a CI step pays at start.
func BenchmarkLoadAndCheck(b *testing.B) {
	const rounds = 300
	lines := []string{`{"timestamp":"2026-01-02T10:00:00.000Z","sessionId":"rec","event":"session_init","seq":0,"cwd":"/rec/dir"}`}
	var msgs []string
	msgs = append(msgs, sys1, user1)
	for r := 1; r <= rounds; r++ {
		lines = append(lines, fmt.Sprintf(`{"timestamp":"2026-01-02T10:00:00.000Z","sessionId":"rec","event":"provider_request","seq":%d,"executionId":"x","round":%d,"provider":"script","model":"script","messages":[%s],"tools":[]}`, 3*r, r, strings.Join(msgs, ",")),
			fmt.Sprintf(`{"timestamp":"2026-01-02T10:00:00.001Z","sessionId":"rec","event":"provider_stream_raw_delta","seq":%d,"executionId":"x","round":%d,"sequence":0,"delta":"answer %d"}`, 3*r+1, r, r),
			fmt.Sprintf(`{"timestamp":"2026-01-02T10:00:00.002Z","sessionId":"rec","event":"provider_response_normalized","seq":%d,"executionId":"x","round":%d,"response":{"role":"assistant","content":"answer %d"},"toolCallsCount":0}`, 3*r+2, r, r))
		msgs = append(msgs, fmt.Sprintf(`{"id":"a%d","role":"assistant","content":"answer %d","state":"complete"}`, r, r),
			fmt.Sprintf(`{"id":"u%d","role":"user","content":"question %d","state":"complete"}`, r, r))
	}
	path := filepath.Join(b.TempDir(), "rec.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	fi, _ := os.Stat(path)
	b.SetBytes(fi.Size())
	for b.Loop() {
		p, err := Load(path, Options{Cwd: "/ci/work"})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := p.Call(context.Background(), request(b, rounds-1, msgs[:len(msgs)-2]...), &sink{}); err != nil {
			b.Fatal(err)
		}
	}
}
