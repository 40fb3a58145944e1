package store

import (
	"bytes"
	"encoding/json"
)

// Record is a session record (SPEC 3.2). The small header fields are typed;
// everything else lives in Fields with its exact bytes, in file order, so a
// record written by another program survives a round trip.
//
// A typed field at its zero value means "not set by trail". Decode leaves a
// header field zero and keeps its raw value in Fields when the file's value
// is the zero value or is not of the typed kind (e.g. "version": "1");
// Encode then writes that raw value at the header's place. Setting the typed
// field overrides it.
type Record struct {
	ID, Name, Cwd, CreatedAt, UpdatedAt string
	Version                             int
	Status, StopReason                  string
	Provider                            *ProviderRef
	MessageCount                        int // written when > 0 or when the decoded record had it
	Title                               string
	ParentSessionID                     string
	Usage                               *Usage
	Fields                              Fields            // the rest, in file order
	Messages                            []json.RawMessage // each element's raw bytes; replace, do not edit in place
	History                             []json.RawMessage

	// hadMessageCount keeps "messageCount": N on the record once it had it,
	// even if a caller later sets MessageCount to 0.
	hadMessageCount bool
	// decoded holds the element slices Decode produced. An element that is
	// still the very same slice was validated by gjson when it was read, so
	// Encode re-indents it without checking every byte again: half the cost
	// of saving a long session. Callers replace elements, never edit their
	// bytes in place.
	decodedMessages, decodedHistory []json.RawMessage
}

// ProviderRef names the provider a session talks to. It is never an API key.
type ProviderRef struct {
	Name    string `json:"name"`
	Model   string `json:"model,omitempty"`
	BaseURL string `json:"baseUrl,omitempty"`
	Script  string `json:"script,omitempty"`
	// Cassette is the recording the cassette provider plays (a log's path).
	Cassette string `json:"cassette,omitempty"`
}

// Usage is the session's token totals. InputTokens counts every prompt
// token, the cached ones included; the cache counts and the cost are
// written only when known (CostUSD nil: unknown, some call's model had no
// price).
type Usage struct {
	InputTokens              int64    `json:"inputTokens"`
	OutputTokens             int64    `json:"outputTokens"`
	CacheReadInputTokens     int64    `json:"cacheReadInputTokens,omitempty"`
	CacheCreationInputTokens int64    `json:"cacheCreationInputTokens,omitempty"`
	CostUSD                  *float64 `json:"costUSD,omitempty"`
}

// Field is one top-level member trail does not type, with its raw value.
type Field struct {
	Key   string
	Value json.RawMessage
}

// Fields keeps untyped members in file order. Lookups are linear: a record
// has a few dozen top-level keys at most.
type Fields []Field

// Get returns the raw value stored under key.
func (f Fields) Get(key string) (json.RawMessage, bool) {
	for _, fd := range f {
		if fd.Key == key {
			return fd.Value, true
		}
	}
	return nil, false
}

// Set marshals v without HTML escaping (so "<b>&" stays literal) and stores
// it under key, in place when key exists, else at the end.
func (f *Fields) Set(key string, v any) error {
	raw, err := MarshalJSON(v)
	if err != nil {
		return err
	}
	f.SetRaw(key, raw)
	return nil
}

// MarshalJSON encodes v as encoding/json does but without HTML escaping,
// as logs and JSON.stringify leave "<b>&". The encoder writes the whole
// value at once and it is copied once at its size: a bytes.Buffer would
// grow by doubling, and what goes through here is kilobytes (tool schemas)
// to megabytes (a long session's request body).
func MarshalJSON(v any) ([]byte, error) {
	var raw encoded
	enc := json.NewEncoder(&raw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(raw, []byte("\n")), nil
}

type encoded []byte

func (e *encoded) Write(p []byte) (int, error) {
	*e = append(*e, p...)
	return len(p), nil
}

// SetRaw stores raw under key, in place when key exists, else at the end.
// raw must be valid JSON; Encode reports it otherwise.
func (f *Fields) SetRaw(key string, raw json.RawMessage) {
	for i := range *f {
		if (*f)[i].Key == key {
			(*f)[i].Value = raw
			return
		}
	}
	*f = append(*f, Field{Key: key, Value: raw})
}

// Delete removes key; a missing key is fine.
func (f *Fields) Delete(key string) {
	out := (*f)[:0]
	for _, fd := range *f {
		if fd.Key != key {
			out = append(out, fd)
		}
	}
	clear((*f)[len(out):])
	*f = out
}
