package chat

import (
	"encoding/json"
	"testing"
)

func TestContextWindowTable(t *testing.T) {
	for model, want := range map[string]int64{
		"claude-sonnet-4-5":         200_000,
		"claude-opus-4-1-20250805":  200_000,
		"gpt-4o-mini":               128_000,
		"gpt-4.1":                   1_047_576,
		"some-local-model":          DefaultContextWindow,
		"CLAUDE-HAIKU-4-5-20251001": 200_000,
	} {
		if got := ContextWindowFor(model); got != want {
			t.Errorf("%s: %d, want %d", model, got, want)
		}
	}
}

func TestEstimateTokensFollowsRobotasRule(t *testing.T) {
	user := Message{ID: "u", Role: RoleUser, Content: "abcdefgh", State: StateComplete, Timestamp: "t"}
	withUsage := Message{ID: "a", Role: RoleAssistant, Content: "x", State: StateComplete, Timestamp: "t",
		Metadata: json.RawMessage(`{"inputTokens":900,"outputTokens":100}`)}
	chars := SerializedLength([]Message{user})
	b, _ := json.Marshal([]Message{user})
	if chars != int64(len(b)) {
		t.Fatalf("SerializedLength = %d, JSON is %d bytes", chars, len(b))
	}
	if got := EstimateTokens([]Message{user}); got != (chars+3)/4 {
		t.Errorf("no usage: %d, want ceil(%d/4)", got, chars)
	}
	if got := EstimateTokens([]Message{user, withUsage}); got != 1000 {
		t.Errorf("usage on the last message is used as is: %d, want 1000", got)
	}
	small := Message{ID: "a", Role: RoleAssistant, Content: "x", State: StateComplete, Timestamp: "t",
		Metadata: json.RawMessage(`{"inputTokens":1,"outputTokens":1}`)}
	msgs := []Message{small, user}
	if got, est := EstimateTokens(msgs), (SerializedLength(msgs)+3)/4; got != est {
		t.Errorf("usage followed by messages: %d, want the larger, %d", got, est)
	}
}

func TestContextStateRoundsToTwoDecimals(t *testing.T) {
	st := NewContextState(1234, 200_000)
	if st.UsedPercentage != 0.62 || st.RemainingPercentage != 99.38 || st.MaxTokens != 200_000 {
		t.Fatalf("%+v", st)
	}
}

func TestContextStateIsCappedAtAFullWindow(t *testing.T) {
	st := NewContextState(263, 1)
	if st.UsedPercentage != 100 || st.RemainingPercentage != 0 || st.UsedTokens != 263 {
		t.Fatalf("%+v, want 100%% used, 0%% left, the real token count", st)
	}
	// Robota rounds the remainder from the unrounded share: 615 of 100,000
	// tokens is 0.615%, shown as 0.62 used and 99.39 left.
	if st := NewContextState(615, 100_000); st.UsedPercentage != 0.62 || st.RemainingPercentage != 99.39 {
		t.Fatalf("%+v", st)
	}
}
