package settings

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// pathAt names the JSON value in data that starts last before offset, in
// the form users write in settings: hooks.PreToolUse[0].hooks[0].timeout.
// encoding/json's own Field drops map keys and indices
// ("hooks.hooks.timeout"), which names no place in the file. "" is the
// top-level value.
func pathAt(data []byte, offset int64) string {
	type frame struct {
		array   bool
		wantKey bool // an object waiting for its next key
		key     string
		index   int
	}
	var stack []frame
	valueDone := func() {
		if n := len(stack); n > 0 {
			if stack[n-1].array {
				stack[n-1].index++
			} else {
				stack[n-1].wantKey = true
			}
		}
	}
	render := func() string {
		var b strings.Builder
		for _, f := range stack {
			if f.array {
				b.WriteString("[" + strconv.Itoa(f.index) + "]")
				continue
			}
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(f.key)
		}
		return b.String()
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	best := ""
	for {
		// The end of the previous token: a value that starts here starts
		// before offset only if this does.
		if dec.InputOffset() >= offset {
			return best
		}
		tok, err := dec.Token()
		if err != nil {
			return best
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			valueDone()
			continue
		}
		if n := len(stack); n > 0 && stack[n-1].wantKey {
			stack[n-1].key, stack[n-1].wantKey = tok.(string), false
			continue
		}
		best = render()
		if d, ok := tok.(json.Delim); ok {
			stack = append(stack, frame{array: d == '[', wantKey: d == '{'})
			continue
		}
		valueDone()
	}
}
