package logfmt

import (
	"fmt"
	"hash/maphash"
	"slices"

	"trail/lazy"
)

// Provider and tool keys: a request is answered by events with the same
// key, in any order. A key stays open until every event it needs is seen;
// then it is closed, and its hash is remembered among the last
// maxClosedKeys closed, so a late duplicate of an answered event is not
// taken for an orphan while memory stays bounded by the open keys.

// maxClosedKeys bounds the closed keys remembered: far more than one step
// has, so only a duplicate thousands of requests late could be missed.
const maxClosedKeys = 4096

// closedSet is a fixed-size set of recently closed key hashes.
type closedSet struct {
	ring []uint64
	next int
	set  map[uint64]struct{}
}

func newClosedSet() *closedSet {
	return &closedSet{ring: make([]uint64, 0, maxClosedKeys), set: make(map[uint64]struct{}, maxClosedKeys)}
}

func (c *closedSet) has(h uint64) bool {
	_, ok := c.set[h]
	return ok
}

func (c *closedSet) add(h uint64) {
	if _, ok := c.set[h]; ok {
		return
	}
	if len(c.ring) < maxClosedKeys {
		c.ring = append(c.ring, h)
	} else {
		delete(c.set, c.ring[c.next])
		c.ring[c.next] = h
		c.next = (c.next + 1) % maxClosedKeys
	}
	c.set[h] = struct{}{}
}

const (
	seenNative = 1 << iota
	seenRaw
	seenNormalized
	seenAll = seenNative | seenRaw | seenNormalized
)

// eventRef is a line an issue may point at.
type eventRef struct {
	line, index int
	event       string
}

type providerKey struct {
	executionID, round string
	request            *eventRef
	seen               int
	responses          []eventRef // response lines seen before any request
}

type toolKey struct {
	executionID, toolCallID string
	request                 *eventRef
	results                 []eventRef // result lines seen before any request
}

// keySeed is random per process, made on first use.
var keySeed = lazy.Value[maphash.Seed]{New: maphash.MakeSeed}

// closedKey hashes a key with its kind so a provider key and a tool key
// with the same text stay apart.
func closedKey(kind byte, key string) uint64 {
	var h maphash.Hash
	h.SetSeed(keySeed.Get())
	h.WriteByte(kind)
	h.WriteString(key)
	return h.Sum64()
}

func (v *validator) provider(l Line, e *entry, event string) {
	if !isString(e.executionID) {
		return
	}
	round, ok := numberKey(e.round)
	if !ok {
		return
	}
	execID := unquoteToken(e.executionID)
	key := execID + ":" + round
	var bit int
	switch event {
	case "provider_request":
	case "provider_response_raw":
		bit = seenRaw
	case "provider_response_normalized":
		bit = seenNormalized
	case "provider_native_raw_payload":
		if !stringIs(e.payloadKind, "response") && !stringIs(e.payloadKind, "stream_event") {
			return // a request payload answers nothing
		}
		bit = seenNative
	}
	if v.closed.has(closedKey('p', key)) {
		return
	}
	k := v.providers[key]
	if k == nil {
		k = &providerKey{executionID: execID, round: round}
		v.providers[key] = k
	}
	if bit == 0 {
		if k.request == nil {
			k.request = &eventRef{line: l.Num, index: l.Index, event: event}
			k.responses = nil
		}
	} else {
		k.seen |= bit
		if k.request == nil {
			k.responses = append(k.responses, eventRef{line: l.Num, index: l.Index, event: event})
		}
	}
	if k.request != nil && k.seen == seenAll {
		delete(v.providers, key)
		v.closed.add(closedKey('p', key))
	}
}

