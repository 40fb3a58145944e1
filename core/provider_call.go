package core

import (
	"context"
	"errors"
	"strings"
	"time"

	"trail/core/chat"
	"trail/core/errs"
	"trail/core/provider"
	"trail/logfmt"
)

// providerCall is one request: a round of the conversation, or a side call
// such as compaction's summary, which has its own execution id and does not
// stream to the user as an answer.
type providerCall struct {
	execID   string
	round    int
	messages []chat.Message
	tools    []chat.ToolSchema
	quiet    bool // no text_delta lines, no observer text: not the answer
	purpose  string
	history  bool // messages is the conversation (requestMessages): the log proves it by digest
}

// callProvider sends one round of the conversation.
func (s *session) callProvider(ctx context.Context, round int) (*provider.Response, string, error) {
	return s.send(ctx, providerCall{execID: s.execID, round: round, messages: s.requestMessages(), tools: s.toolSchemas(), history: true})
}

// send makes one provider call. It returns the answer, or the error and
// whatever answer text had streamed: the user has seen it, so the loop
// keeps it as an interrupted message, whether a signal or a failure (a cut
// or malformed stream) ended the call. Either way the request is paired in
// the log with a native payload and the raw and normalized response
// events, so every log trail writes validates.
func (s *session) send(ctx context.Context, pc providerCall) (*provider.Response, string, error) {
	round := pc.round
	req := &provider.Request{
		Model:           s.pcfg.Model,
		Messages:        pc.messages,
		Tools:           pc.tools,
		MaxTokens:       s.maxTokens,
		MaxTokensSet:    s.maxTokensSet,
		NoStreamOptions: s.streamOptionsOff(),
		NoCache:         s.opts.Settings.PromptCachingOff,
		CallIndex:       s.providerCalls,
	}
	if !pc.quiet { // a summary needs no thinking
		req.Thinking = s.thinking
	}
	sent, err := s.requestFields(pc, req.Messages)
	if err != nil {
		return nil, "", err
	}
	fields := roundFields(pc.execID, round,
		logfmt.F("provider", s.pcfg.Name),
		logfmt.F("model", s.pcfg.Model))
	fields = append(fields, sent...)
	if pc.purpose != "" {
		fields = append(fields, logfmt.F("purpose", pc.purpose))
	}
	s.logEvent("provider_request", fields...)
	s.providerCalls++
	sink := &roundSink{s: s, round: round, execID: pc.execID, quiet: pc.quiet}
	if !pc.quiet {
		s.obs.Event(StepEvent{Kind: EvProviderWaiting, Round: round})
	}
	t0 := s.now()
	resp, err := s.provider.Call(ctx, req, sink)
	s.apiTime += s.now().Sub(t0)
	if err == nil && resp == nil {
		err = &errs.ProviderError{Provider: s.pcfg.Name, Message: "no response"}
	}
	if err != nil {
		sink.flushCut() // what redaction held back, before the answer is committed
		if ctx.Err() != nil {
			partial := s.red.CutEnd(sink.text.String())
			s.logResponse(sink, &provider.Response{Text: partial}, "interrupted")
			return nil, partial, err
		}
		s.logFailure(sink, err)
		var pe *errs.ProviderError
		if !errors.As(err, &pe) && !errors.Is(err, context.Canceled) {
			err = &errs.ProviderError{Provider: s.pcfg.Name, Message: err.Error(), Err: err}
		} else if pe != nil {
			s.nameModelSource(pe)
		}
		partial := ""
		if !pc.quiet { // a side call's text was never shown
			partial = s.red.CutEnd(sink.text.String())
		}
		return nil, partial, err
	}
	// A provider that returned text it never streamed still owes the
	// observers its deltas, or a terminal would show nothing.
	if streamed := sink.text.String(); strings.HasPrefix(resp.Text, streamed) && len(resp.Text) > len(streamed) {
		sink.held.open = nil // no stream event carried this text
		sink.TextDelta(resp.Text[len(streamed):])
	}
	sink.flush()
	s.logResponse(sink, resp, "")
	if resp.StreamOptionsRejected {
		s.rememberNoStreamOptions()
	}
	if resp.NotStreamed && !s.notStreamedSaid {
		// Once a step: the user should know why the answer came all at
		// once, not be told again each round of a tool loop.
		s.notStreamedSaid = true
		s.obs.Event(StepEvent{Kind: EvNotice, Text: s.pcfg.Name + ": the server does not stream: its answer came whole, at the end"})
	}
	return resp, "", nil
}

// requestMessages is what is sent: the conversation, with the interrupted
// note on interrupted assistant messages (SPEC 3.3). The session's own
// messages are shared (providers only read them) unless a note is needed.
func (s *session) requestMessages() []chat.Message {
	for i := range s.messages {
		s.messages[i].CompactLen() // cache the encoding the log and estimator share
	}
	interrupted := false
	for i := range s.messages {
		if s.messages[i].Role == chat.RoleAssistant && s.messages[i].State == chat.StateInterrupted {
			interrupted = true
			break
		}
	}
	if !interrupted {
		return s.messages[:len(s.messages):len(s.messages)]
	}
	out := make([]chat.Message, len(s.messages))
	copy(out, s.messages)
	for i := range out {
		if out[i].Role == chat.RoleAssistant && out[i].State == chat.StateInterrupted {
			out[i] = out[i].WithInterruptedNote()
		}
	}
	return out
}

