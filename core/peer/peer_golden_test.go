package peer

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"trail/core/chat"
)

// Every session file in testdata/peers reads to the conversation its
// golden describes (testdata/golden/peers/<file>.txt): each message with
// its role, text, calls, results and metadata, each compaction, each
// skipped entry with its line and reason. UPDATE_GOLDEN=1 rewrites them;
// read the diff before committing one.
func TestReadMatchesGolden(t *testing.T) {
	files, err := filepath.Glob("../../testdata/peers/*.jsonl")
	if err != nil || len(files) < 8 {
		t.Fatalf("fixtures: %v %v", files, err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			c := readFile(t, f, "")
			got := describe(c)
			golden := filepath.Join("../../testdata/golden/peers", filepath.Base(f)+".txt")
			if os.Getenv("UPDATE_GOLDEN") != "" {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with UPDATE_GOLDEN=1 to write it)", err)
			}
			if got != string(want) {
				t.Errorf("conversation differs from %s:\n%s", golden, lineDiff(string(want), got))
			}
		})
	}
}

func readFile(t *testing.T, path, format string) *Conversation {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Read(bytes.NewReader(b), format)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return c
}

// describe renders a conversation for a golden: one block per item.
func describe(c *Conversation) string {
	var b strings.Builder
	fmt.Fprintf(&b, "format %s, source %s, cwd %q, started %s, name %q, provider %q %q, entries %d, added %d\n",
		c.Format, c.SourceID, c.Cwd, c.StartedAt, c.Name, c.Provider, c.Model, c.Entries, c.Added)
	if c.System != nil {
		fmt.Fprintf(&b, "system: %s\n", short(*c.System))
	}
	for _, it := range c.Items {
		if it.Compaction != nil {
			fmt.Fprintf(&b, "line %d: compaction %s, keep last %d\n", it.Line, it.Compaction.Source, it.Compaction.KeepLast)
			for _, m := range it.Compaction.Summary {
				describeMessage(&b, "  summary", m)
			}
			continue
		}
		describeMessage(&b, fmt.Sprintf("line %d:", it.Line), *it.Message)
	}
	for _, s := range c.Skipped {
		fmt.Fprintf(&b, "skipped line %d: %s: %s\n", s.Line, s.Type, s.Reason)
	}
	return b.String()
}

func describeMessage(b *strings.Builder, head string, m chat.Message) {
	fmt.Fprintf(b, "%s %s", head, m.Role)
	if m.State != chat.StateComplete {
		fmt.Fprintf(b, " (%s)", m.State)
	}
	if m.ToolCallID != "" {
		fmt.Fprintf(b, " %s %s", m.Name, m.ToolCallID)
	}
	fmt.Fprintf(b, " @%s: %s\n", m.Timestamp, short(m.Content))
	for _, tc := range m.ToolCalls {
		fmt.Fprintf(b, "  call %s %s %s\n", tc.ID, tc.Name, tc.Arguments)
	}
	if len(m.Metadata) > 0 {
		fmt.Fprintf(b, "  metadata %s\n", m.Metadata)
	}
}

// short is a text on one line, cut: goldens stay readable.
func short(s string) string {
	s = strings.ReplaceAll(s, "\n", `\n`)
	if r := []rune(s); len(r) > 100 {
		return string(r[:100]) + "…"
	}
	return s
}

// lineDiff shows the first lines that differ.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d\nwant: %s\ngot:  %s", i+1, wl, gl)
		}
	}
	return ""
}
