package logfmt

import (
	"encoding/json"

	"trail/lazy"
)

// Redactor applies the log's redaction rules to values that are not log
// lines. The session record is scrubbed with it, built from the same
// secrets as the session's Writer, so that the record and the log hold the
// same strings: replaying the log gives the record's messages exactly.
//
// A nil *Redactor redacts the shapes and key names, with no secrets.
type Redactor struct{ r *redactor }

// NewRedactor returns a Redactor for these secrets in use (as Options.Secrets:
// strings shorter than 8 bytes are ignored).
func NewRedactor(secrets []string) *Redactor {
	return &Redactor{r: newRedactor(secrets)}
}

func (r *Redactor) rules() *redactor {
	if r == nil {
		return emptyRedactor.Get()
	}
	return r.r
}

// emptyRedactor is built on first use, not at start-up.
var emptyRedactor = lazy.Value[*redactor]{New: func() *redactor { return newRedactor(nil) }}

// String redacts the secrets and key shapes in s, as the Writer does in
// every string it writes; s itself when nothing is replaced.
func (r *Redactor) String(s string) string {
	return r.rules().scrub(s)
}

// JSON redacts a JSON document as the Writer redacts it in a line: values
// under sensitive keys, secrets and key shapes inside strings. It returns
// raw itself when nothing is replaced (so a caller can tell by identity),
// else the redacted document, compact. raw must be valid JSON.
func (r *Redactor) JSON(raw json.RawMessage) (json.RawMessage, error) {
	red := r.rules()
	if raw == nil || !red.rawSuspect(raw) {
		return raw, nil
	}
	e := encoder{red: red}
	out, err := e.raw(nil, raw)
	if err != nil {
		return nil, err
	}
	if !e.changed {
		return raw, nil
	}
	return out, nil
}

// Member redacts the value of an object member named key: "[REDACTED]"
// when the key names a secret, as a top-level field of a log line.
func (r *Redactor) Member(key string, raw json.RawMessage) (json.RawMessage, error) {
	if sensitiveKey(key) {
		if string(raw) == string(redactedJSON) {
			return raw, nil
		}
		return json.RawMessage(redactedJSON), nil
	}
	return r.JSON(raw)
}

// CutEnd redacts s, an answer cut short, and what ends it from where it
// could still have grown into a key or a secret: cut, it is no shape any
// more, and its part would be kept in clear (TextStream.FlushCut).
func (r *Redactor) CutEnd(s string) string {
	rules := r.rules()
	spans := rules.spans(nil, s, "")
	if c := rules.openFrom(s, ""); c < len(s) {
		spans = mergeSpans(append(spans, span{c, len(s)}))
	}
	return applySpans(s, spans)
}

// Stream returns a TextStream for one streamed text (an answer, or its
// thinking), redacting with these secrets.
func (r *Redactor) Stream() *TextStream {
	return &TextStream{r: r.rules(), cutFrom: -1}
}
