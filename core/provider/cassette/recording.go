package cassette

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"trail/core/errs"
	"trail/logfmt"
)

// call is one provider call of the recording: the request as it was sent
// and the answer as it came back, with the answer's stream on the
// request's clock.
type call struct {
	line     int    // the provider_request line (1-based)
	key      string // executionId:round
	provider string
	model    string
	purpose  string
	messages []json.RawMessage // as sent, or rebuilt from the logged history
	sha256   string            // messagesSha256: as logged, or computed from messages
	complete bool              // messages hash to sha256: they are the request
	tools    []string          // the names of the tools offered, in order; nil when the log does not say
	start    time.Time
	// answerModel is the model the answer named (Anthropic's
	// message_start, OpenAI's chunks): what the call was priced as.
	answerModel string

	answered bool
	// interrupted: the recorded answer was cut by Ctrl-C (its
	// provider_response_raw says so); the stream holds what had come.
	interrupted bool
	normalized  []byte // provider_response_normalized's response (nil when it failed)
	failure     []byte // provider_response_normalized's error object
	committed   []byte // assistant_message_committed's message, when the round had one
	stream      []piece
	end         time.Duration
}

// piece is one streamed piece of an answer, at its offset from the request.
type piece struct {
	at       time.Duration
	text     string
	thinking bool
}

// recording is what a log holds for the cassette.
type recording struct {
	path      string
	cwd       string // the recorded session's working directory (session_init)
	sessionID string // the first line's
	calls     []*call
}

// readRecording reads the provider calls of the log at path in one pass:
// each provider_request opens a call, and the lines of the same
// executionId:round that follow fill in its answer. External payloads are
// resolved as replay resolves them.
func readRecording(path string) (*recording, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &errs.NotFoundError{What: fmt.Sprintf("cassette %s does not exist", path), Fix: "give a session's log (a .jsonl file) or a session id"}
	}
	if err != nil {
		return nil, fmt.Errorf("read cassette %s: %w", path, err)
	}
	defer f.Close()
	rec := &recording{path: path}
	open := map[string]*call{}
	var res *logfmt.PayloadResolver
	rd := logfmt.NewReader(f)
	defer rd.Release()
	for {
		l, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read cassette %s: %w", path, err)
		}
		if !l.Object {
			if l.Torn {
				continue // a torn last line: the log's writer was killed
			}
			return nil, invalid(path, l.Num, "not a JSON object")
		}
		line := gjson.ParseBytes(l.Bytes)
		if res == nil {
			rec.sessionID = line.Get(logfmt.KeySessionID).String()
			res = logfmt.NewPayloadResolver(path, rec.sessionID)
		}
		get := func(key string) ([]byte, error) {
			v := line.Get(key)
			if !v.Exists() {
				return nil, nil
			}
			out, err := res.Resolve([]byte(v.Raw))
			if err != nil {
				return nil, invalid(path, l.Num, err.Error())
			}
			return bytes.Clone(out), nil
		}
		ts, _ := time.Parse(logfmt.TimeLayout, line.Get(logfmt.KeyTimestamp).String())
		key := line.Get("executionId").String() + ":" + line.Get("round").Raw
		c := open[key]
		switch line.Get(logfmt.KeyEvent).String() {
		case "session_init":
			if rec.cwd == "" {
				rec.cwd = line.Get("cwd").String()
			}
		case "provider_request":
			c = &call{line: l.Num, key: key, start: ts,
				provider: line.Get("provider").String(), model: line.Get("model").String(), purpose: line.Get("purpose").String()}
			open[key] = c
			rec.calls = append(rec.calls, c)
		case "provider_stream_raw_delta":
			if c != nil && !c.answered {
				c.stream = append(c.stream, piece{at: ts.Sub(c.start), text: line.Get("delta").String()})
			}
		case "provider_native_raw_payload":
			if c != nil && !c.answered && c.answerModel == "" {
				c.answerModel = modelIn(line.Get("payload"))
			}
			if c != nil && !c.answered && line.Get("payloadKind").String() == "stream_event" {
				if t := thinkingIn(line.Get("payload")); t != "" {
					c.stream = append(c.stream, piece{at: ts.Sub(c.start), text: t, thinking: true})
				}
			}
		case "provider_response_raw":
			if c != nil && !c.answered && line.Get("note").String() == "interrupted" {
				c.interrupted = true
			}
		case "provider_response_normalized":
			if c == nil || c.answered {
				continue
			}
			c.answered, c.end = true, ts.Sub(c.start)
			if c.failure, err = get("error"); err != nil {
				return nil, err
			}
			if r := line.Get("response"); r.IsObject() {
				if c.normalized, err = get("response"); err != nil {
					return nil, err
				}
			}
		case "assistant_message_committed":
			if c != nil && c.answered && c.committed == nil {
				if c.committed, err = get("message"); err != nil {
					return nil, err
				}
			}
		}
	}
	if err := rec.readRequests(); err != nil {
		return nil, &errs.InvalidDataError{Path: path, Err: err, Fix: "trail validate-log says what is wrong with the recording"}
	}
	return rec, nil
}

