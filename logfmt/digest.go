package logfmt

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"hash"

	"github.com/tidwall/gjson"
)

// Request digests (docs/log-format.md, "Request digests"). A provider_request
// proves what was sent without repeating it: messagesSha256 is the sha256
// of the canonical form of the message list sent, and the list itself is
// the history the history_mutation lines rebuild.
//
// The canonical form of a message list is each message's compact JSON as
// the log writes it (chat.Message.CompactJSON, secrets scrubbed, U+2028
// and U+2029 raw), each followed by one "\n": the list as JSONL. Being a
// concatenation, it lets a writer or a validator keep one running hash
// over the history and add each message once, so checking every request
// of a session costs one pass over its messages, not one per request.

// MessagesSHA256 is the lowercase hex sha256 of the canonical form of msgs.
func MessagesSHA256(msgs []json.RawMessage) string {
	var h MessagesHasher
	for _, m := range msgs {
		h.Add(m)
	}
	return h.Sum()
}

// MessagesHasher is a running MessagesSHA256: Sum after n Adds is the
// digest of those n messages. The zero value is ready to use.
type MessagesHasher struct {
	h hash.Hash
	n int
}

// Add appends one message (its compact JSON) to the hashed list.
func (h *MessagesHasher) Add(msg json.RawMessage) {
	if h.h == nil {
		h.h = sha256.New()
	}
	h.h.Write(msg)
	h.h.Write(newline)
	h.n++
}

var newline = []byte{'\n'}

// Len is the number of messages added since the last Reset.
func (h *MessagesHasher) Len() int { return h.n }

// Sum is the digest of the messages added so far; adding more continues
// from there.
func (h *MessagesHasher) Sum() string {
	if h.h == nil {
		h.h = sha256.New()
	}
	var buf [sha256.Size]byte
	return hex.EncodeToString(h.h.Sum(buf[:0]))
}

// Reset empties the hashed list.
func (h *MessagesHasher) Reset() {
	if h.h != nil {
		h.h.Reset()
	}
	h.n = 0
}

// ToolsSHA256 is the lowercase hex sha256 of the compact JSON of the tools
// array as provider_request logs it in "tools" (null when none were offered).
func ToolsSHA256(tools json.RawMessage) string {
	if len(tools) == 0 {
		tools = json.RawMessage("null")
	}
	sum := sha256.Sum256(tools)
	return hex.EncodeToString(sum[:])
}

// BytesSHA256 is the lowercase hex sha256 of b: what a request's
// provider_native_raw_payload line says of the exact bytes sent.
func BytesSHA256(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// InterruptedNote is appended to an interrupted assistant message's content
// when it is sent to a provider again, so the model knows its answer was
// cut (SPEC 3.3).
const InterruptedNote = "\n\n[This response was interrupted by the user]"

// interruptedWord is the state value RequestForm looks for; writers do
// not escape plain letters, so a message without these bytes is not one.
var interruptedWord = []byte(`"interrupted"`)

// RequestForm returns msg (a message's compact JSON) as a request sends it:
// an assistant message whose state is "interrupted" and whose content is
// a string carries InterruptedNote after its content; any other message is msg itself.
// The content string is rewritten in place, every other byte kept, so the
// form follows from the logged message alone.
func RequestForm(msg json.RawMessage) json.RawMessage {
	// Only an interrupted answer changes, and most messages do not hold
	// the word at all: one memchr-speed search spares parsing them.
	if len(msg) == 0 || msg[0] != '{' || !bytes.Contains(msg, interruptedWord) {
		return msg
	}
	f := gjson.GetManyBytes(msg, "role", "state", "content")
	if f[0].Str != "assistant" || f[1].Str != "interrupted" || f[0].Type != gjson.String || f[1].Type != gjson.String {
		return msg
	}
	c := f[2]
	if c.Type != gjson.String {
		return msg // null content (a message that only called tools) is sent as it is
	}
	text := c.Str
	start := c.Index
	if start <= 0 || start+len(c.Raw) > len(msg) || string(msg[start:start+len(c.Raw)]) != c.Raw {
		return msg // not where gjson says: leave it as it is
	}
	out := make([]byte, 0, len(msg)+len(InterruptedNote)+8)
	out = append(out, msg[:start]...)
	out = appendString(out, text+InterruptedNote)
	return append(out, msg[start+len(c.Raw):]...)
}
