package logfmt

import (
	"bytes"
	"fmt"

	"github.com/tidwall/gjson"
)

// CodeRequestDigestMismatch: a provider_request's messagesSha256 is not
// the digest of the messages the log holds for it (the history rebuilt at
// that point, or the list on the line): a history_mutation was edited,
// dropped, added or moved, or the line itself was.
const CodeRequestDigestMismatch = "LOG_REQUEST_DIGEST_MISMATCH"

// The validator follows the history as replay rebuilds it with one running
// hash (historyDigest), each message hashed once: checking every request
// of a long session costs one pass over its messages, and memory holds the
// hash, not the messages. Logs without digests (Robota's, trail's before
// them, --log-requests full) have nothing to check and pass as before.
type validatorDigest struct {
	d          *historyDigest
	off        bool   // a message could not be read: nothing to check until a replace_all
	systemText string // session_init's system prompt, for the system message replay adds
	systemSet  bool
	initTime   string
	runSystem  []byte // the system message a Robota pre_run listed first, which replay puts first
}

// digestPreRun keeps the system message a Robota pre_run lists before any
// append, as replay does (preRunSystem), so the history hashed here is the
// one replay rebuilds.
func (v *validator) digestPreRun(l Line) {
	vd := &v.dg
	if vd.runSystem != nil {
		return
	}
	h := gjson.GetBytes(l.Bytes, "history")
	if !h.IsArray() && !h.IsObject() {
		return
	}
	list, err := v.payloads.resolve([]byte(h.Raw), 0)
	if err != nil {
		return
	}
	if first := gjson.GetBytes(list, "0"); first.IsObject() && first.Get("role").Str == "system" {
		vd.runSystem = []byte(first.Raw)
	}
}

func (v *validator) digestInit(l Line, e *entry) {
	vd := &v.dg
	vd.d.close()
	if isString(e.systemPrompt) {
		vd.systemText, vd.systemSet = unquoteToken(e.systemPrompt), true
	}
	vd.initTime = unquoteToken(e.timestamp)
}

// digestAppend follows an append_message; first reports whether it is
// the first message of the log (replay may put a system message first).
func (v *validator) digestAppend(e *entry, first bool) {
	vd := &v.dg
	if vd.off || e.message == nil {
		return
	}
	msg, err := v.payloads.resolve(e.message, 0)
	if err != nil {
		vd.off = true // the payload check reports it
		vd.d.close()
		return
	}
	role, ok := messageRole(msg)
	if !ok {
		return // replay skips it
	}
	if first && role != "system" && vd.runSystem != nil {
		vd.d.add(vd.runSystem)
	} else if first && role != "system" && vd.systemSet && vd.systemText != "" {
		ts := vd.initTime
		if ts == "" {
			ts = unquoteToken(e.timestamp)
		}
		vd.d.add(synthSystemMessage(v.sessionID, vd.systemText, ts))
	}
	vd.d.add(msg)
}

func (v *validator) digestReplace(e *entry) {
	vd := &v.dg
	vd.d.reset()
	vd.off = false
	list, err := v.payloads.resolve(e.messages, 0)
	if err != nil || len(list) == 0 || list[0] != '[' {
		vd.off = true
		return
	}
	eachElement(list, func(_ int, m []byte) bool {
		if _, ok := messageRole(m); ok {
			vd.d.add(m)
		}
		return true
	})
}

var messagesSHA256Key = []byte(`"messagesSha256"`)

// digestRequest checks a provider_request that carries a digest.
func (v *validator) digestRequest(l Line, e *entry) {
	vd := &v.dg
	// A full-form line (messages and no digest) is most of a log written
	// that way: one fast search spares parsing all of it.
	if !bytes.Contains(l.Bytes, messagesSHA256Key) {
		return
	}
	f := gjson.GetManyBytes(l.Bytes, "messagesSha256", "messageCount", "messages")
	if f[0].Type != gjson.String {
		return // the full form without a digest: nothing to check
	}
	round, _ := numberKey(e.round)
	c := digestCheck{Line: l.Num, EventIndex: l.Index, ExecutionID: unquoteToken(e.executionID), Round: round, SHA: f[0].Str}
	if m := f[2]; m.Exists() {
		// The list is on the line (a side call such as compaction's
		// summary, or full form with a digest): it is what was sent.
		list, err := v.payloads.resolve([]byte(m.Raw), 0)
		if err != nil {
			return
		}
		var h MessagesHasher
		eachElement(list, func(_ int, msg []byte) bool { h.Add(msg); return true })
		c.Count, c.Have, c.Complete, c.Computed = h.Len(), h.Len(), true, h.Sum()
		c.Match = c.Computed == c.SHA
		v.digestSettled(c)
		return
	}
	if f[1].Type != gjson.Number || f[1].Int() < 0 {
		return
	}
	if vd.off {
		return
	}
	c.Count = int(f[1].Int())
	vd.d.request(c)
}

// digestSettled reports a request whose messages contradict its digest. A
// request whose messages the log never held (a step killed before logging
// them) contradicts nothing and is not reported.
func (v *validator) digestSettled(c digestCheck) {
	if !c.Complete || c.Match {
		return
	}
	msg := fmt.Sprintf("provider_request's messagesSha256 %s is not the digest of its %d messages as the log holds them", quoteValue(c.SHA), c.Count)
	if c.Have != c.Count {
		msg = fmt.Sprintf("provider_request says %d messages were sent, but the log's history held %d at that point", c.Count, c.Have)
	} else if c.Computed != "" {
		msg += " (" + c.Computed + ")"
	}
	v.add(Issue{Code: CodeRequestDigestMismatch, Severity: SeverityError, Message: msg + ": a history_mutation was edited, dropped or moved.",
		Line: c.Line, EventIndex: c.EventIndex, ExecutionID: c.ExecutionID, Round: c.Round})
}
