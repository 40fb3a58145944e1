package peer

import (
	"bytes"

	"github.com/tidwall/gjson"

	"trail/logfmt"
)

// Telling the formats apart from the first entry (peer-formats notes, 5):
//
//   - Codex: {"timestamp", "type", "payload"} (a RolloutLine; the first is
//     session_meta);
//   - pi: {"type": "session", "version", "id", ...} (the header);
//   - Gemini CLI: a string sessionId and projectHash (the metadata line), or
//     a message record or a {"$set"} update when the file starts mid-way;
//   - Claude Code: a "type" among its entry types, with sessionId, uuid or
//     parentUuid;
//   - trail's and Robota's own logs ({"timestamp", "sessionId", "event"})
//     are refused: they are trail sessions already.

// whyTrailLog says a file is one of trail's own logs.
const whyTrailLog = "this is a trail (or Robota) log, a trail session already"

// claudeWrites reports whether Claude Code writes entries of type typ (those
// seen in real transcripts and described publicly).
func claudeWrites(typ string) bool {
	switch typ {
	case "user", "assistant", "system", "summary", "queue-operation", "attachment",
		"file-history-snapshot", "progress", "last-prompt", "mode", "custom-title":
		return true
	}
	return false
}

// detect names the format of a file from its first entry, or says why it
// cannot.
func detect(l srcLine) (format, why string) {
	f := l.obj
	typ := f.Get("type")
	switch {
	case f.Get("event").Type == gjson.String && f.Get("sessionId").Exists():
		return "", whyTrailLog
	case typ.Type == gjson.String && f.Get("payload").Exists() && f.Get("timestamp").Exists():
		return Codex, ""
	case typ.Str == "session" && f.Get("version").Exists() && f.Get("id").Exists():
		return Pi, ""
	case f.Get("sessionId").Type == gjson.String && f.Get("projectHash").Type == gjson.String:
		return Gemini, ""
	case f.Get(`\$set`).IsObject() || f.Get(`\$rewindTo`).Exists():
		return Gemini, ""
	case (typ.Str == "user" || typ.Str == "gemini") && f.Get("id").Exists() && f.Get("content").Exists() && !f.Get("message").Exists():
		return Gemini, ""
	case claudeWrites(typ.Str) && (f.Get("sessionId").Exists() || f.Get("uuid").Exists() || f.Get("parentUuid").Exists() ||
		f.Get("leafUuid").Exists() || f.Get("messageId").Exists()):
		return Claude, ""
	}
	return "", "its first entry is none of theirs"
}

// geminiLegacy recognises Gemini CLI's older whole-file format: one JSON
// object (often pretty-printed) with sessionId, projectHash and messages.
func geminiLegacy(data []byte) ([]byte, bool) {
	t := bytes.TrimSpace(data)
	if len(t) == 0 || t[0] != '{' || logfmt.TooDeepToLog(t) || !gjson.ValidBytes(t) {
		return nil, false
	}
	f := gjson.GetManyBytes(t, "sessionId", "projectHash", "messages")
	if f[0].Type != gjson.String || f[1].Type != gjson.String || !f[2].IsArray() {
		return nil, false
	}
	return t, true
}
