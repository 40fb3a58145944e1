package main_test

import (
	"bufio"
	"io"
	"os"
	"strings"
	"testing"
)

// --stream writes the text into a pipe as it arrives: a reading script
// gets the first word while the answer is still coming (the script
// provider spreads 600 words over 600 s, so trail is far from done).
func TestStreamWritesTextIntoAPipeAsItArrives(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.script(map[string]any{"text": strings.Repeat("word ", 600), "delayMs": 600_000})
	c := e.cmd("run", "--provider", "script", "--script", s, "--no-stdin", "--stream", "go")
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	defer func() {
		// Interrupted, trail saves the partial answer and closes its log.
		_ = c.Process.Signal(os.Interrupt)
		<-exited
	}()
	first := make([]byte, len("word "))
	readDone := make(chan error, 1)
	go func() {
		_, err := io.ReadFull(out, first)
		readDone <- err
		_, _ = io.Copy(io.Discard, out)
		_ = c.Wait()
		close(exited)
	}()
	if err := <-readDone; err != nil {
		t.Fatalf("no text before trail ended: %v", err)
	}
	if string(first) != "word " {
		t.Fatalf("first bytes %q", first)
	}
	select {
	case <-exited:
		t.Fatal("trail had already exited: the text was not streamed")
	default:
	}
}

// Without --stream a pipe gets the final answer only, as claude -p gives
// it; with --stream (or "stream": true in the settings) each round's text
// as it comes, the text before a tool call included. --stream=false beats
// the setting.
func TestStreamShowsEveryRoundDefaultOnlyTheAnswer(t *testing.T) {
	t.Parallel()
	rounds := []map[string]any{
		{"text": "let me look", "toolCalls": []any{map[string]any{"name": "Read", "arguments": map[string]any{"filePath": "notes.txt"}}}},
		{"text": "the notes say hi"},
	}
	for _, tt := range []struct {
		name     string
		settings string
		flags    []string
		want     string
	}{
		{"default", "", nil, "the notes say hi\n"},
		{"flag", "", []string{"--stream"}, "let me look\nthe notes say hi\n"},
		{"setting", `{"stream": true}`, nil, "let me look\nthe notes say hi\n"},
		{"flag off beats the setting", `{"stream": true}`, []string{"--stream=false"}, "the notes say hi\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.writeFile("notes.txt", "hi\n")
			if tt.settings != "" {
				e.writeFile(".trail/settings.json", tt.settings)
			}
			s := e.script(rounds...)
			args := append([]string{"run", "--provider", "script", "--script", s, "--allow-tool", "Read"}, tt.flags...)
			r := e.must("", append(args, "read the notes")...)
			if r.stdout != tt.want {
				t.Fatalf("stdout %q, want %q\n%s", r.stdout, tt.want, r)
			}
		})
	}
}

// The stream flag is read only in text mode: -o json is one object still.
func TestStreamLeavesJSONOutputWhole(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.script(map[string]any{"text": "one two three"})
	r := e.must("", "run", "--provider", "script", "--script", s, "--stream", "-o", "json", "hi")
	sc := bufio.NewScanner(strings.NewReader(r.stdout))
	lines := 0
	for sc.Scan() {
		lines++
	}
	res := jsonResult(t, r)
	if lines != 1 || res["result"] != "one two three" {
		t.Fatalf("stdout %q", r.stdout)
	}
}
