package logfmt

import (
	"strings"
	"unsafe"
)

// A model's answer streams in pieces of a few characters, and each piece is
// a log line (text_delta). Redacting each piece alone misses a key split
// across pieces, and joining the lines gives it back. A TextStream redacts
// the joined text instead: it holds back the tail of what it was given
// while that tail could still become part of a secret or a key shape, and
// releases the rest, redacted.
//
// The invariant: the released texts, joined, equal exactly what redacting
// the whole text at once gives (scrub). It holds because text is released
// only up to a cut where no match can cross:
//
//   - no match still open at the end of the held text starts before the
//     cut (openFrom: per shape, the suffix that could still grow into one;
//     per secret, the suffix that is a proper prefix of it);
//   - no complete match (secret, or a shape's whole match) spans the cut,
//     and the cut does not end an AWS key id that the word characters after
//     it make no key (its closing \b);
//   - a released chunk is redacted knowing whether the text before it ends
//     in a word character, for the \b the shapes start with.
//
// Held text is released as soon as it cannot grow into a match, so a
// reader of the log (tail -f) waits for a few characters at most, except
// while a key-shaped run is still being written; Flush releases the rest at
// the end of the answer.

// RedactedText is text a TextStream released: already redacted in the
// context of the whole stream. The Writer logs it as it is, since
// redacting a piece again on its own could redact what the joined text does
// not (a "sk-…" that the text before it makes part of a longer word); it
// still replaces the secrets in use, which do not depend on context.
type RedactedText struct{ s string }

// String is the redacted text.
func (t RedactedText) String() string { return t.s }

// TextStream redacts text that arrives in pieces. Write takes the pieces in
// order; Piece tells what each piece became once all of it is released,
// for the provider payload that carried it. Not safe for concurrent use.
type TextStream struct {
	r    *redactor
	held []byte // written, not released yet
	base int    // offset of held in the whole text
	tail string // the released text's last bytes, for wordBefore
	// cutFrom, for FlushCut's release, is where the held text is redacted
	// to its end; -1 otherwise
	cutFrom int
	open    []streamPiece
	done    []string // what each wholly released piece became, by number
}

// streamPiece is a piece not wholly released: its range in the whole text
// and what its released part became.
type streamPiece struct {
	start, end int
	out        []byte
	whole      string // with done: all of it, released in one chunk with nothing to redact
	done       bool
}

// Write adds the next piece and returns the text now safe to log, which
// may be empty, and the piece's number (0, 1, ...).
func (t *TextStream) Write(piece string) (RedactedText, int) {
	n := len(t.done) + len(t.open)
	start := t.base + len(t.held)
	t.held = append(t.held, piece...)
	t.open = append(t.open, streamPiece{start: start, end: start + len(piece)})
	// openFrom only reads held, and keeps nothing of it.
	p := unsafe.String(unsafe.SliceData(t.held), len(t.held))
	return t.release(t.r.cut(p, t.tail)), n
}

// Flush releases everything held: the answer has ended.
func (t *TextStream) Flush() RedactedText {
	return t.release(len(t.held))
}

// FlushCut releases everything held of an answer cut short (an interrupt,
// a dropped connection): what it held could have grown into a key or a
// secret, and is one cut short, no shape any more; it is released as
// "[REDACTED]". Redactor.CutEnd does the same to the whole text.
func (t *TextStream) FlushCut() RedactedText {
	p := unsafe.String(unsafe.SliceData(t.held), len(t.held))
	t.cutFrom = t.r.openFrom(p, t.tail)
	return t.release(len(t.held))
}

// Piece returns what piece n became, once all of it is released.
func (t *TextStream) Piece(n int) (string, bool) {
	if n < 0 || n >= len(t.done) {
		return "", false
	}
	return t.done[n], true
}

