package openai

import (
	"github.com/tidwall/gjson"

	"trail/core/provider"
	"trail/core/provider/wire"
)

// A server that ignores "stream": true (some proxies, and local servers
// with streaming turned off) answers one chat.completion object: the
// choices carry the whole message where a stream's chunks carry deltas.
// It is the answer all the same, read by the chunk reader with "message"
// for "delta": text, reasoning, refusal, tool calls (their list order
// for the index), finish reason and usage. The body goes to the log as
// the "response" payload, as SPEC 4.1 has it for a body that is not a
// stream.

// isWhole reports whether a JSON body is a chat.completion answer.
func isWhole(body []byte) bool {
	c := gjson.ParseBytes(body)
	return c.Get("object").Str == "chat.completion" || c.Get("choices.0.message").IsObject()
}

func readWhole(st *wire.Stream, body []byte, sink provider.Sink, model string, callIndex int) (*provider.Response, error) {
	a := &assembler{sink: sink, st: st, callIndex: callIndex, at: map[int64]*call{}}
	a.resp.Model = model
	sink.RawPayload("response", wire.Payload(body))
	if err := a.read(gjson.ParseBytes(body), "message"); err != nil {
		return nil, err
	}
	resp := a.finish()
	resp.NotStreamed = true
	return resp, nil
}
