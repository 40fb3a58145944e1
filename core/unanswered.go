package core

// A step the provider failed keeps the prompt (SPEC 5.7: everything
// committed so far stays), so the conversation ends on a turn the model
// still owes an answer to. Typing the prompt again would send it twice;
// a resume without a prompt asks the model again instead, and the
// failure's hint says so.

import (
	"errors"

	"trail/core/chat"
	"trail/core/errs"
)

// owesAnswer reports whether the conversation ends where the model owes
// an answer: on the user's prompt, on a tool's result, or on an answer cut
// short (a failure mid-stream, Ctrl-C), which the next request sends with
// its interrupted note.
func (s *session) owesAnswer() bool {
	for i := len(s.messages) - 1; i >= 0; i-- {
		m := &s.messages[i]
		switch m.Role {
		case chat.RoleSystem:
			continue
		case chat.RoleUser, chat.RoleTool:
			return true
		case chat.RoleAssistant:
			return m.State == chat.StateInterrupted && len(m.ToolCalls) == 0
		}
		return false
	}
	return false
}

// unansweredTurn is how many messages the turn the model owes an answer
// to holds, from its prompt on (0 when it owes none). A compaction keeps
// them after the summary, so a resume without a prompt still asks again.
func (s *session) unansweredTurn() int {
	if !s.owesAnswer() {
		return 0
	}
	for i := len(s.messages) - 1; i >= 0; i-- {
		if s.messages[i].Role == chat.RoleUser {
			return len(s.messages) - i
		}
	}
	return 0
}

// retryHint adds to a provider failure that left the prompt unanswered
// how to ask again without sending it twice.
func (s *session) retryHint(stop string, err error) {
	var pe *errs.ProviderError
	if stop != StopError || !errors.As(err, &pe) || !s.owesAnswer() {
		return
	}
	again := "the prompt is kept: trail resume " + s.rec.ID + " (no prompt) asks again"
	if pe.Fix != "" {
		again = pe.Fix + "; " + again
	}
	pe.Fix = again
}
