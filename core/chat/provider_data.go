package chat

import (
	"github.com/tidwall/gjson"
)

// A message's providerData holds what its provider must get back exactly on
// later requests and that trail's own fields cannot carry: Anthropic's
// content blocks when they hold thinking (with signatures), redacted
// thinking or server tools; an OpenAI-compatible server's
// reasoning_content (DeepSeek, Kimi) and Gemini's extra_content thought
// signatures. It is an object whose "provider" member names the provider
// that wrote it:
//
//	{"provider": "anthropic", "content": [...]}
//	{"provider": "openai", "reasoning_content": "...", "toolCalls": {"<id>": {"extra_content": {...}}}}
//
// Only that provider reads it (DataFor): another provider's request never
// carries it, and a resumed session sends it back as it was recorded. The
// record and the log keep it like any other member of the message. The
// providers build it (wire.ProviderData).

const providerDataKey = "providerData"

// DataFor is the message's provider data when provider wrote it; the
// result does not exist otherwise.
func (m *Message) DataFor(provider string) gjson.Result {
	if len(m.ProviderData) == 0 || !gjson.ValidBytes(m.ProviderData) {
		return gjson.Result{}
	}
	d := gjson.ParseBytes(m.ProviderData)
	if d.Get("provider").String() != provider {
		return gjson.Result{}
	}
	return d
}
