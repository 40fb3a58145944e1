package logfmt

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/tidwall/gjson"
)

// A scan answers, for a stretch of a log (from a byte offset to the end),
// the two questions a step asks before it appends to the log of a stored
// session: did anything in it change the conversation (a history_mutation),
// and which requests does no event answer? The second is what a process
// killed in the middle of a step leaves: a provider request without its
// responses, a tool request without its result. Answered means what
// validation counts (SPEC 7.2): the provider and tool keys of
// validate_keys.go, in any order.
//
// Memory follows the open keys, never the stretch's size.

// Events a provider request is owed, in the order a step logs them.
const (
	EventNativeRawPayload   = "provider_native_raw_payload"
	EventResponseRaw        = "provider_response_raw"
	EventResponseNormalized = "provider_response_normalized"
	EventToolResult         = "tool_execution_result"
)

// Scan is what ScanLog found.
type Scan struct {
	// Aligned is false when the offset is not at the start of a line: the
	// stretch is not the one its offset was taken for.
	Aligned bool
	// Lines counts the non-blank lines read (a torn last line included).
	Lines int
	// FirstSeq is the first line's seq, or -1 when there is no line or
	// it carries none.
	FirstSeq int64
	// Mutations counts the history_mutation lines.
	Mutations int
	// Open lists the requests still owed events at the end, in file order.
	Open []OpenRequest
}

// OpenRequest is a provider or tool request some of whose answering
// events are missing. The fields are copied from the request line, so
// the events that close it can name what it named.
type OpenRequest struct {
	Line                        int  // 1-based, counted from the scan's offset
	Tool                        bool // a tool_execution_request; else a provider_request
	ExecutionID, ConversationID string
	Round                       json.RawMessage // the request's round, as written; nil when none
	Provider                    string          // provider requests
	ToolName, ToolCallID        string          // tool requests
	BatchID                     string
	Index                       json.RawMessage
	Missing                     []string // the events owed, in the order a step logs them
}

// ScanLog reads the log at path from byte offset from to its end.
func ScanLog(path string, from int64) (*Scan, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := &Scan{Aligned: true, FirstSeq: -1}
	if from > 0 {
		var b [1]byte
		switch _, err := f.ReadAt(b[:], from-1); {
		case err == io.EOF:
			sc.Aligned = false // the file is shorter than the offset
			return sc, nil
		case err != nil:
			return nil, fmt.Errorf("scan %s: %w", path, err)
		}
		sc.Aligned = b[0] == '\n'
	}
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return nil, fmt.Errorf("scan %s: %w", path, err)
	}
	k := &keyScan{
		v: validator{
			rep:       &Report{},
			opts:      ValidateOptions{MaxIssues: 1},
			providers: make(map[string]*providerKey),
			tools:     make(map[string]*toolKey),
			closed:    newClosedSet(),
		},
		requests: make(map[string]*OpenRequest),
	}
	rd := NewReader(f)
	defer rd.Release()
	for {
		l, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("scan %s: %w", path, err)
		}
		sc.Lines++
		if !l.Object {
			continue
		}
		parseEntry(l.Bytes, &k.v.e, -1)
		e := &k.v.e
		if sc.Lines == 1 {
			if seq, ok := tokenInt(e.seq); ok && seq >= 0 {
				sc.FirstSeq = seq
			}
		}
		switch event := unquoteToken(e.event); event {
		case "history_mutation":
			sc.Mutations++
		case "provider_request", EventResponseRaw, EventResponseNormalized, EventNativeRawPayload:
			k.v.provider(l, e, event)
			if event == "provider_request" {
				k.request(l, e, false)
			}
		case "tool_execution_request", EventToolResult:
			k.v.tool(l, e, event)
			if event == "tool_execution_request" {
				k.request(l, e, true)
			}
		}
	}
	sc.Open = k.open()
	return sc, nil
}

// keyScan tracks the keys as validation does, and keeps what the request
// lines of the keys still open said.
type keyScan struct {
	v        validator
	requests map[string]*OpenRequest // by kind and key
}

func (k *keyScan) request(l Line, e *entry, tool bool) {
	if !isString(e.executionID) {
		return
	}
	execID := unquoteToken(e.executionID)
	var key string
	if tool {
		id := e.toolCallID
		if !isString(id) {
			id = e.toolExecutionID
		}
		key = "t" + execID + ":" + unquoteToken(id)
		if k.v.tools[key[1:]] == nil {
			return // closed already, or not a key validation counts
		}
	} else {
		round, ok := numberKey(e.round)
		if !ok {
			return
		}
		key = "p" + execID + ":" + round
		if k.v.providers[key[1:]] == nil {
			return
		}
	}
	if _, dup := k.requests[key]; dup {
		return
	}
	f := gjson.GetManyBytes(l.Bytes, "conversationId", "round", "provider", "toolName", "toolCallId", "toolExecutionId", "batchId", "index")
	r := &OpenRequest{Line: l.Num, Tool: tool, ExecutionID: execID, ConversationID: f[0].Str,
		Provider: f[2].Str, ToolName: f[3].Str, BatchID: f[6].Str}
	if f[1].Type == gjson.Number {
		r.Round = json.RawMessage(f[1].Raw)
	}
	if f[7].Type == gjson.Number {
		r.Index = json.RawMessage(f[7].Raw)
	}
	r.ToolCallID = f[4].Str
	if f[4].Type != gjson.String {
		r.ToolCallID = f[5].Str
	}
	k.requests[key] = r
}

// open lists the requests whose keys are still open, with what they miss.
func (k *keyScan) open() []OpenRequest {
	var out []OpenRequest
	for key, pk := range k.v.providers {
		r := k.requests["p"+key]
		if pk.request == nil || r == nil {
			continue // responses without a request: nothing to answer
		}
		for _, m := range [...]struct {
			bit   int
			event string
		}{{seenNative, EventNativeRawPayload}, {seenRaw, EventResponseRaw}, {seenNormalized, EventResponseNormalized}} {
			if pk.seen&m.bit == 0 {
				r.Missing = append(r.Missing, m.event)
			}
		}
		out = append(out, *r)
	}
	for key, tk := range k.v.tools {
		r := k.requests["t"+key]
		if tk.request == nil || r == nil {
			continue
		}
		r.Missing = []string{EventToolResult}
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b OpenRequest) int { return a.Line - b.Line })
	return out
}
