package core

import (
	"testing"

	"trail/core/hooks"
)

func TestHookRunFieldsNeverUseTheEnvelopeKey(t *testing.T) {
	for _, f := range hookRunFields("e", hooks.Execution{Event: "Stop", TimedOut: true}) {
		if f.Key == "event" || f.Key == "timestamp" || f.Key == "sessionId" || f.Key == "seq" {
			t.Errorf("hook_run data key %q collides with the envelope", f.Key)
		}
	}
}
