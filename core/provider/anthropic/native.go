package anthropic

import (
	"encoding/json"

	"github.com/tidwall/gjson"

	"trail/core/chat"
	"trail/core/provider"
	"trail/logfmt"
)

// nativeContent is the answer's content blocks as the API would have
// given them unstreamed, for the message's providerData: each block as it
// started, with what its deltas streamed put in (text and citations,
// thinking and signature, a streamed tool input). Nil when every block is
// plain text or a tool call: trail's own fields then say it all, and the
// record stays as it was before trail kept blocks. A tool_use block cut
// short (call -1) is left out, like its call.
func nativeContent(blocks []*contentBlock) json.RawMessage {
	needed := false
	for _, b := range blocks {
		if (b.kind != "text" && b.kind != "tool_use") || len(b.citations) > 0 {
			needed = true
			break
		}
	}
	if !needed {
		return nil
	}
	out := make([]any, 0, len(blocks))
	for _, b := range blocks {
		if b.kind == "tool_use" && b.call < 0 {
			continue
		}
		if obj := b.native(); obj != nil {
			out = append(out, obj)
		}
	}
	return chat.NewProviderData(provider.Anthropic, logfmt.Object{logfmt.F("content", out)})
}

// native is one block rebuilt; nil when its start was not an object.
func (b *contentBlock) native() logfmt.Object {
	start := gjson.Parse(b.start)
	if !start.IsObject() {
		return nil
	}
	var o logfmt.Object
	start.ForEach(func(k, v gjson.Result) bool {
		o = append(o, logfmt.F(k.String(), json.RawMessage(v.Raw)))
		return true
	})
	switch b.kind {
	case "text":
		o = set(o, "text", b.text.String())
		if len(b.citations) > 0 {
			cs := make([]any, 0, len(b.citations))
			for _, c := range start.Get("citations").Array() {
				cs = append(cs, json.RawMessage(c.Raw))
			}
			for _, c := range b.citations {
				cs = append(cs, json.RawMessage(c))
			}
			o = set(o, "citations", cs)
		}
	case "thinking":
		o = set(o, "thinking", b.thinking.String())
		o = set(o, "signature", b.signature.String())
	default:
		// tool_use, server_tool_use and other blocks whose input streams
		if in := b.json.String(); in != "" && gjson.Valid(in) {
			o = set(o, "input", json.RawMessage(in))
		}
	}
	return o
}

// set replaces key's value in o, or adds it at the end.
func set(o logfmt.Object, key string, v any) logfmt.Object {
	for i := range o {
		if o[i].Key == key {
			o[i].Value = v
			return o
		}
	}
	return append(o, logfmt.F(key, v))
}
