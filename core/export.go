package core

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/tidwall/gjson"

	"trail/core/chat"
	"trail/core/errs"
	"trail/core/peer"
	"trail/logfmt"
	"trail/store"
)

// Exporting writes a session in another form: Claude Code's transcript
// (the record's messages, what the model sees next, so `claude --resume`
// goes on from there) or a Markdown transcript (everything the log holds,
// compactions marked; the record's messages when there is no log). It
// only reads: no lock is taken, as for replay.

// Export targets.
const (
	ExportClaude   = "claude"
	ExportMarkdown = "markdown"
)

// ExportOptions is one trail export.
type ExportOptions struct {
	Ref SessionRef
	To  string
}

// ExportResult says what was written.
type ExportResult struct {
	SessionID string
	// ClaudeSessionID is the session's id in Claude Code (its file name).
	ClaudeSessionID string
	Cwd             string
	Messages        int
	// FromRecord is set when a Markdown transcript had no log to read and
	// shows the record's messages only.
	FromRecord bool
}

// Export writes the session to w.
func (e *Engine) Export(ctx context.Context, o ExportOptions, w io.Writer) (*ExportResult, error) {
	if o.To != ExportClaude && o.To != ExportMarkdown {
		return nil, errs.Usagef("use --to claude or --to markdown", "unknown export format %s", store.QuoteInput(o.To))
	}
	id, err := ResolveSession(e.Store, o.Ref)
	if err != nil {
		return nil, err
	}
	rec, err := e.Store.Load(id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, &errs.NotFoundError{What: fmt.Sprintf("session %s not found", id), Fix: "see trail list for the stored sessions"}
	}
	if err != nil {
		return nil, err
	}
	msgs, err := chat.DecodeMessages(rec.Messages)
	if err != nil {
		return nil, &errs.InvalidDataError{Path: e.Store.RecordPath(id), Err: err}
	}
	res := &ExportResult{SessionID: id, Cwd: rec.Cwd}
	if o.To == ExportClaude {
		model := ""
		if rec.Provider != nil {
			model = rec.Provider.Model
		}
		res.ClaudeSessionID = peer.ClaudeSessionID(id)
		res.Messages, err = peer.WriteClaude(w, peer.ClaudeSession{ID: id, Cwd: rec.Cwd, Model: model, Messages: msgs})
		return res, err
	}
	items, fromRecord, err := e.transcript(id, msgs)
	if err != nil {
		return nil, err
	}
	res.FromRecord = fromRecord
	for _, it := range items {
		if it.Message != nil {
			res.Messages++
		}
	}
	return res, peer.WriteMarkdown(w, peer.MarkdownSession{Title: exportTitle(rec), Facts: exportFacts(rec), Items: items})
}

// transcript is everything the session's log holds, compactions marked,
// or the record's messages when it has no log.
func (e *Engine) transcript(id string, record []chat.Message) ([]peer.TranscriptItem, bool, error) {
	path := e.Store.LogPath(id)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		items := make([]peer.TranscriptItem, len(record))
		for i := range record {
			items[i] = peer.TranscriptItem{Message: &record[i]}
		}
		return items, true, nil
	}
	rep, err := logfmt.ReplayFile(path, logfmt.ReplayOptions{SessionID: id, Session: id, Transcript: true})
	if err != nil {
		return nil, false, &errs.InvalidDataError{Path: path, Err: err}
	}
	var items []peer.TranscriptItem
	for _, it := range rep.Transcript {
		switch {
		case it.Compaction != nil:
			c := it.Compaction
			items = append(items, peer.TranscriptItem{Note: fmt.Sprintf("Context compacted here: %d messages became %d.", c.Before, c.After)})
		case it.Resync != nil:
			continue // the log catching up with its record: nothing was said
		default:
			m, err := chat.DecodeMessage(it.Message)
			if err != nil {
				return nil, false, &errs.InvalidDataError{Path: path, Err: err}
			}
			items = append(items, peer.TranscriptItem{Message: &m})
		}
	}
	return items, false, nil
}

func exportTitle(rec *store.Record) string {
	switch {
	case rec.Name != "":
		return rec.Name
	case rec.Title != "":
		return rec.Title
	}
	return "Session " + rec.ID
}

func exportFacts(rec *store.Record) [][2]string {
	facts := [][2]string{{"Session", "`" + rec.ID + "`"}}
	if rec.Cwd != "" {
		facts = append(facts, [2]string{"Directory", "`" + rec.Cwd + "`"})
	}
	facts = append(facts, [2]string{"Created", rec.CreatedAt}, [2]string{"Updated", rec.UpdatedAt})
	if p := rec.Provider; p != nil && p.Name != "" {
		facts = append(facts, [2]string{"Provider", p.Name + " " + p.Model})
	}
	if raw, ok := rec.Fields.Get("importedFrom"); ok {
		f := gjson.GetManyBytes(raw, "format", "sessionId", "path")
		from := peer.AgentName(f[0].Str) + " session"
		if f[1].Str != "" {
			from += " `" + f[1].Str + "`"
		}
		if f[2].Str != "" && f[2].Str != "-" {
			from += " (`" + f[2].Str + "`)"
		}
		facts = append(facts, [2]string{"Imported from", from})
	}
	return facts
}
