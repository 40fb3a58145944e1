package wire

import (
	"bytes"
	"encoding/json"
)

// Marshal encodes v without HTML escaping, as the log does, so the request
// body logged is byte for byte the one sent.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
