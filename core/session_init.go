package core

import (
	"trail/logfmt"
)

// session_init gives the system prompt and the tool schemas a step runs
// with. Every step has one, and repeating both on each (several KB of tool
// schemas) made the log grow with the number of steps for nothing: they
// are logged when the log does not hold them yet or they changed, and
// otherwise only their digests (systemPromptSha256, toolSchemasSha256),
// which say which earlier session_init holds them. With full requests
// both are logged every time, as Robota does.

// loggedInit is the digests of the system prompt and tools the log gave
// last; "" when unknown (then they are logged again).
type loggedInit struct {
	prompt, tools string
}

// loggedFrom reads them from a replay of the log.
func loggedFrom(rep *logfmt.Replay) loggedInit {
	var l loggedInit
	if rep.HasSystemPrompt {
		if b, err := logfmt.Marshal(rep.SystemPrompt); err == nil {
			l.prompt = logfmt.BytesSHA256(b)
		}
	}
	if rep.ToolSchemas != nil {
		l.tools = logfmt.ToolsSHA256(rep.ToolSchemas)
	}
	return l
}

// initFields are session_init's systemPrompt and toolSchemas, or their
// digests when the log already holds them as they are.
func (s *session) initFields(sp string, known loggedInit) []logfmt.Field {
	tools := s.toolSchemas()
	if s.fullRequests() || s.log == nil {
		return []logfmt.Field{logfmt.F("systemPrompt", sp), logfmt.F("toolSchemas", tools)}
	}
	var out []logfmt.Field
	if b, err := s.log.Encode(sp); err == nil {
		sum := logfmt.BytesSHA256(b)
		if sum != known.prompt {
			out = append(out, logfmt.F("systemPrompt", sp))
		}
		out = append(out, logfmt.F("systemPromptSha256", sum))
		s.logged.prompt = sum
	} else {
		out = append(out, logfmt.F("systemPrompt", sp))
	}
	if sum, err := s.toolsDigest(tools, true); err == nil {
		if sum != known.tools {
			out = append(out, logfmt.F("toolSchemas", tools))
		}
		out = append(out, logfmt.F("toolSchemasSha256", sum))
		s.logged.tools = sum
	} else {
		out = append(out, logfmt.F("toolSchemas", tools))
	}
	return out
}
