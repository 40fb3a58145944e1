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
// an answer: on the user's prompt or on a tool's result. An answer cut
// short (a failure mid-stream, Ctrl-C) is not asked again without a
// prompt: a request may not end on an assistant turn with thinking on,
// and the model should be told to go on (cutShort).
func (s *session) owesAnswer() bool {
	for i := len(s.messages) - 1; i >= 0; i-- {
		switch s.messages[i].Role {
		case chat.RoleSystem:
			continue
		case chat.RoleUser, chat.RoleTool:
			return true
		}
		return false
	}
	return false
}

// cutShort reports whether the conversation ends on an answer cut short.
func (s *session) cutShort() bool {
	n := len(s.messages)
	return n > 0 && s.messages[n-1].Role == chat.RoleAssistant && s.messages[n-1].State == chat.StateInterrupted
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
	if stop != StopError || !errors.As(err, &pe) {
		return
	}
	var again string
	switch {
	case s.owesAnswer():
		again = "the prompt is kept: trail resume " + s.rec.ID + " (no prompt) asks again"
	case s.cutShort():
		again = "the answer so far is kept: trail resume " + s.rec.ID + " \"continue\" goes on from it"
	default:
		return
	}
	if pe.Fix != "" {
		again = pe.Fix + "; " + again
	}
	pe.Fix = again
}
