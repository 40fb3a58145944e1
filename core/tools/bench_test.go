package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"trail/core"
)

// BenchmarkReadTopOfALargeFile: Read of a 64 MB log's first lines; B/op
// shows it holds the selected lines, not the file.
func BenchmarkReadTopOfALargeFile(b *testing.B) {
	dir := b.TempDir()
	line := strings.Repeat("x", 99) + "\n"
	if err := os.WriteFile(filepath.Join(dir, "big.log"), []byte(strings.Repeat(line, 640_000)), 0o644); err != nil {
		b.Fatal(err)
	}
	env := core.ToolEnv{Cwd: dir}
	b.ReportAllocs()
	for b.Loop() {
		if r := (Read{}).Run(b.Context(), []byte(`{"filePath":"big.log","limit":10}`), env); !r.Success {
			b.Fatal(r.Error)
		}
	}
}
