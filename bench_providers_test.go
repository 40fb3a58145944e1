package main_test

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"trail/core/provider/wire/wiretest"
)

// SPEC 9: `trail run` against a local HTTP provider that answers at once,
// CLI overhead under 15 ms; and (issue 3) under 2 ms from the server's
// first text byte to trail's first text_delta line on stdout.

func benchEnv(b *testing.B, extra ...string) []string {
	home := b.TempDir()
	return append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TRAIL_HOME=" + filepath.Join(home, "trail"),
		"ANTHROPIC_API_KEY=sk-ant-bench-0123456789abcdefghij"}, extra...)
}

// BenchmarkRunAnthropicLocal runs the whole process against a server that
// replays the documented text stream at once. overhead-ns/op is the wall
// time minus the time the server spent answering.
func BenchmarkRunAnthropicLocal(b *testing.B) {
	events := wiretest.Transcript(b, "anthropic/text.sse")
	var served atomic.Int64
	replay := wiretest.Replay(events)
	srv := wiretest.NewServer(b, func(w http.ResponseWriter, r *http.Request) {
		t0 := time.Now()
		replay(w, r)
		served.Add(int64(time.Since(t0)))
	})
	env := benchEnv(b)
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		c := exec.Command(trailBin, "run", "--provider", "anthropic", "--base-url", srv.URL, "--no-stdin", "hi")
		c.Env = env
		if out, err := c.CombinedOutput(); err != nil || string(out) != "Hello!\n" {
			b.Fatalf("trail run: %v\n%s", err, out)
		}
	}
	wall := time.Since(start)
	b.ReportMetric(float64(wall.Nanoseconds()-served.Load())/float64(b.N), "overhead-ns/op")
}

// BenchmarkStreamJSONFirstDelta measures, per run, the time from the
// server writing the first text delta to trail's text_delta line arriving
// on its stdout pipe (-o stream-json), as median, 90th percentile and
// mean. Process start-up is not counted.
func BenchmarkStreamJSONFirstDelta(b *testing.B) {
	events := wiretest.Transcript(b, "anthropic/text.sse")
	// events: message_start, content_block_start, ping, the first text delta, ...
	ready := make(chan struct{})
	gate := make(chan struct{})
	sent := make(chan time.Time, 1)
	srv := wiretest.NewServer(b, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		f := w.(http.Flusher)
		io.WriteString(w, strings.Join(events[:3], ""))
		f.Flush()
		ready <- struct{}{}
		<-gate
		sent <- time.Now()
		io.WriteString(w, events[3])
		f.Flush()
		io.WriteString(w, strings.Join(events[4:], ""))
		f.Flush()
	})
	env := benchEnv(b)
	var samples []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		c := exec.Command(trailBin, "run", "--provider", "anthropic", "--base-url", srv.URL, "--no-stdin", "-o", "stream-json", "hi")
		c.Env = env
		out, err := c.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		if err := c.Start(); err != nil {
			b.Fatal(err)
		}
		rd := bufio.NewReader(out)
		<-ready
		time.Sleep(20 * time.Millisecond) // let trail settle on the open stream
		b.StartTimer()
		gate <- struct{}{}
		t0 := <-sent
		for {
			line, err := rd.ReadString('\n')
			if err != nil {
				b.Fatalf("stdout ended before a text_delta: %v", err)
			}
			if strings.Contains(line, `"type":"text_delta"`) {
				break
			}
		}
		samples = append(samples, time.Since(t0))
		b.StopTimer()
		io.Copy(io.Discard, rd)
		if err := c.Wait(); err != nil {
			b.Fatal(err)
		}
	}
	slices.Sort(samples)
	var total time.Duration
	for _, d := range samples {
		total += d
	}
	b.ReportMetric(float64(samples[len(samples)/2].Nanoseconds()), "p50-ns/first-delta")
	b.ReportMetric(float64(samples[len(samples)*9/10].Nanoseconds()), "p90-ns/first-delta")
	b.ReportMetric(float64(total.Nanoseconds())/float64(len(samples)), "mean-ns/first-delta")
}
