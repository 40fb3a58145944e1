package core

import "trail/logfmt"

// Lines of one execution start with the keys that tie them together:
// executionId and conversationId, then round for a round's lines (SPEC
// 7.1). Validation pairs requests and answers by them, so they are
// written in one place.

// runFields are executionId and conversationId, then extra.
func runFields(execID string, extra ...logfmt.Field) []logfmt.Field {
	f := make([]logfmt.Field, 0, 2+len(extra))
	f = append(f, logfmt.F("executionId", execID), logfmt.F("conversationId", conversationID))
	return append(f, extra...)
}

// roundFields are executionId, conversationId and round, then extra.
func roundFields(execID string, round int, extra ...logfmt.Field) []logfmt.Field {
	f := make([]logfmt.Field, 0, 3+len(extra))
	f = append(f, logfmt.F("executionId", execID), logfmt.F("conversationId", conversationID), logfmt.F("round", round))
	return append(f, extra...)
}
