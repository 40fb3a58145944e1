package chat

import (
	"encoding/json"
)

// ToolSchema describes a tool offered to the model.
type ToolSchema struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Usage is token usage of one call or a total. InputTokens counts every
// prompt token, cached ones included (they fill the context window all the
// same); CacheReadTokens and CacheCreationTokens say how many of them were
// read from or written to the provider's prompt cache, which prices them
// differently (provider.Cost).
type Usage struct {
	InputTokens         int64 `json:"input_tokens"`
	OutputTokens        int64 `json:"output_tokens"`
	CacheReadTokens     int64 `json:"cache_read_input_tokens,omitempty"`
	CacheCreationTokens int64 `json:"cache_creation_input_tokens,omitempty"`
}

// Add adds o to u.
func (u *Usage) Add(o Usage) {
	u.InputTokens += o.InputTokens
	u.OutputTokens += o.OutputTokens
	u.CacheReadTokens += o.CacheReadTokens
	u.CacheCreationTokens += o.CacheCreationTokens
}