func (t *TextStream) release(cut int) RedactedText {
	out := ""
	if cut > 0 {
		chunk := string(t.held[:cut])
		var spans []span
		if t.r.suspect(chunk) {
			spans = t.r.spans(nil, chunk, t.tail)
		}
		if t.cutFrom >= 0 && t.cutFrom < cut {
			spans = mergeSpans(append(spans, span{t.cutFrom, cut}))
		}
		t.cutFrom = -1
		out = applySpans(chunk, spans)
		for i := range t.open {
			pc := &t.open[i]
			a, b := max(pc.start, t.base)-t.base, min(pc.end, t.base+cut)-t.base
			if a >= cut {
				break
			}
			switch {
			case len(spans) == 0 && pc.out == nil && pc.start >= t.base && pc.end <= t.base+cut:
				pc.whole, pc.done = chunk[a:b], true // the common case: no copy
			case a < b:
				pc.out = redactRange(pc.out, chunk, spans, a, b)
			}
		}
		t.tail = tailOf(t.tail, chunk)
		t.base += cut
		if cut == len(t.held) {
			t.held = t.held[:0] // all released (chunk is a copy): reuse the buffer
		} else {
			t.held = t.held[cut:]
		}
	}
	k := 0
	for k < len(t.open) && t.open[k].end <= t.base {
		if pc := t.open[k]; pc.done {
			t.done = append(t.done, pc.whole)
		} else {
			t.done = append(t.done, string(pc.out))
		}
		k++
	}
	t.open = append(t.open[:0], t.open[k:]...)
	return RedactedText{out}
}

// redactRange appends what s[a:b] becomes under spans: a span's
// "[REDACTED]" goes to the range its start is in, so the ranges of one
// text, joined, give applySpans(s, spans).
func redactRange(dst []byte, s string, spans []span, a, b int) []byte {
	i := a
	for _, sp := range spans {
		if sp.end <= i {
			continue
		}
		if sp.start >= b {
			break
		}
		if sp.start > i {
			dst = append(dst, s[i:sp.start]...)
			i = sp.start
		}
		if sp.start >= a {
			dst = append(dst, redactedText...)
		}
		i = min(sp.end, b)
	}
	if i < b {
		dst = append(dst, s[i:b]...)
	}
	return dst
}

// cut returns how much of p (the held text) can be released: up to the
// first match that is still open, moved back over any complete match it
// would split.
func (r *redactor) cut(p, tail string) int {
	c := r.openFrom(p, tail)
	if c == 0 || c == len(p) {
		return c // nothing open, or all of it: no match can span the cut
	}
	var whole []span
	for _, secret := range r.secrets {
		for i := 0; ; {
			j := strings.Index(p[i:], secret)
			if j < 0 {
				break
			}
			whole = append(whole, span{i + j, i + j + len(secret)})
			i += j + 1
		}
	}
	whole = shapeSpans(whole, p, tail, true)
	for moved := true; moved; {
		moved = false
		// Not right after what would be an AWS key id but for the word
		// characters that follow it: its closing \b would hold in the
		// chunk and not in the whole text.
		if c > 0 && c < len(p) && isWord(p[c-1]) && isWord(p[c]) {
			if w := c - awsKeyIDLen; w >= 0 && !wordBefore(p, w, tail) && awsKeyIDOpen(p[w:c]) {
				c, moved = w, true
			}
		}
		for _, m := range whole {
			if m.start < c && c < m.end {
				c, moved = m.start, true
			}
		}
	}
	return c
}

// openFrom returns the first offset of p from which p could still grow
// into a match (len(p) when none could). Each rule looks at the end of p
// only: a match still open runs to the end.
func (r *redactor) openFrom(p, tail string) int {
	n := len(p)
	best := n
	at := func(i int) { best = min(best, i) }
	boundary := func(i int) bool { return !wordBefore(p, i, tail) } // \b before p[i], p[i] a word character

	// sk-…: a run of [A-Za-z0-9_-] from an "s" at a word boundary, not
	// yet at its cap.
	run := max(trailing(p, isSKChar), n-maxSKKey+1)
	for i := run; i < n; i++ {
		if p[i] == 's' && boundary(i) && prefixEither(p[i:], "sk-") {
			at(i)
			break
		}
	}

	// Bearer: the word being written, or the word, 1 to 16 spaces and the
	// token so far.
	run = trailing(p, isTokenChar)
	for i := max(run, n-len("Bearer")); i < n; i++ {
		if p[i] == 'B' && boundary(i) && strings.HasPrefix("Bearer", p[i:]) {
			at(i)
			break
		}
	}
	ws := run
	for ws > 0 && run-ws <= maxBearerGap && isRESpace(p[ws-1]) {
		ws--
	}
	if k := run - ws; k >= 1 && k <= maxBearerGap && n-run < maxBearer &&
		ws >= len("Bearer") && p[ws-len("Bearer"):ws] == "Bearer" && boundary(ws-len("Bearer")) {
		at(ws - len("Bearer"))
	}

	// GitHub tokens and AWS key ids: in the trailing word run, from any
	// boundary (the run's start, or inside it after an escape's letter in
	// JSON text or a colour sequence's final letter).
	for i := max(trailing(p, isWord), n-maxNamedKey); i < n; i++ {
		if t := p[i:]; boundary(i) && (githubOpen(t) || awsKeyIDOpen(t)) {
			at(i)
			break
		}
	}

	// A JWT: the trailing run of its characters from an "eyJ" at a
	// boundary (or the start of one), not yet at its cap.
	for i := max(trailing(p, isJWTChar), n-maxBearer+1); i < n; i++ {
		if p[i] == 'e' && boundary(i) && prefixEither(p[i:], "eyJ") {
			at(i)
			break
		}
	}

	// An AWS secret access key: the name being written, or the name, its
	// separator and the value so far.
	for _, name := range [...]string{"aws_secret_access_key", "AWS_SECRET_ACCESS_KEY"} {
		if j := strings.LastIndex(p, name); j >= 0 && awsSecretOpen(p[j+len(name):]) {
			at(j)
		}
		for i := max(0, n-len(name)+1); i < n; i++ {
			if p[i] == name[0] && strings.HasPrefix(name, p[i:]) {
				at(i)
				break
			}
		}
	}

	// A secret in use: the end of p is the start of it.
	for _, secret := range r.secrets {
		for i := max(0, n-len(secret)+1); i < n; i++ {
			if p[i] == secret[0] && strings.HasPrefix(secret, p[i:]) {
				at(i)
				break
			}
		}
	}
	return best
}

