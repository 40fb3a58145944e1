package main_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkToolLoop200Rounds is one `trail run` whose model (the script
// provider) reads a 16 KB file 200 times before it answers: a long tool
// loop in one process, each round logged and saved. It reports the
// process's peak resident memory (peak-RSS-MB), which a garbage collector
// switched off for the step would let grow with every round's garbage
// rather than with the conversation.
func BenchmarkToolLoop200Rounds(b *testing.B) {
	const rounds = 200
	dir, work, scriptPath := readLoopFixture(b, rounds, 200)
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "TRAIL_HOME=" + filepath.Join(dir, "trail")}
	var peak int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c := exec.Command(trailBin, "run", "--provider", "script", "--script", scriptPath, "--no-stdin", "read it")
		c.Dir, c.Env = work, env
		if out, err := c.CombinedOutput(); err != nil || !strings.HasPrefix(string(out), "done") {
			b.Fatalf("trail run: %v\n%s", err, out)
		}
		if kib, ok := peakRSSKiB(c.ProcessState); ok {
			peak = max(peak, kib)
		}
	}
	b.ReportMetric(float64(peak)/1024, "peak-RSS-MB")
}

// readLoopFixture is a folder with a work directory holding notes.txt
// (lines lines) and a script whose model reads it rounds times, then says
// "done": the tool loop the memory and log-growth benchmarks run.
func readLoopFixture(b *testing.B, rounds, lines int) (dir, work, scriptPath string) {
	b.Helper()
	dir = b.TempDir()
	work = filepath.Join(dir, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		b.Fatal(err)
	}
	var file strings.Builder
	for i := range lines {
		fmt.Fprintf(&file, "line %03d: the quick brown fox jumps over the lazy dog, again and again\n", i)
	}
	if err := os.WriteFile(filepath.Join(work, "notes.txt"), []byte(file.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	script := make([]map[string]any, 0, rounds+1)
	for range rounds {
		script = append(script, calls(call("Read", map[string]any{"filePath": "notes.txt"})))
	}
	script = append(script, answer("done"))
	raw, err := json.Marshal(script)
	if err != nil {
		b.Fatal(err)
	}
	scriptPath = filepath.Join(dir, "script.json")
	if err := os.WriteFile(scriptPath, raw, 0o644); err != nil {
		b.Fatal(err)
	}
	return dir, work, scriptPath
}
