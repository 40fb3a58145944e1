package chat

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// ContextState is Robota's IContextWindowState.
type ContextState struct {
	MaxTokens           int64   `json:"maxTokens"`
	UsedTokens          int64   `json:"usedTokens"`
	UsedPercentage      float64 `json:"usedPercentage"`
	RemainingPercentage float64 `json:"remainingPercentage"`
}

// DefaultContextWindow is used for models the table does not know.
const DefaultContextWindow = 200_000

// contextWindows maps model id prefixes to their documented context window.
// Longest prefix wins, so dated ids ("claude-sonnet-4-5-20250929") match.
var contextWindows = []struct {
	prefix string
	tokens int64
}{
	{"claude-opus-4", 200_000},
	{"claude-sonnet-4", 200_000},
	{"claude-haiku-4", 200_000},
	{"claude-3", 200_000},
	{"gpt-4o", 128_000},
	{"gpt-4.1", 1_047_576},
	{"gpt-4-turbo", 128_000},
	{"gpt-5", 400_000},
	{"o3", 200_000},
	{"o4-mini", 200_000},
	{"gemini-2.5", 1_048_576},
}

// ContextWindowFor returns the context window of a model (SPEC 5.6).
func ContextWindowFor(model string) int64 {
	m := strings.ToLower(model)
	best, bestLen := int64(DefaultContextWindow), 0
	for _, w := range contextWindows {
		if strings.HasPrefix(m, w.prefix) && len(w.prefix) > bestLen {
			best, bestLen = w.tokens, len(w.prefix)
		}
	}
	return best
}

// EstimateTokens is Robota's estimator: ceil(serialized length / 4); when the
// latest message carrying provider usage is the last message, its usage is
// used; otherwise the larger of the two.
func EstimateTokens(messages []Message) int64 {
	chars := SerializedLength(messages)
	est := int64(math.Ceil(float64(chars) / 4))
	for i := len(messages) - 1; i >= usageFloor(messages); i-- {
		u, ok := messages[i].Usage()
		if !ok {
			continue
		}
		if i == len(messages)-1 {
			return u.TotalTokens
		}
		return max(est, u.TotalTokens)
	}
	return est
}

// SerializedLength is len(JSON of the message array) without building it.
func SerializedLength(messages []Message) int64 {
	if len(messages) == 0 {
		return 2
	}
	n := int64(1 + len(messages)) // brackets and commas
	for i := range messages {
		n += int64(messages[i].CompactLen())
	}
	return n
}

// NewContextState computes usage percentages rounded to two decimals, the
// way Robota's ContextWindowTracker does, step for step so the floats agree:
// the used share is capped at 100 (a context over its window is full, not
// 26300% used with -26200% left), and both figures are rounded from it.
func NewContextState(used, window int64) ContextState {
	if window <= 0 {
		window = DefaultContextWindow
	}
	pct := min(100, float64(used)/float64(window)*100)
	return ContextState{
		MaxTokens:           window,
		UsedTokens:          used,
		UsedPercentage:      math.Round(pct*100) / 100,
		RemainingPercentage: math.Round((100-pct)*100) / 100,
	}
}

// BytesPerToken is the estimator's ratio (SPEC 5.6): ceil(len(JSON)/4).
// Valid UTF-8 never gets shorter as JSON, so more than window*4 bytes of
// input are more tokens than the window.
const BytesPerToken = 4

// MaxContextWindow is the largest window of the known models: no model
// trail can resolve without --context-window takes more.
func MaxContextWindow() int64 {
	most := int64(DefaultContextWindow)
	for _, w := range contextWindows {
		most = max(most, w.tokens)
	}
	return most
}

// SummaryPrefix starts the assistant message a compaction leaves in place
// of the conversation it replaced.
const SummaryPrefix = "[Context Summary]\n"

// KeptMessagesMetadata is the summary's metadata when the compaction kept
// the last n messages after it (compact --keep-last).
func KeptMessagesMetadata(n int) json.RawMessage {
	return json.RawMessage(`{"compaction":{"keptMessages":` + strconv.Itoa(n) + `}}`)
}

// usageFloor is the first index whose usage measures the context it is
// in. The messages a compaction kept carry the usage of the context it
// replaced, many times the new one: counted, they would make the estimate
// after compact --keep-last the estimate before, and the next step
// compact again at once. They follow their summary, which says how many
// they are.
func usageFloor(messages []Message) int {
	for j := len(messages) - 1; j >= 0; j-- {
		m := &messages[j]
		if m.Role == RoleAssistant && strings.HasPrefix(m.Content, SummaryPrefix) {
			return j + 1 + int(gjson.GetBytes(m.Metadata, "compaction.keptMessages").Int())
		}
	}
	return 0
}
