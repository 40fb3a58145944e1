package commands

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"trail/core"
	"trail/core/errs"
	"trail/logfmt"
	"trail/store"
)

// ReplayOptions is trail replay after flag parsing.
type ReplayOptions struct {
	IO          *IOStreams
	Deps        *Deps
	Globals     globals
	Ref         string
	Last        bool // the most recently updated session of Cwd (or of any directory with AnyDir)
	AnyDir      bool
	Cwd         string
	Format      string // "" = the default for the output (text on a terminal, else jsonl)
	View        string
	WriteRecord bool
	Force       bool
	Wait        time.Duration
}

// Replay formats and views.
const (
	rfText   = "text"
	rfJSON   = "json"
	rfJSONL  = "jsonl"
	rfRecord = "record"

	viewContext    = "context"
	viewTranscript = "transcript"
)

func newReplayCmd(d *Deps, runF func(context.Context, *ReplayOptions) error) *cli.Command {
	return &cli.Command{
		Name:      "replay",
		Usage:     "rebuild a conversation from its JSONL log",
		ArgsUsage: "ID|LOGFILE | --last",
		Description: "Rebuilds what the model saw from the session's log, not its record.\n" +
			"Formats: text (roles, tool calls and results, compaction markers; the default on a\n" +
			"terminal), jsonl (one message a line; the default when piped), json ({sessionId, cwd,\n" +
			"createdAt, updatedAt, messages, history}), record (a full session record).\n" +
			"In the transcript view a jsonl compaction marker is a line {\"compaction\": {...}}.\n" +
			"--view requests gives every provider call, {executionId, round, provider, model,\n" +
			"messages, tools, sha256} (json or jsonl), rebuilt from the log with each digest\n" +
			"checked: a request the log contradicts is exit 7.\n" +
			"--write-record repairs a session whose record is missing or corrupt:\n" +
			"   trail replay 0193abcd --write-record && trail resume 0193abcd \"go on\"",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Usage: "text, json, jsonl or record (default: text on a terminal, jsonl when piped)"},
			&cli.StringFlag{Name: "view", Value: viewContext, Usage: "context (what the model sees next), transcript (everything ever said) or requests (every provider call, checked)"},
			&cli.BoolFlag{Name: "write-record", Usage: "rebuild sessions/<id>.json from the log when it is missing or corrupt"},
			&cli.BoolFlag{Name: "force", Usage: "with --write-record: replace a record that parses"},
			waitFlag(30*time.Second, "with --write-record: how long to wait for a session locked by a step"),
			&cli.BoolFlag{Name: "last", Usage: "the most recently updated session of this directory"},
			&cli.BoolFlag{Name: "any-dir", Usage: "with --last: of any directory"},
		},
		Action: func(c *cli.Context) error {
			g, err := readGlobals(c, d)
			if err != nil {
				return err
			}
			args := c.Args().Slice()
			last, anyDir := c.Bool("last"), c.Bool("any-dir")
			if anyDir && !last {
				return errs.Usagef("use --last --any-dir", "--any-dir needs --last")
			}
			if len(args) != 1 && !(last && len(args) == 0) {
				return errs.Usagef("trail replay ID, trail replay path/to/log.jsonl, or trail replay --last", "give exactly one session or log file")
			}
			o := &ReplayOptions{IO: d.IO, Deps: d, Globals: g, Last: last, AnyDir: anyDir, Format: c.String("format"),
				View: c.String("view"), WriteRecord: c.Bool("write-record"), Force: c.Bool("force"), Wait: waitOf(c)}
			if last {
				if o.Cwd, err = d.Getwd(); err != nil {
					return cwdError(err)
				}
			} else {
				o.Ref = args[0]
			}
			switch o.Format {
			case "", rfText, rfJSON, rfJSONL, rfRecord:
			default:
				return errs.Usagef("use text, json, jsonl or record", "unknown format %s", store.QuoteInput(o.Format))
			}
			switch o.View {
			case viewContext, viewTranscript:
			case viewRequests:
				if o.Format != "" && o.Format != rfJSON && o.Format != rfJSONL {
					return errs.Usagef("use --format json or jsonl", "--view requests has no %s format", store.QuoteInput(o.Format))
				}
				if o.WriteRecord {
					return errs.Usagef("drop --view requests to rebuild the record", "--write-record has no requests view")
				}
			default:
				return errs.Usagef("use context, transcript or requests", "unknown view %s", store.QuoteInput(o.View))
			}
			if o.Format == rfRecord && o.View == viewTranscript {
				return errs.Usagef("a record holds the context; drop --view or use --format json", "--format record has no transcript view")
			}
			if o.Force && !o.WriteRecord {
				return errs.Usagef("use it with --write-record", "--force without --write-record")
			}
			return runF(c.Context, o)
		},
	}
}

