package anthropic

import (
	"bytes"
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
// thinking_delta, signature_delta, citations_delta) and a
// content_block_stop, then message_delta (stop reason, stop_details,
// cumulative usage) and message_stop. ping may come at any time; error
// ends the stream with the provider's message. Unknown events and delta
// types are skipped, as the API's versioning policy asks.
//
// Text: separate text blocks are joined as the API's clients show them. A
// text block that follows another block (a server tool's result, a
// thinking block) starts a new paragraph, so a blank line goes between
// them; text blocks that follow one another directly are pieces of one
// paragraph (a web search answer splits its sentences around citations)
// and are joined as they are.
//
// What trail's message cannot hold (thinking and its signature, redacted
// thinking, server tool blocks, citations) is kept whole: every block of
// the answer, rebuilt from its start and deltas, goes into the response's
// ProviderData so the next request sends it back (request.go).
//
// A tool_use block the stream never closed (max_tokens cut its input) is
// not a call: its input is partial JSON and must never run.

// contentBlock is one block being assembled, by its index in the message.
type contentBlock struct {
	kind      string
	start     string // the content_block of content_block_start, as sent
	id        string
	name      string
	input     string // a tool_use block's input as it started ({} when streamed)
	json      strings.Builder
	text      strings.Builder
	thinking  strings.Builder
	signature strings.Builder
	citations []string
	stopped   bool
	call      int // index among the message's tool calls, -1 when not a call
}

type assembler struct {
	sink     provider.Sink
	st       *wire.Stream
	resp     provider.Response
	text     strings.Builder
	thinking strings.Builder
	blocks   map[int64]*contentBlock
	order    []*contentBlock
	calls    []*contentBlock
	last     string // the kind of the last block started
	details  gjson.Result
	done     bool
	uncached int64 // input_tokens as last reported: the prompt less its cached part
	// askedThinking: the request turned thinking on. A server that thinks
	// unasked (DeepSeek's Anthropic endpoint, models that think by
	// default) wants its thinking back all the same (request.go).
	askedThinking bool
}

// readStream turns the event stream into the answer, handing every event
// to the sink as it arrives.
func readStream(st *wire.Stream, sink provider.Sink, model string, askedThinking bool) (*provider.Response, error) {
	a := &assembler{sink: sink, st: st, blocks: map[int64]*contentBlock{}, askedThinking: askedThinking}
	a.resp.Model = model
	for events := 0; !a.done; events++ {
		ev, err := st.Next()
		if errors.Is(err, io.EOF) || errors.Is(err, wire.ErrIncomplete) && a.stopped() {
			switch {
			case a.stopped():
				// message_delta gave the stop reason: the answer is whole,
				// only message_stop (or the blank line after it) was lost.
				return a.finish(), nil
			case events == 0:
				return nil, st.Fail("the server answered without any stream event: is --base-url an Anthropic Messages API?")
			}
			return nil, st.Fail("the stream ended before message_stop: the connection was closed early")
		}
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(ev.Data)) == 0 {
			continue // an empty data field: relays send them as keep-alives
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

// stopped reports whether message_delta gave the answer's stop reason.
func (a *assembler) stopped() bool { return a.resp.StopReason != "" }

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
	case "content_block_stop":
		if b, ok := a.blocks[d.Get("index").Int()]; ok {
			b.stopped = true
		}
	case "ping":
	case "message_delta":
		if v := d.Get("delta.stop_reason").String(); v != "" {
			a.resp.StopReason = v
		}
		if sd := d.Get("delta.stop_details"); sd.IsObject() {
			a.details = sd
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
// ones. Cached prompt tokens count as input (chat.Usage) and are also
// counted apart, for their price.
func (a *assembler) usage(u gjson.Result) {
	if !u.IsObject() {
		return
	}
	// A count message_delta leaves null (the API types them nullable)
	// is not reported there: the earlier one stands.
	in, cw, cr := u.Get("input_tokens"), u.Get("cache_creation_input_tokens"), u.Get("cache_read_input_tokens")
	if in.Type == gjson.Number || cw.Type == gjson.Number || cr.Type == gjson.Number {
		if in.Type == gjson.Number {
			a.uncached = in.Int()
		}
		if cw.Type == gjson.Number {
			a.resp.Usage.CacheCreationTokens = cw.Int()
		}
		if cr.Type == gjson.Number {
			a.resp.Usage.CacheReadTokens = cr.Int()
		}
		a.resp.Usage.InputTokens = a.uncached + a.resp.Usage.CacheCreationTokens + a.resp.Usage.CacheReadTokens
		a.resp.HasUsage = true
	}
	if out := u.Get("output_tokens"); out.Type == gjson.Number {
		a.resp.Usage.OutputTokens = out.Int()
		a.resp.HasUsage = true
	}
}

func (a *assembler) block(index int64, kind string) *contentBlock {
	b, ok := a.blocks[index]
	if !ok {
		b = &contentBlock{kind: kind, call: -1}
		a.blocks[index] = b
		a.order = append(a.order, b)
	}
	return b
}

func (a *assembler) start(index int64, cb gjson.Result) {
	kind := cb.Get("type").String()
	if _, seen := a.blocks[index]; !seen && kind == "text" && a.last != "" && a.last != "text" && a.text.Len() > 0 && !strings.HasSuffix(a.text.String(), "\n\n") {
		a.textDelta("\n\n")
	}
	a.last = kind
	b := a.block(index, kind)
	b.start = cb.Raw
	switch b.kind {
	case "text":
		t := cb.Get("text").String()
		b.text.WriteString(t)
		a.textDelta(t)
	case "thinking":
		t := cb.Get("thinking").String()
		b.thinking.WriteString(t)
		b.signature.WriteString(cb.Get("signature").String())
		a.thinkingDelta(t)
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
		b := a.block(index, "text")
		t := d.Get("text").String()
		b.text.WriteString(t)
		a.textDelta(t)
	case "thinking_delta":
		b := a.block(index, "thinking")
		t := d.Get("thinking").String()
		b.thinking.WriteString(t)
		a.thinkingDelta(t)
	case "signature_delta":
		a.block(index, "thinking").signature.WriteString(d.Get("signature").String())
	case "citations_delta":
		if c := d.Get("citation"); c.Exists() {
			b := a.block(index, "text")
			b.citations = append(b.citations, c.Raw)
		}
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
		if !b.stopped {
			b.call = -1 // cut short: never a call
			continue
		}
		a.resp.ToolCalls = append(a.resp.ToolCalls, chat.ToolCall{ID: b.id, Type: "function", Name: b.name, Arguments: b.arguments()})
	}
	a.resp.Stop = stopOf(a.resp.StopReason)
	if a.resp.Stop == provider.StopRefusal {
		a.resp.Refusal = refusalText(a.details)
	}
	a.resp.ProviderData = nativeContent(a.order, !a.askedThinking)
	return &a.resp
}

// arguments is a tool_use block's input as a JSON string.
func (b *contentBlock) arguments() string {
	args := strings.TrimSpace(b.json.String())
	if args == "" {
		// Gateways that do not stream tool input send it whole at the start.
		args = b.input
	}
	if args == "" {
		args = "{}"
	}
	return args
}

// stopOf maps the API's stop reasons to the ones the engine acts on.
func stopOf(reason string) string {
	switch reason {
	case "max_tokens":
		return provider.StopMaxTokens
	case "model_context_window_exceeded":
		return provider.StopContextFull
	case "refusal":
		return provider.StopRefusal
	case "pause_turn":
		return provider.StopPauseTurn
	}
	return ""
}

// refusalText is what stop_details says of a refusal: its explanation and
// category, when the API gave them.
func refusalText(d gjson.Result) string {
	text := d.Get("explanation").String()
	if c := d.Get("category").String(); c != "" {
		if text == "" {
			return "category " + c
		}
		text += " (category " + c + ")"
	}
	return text
}
