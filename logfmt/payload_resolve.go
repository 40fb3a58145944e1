package logfmt

import (
	"cmp"
	"path/filepath"
	"strings"
)

// PayloadResolver puts back the external payloads of one log's values, for
// readers outside this package that take single fields from its lines (the
// cassette provider reads recorded answers this way). Each file is checked
// as replay checks it.
type PayloadResolver struct{ p *payloadReader }

// NewPayloadResolver resolves references of the log at path, in the
// payload folder beside it: <sessionID>.payloads, the session the log's
// lines name (a log copied under another file name keeps its folder's
// name); "" takes the file name.
func NewPayloadResolver(path, sessionID string) *PayloadResolver {
	p := newPayloadReader(filepath.Dir(path))
	p.sessionID = cmp.Or(sessionID, strings.TrimSuffix(filepath.Base(path), ".jsonl"))
	return &PayloadResolver{p: p}
}

// Resolve returns value with every external payload reference replaced by
// its file's content; a value without references is returned as it is.
func (r *PayloadResolver) Resolve(value []byte) ([]byte, error) {
	return r.p.resolve(value, 0)
}
