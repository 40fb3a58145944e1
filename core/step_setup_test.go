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

// A project's ignored bypassPermissions is said once, where it would have
// decided the mode: not under --permission-mode, nor on a resume, which
// keeps the session's mode.
func TestAnIgnoredProjectModeIsSaidWhereItWouldHaveDecided(t *testing.T) {
	const warning = "permissions.defaultMode bypassPermissions in /repo/.claude/settings.json is ignored"
	b := newBench(t, say("one"), say("two"), say("three"))
	b.settings.Permissions.IgnoredMode, b.settings.Permissions.IgnoredModeFrom = "bypassPermissions", "/repo/.claude/settings.json"
	id := b.mustRun("hi")
	if !b.saw(EvWarning, warning+": a project's settings may not set it") || !b.saw(EvWarning, "running in default mode") {
		t.Fatalf("no warning naming the file: %+v", b.events)
	}
	if m := b.record(id).Fields; string(mustGet(t, m.Get, fieldPermissionMode)) != `"default"` {
		t.Errorf("the session was saved with mode %s", mustGet(t, m.Get, fieldPermissionMode))
	}
	for name, step := range map[string]func(){
		"--permission-mode": func() { b.mustRun("hi", func(o *StepOptions) { o.PermissionMode = "plan" }) },
		"a resume":          func() { b.resume(id, "again") },
	} {
		b.events = nil
		step()
		if b.saw(EvWarning, warning) {
			t.Errorf("%s: warned of a mode that would not have decided", name)
		}
	}
}

func mustGet(t *testing.T, get func(string) (json.RawMessage, bool), key string) json.RawMessage {
	t.Helper()
	v, ok := get(key)
	if !ok {
		t.Fatalf("no %s", key)
	}
	return v
}
