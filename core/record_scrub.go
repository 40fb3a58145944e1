package core

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"trail/core/provider"
	"trail/logfmt"
	"trail/store"
)

// The record is scrubbed like the log (README "Secrets"): every string it
// keeps goes through the same logfmt redaction, with the same secrets in
// use as the step's log writer, so that the record and the log hold the
// same strings and replaying the log gives the record's messages exactly.
// The cost is that a resumed session sends "[REDACTED]" to the model where
// a secret was; within the step that saw it, the model saw the value.
//
// A message is scrubbed when this step logs it: the new ones, and all of
// them once they are logged again (a fork's fresh log, compaction's
// replace_all). A message loaded and not logged again keeps its bytes: it
// was scrubbed when it was saved, with the secrets of its own step, and its
// log line holds it that way. Redacting it with today's secrets would
// part the record from the log.
//
// The base URL of the provider is not scrubbed here: provider.Config.Ref
// takes the credentials out of it in a way resume can undo.

// useSecrets gathers the secrets in use once for the step, before the log
// or the record is written.
func (s *session) useSecrets() {
	var environ []string
	if s.e.Environ != nil {
		environ = s.e.Environ()
	}
	s.secrets = provider.SecretsInUse(s.e.Env, environ, s.opts.Settings.Env)
	s.red = logfmt.NewRedactor(s.secrets)
	s.keepPathWhole(s.opts.Cwd)
}

// keepPathWhole drops the secrets that are part of path, the session's
// folder, or name a file or folder in it: a folder's name is no secret
// (SONAR_PROJECT_KEY is often the repository's name), and redacted in the
// record the folder was gone, and with it every tool's working directory
// and resume --last's match, or every path under a subfolder.
func (s *session) keepPathWhole(path string) {
	kept := s.secrets[:0:0]
	for _, secret := range s.secrets {
		if strings.Contains(path, secret) {
			continue
		}
		if !strings.ContainsAny(secret, "/\\\x00") && path != "" {
			if _, err := os.Lstat(filepath.Join(path, secret)); err == nil {
				continue
			}
		}
		kept = append(kept, secret)
	}
	if len(kept) != len(s.secrets) {
		s.secrets, s.red = kept, logfmt.NewRedactor(kept)
	}
}

// markRelogged notes that every message was just logged again, redacted
// with this step's secrets: the record must keep them that way too.
func (s *session) markRelogged() {
	s.relogged = true
	s.historyScrubbed = 0
	s.reqDigest.reset() // the log now holds every message as this step redacts it
}

// recordMessage is message i as the record keeps it.
func (s *session) recordMessage(i int) (json.RawMessage, error) {
	m := &s.messages[i]
	if m.Loaded() && !s.relogged {
		return m.RecordJSON()
	}
	raw, err := m.Scrubbed(func(raw json.RawMessage) (json.RawMessage, error) { return s.red.JSON(raw) })
	if err != nil {
		return nil, fmt.Errorf("redact: %w", err)
	}
	return raw, nil
}

// scrubRecord redacts the rest of what the record keeps: the history
// entries added since the last save, the name, title and cwd, and every
// other top-level field (system prompt, tool schemas, pending tool calls,
// fields of other programs).
func (s *session) scrubRecord(r *store.Record) error {
	for i := s.historyScrubbed; i < len(s.history); i++ {
		clean, err := s.red.JSON(s.history[i])
		if err != nil {
			return fmt.Errorf("redact history entry %d: %w", i, err)
		}
		s.history[i] = clean
	}
	s.historyScrubbed = len(s.history)
	r.History = s.history
	r.Name, r.Title, r.Cwd = s.red.String(r.Name), s.red.String(r.Title), s.red.String(r.Cwd)
	for i := range r.Fields {
		f := &r.Fields[i]
		if sameBytes(f.Value, s.cleanFields[f.Key]) {
			continue // scrubbed at the last save, unchanged since
		}
		clean, err := s.red.Member(f.Key, f.Value)
		if err != nil {
			return fmt.Errorf("redact record field %q: %w", f.Key, err)
		}
		f.Value = clean
		if s.cleanFields == nil {
			s.cleanFields = map[string]json.RawMessage{}
		}
		s.cleanFields[f.Key] = clean
	}
	return nil
}

// sameBytes reports whether a and b are the very same bytes in memory.
func sameBytes(a, b []byte) bool {
	return len(a) > 0 && len(a) == len(b) && &a[0] == &b[0]
}
