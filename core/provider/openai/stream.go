package openai

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tidwall/gjson"

	"trail/core/chat"
	"trail/core/provider"
	"trail/core/provider/wire"
)

// Each event's data is a chat.completion.chunk; the stream ends with
// "data: [DONE]". With stream_options.include_usage the last chunk before
// [DONE] has empty choices and the usage. Tool calls arrive as
// delta.tool_calls fragments keyed by index: the first names the id and the
// function, later ones append to the arguments. Reasoning servers (vLLM,
// Ollama, DeepSeek) stream delta.reasoning_content or delta.reasoning.
// A server that closes the stream without [DONE] after a finish_reason has
// finished; one that closes before any finish_reason was cut.

type call struct {
	id, name string
	pos      int // index among the answer's calls
	args     strings.Builder
}

type assembler struct {
	sink     provider.Sink
	st       *wire.Stream
	resp     provider.Response
	text     strings.Builder
	thinking strings.Builder
	calls    map[int64]*call
	order    []int64
	finished bool
}

func readStream(st *wire.Stream, sink provider.Sink, model string) (*provider.Response, error) {
	a := &assembler{sink: sink, st: st, calls: map[int64]*call{}}
	a.resp.Model = model
	for events := 0; ; events++ {
		ev, err := st.Next()
		if errors.Is(err, io.EOF) {
			if a.finished {
				return a.finish(), nil
			}
			if events == 0 {
				return nil, st.Fail("the server answered without any stream event: is --base-url an OpenAI-compatible API (usually ending in /v1)?")
			}
			return nil, st.Fail("the stream ended before [DONE]: the connection was closed early")
		}
		if err != nil {
			return nil, err
		}
		if string(ev.Data) == "[DONE]" {
			sink.RawPayload("stream_event", "[DONE]")
			return a.finish(), nil
		}
		sink.RawPayload("stream_event", wire.Payload(ev.Data))
		if !gjson.ValidBytes(ev.Data) {
			return nil, st.Malformed("not JSON", ev.Data)
		}
		if err := a.chunk(gjson.ParseBytes(ev.Data)); err != nil {
			return nil, err
		}
	}
}

func (a *assembler) chunk(c gjson.Result) error {
	if c.Get("error").Exists() {
		return a.st.Reported([]byte(c.Raw))
	}
	if v := c.Get("model").String(); v != "" {
		a.resp.Model = v
	}
	if u := c.Get("usage"); u.IsObject() {
		a.resp.Usage = chat.Usage{InputTokens: u.Get("prompt_tokens").Int(), OutputTokens: u.Get("completion_tokens").Int()}
		a.resp.HasUsage = true
	}
	for _, ch := range c.Get("choices").Array() {
		if idx := ch.Get("index"); idx.Exists() && idx.Int() != 0 {
			continue // only the first choice is the answer
		}
		d := ch.Get("delta")
		if r := d.Get("reasoning_content"); r.Type == gjson.String {
			a.thinkingDelta(r.String())
		} else if r := d.Get("reasoning"); r.Type == gjson.String {
			a.thinkingDelta(r.String())
		}
		if t := d.Get("content"); t.Type == gjson.String && t.String() != "" {
			a.text.WriteString(t.String())
			a.sink.TextDelta(t.String())
		}
		for _, tc := range d.Get("tool_calls").Array() {
			a.toolCall(tc)
		}
		if fr := ch.Get("finish_reason"); fr.Type == gjson.String && fr.String() != "" {
			a.resp.StopReason = fr.String()
			a.finished = true
		}
	}
	return nil
}

// toolCall merges one fragment into its call, which the fragment names by
// index. Servers that leave the index out (Gemini's OpenAI endpoint, some
// proxies) start each call with a fragment carrying a new id and may send
// its arguments in later fragments without one: there a new id starts a
// call, and anything else goes on with the last call.
func (a *assembler) toolCall(tc gjson.Result) {
	id := tc.Get("id").String()
	var idx int64
	if v := tc.Get("index"); v.Type == gjson.Number {
		idx = v.Int()
	} else {
		idx = a.unindexed(id)
	}
	c, ok := a.calls[idx]
	if !ok {
		c = &call{pos: len(a.order)}
		a.calls[idx] = c
		a.order = append(a.order, idx)
	}
	if id != "" && c.id == "" {
		c.id = id
	}
	if name := tc.Get("function.name").String(); name != "" && c.name == "" {
		c.name = name
	}
	if !ok {
		if c.id == "" {
			c.id = fmt.Sprintf("call_%d", idx)
		}
		a.sink.ToolCallStarted(len(a.order)-1, c.id, c.name)
	}
	piece := tc.Get("function.arguments").String()
	c.args.WriteString(piece)
	if ts, ok := a.sink.(provider.ToolInputSink); ok && piece != "" {
		ts.ToolInputDelta(c.pos, piece)
	}
}

// unindexed is the index of a fragment that has none.
func (a *assembler) unindexed(id string) int64 {
	if n := len(a.order); n > 0 {
		last := a.order[n-1]
		if id == "" || a.calls[last].id == id {
			return last
		}
	}
	idx := int64(len(a.order))
	for a.calls[idx] != nil {
		idx++
	}
	return idx
}

func (a *assembler) thinkingDelta(s string) {
	if s == "" {
		return
	}
	a.thinking.WriteString(s)
	a.sink.ThinkingDelta(s)
}

func (a *assembler) finish() *provider.Response {
	a.resp.Text = a.text.String()
	a.resp.Thinking = a.thinking.String()
	for _, idx := range a.order {
		c := a.calls[idx]
		args := strings.TrimSpace(c.args.String())
		if args == "" {
			args = "{}"
		}
		a.resp.ToolCalls = append(a.resp.ToolCalls, chat.ToolCall{ID: c.id, Type: "function", Name: c.name, Arguments: args})
	}
	return &a.resp
}
