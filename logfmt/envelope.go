package logfmt

import (
	"strconv"
	"time"
)

// Field is one key of an ordered JSON object.
type Field struct {
	Key   string
	Value any
}

// F builds a Field; it keeps call sites short: Log("user", F("content", c)).
func F(key string, value any) Field { return Field{Key: key, Value: value} }

// Object is a JSON object whose keys are written in slice order. Go maps
// cannot promise an order, and log lines are read and diffed by people.
type Object []Field

// MarshalJSON lets encoding/json keep the key order when an Object sits
// inside a value that this package does not encode itself.
func (o Object) MarshalJSON() ([]byte, error) { return Marshal(o) }

// Envelope keys, in the order every line starts with. A data field may not
// reuse one: a duplicate key would make readers disagree on its value.
const (
	KeyTimestamp = "timestamp"
	KeySessionID = "sessionId"
	KeyEvent     = "event"
	KeySeq       = "seq"
)

// TimeLayout is the envelope's timestamp format, as Robota writes it
// (JavaScript's Date.toISOString): UTC, milliseconds, "Z".
const TimeLayout = "2006-01-02T15:04:05.000Z"

// FormatTime formats t as an envelope timestamp.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeLayout) }

func appendTime(dst []byte, t time.Time) []byte {
	return t.UTC().AppendFormat(dst, TimeLayout)
}

func isEnvelopeKey(k string) bool {
	return k == KeyTimestamp || k == KeySessionID || k == KeyEvent || k == KeySeq
}

// appendEnvelope writes the opening of a line up to and including seq;
// sessionJSON is the session id already encoded as a JSON string, since it
// is the same on every line.
func appendEnvelope(dst []byte, t time.Time, sessionJSON []byte, event string, seq int64) []byte {
	dst = append(dst, `{"timestamp":"`...)
	dst = appendTime(dst, t)
	dst = append(dst, `","sessionId":`...)
	dst = append(dst, sessionJSON...)
	dst = append(dst, `,"event":`...)
	dst = appendString(dst, event)
	dst = append(dst, `,"seq":`...)
	return strconv.AppendInt(dst, seq, 10)
}
