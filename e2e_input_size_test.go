package main_test

import (
	"bytes"
	"os"
	"strings"
	"sync/atomic"
	"testing"
)

// Input sized to the model: a prompt the context window cannot hold is
// refused before anything is written (exit 2), and standard input is read
// only as far as the window could hold.

func TestStdinLargerThanTheContextWindowIsRefusedBeforeAnyFile(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	big := strings.Repeat("0123456789abcdef", 2<<20/16) // 2 MB
	r := e.run(big, "run", "--provider", "echo", "--context-window", "1000", "review this")
	if r.code != 2 {
		t.Fatalf("exit %d, want 2\n%s", r.code, r)
	}
	want := "trail: prompt too large: standard input is more than 69,536 bytes (over ~17,384 tokens), the model's context window is 1,000\n" +
		"hint: split the input into smaller prompts, or pass --context-window TOKENS if the model takes more\n"
	if r.stderr != want || r.stdout != "" {
		t.Errorf("stderr = %q\nwant     %q", r.stderr, want)
	}
	if files := filesUnder(t, e.home); len(files) != 0 {
		t.Errorf("files written: %v", keys(files))
	}
	// What fits goes through, with the same flag.
	r = e.must("some input\n", "run", "--provider", "echo", "--context-window", "1000", "review this")
	if r.stdout != "echo: review this\n\nsome input\n" {
		t.Errorf("%s", r)
	}
}

// The prompt as a whole (arguments and input) is judged by the estimator
// against the model's window once the model is known: a resume of a
// session on the echo model (200,000 tokens) refuses 1 MB of input that
// the widest window would hold, and leaves the session as it was.
func TestAPromptOverTheSessionsModelWindowLeavesTheSessionUntouched(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.must("", "run", "--provider", "echo", "hello")
	id := e.onlySession()
	before := filesUnder(t, e.home)
	big := strings.Repeat("x", 1<<20)
	r := e.run(big, "resume", id, "and this")
	if r.code != 2 || !strings.HasPrefix(r.stderr, "trail: prompt too large: ~262,") ||
		!strings.Contains(r.stderr, " tokens, the model's context window is 200,000\nhint: ") {
		t.Fatalf("%s", r)
	}
	if !sameFiles(before, filesUnder(t, e.home)) {
		t.Error("the home changed")
	}
	// Arguments alone are judged the same way.
	r = e.run("", "run", "--provider", "echo", "--context-window", "10", strings.Repeat("word ", 20))
	if r.code != 2 || !strings.HasPrefix(r.stderr, "trail: prompt too large: ~") || !strings.Contains(r.stderr, "window is 10\n") {
		t.Fatalf("%s", r)
	}
	if len(e.sessionIDs()) != 1 {
		t.Errorf("sessions: %v", e.sessionIDs())
	}
}

// A huge stream on standard input is not read to its end: trail stops a
// little past what the window holds and the writer sees the pipe close.
func TestAHugeStdinStreamIsNotReadToItsEnd(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var written atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer pw.Close()
		chunk := bytes.Repeat([]byte("y"), 64<<10)
		for range 200 << 20 / len(chunk) { // up to 200 MB
			n, err := pw.Write(chunk)
			written.Add(int64(n))
			if err != nil {
				return
			}
		}
	}()
	c := e.cmd("run", "--provider", "echo", "summarise")
	c.Stdin = pr
	r := e.wait(c)
	pr.Close()
	<-done
	if r.code != 2 || !strings.HasPrefix(r.stderr, "trail: prompt too large: standard input is more than 865,536 bytes") {
		t.Fatalf("%s", r)
	}
	if n := written.Load(); n > 8<<20 {
		t.Errorf("trail read %d bytes of standard input", n)
	}
	if ids := e.sessionIDs(); len(ids) != 0 {
		t.Errorf("sessions: %v", ids)
	}
}

func keys(m map[string][]byte) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
