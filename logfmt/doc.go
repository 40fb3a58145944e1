// Package logfmt owns trail's JSONL event log (SPEC 7): the line envelope,
// the encoder, the append-only writer with redaction and external payloads,
// the streaming reader, replay and validation.
//
// Invariants every writer in this package keeps:
//
//   - One line is one compact JSON object terminated by "\n":
//     {"timestamp","sessionId","event","seq", ...data}. The envelope keys come
//     first in that order, data keys follow at the top level in the order the
//     caller gave them, never wrapped.
//   - A line reaches the file with exactly one write(2) on an O_APPEND
//     descriptor and nothing is buffered across lines, so a concurrent reader
//     (tail -f) sees whole lines as they happen and a killed process leaves at
//     most one torn line at the end.
//   - seq is 0-based and grows by one per line across every process that ever
//     appended to the file; a new Writer continues from the last complete line.
//     A torn tail (bytes after the last "\n" that are not a JSON object) is cut
//     off before the first append, so the file stays a sequence of valid lines.
//   - Keys are written in insertion order (Object, []Field); Go maps, which
//     have no order, are written with sorted keys. HTML characters (<, >, &)
//     are never escaped. Floats use encoding/json's shortest form; NaN and
//     Inf are errors, not lines.
//   - The log, the payload folder and payload files are opened without
//     following a symbolic link and must be a regular file (a folder for
//     the payload folder); a link, FIFO or device there is a
//     *NotRegularError before anything is read, cut or appended. The log
//     is opened read-write and repaired through that one descriptor, never
//     reopened by path. The logs folder itself may be a link.
//   - A line nests at most maxDepth levels, its own object included, the
//     bound the reader holds lines to; MaxMessageDepth and TooDeepToLog let
//     a caller refuse a message before a step rather than lose its lines.
//     An encoding error names its path with a bounded message built in
//     linear time, however deep the value.
//   - Secrets never reach the file: values under sensitive keys become
//     "[REDACTED]", and the secrets in use (Options.Secrets) and key-shaped
//     strings (sk-…, Bearer tokens, GitHub tokens, AWS keys) are replaced
//     inside every string, including strings inside json.RawMessage values
//     (redact.go lists the rules). Text streamed in pieces is redacted on
//     the joined text by a TextStream, whose RedactedText the writer logs as
//     it is. Redaction looks at the bytes as written; a secret deliberately
//     spelled with \uXXXX escapes inside raw JSON is not decoded by the
//     cheap checks.
//   - A Redactor built from the same secrets applies the same rules outside
//     the log: the session record is scrubbed with it, so the record and the
//     log hold the same strings.
//   - A data value whose compact JSON exceeds the payload threshold is stored
//     once as <sessionId>.payloads/<sha256>.json next to the log (exactly
//     those bytes, created only if absent) and replaced by a reference object.
//     Children are externalized before their parents, so a parent that was
//     only big because of one child stays inline.
//
// Invariants every reader here keeps (reader.go, replay.go, validate.go,
// scan.go):
//
//   - A log is read once, front to back, through a bufio.Reader, lines up
//     to 64 MiB (far past bufio.Scanner's 64 KiB); a longer line is an
//     error on that line and is skipped without being held. A line is
//     checked with gjson.ValidBytes (behind a nesting bound) before any
//     field of it is read.
//   - A reader given a context (the *Context functions) stops at its
//     cancellation within one read of the buffer, a read waiting on a
//     pipe or a terminal included.
//   - Memory follows what must be remembered, never the file: validation
//     and the scan keep open request keys and one line, replay the messages.
//   - A torn last line is a warning, not a failure: it is what a killed
//     writer leaves.
//   - An external payload reference is followed only to a regular file
//     under <log dir>/<sessionId>.payloads/, no symlink on the way, and
//     only after its size matches; its sha256 and JSON are checked before
//     its content is used.
//   - Logs without seq (Robota's) read the same as trail's.
//
// The package is a leaf: it imports no other trail package.
package logfmt
