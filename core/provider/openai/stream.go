package openai

import (
	"bytes"
	"encoding/json"
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
// [DONE] has empty choices and the usage (OpenRouter sends it after the
// finish chunk, with a choices entry); Groq, before it took
// stream_options, sent it only as x_groq.usage on the finish chunk, which
// counts when no top-level usage came. Reasoning servers stream
// delta.reasoning_content (DeepSeek, llama.cpp, older vLLM and LM Studio)
// or delta.reasoning (newer vLLM and LM Studio, Ollama, OpenRouter). A
// refusal streams as delta.refusal with content null and ends with
// finish_reason "stop". A server that closes the stream without [DONE]
// after a finish_reason has finished; one that closes before any
// finish_reason was cut. A failure mid-stream is a chunk with an "error"
// object (OpenAI, OpenRouter, newer llama.cpp), an {"object":"error"}
// chunk (vLLM), or an "error:" line (older llama.cpp, read by wire as an
// event named "error"); one before any content that stands for a retried
// status is retried as that status (early.go).
//
// Tool calls arrive as delta.tool_calls fragments: the first names the
// id and the function, later ones append to the arguments, each keyed by
// index. Servers bend this: gateways (LiteLLM, OneAPI, Ollama, Responses
// translators) send a second call at an index already used, with its own
// id; vLLM repeats the id on every fragment and LM Studio sends name ""
// on them; Gemini's endpoint may leave out the index and send id "".
// So a fragment goes on with the call at its index (the last call when it
// has none) unless it plainly starts another: it has an id, the call has
// a different one (or none, and is already whole); or it has no id but a
// name, and the call is already whole (its arguments are complete JSON).
// A call without an id gets one that is unique in the session
// (trail_call_<provider call>_<position>), used in the record, the tool
// result and every later request alike. The legacy delta.function_call
// (older Azure api-versions, FastChat, LocalAI; finish_reason
// "function_call") is one such call: a name, then argument pieces.
//
// A finish_reason that says the generation failed is a failure, not an
// answer, as an error chunk would be: "error" (OpenRouter's mid-stream
// failure) and "abort" (vLLM, an aborted request).

type call struct {
	id, name string
	serverID string // the id the server gave, "" when none
	pos      int    // index among the answer's calls
	args     strings.Builder
	extra    string // the call's extra_content (Gemini's thought signature), raw
}

// whole reports whether the call's arguments so far are a complete JSON
// value: a fragment with a new name then starts another call.
func (c *call) whole() bool {
	a := strings.TrimSpace(c.args.String())
	return c.name != "" && a != "" && gjson.Valid(a)
}

type assembler struct {
	sink      provider.Sink
	st        *wire.Stream
	callIndex int
	resp      provider.Response
	text      strings.Builder
	thinking  strings.Builder
	refusal   strings.Builder
	reasoning *strings.Builder // reasoning_content, when the server sent it (a string, even "")
	extra     string           // delta.extra_content, raw
	calls     []*call
	at        map[int64]*call // the open call at each index
	finished  bool
	topUsage  bool // a top-level usage came: x_groq.usage only stands in for one
}

func readStream(st *wire.Stream, sink provider.Sink, model string, callIndex int) (*provider.Response, error) {
	a := &assembler{sink: sink, st: st, callIndex: callIndex, at: map[int64]*call{}}
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
		if len(bytes.TrimSpace(ev.Data)) == 0 {
			continue // an empty data field: relays send them as keep-alives
		}
		if string(ev.Data) == "[DONE]" {
			sink.RawPayload("stream_event", "[DONE]")
			return a.finish(), nil
		}
		sink.RawPayload("stream_event", wire.Payload(ev.Data))
		if ev.Name == "error" {
			return nil, st.Reported(ev.Data)
		}
		if !gjson.ValidBytes(ev.Data) {
			return nil, st.Malformed("not JSON", ev.Data)
		}
		if err := a.chunk(gjson.ParseBytes(ev.Data)); err != nil {
			return nil, err
		}
	}
}

func (a *assembler) chunk(c gjson.Result) error { return a.read(c, "delta") }

// read reads a chunk, whose choices carry a "delta", or the whole answer
// of a server that did not stream, whose choices carry the "message".
func (a *assembler) read(c gjson.Result, part string) error {
	// "error": null rides on every chunk of some servers (Foundry Local):
	// only an error that says something is one.
	if e := c.Get("error"); e.Exists() && e.Type != gjson.Null || c.Get("object").String() == "error" {
		return a.st.Reported([]byte(c.Raw))
	}
	if v := c.Get("model").String(); v != "" {
		a.resp.Model = v
	}
	if u := c.Get("usage"); u.IsObject() {
		a.usage(u)
		a.topUsage = true
	} else if u := c.Get("x_groq.usage"); u.IsObject() && !a.topUsage {
		a.usage(u)
	}
	for _, ch := range c.Get("choices").Array() {
		if idx := ch.Get("index"); idx.Exists() && idx.Int() != 0 {
			continue // only the first choice is the answer
		}
		d := ch.Get(part)
		if r := d.Get("reasoning_content"); r.Type == gjson.String {
			if a.reasoning == nil {
				a.reasoning = &strings.Builder{}
			}
			a.reasoning.WriteString(r.String())
			a.thinkingDelta(r.String())
		} else if r := d.Get("reasoning"); r.Type == gjson.String {
			a.thinkingDelta(r.String())
		}
		if t := d.Get("content"); t.Type == gjson.String && t.String() != "" {
			a.text.WriteString(t.String())
			a.sink.TextDelta(t.String())
		}
		if r := d.Get("refusal"); r.Type == gjson.String {
			a.refusal.WriteString(r.String())
		}
		if ec := d.Get("extra_content"); ec.IsObject() {
			a.extra = ec.Raw
		}
		for i, tc := range d.Get("tool_calls").Array() {
			f := a.toolCall(tc)
			if !f.indexed && part == "message" {
				f.index, f.indexed = int64(i), true // a whole message's calls are its list
			}
			a.fragment(f)
		}
		if fc := d.Get("function_call"); fc.IsObject() {
			a.fragment(fragment{name: fc.Get("name").String(), args: fc.Get("arguments").String()})
		}
		if fr := ch.Get("finish_reason"); fr.Type == gjson.String && fr.String() != "" {
			if why := failedFinish(fr.String()); why != "" {
				return a.st.Fail(why)
			}
			a.resp.StopReason = fr.String()
			a.finished = true
		}
	}
	return nil
}

