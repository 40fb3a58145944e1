package anthropic

import (
	"errors"
	"io"
	"strings"

	"github.com/tidwall/gjson"

	"trail/core/chat"
	"trail/core/provider"
	"trail/core/provider/wire"
)

// Stream events (SPEC 4.2): message_start, then for each content block a
// content_block_start, its deltas (text_delta, input_json_delta,
// thinking_delta, signature_delta) and a content_block_stop, then
// message_delta (stop reason, cumulative usage) and message_stop. ping
// may come at any time; error ends the stream with the provider's message.
// Unknown events and delta types are skipped, as the API's versioning
// policy asks.

// contentBlock is one block being assembled, by its index in the message.
type contentBlock struct {
	kind  string // text, tool_use, thinking, ...
	id    string
	name  string
	input string // a tool_use block's input as it started ({} when streamed)
	json  strings.Builder
	call  int // index among the message's tool calls
}

type assembler struct {
	sink     provider.Sink
	st       *wire.Stream
	resp     provider.Response
	text     strings.Builder
	thinking strings.Builder
	blocks   map[int64]*contentBlock
	calls    []*contentBlock
	done     bool
}

// readStream turns the event stream into the answer, handing every event
// to the sink as it arrives.
func readStream(st *wire.Stream, sink provider.Sink, model string) (*provider.Response, error) {
	a := &assembler{sink: sink, st: st, blocks: map[int64]*contentBlock{}}
	a.resp.Model = model
	for events := 0; !a.done; events++ {
		ev, err := st.Next()
		if errors.Is(err, io.EOF) {
			if events == 0 {
				return nil, st.Fail("the server answered without any stream event: is --base-url an Anthropic Messages API?")
			}
			return nil, st.Fail("the stream ended before message_stop: the connection was closed early")
		}
		if err != nil {
			return nil, err
		}
		sink.RawPayload("stream_event", wire.Payload(ev.Data))
		if !gjson.ValidBytes(ev.Data) {
			return nil, st.Malformed("not JSON", ev.Data)
		}
		if err := a.handle(ev.Name, gjson.ParseBytes(ev.Data)); err != nil {
			return nil, err
		}
	}
	return a.finish(), nil
}

func (a *assembler) handle(name string, d gjson.Result) error {
	typ := d.Get("type").String()
	if typ == "" {
		typ = name
	}
	switch typ {
	case "message_start":
		m := d.Get("message")
		if v := m.Get("model").String(); v != "" {
			a.resp.Model = v
		}
		a.usage(m.Get("usage"))
	case "content_block_start":
		a.start(d.Get("index").Int(), d.Get("content_block"))
	case "content_block_delta":
		a.delta(d.Get("index").Int(), d.Get("delta"))
	case "content_block_stop", "ping":
		// a tool call's input is complete only now, but nothing reads it
		// before the message ends
	case "message_delta":
		if v := d.Get("delta.stop_reason").String(); v != "" {
			a.resp.StopReason = v
		}
		a.usage(d.Get("usage"))
	case "message_stop":
		a.done = true
	case "error":
		return a.st.Reported([]byte(d.Raw))
	}
	return nil
}

// usage reads the usage object of message_start and message_delta. The
// counts of message_delta are cumulative, so later values replace earlier
// ones. Cached prompt tokens count as input: they fill the context window
// all the same.
func (a *assembler) usage(u gjson.Result) {
	if !u.IsObject() {
		return
	}
	in := u.Get("input_tokens")
	cw, cr := u.Get("cache_creation_input_tokens"), u.Get("cache_read_input_tokens")
	if in.Exists() || cw.Exists() || cr.Exists() {
		a.resp.Usage.InputTokens = in.Int() + cw.Int() + cr.Int()
		a.resp.HasUsage = true
	}
	if out := u.Get("output_tokens"); out.Exists() {
		a.resp.Usage.OutputTokens = out.Int()
		a.resp.HasUsage = true
	}
}

func (a *assembler) block(index int64, kind string) *contentBlock {
	b, ok := a.blocks[index]
	if !ok {
		b = &contentBlock{kind: kind}
		a.blocks[index] = b
	}
	return b
}

func (a *assembler) start(index int64, cb gjson.Result) {
	b := a.block(index, cb.Get("type").String())
	switch b.kind {
	case "text":
		a.textDelta(cb.Get("text").String())
	case "thinking":
		a.thinkingDelta(cb.Get("thinking").String())
	case "tool_use":
		b.id, b.name, b.input = cb.Get("id").String(), cb.Get("name").String(), cb.Get("input").Raw
		b.call = len(a.calls)
		a.calls = append(a.calls, b)
		a.sink.ToolCallStarted(b.call, b.id, b.name)
	}
}

func (a *assembler) delta(index int64, d gjson.Result) {
	switch d.Get("type").String() {
	case "text_delta":
		a.block(index, "text")
		a.textDelta(d.Get("text").String())
	case "thinking_delta":
		a.block(index, "thinking")
		a.thinkingDelta(d.Get("thinking").String())
	case "input_json_delta":
		b := a.block(index, "tool_use")
		piece := d.Get("partial_json").String()
		b.json.WriteString(piece)
		if ts, ok := a.sink.(provider.ToolInputSink); ok && piece != "" && b.kind == "tool_use" {
			ts.ToolInputDelta(b.call, piece)
		}
	}
}

func (a *assembler) textDelta(s string) {
	if s == "" {
		return
	}
	a.text.WriteString(s)
	a.sink.TextDelta(s)
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
	for _, b := range a.calls {
		args := strings.TrimSpace(b.json.String())
		if args == "" {
			// Gateways that do not stream tool input send it whole at the start.
			args = b.input
		}
		if args == "" {
			args = "{}"
		}
		a.resp.ToolCalls = append(a.resp.ToolCalls, chat.ToolCall{ID: b.id, Type: "function", Name: b.name, Arguments: args})
	}
	return &a.resp
}