func runReplay(ctx context.Context, o *ReplayOptions) error {
	st := o.Deps.openStore(o.Globals.Home)
	var t logTarget
	var err error
	if o.Last {
		id, err := core.ResolveSession(st, core.SessionRef{Last: true, AnyDir: o.AnyDir, Cwd: o.Cwd})
		var nf *errs.NotFoundError
		if errors.As(err, &nf) && nf.LogOnly != "" {
			// the newest has a log and no record: its log is what replay reads
			id, err = nf.LogOnly, nil
		}
		if err != nil {
			return err
		}
		t = logTarget{Path: st.LogPath(id), ID: id}
	} else if t, err = resolveLog(st, o.Ref); err != nil {
		return err
	}
	if err := checkLogFile(t.Path); err != nil {
		return err
	}
	if o.View == viewRequests {
		format := o.Format
		if format == "" {
			format = rfJSONL
		}
		return writeRequests(ctx, o, t.Path, format)
	}
	format := o.Format
	if format == "" && !o.WriteRecord {
		format = rfJSONL
		if o.IO.IsStdoutTTY() {
			format = rfText
		}
	}
	// jsonl streams out as the log is read, memory not growing with the
	// session however long it ran: the transcript as it is said, the
	// context from the log's last compaction on (a first pass finds it).
	if format == rfJSONL && !o.WriteRecord {
		w := bufio.NewWriterSize(o.IO.Out, 64<<10)
		opts := logfmt.ReplayOptions{Strict: true, Session: t.ID, Context: func(m json.RawMessage) error {
			_, err := fmt.Fprintf(w, "%s\n", m)
			return err
		}}
		if o.View == viewTranscript {
			opts = logfmt.ReplayOptions{Strict: true, Session: t.ID, Transcript: true, Emit: func(it logfmt.TranscriptItem) error {
				return writeTranscriptItem(w, it)
			}}
		}
		rep, err := logfmt.ReplayFileContext(ctx, t.Path, opts)
		if err := replayError(t.Path, errs.Interrupted(err, "replaying "+t.Path)); err != nil {
			return err // a failure is found before anything is written
		}
		warnReplay(o, t.Path, rep)
		return w.Flush()
	}
	// The transcript (and the history built from it) is kept only when
	// the output needs it; a context replay's memory is the context's.
	transcript := o.WriteRecord || o.View == viewTranscript || o.Format == rfJSON || o.Format == rfRecord
	replay := func() (*logfmt.Replay, error) {
		// Printing, a line replay would skip fails it: a conversation
		// with a hole is not the conversation. Rebuilding the record
		// (the repair path) keeps what the rest of the log holds.
		// A session of the home is known by its id: its log's lines of
		// another session are foreign wherever they are, the first too.
		rep, err := logfmt.ReplayFileContext(ctx, t.Path, logfmt.ReplayOptions{Transcript: transcript, Strict: !o.WriteRecord, Session: t.ID})
		return rep, replayError(t.Path, errs.Interrupted(err, "replaying "+t.Path))
	}
	var rep *logfmt.Replay
	if o.WriteRecord {
		id := t.ID
		if id == "" {
			if id, err = logfmt.FirstSessionID(t.Path); err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return logNotFound(t.Path)
				}
				return &errs.InvalidDataError{Path: t.Path, Err: err}
			}
		}
		rec, err := newEngine(o.Deps, st).RepairRecord(ctx, core.RepairOptions{
			ID: id, Force: o.Force, Wait: o.Wait, Path: t.Path,
			Warn: func(w string) { linef(o.IO.ErrOut, "trail: warning: %s\n", w) },
			Replay: func() (*logfmt.Replay, error) {
				r, err := replay()
				rep = r
				return r, err
			},
		})
		if err != nil {
			return err
		}
		warnReplay(o, t.Path, rep)
		if len(rep.Warnings) == 0 { // else the log's damage was just named
			warnInvalidLog(ctx, o, t.Path)
		}
		linef(o.IO.ErrOut, "trail: rebuilt %s from %s (%s)\n", st.RecordPath(rec.ID), t.Path, plural(len(rec.Messages), "message"))
		if home := st.LogPath(rec.ID); home != t.Path && !store.SameFile(home, t.Path) {
			linef(o.IO.ErrOut, "trail: the log is copied to %s, with its payloads: the session goes on there\n", home)
		}
		if o.Format == "" {
			return nil // the record is the result; print the conversation only when asked
		}
	} else if rep, err = replay(); err != nil {
		return err
	} else {
		warnReplay(o, t.Path, rep)
	}
	if format == "" {
		format = rfJSONL
		if o.IO.IsStdoutTTY() {
			format = rfText
		}
	}
	w := bufio.NewWriterSize(o.IO.Out, 64<<10)
	if err := writeReplay(w, format, o.View, rep); err != nil {
		return err
	}
	return w.Flush()
}