func (v *validator) tool(l Line, e *entry, event string) {
	if !isString(e.executionID) {
		return
	}
	callID := e.toolCallID
	if !isString(callID) {
		callID = e.toolExecutionID
	}
	if !isString(callID) {
		return
	}
	execID, id := unquoteToken(e.executionID), unquoteToken(callID)
	if id == "" {
		return
	}
	key := execID + ":" + id
	if v.closed.has(closedKey('t', key)) {
		return
	}
	k := v.tools[key]
	if k == nil {
		k = &toolKey{executionID: execID, toolCallID: id}
		v.tools[key] = k
	}
	ref := eventRef{line: l.Num, index: l.Index, event: event}
	if event == "tool_execution_request" {
		if k.request == nil {
			k.request = &ref
		}
		if len(k.results) == 0 {
			return
		}
	} else if k.request == nil {
		k.results = append(k.results, ref)
		return
	}
	delete(v.tools, key)
	v.closed.add(closedKey('t', key))
}

// finish reports the keys still open at the end of the log, in file order.
func (v *validator) finish() {
	keys := make([]string, 0, len(v.providers))
	for key := range v.providers {
		keys = append(keys, key)
	}
	slices.SortFunc(keys, func(a, b string) int { return firstLine(v.providers[a]) - firstLine(v.providers[b]) })
	for _, key := range keys {
		k := v.providers[key]
		base := Issue{Severity: SeverityError, ExecutionID: k.executionID, Round: k.round}
		if k.request == nil {
			for _, r := range k.responses {
				is := base
				is.Code, is.Line, is.EventIndex = CodeResponseOrphan, r.line, r.index
				is.Message = fmt.Sprintf("Provider response %s (%s) has no provider_request event.", key, r.event)
				v.add(is)
			}
			continue
		}
		base.Line, base.EventIndex = k.request.line, k.request.index
		running := v.underWay(k.request.line)
		if running {
			base.Severity = SeverityWarning
		}
		for _, m := range [...]struct {
			bit  int
			code string
			msg  string
		}{
			{seenNative, CodeNativeRawPayloadMissing, "Provider request %s has no provider-native raw response or stream payload event."},
			{seenRaw, CodeResponseRawMissing, "Provider request %s has no raw response event."},
			{seenNormalized, CodeResponseNormalizedMissing, "Provider request %s has no normalized response event."},
		} {
			if k.seen&m.bit == 0 {
				is := base
				is.Code, is.Message = m.code, fmt.Sprintf(m.msg, key)
				if running {
					is.Message += underWayNote
				}
				v.add(is)
			}
		}
	}
	keys = keys[:0]
	for key := range v.tools {
		keys = append(keys, key)
	}
	slices.SortFunc(keys, func(a, b string) int { return toolLine(v.tools[a]) - toolLine(v.tools[b]) })
	for _, key := range keys {
		k := v.tools[key]
		base := Issue{Severity: SeverityError, ExecutionID: k.executionID, ToolCallID: k.toolCallID}
		if k.request != nil {
			is := base
			is.Code, is.Line, is.EventIndex = CodeToolResultMissing, k.request.line, k.request.index
			is.Message = fmt.Sprintf("Tool request %s has no terminal result event.", key)
			if v.underWay(k.request.line) {
				is.Severity, is.Message = SeverityWarning, is.Message+underWayNote
			}
			v.add(is)
			continue
		}
		for _, r := range k.results {
			is := base
			is.Code, is.Line, is.EventIndex = CodeToolRequestMissing, r.line, r.index
			is.Message = fmt.Sprintf("Tool result %s has no tool_execution_request event.", key)
			v.add(is)
		}
	}
}

// underWayNote ends the message of a request a running step has still to
// see answered.
const underWayNote = " Its step is still running."

// underWay reports whether a request at line belongs to the step writing
// the log now (ValidateOptions.Live): it came after that step's
// session_init.
func (v *validator) underWay(line int) bool {
	return v.opts.Live && v.lastInit > 0 && line > v.lastInit
}

func firstLine(k *providerKey) int {
	if k.request != nil {
		return k.request.line
	}
	return k.responses[0].line
}

func toolLine(k *toolKey) int {
	if k.request != nil {
		return k.request.line
	}
	return k.results[0].line
}
