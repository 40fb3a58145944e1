package main_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// A 40 MB record in Robota's layout (messages first, no messageCount) is
// listed with its count and prompt from a scan in fixed pieces: the process
// never holds the file.
func TestListScansABigForeignRecordInBoundedMemory(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var b bytes.Buffer
	b.WriteString(`{"id":"robota-big","cwd":"/home/dev","createdAt":"2025-01-02T03:04:05.678Z","messages":[`)
	b.WriteString(`{"id":"u","role":"user","content":"summarise the logs","state":"complete"}`)
	chunk := strings.Repeat("log line with ordinary words in it; ", 1000)
	n := 1
	for ; b.Len() < 40<<20; n++ {
		fmt.Fprintf(&b, `,{"id":"m%d","role":"assistant","content":%q,"state":"complete"}`, n, chunk)
	}
	b.WriteString(`],"updatedAt":"2025-01-02T03:09:00.000Z","systemPrompt":"be brief"}`)
	dir := filepath.Join(e.home, "sessions")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "robota-big.json"), b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	size := b.Len()
	// The collector's trace shows the heap at each collection: reading the
	// file whole would put it past the file's size. (The peak RSS of a
	// child is no measure here: it counts the test process it forked from.)
	e.setenv("GODEBUG=gctrace=1", "GOGC=100")
	c := e.cmd("list", "--json")
	var stderr bytes.Buffer
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		t.Fatalf("list: %v\n%s", err, stderr.String())
	}
	var heads []map[string]any
	if err := json.Unmarshal(out, &heads); err != nil || len(heads) != 1 {
		t.Fatalf("list --json: %v\n%s", err, out)
	}
	h := heads[0]
	if h["messageCount"] != float64(n) || h["firstPrompt"] != "summarise the logs" || h["updatedAt"] != "2025-01-02T03:09:00.000Z" || h["status"] == "corrupt" {
		t.Fatalf("head = %v, want %d messages", h, n)
	}
	for _, m := range regexp.MustCompile(`(\d+)->(\d+)->(\d+) MB`).FindAllStringSubmatch(stderr.String(), -1) {
		for _, v := range m[1:] {
			if mb, _ := strconv.Atoi(v); mb > 16 {
				t.Fatalf("heap of %d MB listing a %d MB record: it was read whole\n%s", mb, size>>20, stderr.String())
			}
		}
	}
}
