package anthropic

import (
	"encoding/json"

	"github.com/tidwall/gjson"

	"trail/core/provider"
	"trail/core/provider/wire"
)

// nativeContent is the answer's content blocks as the API would have
// given them unstreamed, for the message's providerData: each block as it
// started, with what its deltas streamed put in (text and citations,
// thinking and signature, a streamed tool input). Nil when every block is
// plain text or a tool call: trail's own fields then say it all, and the
// record stays as it was before trail kept blocks. A tool_use block cut
// short (call -1) is left out, like its call. unasked marks thinking the
// server did though the request did not turn it on: thinkingUnasked, so
// it goes back whether or not the next request asks for thinking.
func nativeContent(blocks []*contentBlock, unasked bool) json.RawMessage {
	needed := false
	for _, b := range blocks {
		if (b.kind != "text" && b.kind != "tool_use") || len(b.citations) > 0 || gjson.Get(b.start, "citations.#").Int() > 0 {
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
	fields := wire.Fields{{Key: "content", Value: out}}
	if unasked && thought(blocks) {
		fields = append(fields, wire.Field{Key: thinkingUnasked, Value: true})
	}
	return wire.ProviderData(provider.Anthropic, fields)
}

// thinkingUnasked is the providerData key of thinking the server did unasked.
const thinkingUnasked = "thinkingUnasked"

// thought reports whether the answer holds thinking.
func thought(blocks []*contentBlock) bool {
	for _, b := range blocks {
		if b.kind == "thinking" || b.kind == "redacted_thinking" {
			return true
		}
	}
	return false
}

// native is one block rebuilt; nil when its start was not an object.
func (b *contentBlock) native() wire.Fields {
	start := gjson.Parse(b.start)
	if !start.IsObject() {
		return nil
	}
	var o wire.Fields
	start.ForEach(func(k, v gjson.Result) bool {
		o = append(o, wire.Field{Key: k.String(), Value: json.RawMessage(v.Raw)})
		return true
	})
	switch b.kind {
	case "text":
		o = o.Set("text", b.text.String())
		if len(b.citations) > 0 {
			cs := make([]any, 0, len(b.citations))
			for _, c := range start.Get("citations").Array() {
				cs = append(cs, json.RawMessage(c.Raw))
			}
			for _, c := range b.citations {
				cs = append(cs, json.RawMessage(c))
			}
			o = o.Set("citations", cs)
		}
	case "thinking":
		o = o.Set("thinking", b.thinking.String())
		o = o.Set("signature", b.signature.String())
	default:
		// tool_use, server_tool_use and other blocks whose input streams
		if in := b.json.String(); in != "" && gjson.Valid(in) {
			o = o.Set("input", json.RawMessage(in))
		}
	}
	return o
}
