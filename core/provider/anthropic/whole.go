package anthropic

import (
	"github.com/tidwall/gjson"

	"trail/core/provider"
	"trail/core/provider/wire"
)

// A server that ignores "stream": true answers one Message object, what
// the stream's events would have built: its content blocks whole, the
// stop reason and the usage. It is read by the stream's assembler, each
// block as a content_block_start that carries all of it (as gateways
// that do not stream tool input send it) and is stopped at once, so the
// answer, its calls and the blocks kept for the next request come out as
// from a stream. The body goes to the log as the "response" payload.

// isWhole reports whether a JSON body is a Message.
func isWhole(body []byte) bool {
	m := gjson.ParseBytes(body)
	return m.Get("type").Str == "message" && m.Get("content").IsArray()
}

func readWhole(st *wire.Stream, body []byte, sink provider.Sink, model string, askedThinking bool) (*provider.Response, error) {
	a := &assembler{sink: sink, st: st, blocks: map[int64]*contentBlock{}, askedThinking: askedThinking}
	a.resp.Model = model
	sink.RawPayload("response", wire.Payload(body))
	m := gjson.ParseBytes(body)
	if v := m.Get("model").String(); v != "" {
		a.resp.Model = v
	}
	for i, cb := range m.Get("content").Array() {
		a.start(int64(i), cb)
		a.blocks[int64(i)].stopped = true
	}
	a.resp.StopReason = m.Get("stop_reason").String()
	if sd := m.Get("stop_details"); sd.IsObject() {
		a.details = sd
	}
	a.usage(m.Get("usage"))
	resp := a.finish()
	resp.NotStreamed = true
	return resp, nil
}