// usage reads a usage object. prompt_tokens includes the cached tokens
// (prompt_tokens_details.cached_tokens; DeepSeek's prompt_cache_hit_tokens).
func (a *assembler) usage(u gjson.Result) {
	a.resp.Usage = chat.Usage{InputTokens: u.Get("prompt_tokens").Int(), OutputTokens: u.Get("completion_tokens").Int()}
	cached := u.Get("prompt_tokens_details.cached_tokens")
	if !cached.Exists() {
		cached = u.Get("prompt_cache_hit_tokens")
	}
	a.resp.Usage.CacheReadTokens = min(cached.Int(), a.resp.Usage.InputTokens)
	a.resp.HasUsage = true
}

// failedFinish says why a finish_reason means the generation failed, ""
// when it does not.
func failedFinish(reason string) string {
	switch reason {
	case "error":
		return `the generation failed on the server (finish_reason "error")`
	case "abort":
		return `the server aborted the generation (finish_reason "abort")`
	}
	return ""
}

// fragment is one piece of a tool call as a delta carries it.
type fragment struct {
	id, name, args string
	index          int64
	indexed        bool   // the fragment named its index
	extra          string // its extra_content, raw
}

// toolCall reads one delta.tool_calls entry.
func (a *assembler) toolCall(tc gjson.Result) fragment {
	f := fragment{id: tc.Get("id").String(), name: tc.Get("function.name").String(), args: tc.Get("function.arguments").String()}
	if v := tc.Get("index"); v.Type == gjson.Number {
		f.index, f.indexed = v.Int(), true
	}
	if ec := tc.Get("extra_content"); ec.IsObject() {
		f.extra = ec.Raw
	}
	return f
}

// fragment merges f into its call, or starts a new one (the file comment
// says when).
func (a *assembler) fragment(f fragment) {
	var c *call
	if f.indexed {
		c = a.at[f.index]
	} else if n := len(a.calls); n > 0 {
		c = a.calls[n-1]
	}
	if c == nil || startsAnother(c, f.id, f.name) {
		c = &call{pos: len(a.calls), serverID: f.id, id: f.id}
		if c.id == "" {
			c.id = fmt.Sprintf("trail_call_%d_%d", a.callIndex, c.pos)
		}
		a.calls = append(a.calls, c)
		if f.indexed {
			a.at[f.index] = c
		}
		c.name = f.name
		a.sink.ToolCallStarted(c.pos, c.id, c.name)
	} else if c.name == "" && f.name != "" {
		c.name = f.name
	}
	if f.extra != "" {
		c.extra = f.extra
	}
	c.args.WriteString(f.args)
	if ts, ok := a.sink.(provider.ToolInputSink); ok && f.args != "" {
		ts.ToolInputDelta(c.pos, f.args)
	}
}

// startsAnother reports whether a fragment with id and name begins a new
// call rather than going on with c.
func startsAnother(c *call, id, name string) bool {
	switch {
	case id != "" && c.serverID != "":
		return id != c.serverID
	case id != "":
		return c.whole()
	case name != "":
		return c.whole()
	}
	return false
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
	for _, c := range a.calls {
		args := strings.TrimSpace(c.args.String())
		if args == "" {
			args = "{}"
		}
		a.resp.ToolCalls = append(a.resp.ToolCalls, chat.ToolCall{ID: c.id, Type: "function", Name: c.name, Arguments: args})
	}
	switch {
	case a.refusal.Len() > 0:
		a.resp.Stop, a.resp.Refusal = provider.StopRefusal, a.refusal.String()
	case a.resp.StopReason == "content_filter":
		a.resp.Stop, a.resp.Refusal = provider.StopRefusal, "the server's content filter stopped the answer"
	case a.resp.StopReason == "length":
		a.resp.Stop = provider.StopMaxTokens
	}
	a.resp.ProviderData = a.providerData()
	return &a.resp
}

// providerData keeps what the server needs back (request.go).
func (a *assembler) providerData() json.RawMessage {
	var f wire.Fields
	if a.reasoning != nil {
		f = append(f, wire.Field{Key: "reasoning_content", Value: a.reasoning.String()})
	}
	if a.refusal.Len() > 0 {
		f = append(f, wire.Field{Key: "refusal", Value: a.refusal.String()})
	}
	if a.extra != "" {
		f = append(f, wire.Field{Key: "extra_content", Value: json.RawMessage(a.extra)})
	}
	var calls wire.Fields
	for _, c := range a.calls {
		if c.extra != "" {
			calls = append(calls, wire.Field{Key: c.id, Value: wire.Fields{{Key: "extra_content", Value: json.RawMessage(c.extra)}}})
		}
	}
	if len(calls) > 0 {
		f = append(f, wire.Field{Key: "toolCalls", Value: calls})
	}
	return wire.ProviderData(provider.OpenAI, f)
}
