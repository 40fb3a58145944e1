package core

import (
	"trail/logfmt"
)

// Streamed text reaches the log redacted on the joined text (logfmt's
// TextStream): a key the model writes four characters at a time is in no
// text_delta line, and the lines, joined, are exactly the answer the record
// keeps, redacted. What a stream holds back (the tail that could still grow
// into a key) is logged with the next delta, and all of it when the call
// ends, whether it answered, failed or was interrupted (flush).
//
// The provider's own payloads carry the same pieces, one per stream event,
// and the pieces of the thinking and of each tool call's arguments too, so
// they are held as well: a stream event is logged once every piece it
// carried is released, with each piece replaced by what redaction made of
// it. Payload lines keep their order; a held payload holds the ones after
// it.
//
// A provider hands the sink a stream event first and then the pieces it
// carried (TextDelta, ThinkingDelta, ToolInputDelta), so an event stays
// open for pieces until the next event, or the end of the call.

// streamLog is the roundSink's share of that.
type streamLog struct {
	text, thinking *logfmt.TextStream         // made on first use
	toolInput      map[int]*logfmt.TextStream // by tool call index
	queue          []*heldPayload             // payloads not logged yet, in order
	open           *heldPayload               // the last stream event, still taking pieces
}

type heldPayload struct {
	kind    string
	payload any
	pieces  []heldPiece
}

// heldPiece is piece n of a stream, which a payload carried as text.
type heldPiece struct {
	stream *logfmt.TextStream
	n      int
	text   string
}

func (k *roundSink) textStream() *logfmt.TextStream {
	if k.held.text == nil {
		k.held.text = k.s.red.Stream()
	}
	return k.held.text
}

func (k *roundSink) thinkingStream() *logfmt.TextStream {
	if k.held.thinking == nil {
		k.held.thinking = k.s.red.Stream()
	}
	return k.held.thinking
}

// streamText logs what redaction releases of the answer's text so far.
func (k *roundSink) streamText(text string) {
	released := k.carried(k.textStream(), text)
	k.logText(released)
}

// streamThinking runs thinking through its own stream: it is not logged as
// text, but the payloads that carried it are.
func (k *roundSink) streamThinking(text string) {
	k.carried(k.thinkingStream(), text)
}

// ToolInputDelta runs a tool call's arguments through a stream of their
// own, for the payloads that carried them: the arguments are logged whole
// with the answer.
func (k *roundSink) ToolInputDelta(index int, piece string) {
	st := k.held.toolInput[index]
	if st == nil {
		if k.held.toolInput == nil {
			k.held.toolInput = map[int]*logfmt.TextStream{}
		}
		st = k.s.red.Stream()
		k.held.toolInput[index] = st
	}
	k.carried(st, piece)
}

// carried writes a piece to its stream, notes that the open stream event
// carried it, and returns what the stream released.
func (k *roundSink) carried(st *logfmt.TextStream, piece string) logfmt.RedactedText {
	released, n := st.Write(piece)
	if p := k.held.open; p != nil {
		p.pieces = append(p.pieces, heldPiece{st, n, piece})
	}
	return released
}

// payload logs a provider payload, or queues it: a stream event until the
// text it carries is released, anything else while earlier ones wait.
func (k *roundSink) payload(kind string, payload any) {
	k.held.open = nil
	if kind != "stream_event" && len(k.held.queue) == 0 {
		k.logPayload(kind, payload)
		return
	}
	p := &heldPayload{kind: kind, payload: payload}
	k.held.queue = append(k.held.queue, p)
	if kind == "stream_event" {
		k.held.open = p
	}
	k.drain()
}

// flush releases everything held: the call is over.
func (k *roundSink) flush() { k.release(false) }

// flushCut releases everything held of a call cut short: the answer's
// text it held is released as TextStream.FlushCut does (no part of a key
// it was writing), as cutAnswer keeps it.
func (k *roundSink) flushCut() { k.release(true) }

func (k *roundSink) release(cut bool) {
	k.held.open = nil
	var released logfmt.RedactedText
	switch {
	case k.held.text != nil && cut:
		released = k.held.text.FlushCut()
	case k.held.text != nil:
		released = k.held.text.Flush()
	}
	if k.held.thinking != nil {
		k.held.thinking.Flush()
	}
	for _, st := range k.held.toolInput {
		st.Flush()
	}
	k.drain()
	k.logText(released)
}

// drain logs the queued payloads whose pieces are all released.
func (k *roundSink) drain() {
	for len(k.held.queue) > 0 {
		p := k.held.queue[0]
		if p == k.held.open {
			return
		}
		payload := p.payload
		for _, pc := range p.pieces {
			out, ok := pc.stream.Piece(pc.n)
			if !ok {
				return
			}
			if out != pc.text {
				payload = logfmt.ReplacePieceText(payload, pc.text, out)
			}
		}
		k.held.queue[0] = nil
		k.held.queue = k.held.queue[1:]
		k.logPayload(p.kind, payload)
	}
}

// logText writes released text: the raw delta line and, for the answer,
// the text_delta line.
func (k *roundSink) logText(text logfmt.RedactedText) {
	if text.String() == "" {
		return
	}
	k.s.logEvent("provider_stream_raw_delta", roundFields(k.execID, k.round,
		logfmt.F("sequence", k.seqTxt),
		logfmt.F("delta", text))...)
	k.seqTxt++
	if !k.quiet {
		k.s.logEvent("text_delta", logfmt.F("delta", text))
	}
}
