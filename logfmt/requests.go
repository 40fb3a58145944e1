package logfmt

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/tidwall/gjson"
)

// Request is one provider call as the log proves it.
type Request struct {
	Line        int // the provider_request line (1-based)
	ExecutionID string
	Round       int
	Provider    string
	Model       string
	Purpose     string            // "" or e.g. "compaction"
	Messages    []json.RawMessage // as logged (full form) or rebuilt from history_mutation lines
	Tools       json.RawMessage   // as logged, or from session_init when only toolsSha256 is on the line
	SHA256      string            // messagesSha256 as logged, or computed when the line holds full messages
	DigestOK    bool              // the rebuilt/logged messages hash to SHA256
	// Missing counts the messages of a digest-form request the log never
	// held (a step killed before logging them): Messages is then short,
	// and DigestOK false, though nothing in the log contradicts the digest.
	Missing int
}

// ReadRequests reads the log at path (payload references resolved beside it, as ReplayFile does)
// and calls fn for each provider_request in order. Logs in the old full form (messages on the line)
// and the new digest form both work. An error from fn stops the read and is returned.
func ReadRequests(path string, fn func(Request) error) error {
	return readRequestsFile(path, ReplayOptions{}, fn)
}

// ReadRequestsContext is ReadRequests stopping with ctx.Err() (wrapped)
// once ctx is done.
func ReadRequestsContext(ctx context.Context, path string, fn func(Request) error) error {
	return readRequestsFile(path, ReplayOptions{ctx: ctx}, fn)
}

func readRequestsFile(path string, opts ReplayOptions, fn func(Request) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	opts.Dir, opts.SessionID = filepath.Dir(path), strings.TrimSuffix(filepath.Base(path), ".jsonl")
	if err := readRequests(f, opts, fn); err != nil {
		return fmt.Errorf("read requests %s: %w", path, err)
	}
	return nil
}

// ReadRequestsFrom is ReadRequests on a log read from r.
func ReadRequestsFrom(r io.Reader, opts ReplayOptions, fn func(Request) error) error {
	if opts.Dir == "" {
		opts.Dir = "."
	}
	return readRequests(r, opts, fn)
}

type requestReader struct {
	p     *replayer
	d     *historyDigest
	tools map[string]json.RawMessage // tool lists session_init gave, by toolsSha256
	fn    func(Request) error
	err   error // the first error fn returned
}

func readRequests(r io.Reader, opts ReplayOptions, fn func(Request) error) error {
	rr := &requestReader{
		p:     &replayer{rep: &Replay{}, payloads: newPayloadReader(opts.Dir), seen: map[string]struct{}{}},
		tools: map[string]json.RawMessage{ToolsSHA256(nil): json.RawMessage("null")},
		fn:    fn,
	}
	rr.p.payloads.sessionID = opts.SessionID
	rr.d = &historyDigest{keep: true, done: rr.settled}
	rr.p.digest = rr.d
	rd := newReader(opts.ctx, r, opts.maxLine)
	defer rd.Release()
	for rr.err == nil {
		l, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if err := rr.line(l); err != nil {
			return fmt.Errorf("line %d: %w", l.Num, err)
		}
	}
	if rr.err == nil {
		rr.d.close()
	}
	return rr.err
}

func (rr *requestReader) line(l Line) error {
	if l.Object {
		switch gjson.GetBytes(l.Bytes, KeyEvent).Str {
		case "provider_request":
			return rr.request(l)
		case "session_init":
			rr.d.close() // a new step: a request still waiting was never completed
			if err := rr.p.line(l); err != nil {
				return err
			}
			if rep := rr.p.rep; rep.ToolSchemas != nil {
				rr.tools[ToolsSHA256(rep.ToolSchemas)] = rep.ToolSchemas
			}
			return nil
		case "log_resync", "abandoned_requests":
			rr.d.close()
		}
	}
	return rr.p.line(l)
}

func (rr *requestReader) request(l Line) error {
	if err := rr.p.line(l); err != nil {
		return err
	}
	f := gjson.GetManyBytes(l.Bytes, "executionId", "round", "provider", "model", "purpose",
		"messages", "tools", "messageCount", "messagesSha256", "toolsSha256")
	req := Request{Line: l.Num, ExecutionID: f[0].Str, Round: int(f[1].Int()), Provider: f[2].Str, Model: f[3].Str, Purpose: f[4].Str}
	if t := f[6]; t.Exists() {
		raw, err := rr.p.payloads.resolve([]byte(t.Raw), 0)
		if err != nil {
			return err
		}
		req.Tools = append(json.RawMessage(nil), raw...)
	} else if t := f[9]; t.Type == gjson.String {
		req.Tools = rr.tools[t.Str]
	}
	if f[8].Type == gjson.String {
		req.SHA256 = f[8].Str
	}
	if m := f[5]; m.Exists() {
		rr.d.close() // requests come out in order
		list, err := rr.p.payloads.resolve([]byte(m.Raw), 0)
		if err != nil {
			return err
		}
		eachElement(list, func(_ int, msg []byte) bool {
			req.Messages = append(req.Messages, append(json.RawMessage(nil), msg...))
			return true
		})
		computed := MessagesSHA256(req.Messages)
		if req.SHA256 == "" {
			req.SHA256 = computed
		}
		req.DigestOK = computed == req.SHA256
		rr.emit(req)
		return nil
	}
	if f[7].Type != gjson.Number || req.SHA256 == "" || f[7].Int() < 0 {
		rr.d.close()
		rr.emit(req) // neither form: nothing to rebuild or check
		return nil
	}
	rr.d.request(digestCheck{Line: l.Num, EventIndex: l.Index, Count: int(f[7].Int()), SHA: req.SHA256, req: &req})
	return nil
}

// settled completes a digest-form request once the history has settled it.
func (rr *requestReader) settled(c digestCheck) {
	req := *c.req
	if c.Complete {
		req.Messages = rr.d.list(c.Count)
		req.DigestOK = c.Match
	} else {
		req.Messages = rr.d.list(c.Have)
		req.Missing = c.Count - c.Have
	}
	rr.emit(req)
}

func (rr *requestReader) emit(req Request) {
	if rr.err == nil {
		rr.err = rr.fn(req)
	}
}