// githubOpen reports whether word run t could grow into a GitHub token.
func githubOpen(t string) bool {
	if len(t) >= maxNamedKey {
		return false
	}
	if prefixEither(t, "github_pat_") {
		return true // the rest is word characters, the token's class
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch i {
		case 0:
			if c != 'g' {
				return false
			}
		case 1:
			if c != 'h' {
				return false
			}
		case 2:
			if strings.IndexByte("pousr", c) < 0 {
				return false
			}
		case 3:
			if c != '_' {
				return false
			}
		default:
			if c == '_' {
				return false
			}
		}
	}
	return true
}

// awsKeyIDOpen reports whether word run t could grow into (or, at 20
// characters, still be) an AWS access key id.
func awsKeyIDOpen(t string) bool {
	if len(t) > awsKeyIDLen || !(prefixEither(t, "AKIA") || prefixEither(t, "ASIA")) {
		return false
	}
	for i := 4; i < len(t); i++ {
		if c := t[i]; !('A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// awsSecretOpen reports whether t, what follows an aws_secret_access_key
// name, could grow into the separator and value the shape wants.
func awsSecretOpen(t string) bool {
	i := 0
	quote := func() {
		if i < len(t) && (t[i] == '"' || t[i] == '\'') {
			i++
		}
	}
	spaces := func() bool {
		for k := 0; i < len(t) && isRESpace(t[i]); k++ {
			if k == 8 {
				return false
			}
			i++
		}
		return true
	}
	quote()
	if !spaces() {
		return false
	}
	if i == len(t) {
		return true
	}
	if t[i] != ':' && t[i] != '=' {
		return false
	}
	i++
	if !spaces() {
		return false
	}
	quote()
	if len(t)-i >= maxNamedKey {
		return false
	}
	for ; i < len(t); i++ {
		if !isAWSSecretChar(t[i]) {
			return false
		}
	}
	return true
}

// prefixEither reports whether t is a prefix of lit, or lit a prefix of t.
func prefixEither(t, lit string) bool {
	if len(t) <= len(lit) {
		return strings.HasPrefix(lit, t)
	}
	return strings.HasPrefix(t, lit)
}

// trailing returns where the run of bytes in(c) that ends p starts.
func trailing(p string, in func(byte) bool) int {
	i := len(p)
	for i > 0 && in(p[i-1]) {
		i--
	}
	return i
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// isWord is \w: RE2's word characters are ASCII only.
func isWord(c byte) bool { return isAlnum(c) || c == '_' }

func isSKChar(c byte) bool { return isWord(c) || c == '-' }

func isAWSSecretChar(c byte) bool { return isAlnum(c) || c == '/' || c == '+' || c == '=' }

// isJWTChar is a JWT's class: base64url and the dots between its parts.
func isJWTChar(c byte) bool { return isWord(c) || c == '-' || c == '.' }

// isTokenChar is the Bearer token's class, which holds every other shape's.
func isTokenChar(c byte) bool { return isWord(c) || strings.IndexByte(".~+/=-", c) >= 0 }

// isRESpace is RE2's \s.
func isRESpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }
