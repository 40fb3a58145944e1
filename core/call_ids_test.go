package core

import (
	"testing"

	"trail/core/chat"
)

// Ids a server reuses, in one turn or from turn to turn, are made unique;
// the first use keeps the server's id.
func TestRepeatedCallIDsAreMadeUnique(t *testing.T) {
	s := &session{messages: []chat.Message{
		{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: "call_0"}, {ID: "call_0_2"}}},
		{Role: chat.RoleTool, ToolCallID: "call_0"},
	}}
	calls := []chat.ToolCall{{ID: "call_0"}, {ID: "call_0"}, {ID: "call_1"}, {ID: "call_1"}}
	s.uniqueCallIDs(calls)
	want := []string{"call_0_3", "call_0_4", "call_1", "call_1_2"}
	for i, c := range calls {
		if c.ID != want[i] {
			t.Errorf("call %d: id %q, want %q", i, c.ID, want[i])
		}
	}
}
