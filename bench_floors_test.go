package main_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"trail/core/provider/wire/wiretest"
)

// Each figure beside its floor, measured the same way on the same machine
// in the same benchmark, runs alternating so a busy machine slows both
// alike; the metrics are medians and their ratio (scripts/bench.sh prints
// them together):
//
//   - a one-shot `trail run` against a local server vs curl and vs a
//     minimal Go client making the same streamed request (x-goclient,
//     target <= 1.3);
//   - the first text byte through a pipe with --stream vs curl's first
//     byte (behind-ms, target <= 5);
//   - `trail list` over 10,000 sessions vs `head -c 4096` over the same
//     files (x-head, target <= 2).

// goClientSrc is the floor of a one-shot: POST the request, copy the
// streamed body to stdout as it comes, nothing else.
const goClientSrc = `package main

import (
	"io"
	"net/http"
	"os"
	"strings"
)

func main() {
	req, _ := http.NewRequest("POST", os.Args[1], strings.NewReader(os.Args[2]))
	req.Header.Set("content-type", "application/json")
	req.Header.Set("x-api-key", os.Getenv("ANTHROPIC_API_KEY"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		os.Exit(1)
	}
	io.Copy(os.Stdout, resp.Body)
}
`

// buildRelease builds the Go program src as a release is built (Makefile
// build): static, stripped, the same tags.
func buildRelease(b *testing.B, src string) string {
	b.Helper()
	dir := b.TempDir()
	file := filepath.Join(dir, "main.go")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	bin := filepath.Join(dir, "prog")
	c := exec.Command("go", append(releaseBuild, "-o", bin, file)...)
	c.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := c.CombinedOutput(); err != nil {
		b.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

func timed(b *testing.B, c *exec.Cmd) time.Duration {
	b.Helper()
	var out bytes.Buffer
	c.Stdout = &out
	start := time.Now()
	if err := c.Run(); err != nil || out.Len() == 0 {
		b.Fatalf("%s: %v", c.Args[0], err)
	}
	return time.Since(start)
}

func reportFloors(b *testing.B, unit string, figures map[string][]time.Duration) map[string]time.Duration {
	med := map[string]time.Duration{}
	for name, d := range figures {
		med[name] = medianDuration(d)
		b.ReportMetric(float64(med[name].Microseconds())/1000, name+"-"+unit)
	}
	return med
}

// BenchmarkOneShotVsFloors: trail run --provider anthropic against a local
// server that answers at once, record and log written, vs curl and vs a Go
// client doing the same request.
func BenchmarkOneShotVsFloors(b *testing.B) {
	if _, err := exec.LookPath("curl"); err != nil {
		b.Skip("no curl")
	}
	srv := wiretest.NewServer(b, wiretest.Replay(wiretest.Transcript(b, "anthropic/text.sse")))
	client := buildRelease(b, goClientSrc)
	env := benchEnv(b)
	url := srv.URL + "/v1/messages"
	body := `{"model":"claude-sonnet-4-5","max_tokens":1024,"stream":true,"messages":[{"role":"user","content":"hi"}]}`
	fig := map[string][]time.Duration{}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c := exec.Command(trailBin, "run", "--provider", "anthropic", "--base-url", srv.URL, "--no-stdin", "hi")
		c.Env = env
		fig["trail"] = append(fig["trail"], timed(b, c))
		c = exec.Command("curl", "-sN", "-X", "POST", "-H", "content-type: application/json", "-H", "x-api-key: k", "--data", body, url)
		fig["curl"] = append(fig["curl"], timed(b, c))
		c = exec.Command(client, url, body)
		c.Env = env
		fig["goclient"] = append(fig["goclient"], timed(b, c))
	}
	b.StopTimer()
	m := reportFloors(b, "ms", fig)
	b.ReportMetric(float64(m["trail"])/float64(m["goclient"]), "x-goclient")
	b.ReportMetric(float64(m["trail"])/float64(m["curl"]), "x-curl")
}

// firstByte starts c and returns the time from start to the first byte on
// its stdout, then lets it finish.
func firstByte(b *testing.B, c *exec.Cmd) time.Duration {
	b.Helper()
	out, err := c.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if err := c.Start(); err != nil {
		b.Fatal(err)
	}
	one := make([]byte, 1)
	if _, err := io.ReadFull(out, one); err != nil {
		b.Fatalf("%s: no output: %v", c.Args[0], err)
	}
	d := time.Since(start)
	io.Copy(io.Discard, out)
	if err := c.Wait(); err != nil {
		b.Fatalf("%s: %v", c.Args[0], err)
	}
	return d
}

// BenchmarkStreamFirstByteVsCurl: a 200 ms stream whose first text comes
// at once; the time from process start to the first byte a reading script
// gets, trail run --stream vs curl -N (its first byte is the raw stream).
func BenchmarkStreamFirstByteVsCurl(b *testing.B) {
	if _, err := exec.LookPath("curl"); err != nil {
		b.Skip("no curl")
	}
	events := wiretest.Transcript(b, "anthropic/text.sse")
	first := 0
	for i, ev := range events {
		if strings.Contains(ev, "text_delta") {
			first = i + 1
			break
		}
	}
	srv := wiretest.NewServer(b, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		for i, ev := range events {
			if i == first {
				time.Sleep(200 * time.Millisecond) // the rest of the answer is slow
			}
			io.WriteString(w, ev)
			w.(http.Flusher).Flush()
		}
	})
	env := benchEnv(b)
	body := `{"model":"claude-sonnet-4-5","max_tokens":1024,"stream":true,"messages":[{"role":"user","content":"hi"}]}`
	fig := map[string][]time.Duration{}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c := exec.Command(trailBin, "run", "--provider", "anthropic", "--base-url", srv.URL, "--no-stdin", "--stream", "hi")
		c.Env = env
		fig["trail"] = append(fig["trail"], firstByte(b, c))
		c = exec.Command("curl", "-sN", "-X", "POST", "-H", "content-type: application/json", "--data", body, srv.URL+"/v1/messages")
		fig["curl"] = append(fig["curl"], firstByte(b, c))
	}
	b.StopTimer()
	m := reportFloors(b, "first-ms", fig)
	b.ReportMetric(float64((m["trail"]-m["curl"]).Microseconds())/1000, "behind-ms")
}