// warnInvalidLog says when the log a record was rebuilt from fails
// validate-log: a message edited by hand after it was logged no longer
// matches its requests' digests, and the rebuilt record holds the edit.
// The repair is what was asked for; the warning keeps it from passing
// unseen (the log fails validate-log --strict from then on).
func warnInvalidLog(ctx context.Context, o *ReplayOptions, path string) {
	vr, err := logfmt.ValidateFileContext(ctx, path, logfmt.ValidateOptions{MaxIssues: 100})
	if err != nil || vr.Valid() {
		return
	}
	i := slices.IndexFunc(vr.Issues, func(is logfmt.Issue) bool { return is.Severity == logfmt.SeverityError })
	if i < 0 {
		return
	}
	first := vr.Issues[i]
	linef(o.IO.ErrOut, "trail: warning: the log fails validation (%s, the first %s at line %d): the record holds the log as it reads now; trail validate-log %s shows every one\n",
		plural(vr.Errors, "error"), first.Code, first.Line, shellQuote(path))
}

// replayError classifies a replay failure: a missing file is not found,
// a payload or read problem is invalid data.
func replayError(path string, err error) error {
	var perr *logfmt.PayloadError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrNotExist) && !errors.As(err, &perr):
		return logNotFound(path)
	case errors.As(err, &perr), errors.Is(err, logfmt.ErrBrokenLine):
		// ReplayFile's error names the file, which the error line does.
		if inner := errors.Unwrap(err); inner != nil && strings.HasPrefix(err.Error(), "replay "+path+": ") {
			err = inner
		}
		return &errs.InvalidDataError{Path: path, Err: err, Fix: "see trail validate-log " + path}
	}
	return err
}

func warnReplay(o *ReplayOptions, path string, rep *logfmt.Replay) {
	for _, w := range rep.Warnings {
		linef(o.IO.ErrOut, "trail: warning: %s:%d: %s\n", path, w.Line, w.Message)
	}
}

func writeReplay(w io.Writer, format, view string, rep *logfmt.Replay) error {
	msgs := rep.Messages
	if view == viewTranscript {
		msgs = rep.TranscriptMessages()
	}
	switch format {
	case rfJSON:
		return writeReplayJSON(w, rep, msgs)
	case rfJSONL:
		if view == viewTranscript {
			return writeTranscriptJSONL(w, rep)
		}
		for _, m := range msgs {
			if _, err := fmt.Fprintf(w, "%s\n", m); err != nil {
				return err
			}
		}
		return nil
	case rfRecord:
		b, err := core.RebuildRecord(rep, nil).Encode()
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	return writeReplayText(w, rep, view)
}

func writeReplayJSON(w io.Writer, rep *logfmt.Replay, msgs []json.RawMessage) error {
	head, err := logfmt.Marshal(logfmt.Object{
		logfmt.F("sessionId", rep.SessionID), logfmt.F("cwd", rep.Cwd),
		logfmt.F("createdAt", rep.CreatedAt), logfmt.F("updatedAt", rep.UpdatedAt),
	})
	if err != nil {
		return err
	}
	// The object is written piece by piece: messages and history are the
	// bulk of it and are already JSON.
	if _, err := w.Write(head[:len(head)-1]); err != nil {
		return err
	}
	io.WriteString(w, `,"messages":[`)
	for i, m := range msgs {
		if i > 0 {
			io.WriteString(w, ",")
		}
		w.Write(m)
	}
	io.WriteString(w, `],"history":[`)
	for i := range rep.Transcript {
		if i > 0 {
			io.WriteString(w, ",")
		}
		w.Write(rep.HistoryEntry(i))
	}
	_, err = io.WriteString(w, "]}\n")
	return err
}

func writeTranscriptJSONL(w io.Writer, rep *logfmt.Replay) error {
	for _, it := range rep.Transcript {
		if err := writeTranscriptItem(w, it); err != nil {
			return err
		}
	}
	return nil
}

// writeTranscriptItem is one line of a jsonl transcript: the message, or
// {"compaction": {...}} / {"resync": {...}} for a marker.
func writeTranscriptItem(w io.Writer, it logfmt.TranscriptItem) error {
	var marker logfmt.Object
	switch {
	case it.Compaction != nil:
		c := it.Compaction
		o := logfmt.Object{logfmt.F("line", c.Line), logfmt.F("timestamp", c.Timestamp),
			logfmt.F("messagesBefore", c.Before), logfmt.F("messagesAfter", c.After)}
		if c.SummaryMissing {
			o[3] = logfmt.F("messagesAfter", nil) // unknown: the log holds no list
			o = append(o, logfmt.F("summaryMissing", true))
		}
		marker = logfmt.Object{logfmt.F("compaction", o)}
	case it.Resync != nil:
		rs := it.Resync
		marker = logfmt.Object{logfmt.F("resync", logfmt.Object{
			logfmt.F("line", rs.Line), logfmt.F("timestamp", rs.Timestamp),
			logfmt.F("messagesBefore", rs.Before), logfmt.F("messagesAfter", rs.After),
		})}
	default:
		_, err := fmt.Fprintf(w, "%s\n", it.Message)
		return err
	}
	b, err := logfmt.Marshal(marker)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}
