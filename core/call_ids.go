package core

import (
	"strconv"

	"trail/core/chat"
)

// uniqueCallIDs gives each tool call of a new answer an id no other call
// of the session has. Servers reuse ids: Xinference gives every parallel
// call the completion's id, Kimi's endpoints repeat one within a turn,
// llama.cpp and Mistral-small start at call_0 each turn. Two calls of one
// turn sharing an id could not be told apart when a paused round is
// decided (the approved command of one would run for both), and the
// Messages API refuses a conversation whose tool_use ids repeat. A
// repeated id gets a suffix, _2, _3...; the first call keeps the server's.
func (s *session) uniqueCallIDs(calls []chat.ToolCall) {
	if len(calls) == 0 {
		return
	}
	used := map[string]bool{}
	for i := range s.messages {
		for _, tc := range s.messages[i].ToolCalls {
			used[tc.ID] = true
		}
	}
	for i := range calls {
		id := calls[i].ID
		for n := 2; used[id]; n++ {
			id = calls[i].ID + "_" + strconv.Itoa(n)
		}
		calls[i].ID = id
		used[id] = true
	}
}
