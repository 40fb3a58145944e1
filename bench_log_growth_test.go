package main_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkLogBytesAfter{10,100,1000}Turns: one `trail run` whose model
// (the script provider) reads a 1 KB file N times before it answers, so
// the conversation grows by one tool round a turn. It reports the log and
// its payloads in KB (log-KB) and per turn (log-B/turn): with request
// digests each turn adds about the same bytes, however long the session
// (linear growth); a log that copied every request grew with the square.
func BenchmarkLogBytesAfter10Turns(b *testing.B)   { benchLogGrowth(b, 10) }
func BenchmarkLogBytesAfter100Turns(b *testing.B)  { benchLogGrowth(b, 100) }
func BenchmarkLogBytesAfter1000Turns(b *testing.B) { benchLogGrowth(b, 1000) }

func benchLogGrowth(b *testing.B, turns int) {
	dir, work, scriptPath := readLoopFixture(b, turns, 14)
	var size int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		home := filepath.Join(dir, fmt.Sprintf("trail-%d", i))
		env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "TRAIL_HOME=" + home}
		c := exec.Command(trailBin, "run", "--provider", "script", "--script", scriptPath, "--no-stdin", "read it")
		c.Dir, c.Env = work, env
		if out, err := c.CombinedOutput(); err != nil || !strings.HasPrefix(string(out), "done") {
			b.Fatalf("trail run: %v\n%s", err, out)
		}
		size = dirSize(b, filepath.Join(home, "logs"))
	}
	b.ReportMetric(float64(size)/1024, "log-KB")
	b.ReportMetric(float64(size)/float64(turns), "log-B/turn")
}
