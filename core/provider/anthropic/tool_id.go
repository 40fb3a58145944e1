package anthropic

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// toolID is a tool call's id as the Messages API accepts it: the API
// refuses any id outside ^[a-zA-Z0-9_-]+$ with a 400, and other servers
// make such ids (Kimi's "functions.Bash:0", Codex's "call_x|fc_y"). A
// session begun elsewhere and continued here would fail on every later
// turn. The same id always maps to the same one, so a call and its result
// still pair; a digest of the original keeps two ids that differ only in
// the characters replaced apart. Only the request changes: the record and
// the log keep the id the call was made with.
func toolID(id string) string {
	if validToolID(id) {
		return id
	}
	var b strings.Builder
	for _, c := range id {
		if isIDChar(c) {
			b.WriteRune(c)
		} else {
			b.WriteByte('_')
		}
	}
	sum := sha256.Sum256([]byte(id))
	b.WriteByte('_')
	b.WriteString(hex.EncodeToString(sum[:4]))
	return b.String()
}

func validToolID(id string) bool {
	if id == "" {
		return false
	}
	for _, c := range id {
		if !isIDChar(c) {
			return false
		}
	}
	return true
}

func isIDChar(c rune) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}
