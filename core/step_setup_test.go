package core

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"trail/core/hooks"
	"trail/logfmt"
)

// The envelope's keys are taken from a line the real writer writes, not
// copied here: a key the envelope gains later is checked too.
func TestHookRunFieldsNeverUseTheEnvelopeKey(t *testing.T) {
	w, err := logfmt.OpenWriter(filepath.Join(t.TempDir(), "s.jsonl"), logfmt.Options{SessionID: "s"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Log("envelope_only"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	var envelope map[string]json.RawMessage
	if err := json.Unmarshal(b, &envelope); err != nil || len(envelope) < 4 {
		t.Fatalf("the envelope line %s: %v", b, err)
	}
	// Every optional field present: the widest hook_run line.
	fields := hookRunFields("e", hooks.Execution{Event: "Stop", Command: "x", ExitCode: 2, Blocked: true, TimedOut: true})
	for _, f := range fields {
		if _, ok := envelope[f.Key]; ok {
			t.Errorf("hook_run data key %q collides with the envelope %s", f.Key, b)
		}
	}
	if err := w.Log("hook_run", fields...); err != nil {
		t.Errorf("the writer refuses the hook_run line: %v", err)
	}
}
