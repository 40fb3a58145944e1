//go:build unix

package main_test

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"trail/core/provider/wire/wiretest"
)

// GNU timeout (`timeout 600 trail run …`, the CI idiom) signals trail and
// its process group: two signals a moment apart are one interrupt, and
// the step's save and its SessionEnd hooks finish. A second signal later
// still exits at once, saying so.
func TestTwoSignalsAMomentApartAreOneInterrupt(t *testing.T) {
	t.Parallel()
	text := wiretest.Transcript(t, "anthropic/text.sse")
	srv := wiretest.NewServer(t, wiretest.Hold(text, 4))
	e := anthropicEnv(t)
	e.writeFile(".claude/settings.json", `{"hooks":{"SessionEnd":[{"hooks":[{"type":"command","command":"sleep 0.3; touch ended"}]}]}}`)
	rd, c, wait := startTrail(t, e, "run", "--base-url", srv.URL, "-o", "stream-json", "Hello")
	waitForLine(t, rd, "text_delta")
	c.Process.Signal(syscall.SIGTERM)
	time.Sleep(100 * time.Millisecond) // the save is done; the hook runs
	c.Process.Signal(syscall.SIGTERM)
	r := wait()
	if r.code != 130 || !e.exists("ended") || strings.Contains(r.stderr, "interrupted again") {
		t.Fatalf("exit %d, SessionEnd hook finished %v\n%s", r.code, e.exists("ended"), r)
	}
	if last := lastMessage(t, e, e.onlySession()); last["state"] != "interrupted" || last["content"] != "Hello" {
		t.Fatalf("last message = %v", last)
	}
}

// SIGHUP (a terminal closed, an ssh connection dropped) and SIGQUIT
// (Ctrl-\) interrupt as SIGINT does: the partial answer is saved. SIGQUIT
// used to end in the Go runtime's dump of every goroutine, exit 2, and a
// first step with no record.
func TestSIGHUPAndSIGQUITSaveThePartialAnswer(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		sig syscall.Signal
		env string
	}{{syscall.SIGHUP, ""}, {syscall.SIGQUIT, ""}, {syscall.SIGQUIT, "GOTRACEBACK=none"}} {
		sig := tt.sig
		t.Run(sig.String()+tt.env, func(t *testing.T) {
			t.Parallel()
			text := wiretest.Transcript(t, "anthropic/text.sse")
			srv := wiretest.NewServer(t, wiretest.Hold(text, 4))
			e := anthropicEnv(t)
			if tt.env != "" {
				e.setenv(tt.env) // asks for no dump: still an interrupt
			}
			rd, c, wait := startTrail(t, e, "run", "--base-url", srv.URL, "-o", "stream-json", "Hello")
			waitForLine(t, rd, "text_delta")
			c.Process.Signal(sig)
			r := wait()
			if r.code != 130 || strings.Contains(r.stderr, "goroutine") {
				t.Fatalf("exit %d, want 130 and no dump\n%s", r.code, r)
			}
			if last := lastMessage(t, e, e.onlySession()); last["state"] != "interrupted" || last["content"] != "Hello" {
				t.Fatalf("last message = %v", last)
			}
		})
	}
}

// A reader slower than --timeout (a `while read` loop running a command
// per line) does not make the server look silent: the stream is read
// while stdout waits.
func TestASlowReaderIsNotAProviderTimeout(t *testing.T) {
	t.Parallel()
	text := wiretest.Transcript(t, "anthropic/text.sse")
	head, tail := text[:3], text[len(text)-3:] // message_start, block start, …; block stop, delta, stop
	var events []string
	events = append(events, head...)
	for range 3000 {
		events = append(events, `event: content_block_delta`+"\n"+`data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"word "}}`+"\n\n")
	}
	events = append(events, tail...)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, ev := range events {
			io.WriteString(w, ev)
		}
	}))
	t.Cleanup(srv.Close)
	e := anthropicEnv(t)
	rd, _, wait := startTrail(t, e, "run", "--base-url", srv.URL, "-o", "stream-json", "--timeout", "1", "Hello")
	waitForLine(t, rd, "system")
	time.Sleep(2500 * time.Millisecond) // the reader pauses; the pipe fills
	r := wait()
	if r.code != 0 || strings.Contains(r.stderr, "no data from the server") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if got := strings.Count(r.stdout, `"text_delta"`); got < 3000 {
		t.Errorf("%d text deltas reached the reader", got)
	}
}

// waitForLine reads stdout until a line of the given type.
func waitForLine(t *testing.T, rd *bufio.Reader, typ string) {
	t.Helper()
	for {
		line, err := rd.ReadString('\n')
		if err != nil {
			t.Fatalf("stdout ended before a %s line: %v", typ, err)
		}
		if gjson.Get(line, "type").String() == typ || gjson.Get(line, "event.delta.type").String() == typ {
			return
		}
	}
}

// A signal trail was started with ignored stays ignored: `nohup trail run`
// outlives the terminal's SIGHUP, and a script's background job (which
// the shell starts with SIGINT ignored) is not stopped by Ctrl-C.
func TestSignalsStartedIgnoredStayIgnored(t *testing.T) {
	t.Parallel()
	text := wiretest.Transcript(t, "anthropic/text.sse")
	srv := wiretest.NewServer(t, wiretest.Hold(text, 4))
	e := anthropicEnv(t)
	// sh -c 'trap "" HUP; exec trail …' is what nohup does to the signal.
	c := exec.Command("sh", "-c", `trap "" HUP; exec "$0" "$@"`, trailBin, "run", "--base-url", srv.URL, "-o", "stream-json", "Hello")
	c.Dir, c.Env = e.cwd, e.environ()
	pr, errb := startPiped(t, c)
	rd := bufio.NewReader(pr)
	waitForLine(t, rd, "text_delta")
	go io.Copy(io.Discard, rd)
	done := make(chan struct{})
	go func() { c.Wait(); close(done) }()
	c.Process.Signal(syscall.SIGHUP)
	select {
	case <-done:
		t.Fatalf("SIGHUP ended a step started with it ignored: exit %d, %s", c.ProcessState.ExitCode(), errb)
	case <-time.After(500 * time.Millisecond):
	}
	c.Process.Signal(syscall.SIGTERM) // still heard
	<-done
	if code := c.ProcessState.ExitCode(); code != 130 {
		t.Fatalf("SIGTERM after an ignored SIGHUP: exit %d, %s", code, errb)
	}
}
