package openai

import (
	"testing"

	"trail/core/chat"
)

// Streams of compatible servers that end or count differently from
// OpenAI's own.

// Groq sent the usage only inside x_groq on the finish chunk before it
// took stream_options: it counts when no top-level usage came.
func TestGroqUsageInXGroqCounts(t *testing.T) {
	resp, _, _ := replay(t, "groq/DERIVED_tool_call_x_groq_usage_only.sse", hello())
	if !resp.HasUsage || resp.Usage != (chat.Usage{InputTokens: 210, OutputTokens: 15}) {
		t.Errorf("usage %+v (has %v), want 210 in and 15 out from x_groq.usage", resp.Usage, resp.HasUsage)
	}
	if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].ID != "tk85n1k4m" || resp.ToolCalls[0].Name != "weather" {
		t.Errorf("tool calls %+v", resp.ToolCalls)
	}
}