// BenchmarkList10kVsHead: trail list (TSV into a pipe) over 10,000
// sessions vs head -c 4096 over the same files in one process. The
// records are about 12 KB (bigger than list's head window: the
// head-and-tail path), or 200 KB with TRAIL_BENCH_LARGE=1.
func BenchmarkList10kVsHead(b *testing.B) {
	prompt := 2000
	if os.Getenv("TRAIL_BENCH_LARGE") == "1" {
		prompt = 48_500
	}
	home := b.TempDir()
	th := filepath.Join(home, "trail")
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TRAIL_HOME=" + th}
	const seed = "bench-00000"
	c := exec.Command(trailBin, "run", "--provider", "echo", "--no-stdin", "--session-id", seed, strings.Repeat("x", prompt))
	c.Env = env
	if out, err := c.CombinedOutput(); err != nil {
		b.Fatalf("seed session: %v\n%s", err, out)
	}
	dir := filepath.Join(th, "sessions")
	tmpl, err := os.ReadFile(filepath.Join(dir, seed+".json"))
	if err != nil {
		b.Fatal(err)
	}
	files := []string{filepath.Join(dir, seed+".json")}
	for i := 1; i < 10_000; i++ {
		id := fmt.Sprintf("bench-%05d", i)
		f := filepath.Join(dir, id+".json")
		if err := os.WriteFile(f, bytes.ReplaceAll(tmpl, []byte(seed), []byte(id)), 0o600); err != nil {
			b.Fatal(err)
		}
		// Every session has its log: list reads the logs folder's names.
		if err := os.WriteFile(filepath.Join(th, "logs", id+".jsonl"), nil, 0o600); err != nil {
			b.Fatal(err)
		}
		files = append(files, f)
	}
	head := append([]string{"-q", "-c", "4096"}, files...)
	c = exec.Command(trailBin, "list")
	c.Env = env
	if out, err := c.Output(); err != nil || bytes.Count(out, []byte("\n")) != 10_000 {
		b.Fatalf("trail list: %v, %d lines", err, bytes.Count(out, []byte("\n")))
	}
	// Both write to /dev/null: head's 40 MB would otherwise time the pipe.
	quiet := func(c *exec.Cmd) time.Duration {
		start := time.Now()
		if err := c.Run(); err != nil {
			b.Fatalf("%s: %v", c.Args[0], err)
		}
		return time.Since(start)
	}
	fig := map[string][]time.Duration{}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c := exec.Command(trailBin, "list")
		c.Env = env
		fig["list"] = append(fig["list"], quiet(c))
		fig["head"] = append(fig["head"], quiet(exec.Command("head", head...)))
	}
	b.StopTimer()
	m := reportFloors(b, "ms", fig)
	b.ReportMetric(float64(m["list"])/float64(m["head"]), "x-head")
	b.ReportMetric(float64(len(tmpl)), "bytes/record")
}
