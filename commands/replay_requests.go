package commands

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"trail/core/errs"
	"trail/logfmt"
)

// viewRequests is replay's view of every provider call: one object per
// request, {executionId, round, provider, model, messages, tools, sha256}
// (purpose too, for a side call such as compaction's summary), rebuilt
// from the log, each digest checked. Logs that carry every request whole
// (Robota's, trail's before digests, --log-requests full) replay the same.
const viewRequests = "requests"

// errDigest stops the read at the first request the log contradicts.
var errDigest = errors.New("request digest mismatch")

// writeRequests streams the requests of the log at path to out as jsonl
// (one a line) or json (an array). A request whose messages do not hash
// to its messagesSha256 is exit 7 with nothing on stdout: the log is read
// twice, checked first, so no half-written array is left behind.
func writeRequests(ctx context.Context, o *ReplayOptions, path, format string) error {
	var bad *logfmt.Request
	err := logfmt.ReadRequestsContext(ctx, path, func(r logfmt.Request) error {
		if r.Missing == 0 && !r.DigestOK {
			bad = &r
			return errDigest
		}
		return nil
	})
	if bad != nil {
		return &errs.InvalidDataError{Path: path,
			Err: fmt.Errorf("line %d: the request's messages as the log holds them do not hash to its messagesSha256 %s", bad.Line, bad.SHA256),
			Fix: "see trail validate-log " + path}
	}
	if err := replayError(path, errs.Interrupted(err, "replaying "+path)); err != nil {
		return err
	}
	w := bufio.NewWriterSize(o.IO.Out, 64<<10)
	n := 0
	if format == rfJSON {
		if _, err := w.WriteString("["); err != nil {
			return err
		}
	}
	err = logfmt.ReadRequestsContext(ctx, path, func(r logfmt.Request) error {
		if r.Missing > 0 {
			linef(o.IO.ErrOut, "trail: warning: %s:%d: %d of the request's messages were never logged (its step ended first); its digest cannot be checked\n", path, r.Line, r.Missing)
		}
		if format == rfJSON && n > 0 {
			if _, err := w.WriteString(","); err != nil {
				return err
			}
		}
		n++
		return writeRequest(w, r)
	})
	if err := replayError(path, errs.Interrupted(err, "replaying "+path)); err != nil {
		return err
	}
	if format == rfJSON {
		if _, err := w.WriteString("]\n"); err != nil {
			return err
		}
	}
	return w.Flush()
}

func writeRequest(w io.Writer, r logfmt.Request) error {
	tools := r.Tools
	if tools == nil {
		tools = []byte("null")
	}
	o := logfmt.Object{
		logfmt.F("executionId", r.ExecutionID),
		logfmt.F("round", r.Round),
		logfmt.F("provider", r.Provider),
		logfmt.F("model", r.Model),
	}
	if r.Purpose != "" {
		o = append(o, logfmt.F("purpose", r.Purpose))
	}
	msgs := r.Messages
	if msgs == nil {
		msgs = []json.RawMessage{}
	}
	o = append(o, logfmt.F("messages", msgs), logfmt.F("tools", json.RawMessage(tools)), logfmt.F("sha256", r.SHA256))
	b, err := logfmt.Marshal(o)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