func (s *session) logResponse(sink *roundSink, resp *provider.Response, note string) {
	round := sink.round
	if !sink.native {
		sink.RawPayload("response", responsePayload(resp))
	}
	norm := normalized(resp)
	rawFields := roundFields(sink.execID, round,
		logfmt.F("response", norm),
		logfmt.F("responseKind", "provider-normalized-message"))
	if note != "" {
		rawFields = append(rawFields, logfmt.F("note", note))
	}
	s.logEvent("provider_response_raw", rawFields...)
	s.logEvent("provider_response_normalized", roundFields(sink.execID, round,
		logfmt.F("response", norm),
		logfmt.F("toolCallsCount", len(resp.ToolCalls)))...)
}

func (s *session) logFailure(sink *roundSink, err error) {
	round := sink.round
	var pe *errs.ProviderError
	errObj := logfmt.Object{logfmt.F("message", err.Error())}
	if errors.As(err, &pe) && pe.Status != 0 {
		errObj = append(errObj, logfmt.F("status", pe.Status))
	}
	if !sink.native {
		sink.RawPayload("response", logfmt.Object{logfmt.F("error", errObj)})
	}
	s.logEvent("provider_response_raw", roundFields(sink.execID, round,
		logfmt.F("response", logfmt.Object{logfmt.F("error", errObj)}),
		logfmt.F("responseKind", "error"))...)
	s.logEvent("provider_response_normalized", roundFields(sink.execID, round,
		logfmt.F("response", nil),
		logfmt.F("toolCallsCount", 0),
		logfmt.F("error", errObj))...)
}

// normalized is the provider answer as a Robota assistant message (no id yet:
// the committed message carries the id).
func normalized(resp *provider.Response) logfmt.Object {
	o := logfmt.Object{logfmt.F("role", chat.RoleAssistant), logfmt.F("content", resp.Text)}
	if len(resp.ToolCalls) > 0 {
		o = append(o, logfmt.F("toolCalls", chat.ToolCallObjects(resp.ToolCalls)))
	}
	if resp.HasUsage {
		o = append(o, logfmt.F("usage", logfmt.Object{
			logfmt.F("inputTokens", resp.Usage.InputTokens),
			logfmt.F("outputTokens", resp.Usage.OutputTokens),
		}))
	}
	if resp.StopReason != "" {
		o = append(o, logfmt.F("stopReason", resp.StopReason))
	}
	return o
}

// responsePayload stands in for the native payload of providers without a
// wire (echo, script), so the request still has its native response event.
func responsePayload(resp *provider.Response) logfmt.Object {
	return normalized(resp)
}

// roundSink turns a provider's stream into log lines and observer events.
type roundSink struct {
	s      *session
	round  int
	execID string
	quiet  bool
	text   strings.Builder
	seqRaw int // provider_native_raw_payload sequence
	seqTxt int // provider_stream_raw_delta sequence
	native bool
	held   streamLog // streamed text and payloads redaction holds back (stream_log.go)
}

func (k *roundSink) TextDelta(text string) {
	if text == "" {
		return
	}
	k.text.WriteString(text)
	k.streamText(text)
	if k.quiet {
		return
	}
	k.s.obs.Event(StepEvent{Kind: EvTextDelta, Round: k.round, Text: text})
}

func (k *roundSink) ThinkingDelta(text string) {
	k.streamThinking(text)
	if k.quiet {
		return
	}
	k.s.obs.Event(StepEvent{Kind: EvThinkingDelta, Round: k.round, Text: text})
}

func (k *roundSink) ToolCallStarted(index int, id, name string) {
	if k.quiet {
		return
	}
	k.s.obs.Event(StepEvent{Kind: EvToolCallStreaming, Round: k.round, ToolCall: &chat.ToolCall{ID: id, Name: name}})
}

func (k *roundSink) RawPayload(kind string, payload any) {
	if kind == "response" || kind == "stream_event" {
		k.native = true
	}
	if kind == "request" {
		payload = k.s.requestPayload(payload)
	}
	k.payload(kind, payload)
}

// logPayload writes one provider_native_raw_payload line.
func (k *roundSink) logPayload(kind string, payload any) {
	s := k.s
	s.logEvent("provider_native_raw_payload", roundFields(k.execID, k.round,
		logfmt.F("provider", s.pcfg.Name),
		logfmt.F("apiSurface", s.provider.APISurface()),
		logfmt.F("payloadKind", kind),
		logfmt.F("payload", payload),
		logfmt.F("sequence", k.seqRaw))...)
	k.seqRaw++
}

func (k *roundSink) Retry(attempt int, wait time.Duration, reason error) {
	s := k.s
	msg, brief := "", s.pcfg.Name+": error"
	if reason != nil {
		msg, brief = reason.Error(), reason.Error()
	}
	var pe *errs.ProviderError
	if errors.As(reason, &pe) {
		brief = pe.Brief()
	}
	s.logEvent("provider_retry", roundFields(k.execID, k.round,
		logfmt.F("provider", s.pcfg.Name),
		logfmt.F("attempt", attempt),
		logfmt.F("waitMs", wait.Milliseconds()),
		logfmt.F("reason", msg))...)
	s.obs.Event(StepEvent{Kind: EvRetry, Round: k.round, Attempt: attempt, Of: s.pcfg.MaxRetries, Wait: wait, Text: msg, Brief: brief})
}