// readRequests takes each call's request from logfmt.ReadRequests: the
// messages as the line logged them, or (a log that logs only digests)
// rebuilt from the history it logged, with the digest.
func (rec *recording) readRequests() error {
	byLine := make(map[int]*call, len(rec.calls))
	for _, c := range rec.calls {
		byLine[c.line] = c
	}
	f, err := os.Open(rec.path)
	if err != nil {
		return err
	}
	defer f.Close()
	// The payload folder is named for the session, which a fixture copied
	// under another name still is.
	opts := logfmt.ReplayOptions{Dir: filepath.Dir(rec.path), SessionID: rec.sessionID}
	return logfmt.ReadRequestsFrom(f, opts, func(r logfmt.Request) error {
		c := byLine[r.Line]
		if c == nil {
			return nil
		}
		c.sha256, c.complete = r.SHA256, r.DigestOK
		c.messages = r.Messages
		c.tools = toolNames(r.Tools)
		if c.sha256 == "" { // neither form: compare what there is
			c.sha256 = logfmt.MessagesSHA256(c.messages)
		}
		return nil
	})
}

// thinkingIn is the thinking a recorded stream event carried, in the
// shapes the providers stream it: Anthropic's thinking_delta, and the
// reasoning_content (DeepSeek, vLLM) or reasoning (OpenRouter, Ollama)
// of OpenAI-compatible chunks. Thinking is not logged as text, so this is
// where it is found again.
func thinkingIn(p gjson.Result) string {
	if p.Get("type").String() == "content_block_delta" && p.Get("delta.type").String() == "thinking_delta" {
		return p.Get("delta.thinking").String()
	}
	d := p.Get("choices.0.delta")
	if s := d.Get("reasoning_content").String(); s != "" {
		return s
	}
	return d.Get("reasoning").String()
}

// modelIn is the model a recorded payload names: Anthropic's message_start
// (message.model) or whole message, an OpenAI chunk or body (model). The
// request payload names the model asked for, which the answer may not be.
func modelIn(p gjson.Result) string {
	if p.Get("type").String() == "message_start" {
		return p.Get("message.model").String()
	}
	if p.Get("messages").Exists() {
		return "" // a request body
	}
	return p.Get("model").String()
}

func invalid(path string, line int, why string) error {
	return &errs.InvalidDataError{Path: path, Err: fmt.Errorf("line %d: %s", line, strings.TrimSpace(why)),
		Fix: "a cassette is a log trail wrote (logs/<id>.jsonl); trail validate-log says what is wrong with it"}
}

// FirstModel is the model the recording's first request named, "" when it
// cannot be read (Load then says why).
func FirstModel(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	rd := logfmt.NewReader(f)
	defer rd.Release()
	for {
		l, err := rd.Next()
		if err != nil {
			return ""
		}
		if !l.Object {
			continue
		}
		if r := gjson.GetManyBytes(l.Bytes, logfmt.KeyEvent, "model"); r[0].String() == "provider_request" {
			return r[1].String()
		}
	}
}
