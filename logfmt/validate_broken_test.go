package logfmt

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// A line cut short in the middle of a log (in its last value, where a big
// payload or message is) is one error, whatever event it was: its
// request's answers are not orphans, its answer's request is not
// unanswered, the messages after it keep their indexes.
func TestABrokenLineIsOneError(t *testing.T) {
	for _, name := range []string{"valid.jsonl", "valid-compaction.jsonl"} {
		data, err := os.ReadFile(filepath.Join(corpus, name))
		if err != nil {
			t.Fatal(err)
		}
		lines := bytes.SplitAfter(data, []byte("\n"))
		if len(lines[len(lines)-1]) == 0 {
			lines = lines[:len(lines)-1]
		}
		for i := 0; i < len(lines)-1; i++ { // the last line cut would be a torn tail
			var log bytes.Buffer
			for j, l := range lines {
				if j == i {
					body := bytes.TrimSuffix(l, []byte("\n"))
					l = append(append([]byte(nil), body[:len(body)-2]...), '\n')
				}
				log.Write(l)
			}
			rep, err := Validate(&log, ValidateOptions{Dir: corpus})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Issues) != 1 || rep.Issues[0].Code != CodeLineInvalidJSON || rep.Issues[0].Line != i+1 {
				t.Errorf("%s, line %d cut (%.60s…): want one %s, got\n%s", name, i+1, lines[i], CodeLineInvalidJSON, issuesText(rep))
			}
		}
	}
}

func TestFirstTokens(t *testing.T) {
	b := []byte(`{"event": "provider_request","round":12,"executionId":"e\"1","cut":"abc`)
	if got := string(firstString(b, "event")); got != `"provider_request"` {
		t.Errorf("event %s", got)
	}
	if got := string(firstString(b, "executionId")); got != `"e\"1"` {
		t.Errorf("executionId %s", got)
	}
	if got := string(firstNumber(b, "round")); got != "12" {
		t.Errorf("round %s", got)
	}
	if firstString(b, "cut") != nil || firstString(b, "none") != nil || firstNumber([]byte(`{"round":12`), "round") != nil {
		t.Error("a cut or missing value is nil")
	}
}
