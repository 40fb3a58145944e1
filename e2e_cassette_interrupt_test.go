//go:build linux

package main_test

import (
	"bytes"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A recording whose answer Ctrl-C cut plays back as the same conversation:
// the recorded pieces are kept as an interrupted answer, and the next
// request, recorded with the interrupted note, matches in strict mode.
func TestCassetteOfAnInterruptedAnswerPlaysItAsInterrupted(t *testing.T) {
	t.Parallel()
	rec := newEnv(t)
	s := rec.script(map[string]any{"text": "one two three four five six seven eight nine ten", "delayMs": 20000}, answer("ok after"))
	c, _ := rec.start("run", "--provider", "script", "--script", s, "--session-id", "cut", "--stream", "hello")
	waitFor(t, func() bool {
		b, _ := os.ReadFile(rec.logPath("cut"))
		return bytes.Contains(b, []byte(`"event":"text_delta"`))
	})
	c.Process.Signal(syscall.SIGINT)
	waitExit(t, c, 10*time.Second)
	if code := exitOf(t, c); code != 130 {
		t.Fatalf("interrupted run: exit %d", code)
	}
	rec.must("", "resume", "cut", "go on")
	if msgs := rec.messages("cut"); len(msgs) != 5 || msgs[2]["state"] != "interrupted" {
		t.Fatalf("recorded messages %v", msgs)
	}
	rec.validateAll()
	rec.replayFormatsAgree("cut")

	play := newEnv(t)
	fixture := play.writeFile("cut.jsonl", string(must(os.ReadFile(rec.logPath("cut")))))
	r := play.run("", "run", "--cassette", fixture, "--session-id", "again", "hello")
	if r.code != 6 || !strings.Contains(r.stderr, "request 1: the recorded answer was interrupted") {
		t.Fatalf("playing the interrupted answer: %s", r)
	}
	if r := play.must("", "resume", "again", "go on", "--cassette", fixture); r.stdout != "ok after\n" {
		t.Fatalf("the request after the interrupted answer: %s", r)
	}
	sameJSON(t, "messages", cassetteMessages(rec, "cut"), cassetteMessages(play, "again"))
	play.validateAll()
	play.replayFormatsAgree("again")
}
