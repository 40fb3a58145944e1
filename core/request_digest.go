package core

import (
	"encoding/json"
	"fmt"

	"trail/core/chat"
	"trail/core/settings"
	"trail/logfmt"
)

// A provider_request proves what was sent without repeating it
// (docs/log-format.md, "Request digests"): messageCount and messagesSha256
// name the history the history_mutation lines rebuild, toolsSha256 the
// tools session_init logged. The conversation is hashed as it grows, each
// message once (a running hash, like the history itself), so a session's
// log and its hashing stay linear in its length. --log-requests full (or
// logRequests "full") writes the whole lists on every request, as Robota
// does, for debugging.

// requestDigest is the running hash of the conversation in request form.
type requestDigest struct {
	h      logfmt.MessagesHasher
	n      int    // s.messages[:n] are hashed
	lastID string // the id of s.messages[n-1], to notice a replaced list
	tools  string // toolsSha256 of this step's tools ("" until worked out)
	// scratch holds one loaded message's compact bytes while it is hashed.
	scratch []byte
}

// reset forgets the hashed messages: the conversation was replaced.
func (d *requestDigest) reset() {
	d.h.Reset()
	d.n, d.lastID = 0, ""
}

// fullRequests reports whether requests are logged whole.
func (s *session) fullRequests() bool {
	v := s.opts.LogRequests
	if v == "" && s.opts.Settings != nil {
		v = s.opts.Settings.LogRequests
	}
	return v == settings.LogRequestsFull
}

// historyDigest is messagesSha256 of the conversation as requestMessages
// sends it: each message as the log holds it, in its request form (an
// interrupted answer with its note). A message loaded from the record and
// not logged again this step is in the log as the record has it (the two
// agree: log_sync.go), redacted with the secrets of the step that logged
// it; any other is as this step logs it (loggedJSON).
func (s *session) historyDigest() (string, error) {
	d := &s.reqDigest
	if d.n > len(s.messages) || (d.n > 0 && s.messages[d.n-1].ID != d.lastID) {
		d.reset() // the list was replaced (a compaction, a re-sync)
	}
	for ; d.n < len(s.messages); d.n++ {
		var b []byte
		var err error
		if m := &s.messages[d.n]; m.Loaded() && !s.relogged {
			// loggedJSON's bytes, compacted into one reused buffer.
			d.scratch, err = m.AppendCompactJSON(d.scratch[:0])
			b = d.scratch
		} else {
			b, err = s.loggedJSON(d.n)
		}
		if err != nil {
			return "", fmt.Errorf("encode message %d: %w", d.n, err)
		}
		d.h.Add(logfmt.RequestForm(b))
		d.lastID = s.messages[d.n].ID
	}
	return d.h.Sum(), nil
}

// loggedJSON is message i as the log holds it (recordMessage's rule: a
// value that became a secret since is still in the earlier lines).
func (s *session) loggedJSON(i int) ([]byte, error) {
	m := &s.messages[i]
	if m.Loaded() && !s.relogged {
		return m.CompactJSON()
	}
	return s.log.Encode(*m)
}

// toolsDigest is toolsSha256 of tools as the log writes them; the step's
// own tool list is worked out once.
func (s *session) toolsDigest(tools []chat.ToolSchema, own bool) (string, error) {
	if own && s.reqDigest.tools != "" {
		return s.reqDigest.tools, nil
	}
	var raw []byte
	if tools != nil {
		var err error
		if raw, err = s.log.Encode(tools); err != nil {
			return "", fmt.Errorf("encode tools: %w", err)
		}
	}
	sum := logfmt.ToolsSHA256(raw)
	if own {
		s.reqDigest.tools = sum
	}
	return sum, nil
}

// requestFields are provider_request's messages and tools: the whole
// lists (full form), or their digests. A side call's list (compaction's
// summary prompt) is not the history, so it is logged whole either way,
// with its digest.
func (s *session) requestFields(pc providerCall, msgs []chat.Message) ([]logfmt.Field, error) {
	full := s.fullRequests() || s.log == nil
	var raws []json.RawMessage
	if full || !pc.history {
		raws = make([]json.RawMessage, len(msgs))
		for i := range msgs {
			raw, err := msgs[i].CompactJSON()
			if err != nil {
				return nil, fmt.Errorf("encode message %d: %w", i, err)
			}
			raws[i] = raw
		}
	}
	if full {
		return []logfmt.Field{logfmt.F("messages", raws), logfmt.F("tools", pc.tools)}, nil
	}
	tools, err := s.toolsDigest(pc.tools, pc.history)
	if err != nil {
		return nil, err
	}
	if !pc.history {
		enc := make([]json.RawMessage, len(raws))
		for i := range raws {
			if enc[i], err = s.log.Encode(raws[i]); err != nil {
				return nil, fmt.Errorf("encode message %d: %w", i, err)
			}
		}
		return []logfmt.Field{
			logfmt.F("messages", raws),
			logfmt.F("messageCount", len(raws)),
			logfmt.F("messagesSha256", logfmt.MessagesSHA256(enc)),
			logfmt.F("toolsSha256", tools),
		}, nil
	}
	sum, err := s.historyDigest()
	if err != nil {
		return nil, err
	}
	return []logfmt.Field{
		logfmt.F("messageCount", len(msgs)),
		logfmt.F("messagesSha256", sum),
		logfmt.F("toolsSha256", tools),
	}, nil
}

// requestPayload is what a provider_native_raw_payload of kind request
// carries: the body sent (full form), or its sha256 and length in bytes
// (it repeats the whole history, which the log already proves).
func (s *session) requestPayload(payload any) any {
	if s.fullRequests() {
		return payload
	}
	var b []byte
	switch p := payload.(type) {
	case json.RawMessage:
		b = p
	case []byte:
		b = p
	case string:
		b = []byte(p)
	default:
		return payload
	}
	return logfmt.Object{logfmt.F("sha256", logfmt.BytesSHA256(b)), logfmt.F("length", len(b))}
}
