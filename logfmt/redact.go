package logfmt

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf16"
	"unsafe"

	"trail/lazy"
)

// Redaction rules (SPEC 7.1, widened). What the log and the session record
// never hold:
//
//   - the value under a key that is, case-insensitively and as a whole, one
//     of api[-_]?key, authorization, access[-_]?token, refresh[-_]?token,
//     secret, password, x[-_]?api[-_]?key: it becomes "[REDACTED]",
//     whatever its type (redact_keys.go);
//   - inside every string, each secret in use (Options.Secrets: the API
//     keys, the settings' env values, the environment's secret-named
//     variables; at least 8 bytes) and every run shaped like a key:
//     sk-ant-… and sk-… keys, the token of "Bearer <token>", GitHub tokens
//     (ghp_, gho_, ghu_, ghs_, ghr_ and github_pat_), AWS access key ids
//     (AKIA…, ASIA…) and the 40-character value after
//     aws_secret_access_key or AWS_SECRET_ACCESS_KEY and "=" or ":", and
//     JWTs (eyJ….eyJ….…). Each becomes "[REDACTED]".
//
// Every match is found in the original string and overlapping matches are
// merged before anything is replaced, so the result does not depend on the
// order of the rules. Text that streams in pieces is redacted on the joined
// text (redact_stream.go): a key split across text_delta lines is not in the
// log even when the lines are joined.
//
// Most values hold none of this, and the writer must stay O(1) per event,
// so every rule starts with a plain substring check (its hint) and regular
// expressions run only on strings that pass it.
//
// Redaction reads strings as written. A secret spelled with \uXXXX escapes
// inside raw JSON is not decoded by the cheap checks.

const redactedText = "[REDACTED]"

var redactedJSON = []byte(`"` + redactedText + `"`)

// minSecretLen keeps short strings (empty, "test") from blanking half a log.
const minSecretLen = 8

// A shape is a key-shaped run: a regular expression finds its start, what
// makes it a key, and the secret part then runs on over its characters up
// to a cap. The cap keeps what a stream must hold back bounded (a run
// longer than any key is not held whole) and stands in for RE2's limit of
// 1000 on a repeat count. Every character a shape's secret part holds is a
// word character or one of ".~+/=-" (the Bearer token's class).
type shape struct {
	re    *lazy.Regexp    // compiled on first use: most processes never meet a key
	group int             // the submatch that is the secret part; 0 for the whole match
	runs  func(byte) bool // what the secret part runs on with; nil when its length is fixed
	max   int             // the secret part's longest length
	hint  uint            // the hint bit that must be set for re to be worth running
	// extend, when set, takes the place of runs: where the secret part
	// that reaches b in s ends (a JWT's parts are told apart by its dots).
	extend func(s string, b int) int
	// starts are the literals every match begins with: re runs only on a
	// window at each of them, never over the whole string (RE2 with
	// submatches reads about 15 MB/s, and a pasted file of megabytes
	// holds an "AKIA" or "sk-" by chance).
	starts []string
}

// shapeWindow is the most of a string a shape's expression reads from a
// start: the longest match before its run (the AWS secret's 21-byte name,
// quotes, 16 spaces, "=" and 40 characters, 88 bytes) and the byte after
// it, for a closing \b.
const shapeWindow = 128

// Hint bits: which cheap substring checks a string passed.
const (
	hintSK uint = 1 << iota
	hintBearer
	hintGitHub
	hintAWSKeyID
	hintAWSSecret
	hintJWT
)

// Caps of the secret parts: longer than any key of the kind (Anthropic's
// are about 110 characters, OpenAI's 170, GitHub's 93), and a JWT in a
// Bearer header runs to a few KiB.
const (
	maxSKKey     = 512
	maxBearer    = 8192
	maxNamedKey  = 255
	awsKeyIDLen  = 20
	maxBearerGap = 16 // spaces between "Bearer" and its token
)

var shapes = []shape{
	// \b keeps "task-management-system-design" whole.
	{re: &lazy.Regexp{Expr: `\bsk-(?:ant-[A-Za-z0-9_-]{16}|[A-Za-z0-9_-]{20})`}, group: 0, runs: isSKChar, max: maxSKKey, hint: hintSK, starts: []string{"sk-"}},
	{re: &lazy.Regexp{Expr: `\bBearer\s{1,16}([A-Za-z0-9._~+/=-]{8})`}, group: 1, runs: isTokenChar, max: maxBearer, hint: hintBearer, starts: []string{"Bearer"}},
	{re: &lazy.Regexp{Expr: `\bgh[pousr]_[A-Za-z0-9]{36}`}, group: 0, runs: isAlnum, max: maxNamedKey, hint: hintGitHub, starts: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}},
	{re: &lazy.Regexp{Expr: `\bgithub_pat_[A-Za-z0-9_]{22}`}, group: 0, runs: isWord, max: maxNamedKey, hint: hintGitHub, starts: []string{"github_pat_"}},
	{re: &lazy.Regexp{Expr: `\b(?:AKIA|ASIA)[A-Z0-9]{16}\b`}, group: 0, runs: nil, max: awsKeyIDLen, hint: hintAWSKeyID, starts: []string{"AKIA", "ASIA"}},
	{re: &lazy.Regexp{Expr: `(?:aws_secret_access_key|AWS_SECRET_ACCESS_KEY)["']?\s{0,8}[:=]\s{0,8}["']?([A-Za-z0-9/+=]{40})`}, group: 1, runs: isAWSSecretChar, max: maxNamedKey, hint: hintAWSSecret,
		starts: []string{"aws_secret_access_key", "AWS_SECRET_ACCESS_KEY"}},
	// A JWT (a CI job's identity token, an OIDC token a tool printed): a
	// base64url JSON header, ".", a payload that is JSON too ("eyJ" is
	// `{"`), ".", a signature; a header of at most 100 characters.
	{re: &lazy.Regexp{Expr: `\beyJ[A-Za-z0-9_-]{8,100}\.eyJ[A-Za-z0-9_-]{4}`}, max: maxBearer, hint: hintJWT, extend: jwtEnd, starts: []string{"eyJ"}},
}

// jwtEnd is where a JWT whose claims reach b ends: the claims, then a dot
// and the signature if one follows; a dot after that is the sentence's.
func jwtEnd(s string, b int) int {
	for b < len(s) && isSKChar(s[b]) {
		b++
	}
	if b+1 < len(s) && s[b] == '.' && isSKChar(s[b+1]) {
		b++
		for b < len(s) && isSKChar(s[b]) {
			b++
		}
	}
	return b
}

// shapeSpans appends the shapes' matches in s: the secret parts, or with
// whole the whole matches (a Bearer token with its "Bearer"). tail is the
// end of the text before s (a stream's released text), "" at its start.
func shapeSpans(dst []span, s, tail string, whole bool) []span {
	h := shapeHints(s)
	if h == 0 {
		return dst
	}
	for _, sh := range shapes {
		if h&sh.hint == 0 {
			continue
		}
		re := sh.re.Get()
		for _, lit := range sh.starts {
			for i := 0; ; {
				j := strings.Index(s[i:], lit)
				if j < 0 {
					break
				}
				at := i + j
				i = at + 1
				// The window starts with a stand-in for the byte before the
				// start, for the \b the shapes start with: a word character
				// when the text there ends in one (wordBefore: not the
				// letter of an escape such as \n in JSON text).
				before := " "
				if wordBefore(s, at, tail) {
					before = "0"
				}
				win, from := before+s[at:min(len(s), at+shapeWindow)], at-1
				m := re.FindStringSubmatchIndex(win)
				if m == nil || m[0]+from != at {
					continue // no key here (a later start in the window has its own turn)
				}
				a, b := m[2*sh.group]+from, m[2*sh.group+1]+from
				switch {
				case sh.extend != nil:
					b = min(sh.extend(s, b), a+sh.max)
				case sh.runs != nil:
					for b < len(s) && b-a < sh.max && sh.runs(s[b]) {
						b++
					}
				}
				if whole {
					a = at
				}
				dst = append(dst, span{a, b})
			}
		}
	}
	return dst
}

// shapeHints returns the hint bits of s: a substring search for "sk-",
// "Bearer" and the "IA" of AKIA and ASIA, and one pass over the
// underscores for the GitHub and AWS names.
func shapeHints(s string) uint {
	var h uint
	if strings.Contains(s, "sk-") {
		h |= hintSK
	}
	if strings.Contains(s, "Bearer") {
		h |= hintBearer
	}
	if strings.Contains(s, "eyJ") {
		h |= hintJWT
	}
	for i := strings.Index(s, "IA"); i >= 0; {
		if i >= 2 && (s[i-2:i] == "AK" || s[i-2:i] == "AS") {
			h |= hintAWSKeyID
			break
		}
		j := strings.Index(s[i+2:], "IA")
		if j < 0 {
			break
		}
		i += 2 + j
	}
	for i := strings.IndexByte(s, '_'); i >= 0; {
		switch {
		case i >= 3 && s[i-3] == 'g' && s[i-2] == 'h' && strings.IndexByte("pousr", s[i-1]) >= 0,
			i >= 6 && s[i-6:i] == "github" && strings.HasPrefix(s[i:], "_pat_"):
			h |= hintGitHub
		case i >= 3 && s[i-3:i] == "aws" && strings.HasPrefix(s[i:], "_secret_access_key"),
			i >= 3 && s[i-3:i] == "AWS" && strings.HasPrefix(s[i:], "_SECRET_ACCESS_KEY"):
			h |= hintAWSSecret
		}
		j := strings.IndexByte(s[i+1:], '_')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return h
}

// wordBefore reports whether the byte before s[i] is a word character for
// the \b a key shape starts with; tail is the text before s. A letter that
// ends an escape in JSON text is none: a tool result holds its output as
// JSON, where every line after the first starts after "\n", and a key
// there ("\nsk-ant-…", "\u0026ghp_…") was not found.
func wordBefore(s string, i int, tail string) bool {
	ctx := s[max(0, i-ctxBytes):i]
	if len(ctx) < ctxBytes && len(tail) > 0 {
		ctx = tail[max(0, len(tail)-(ctxBytes-len(ctx))):] + ctx
	}
	n := len(ctx)
	if n == 0 || !isWord(ctx[n-1]) {
		return false
	}
	if n >= 2 && ctx[n-2] == '\\' && strings.IndexByte("nrtbf", ctx[n-1]) >= 0 {
		return false
	}
	if n >= 6 && ctx[n-6] == '\\' && ctx[n-5] == 'u' && isHex(ctx[n-4]) && isHex(ctx[n-3]) && isHex(ctx[n-2]) && isHex(ctx[n-1]) {
		return false
	}
	if n >= 3 && ctx[n-3] == '%' && isHex(ctx[n-2]) && isHex(ctx[n-1]) {
		return false // URL-encoded text: %22sk-ant-…
	}
	return !endsInCSI(ctx)
}

// escapedAt reports whether s[k] is the letter of a JSON escape (the n of
// \n in JSON text): a secret that starts with n, t, r, b or f is not there,
// a newline is, and replacing from the letter broke the escape, and the
// JSON with it.
func escapedAt(s string, k int, tail string) bool {
	if strings.IndexByte("nrtbfu", s[k]) < 0 {
		return false
	}
	run := 0
	for i := k - 1; i >= 0 && s[i] == '\\'; i-- {
		run++
	}
	if run == k { // the run may go on in the text before s
		for i := len(tail) - 1; i >= 0 && tail[i] == '\\'; i-- {
			run++
		}
	}
	return run%2 == 1
}

// ctxBytes is how much of the text before a start wordBefore reads: the
// longest escape it knows, a colour sequence as JSON writes it
// (\u001b[38;5;208m).
const ctxBytes = 24

// endsInCSI reports whether ctx ends with a terminal control sequence
// (ESC [ digits and semicolons, a final letter), raw or as JSON escapes
// it: coloured output (grep --color, ls --color) puts one before a key,
// and its final letter is no part of the key's word.
func endsInCSI(ctx string) bool {
	n := len(ctx)
	if n < 3 || !('A' <= ctx[n-1] && ctx[n-1] <= 'Z' || 'a' <= ctx[n-1] && ctx[n-1] <= 'z') {
		return false
	}
	i := n - 1
	for i > 0 && (ctx[i-1] >= '0' && ctx[i-1] <= '9' || ctx[i-1] == ';') {
		i--
	}
	if i == 0 || ctx[i-1] != '[' {
		return false
	}
	before := ctx[:i-1]
	return strings.HasSuffix(before, "\x1b") || strings.HasSuffix(before, `\u001b`) || strings.HasSuffix(before, `\u001B`)
}

// tailOf is the end of text that wordBefore may look at.
func tailOf(tail, text string) string {
	if len(text) >= ctxBytes {
		return text[len(text)-ctxBytes:]
	}
	t := tail + text
	return t[max(0, len(t)-ctxBytes):]
}

// structuralWord reports whether s is a word trail writes as structure: an
// event name, a role, a mutation, a stop reason. No secret is one of them,
// and a variable that happens to hold one (MY_TOKEN=assistant) must not
// rewrite every message's role: the record would no longer load.
func structuralWord(s string) bool {
	if _, ok := eventNames.Get()[s]; ok {
		return true
	}
	switch s {
	case "append_message", "replace_all", "external-payload", "end_turn", "tool_use", "max_tokens",
		"stop_sequence", "pause_turn", "requires_action", "interrupted", "completed", "tool_calls",
		"bypassPermissions", "acceptEdits":
		return true
	}
	return false
}

// printedForms are the forms of s as a program's JSON encoder may print
// it, escaped once: as trail and JavaScript escape, as Go's encoding/json
// (docker, kubectl, terraform, gh: also <, > and & as \u003c...), as
// Python's json.dumps (also every character past ASCII as \uXXXX) and as
// PHP's json_encode (also / as \/). Only the forms that differ from s and
// from each other.
func printedForms(s string) []string {
	std := appendString(nil, s)
	forms := []string{string(std[1 : len(std)-1])}
	var html, ascii strings.Builder
	for _, r := range forms[0] {
		switch {
		case r == '<' || r == '>' || r == '&':
			fmt.Fprintf(&html, `\u%04x`, r)
			ascii.WriteRune(r)
		case r > 0x7f && r <= 0xffff:
			html.WriteRune(r)
			fmt.Fprintf(&ascii, `\u%04x`, r)
		case r > 0xffff:
			html.WriteRune(r)
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&ascii, `\u%04x\u%04x`, r1, r2)
		default:
			html.WriteRune(r)
			ascii.WriteRune(r)
		}
	}
	for _, f := range []string{html.String(), ascii.String(), strings.ReplaceAll(forms[0], "/", `\/`)} {
		if !slices.Contains(forms, f) {
			forms = append(forms, f)
		}
	}
	// .NET's and Java's encoders write \u escapes in capitals (\u00FC)
	for _, f := range forms {
		if up := upperEscapes(f); up != f && !slices.Contains(forms, up) {
			forms = append(forms, up)
		}
	}
	return forms
}

// upperEscapes writes the hex digits of f's \u escapes in capitals.
func upperEscapes(f string) string {
	if !strings.Contains(f, `\u`) {
		return f
	}
	b := []byte(f)
	for i := 0; i+5 < len(b); i++ {
		if b[i] == '\\' && b[i+1] == 'u' {
			for k := i + 2; k < i+6; k++ {
				if 'a' <= b[k] && b[k] <= 'f' {
					b[k] -= 'a' - 'A'
				}
			}
			i += 5
		}
	}
	return string(b)
}

// escapeLevels is how many times over a secret is looked for escaped.
const escapeLevels = 3

type redactor struct {
	secrets    []string // distinct, at least minSecretLen bytes, longest first
	rawSecrets []string // the same, as they look inside a JSON string
}

func newRedactor(secrets []string) *redactor {
	r := &redactor{}
	add := func(s string) {
		if len(s) >= minSecretLen && !slices.Contains(r.secrets, s) && !structuralWord(s) {
			r.secrets = append(r.secrets, s)
		}
	}
	for _, s := range secrets {
		add(s)
		// A secret with quotes, backslashes or newlines (Docker's auth
		// config is JSON, a private key has lines) is written escaped
		// where a string holds JSON text: once in a tool result's
		// {"success", "output"}, twice when the command printed JSON
		// itself (jq -n env, docker inspect), three times when that JSON
		// held JSON. The command's own encoder may escape more than trail
		// does (printedForms), trail's the levels above it.
		for _, f := range printedForms(s) {
			for level := 1; level <= escapeLevels; level++ {
				add(f)
				q := appendString(nil, f)
				if len(q) == len(f)+2 {
					break // nothing more to escape
				}
				f = string(q[1 : len(q)-1])
			}
		}
	}
	slices.SortStableFunc(r.secrets, func(a, b string) int { return len(b) - len(a) })
	for _, s := range r.secrets {
		q := appendString(nil, s)
		r.rawSecrets = append(r.rawSecrets, string(q[1:len(q)-1]))
	}
	return r
}

// scrub returns s with secrets and key-shaped runs replaced; s itself when
// there is nothing to replace, without allocating.
func (r *redactor) scrub(s string) string {
	if !r.suspect(s) {
		return s
	}
	return applySpans(s, r.spans(nil, s, ""))
}

// scrubSecrets replaces only the secrets in use, which, unlike the shapes,
// do not depend on the text around them.
func (r *redactor) scrubSecrets(s string) string {
	for _, secret := range r.secrets {
		if strings.Contains(s, secret) {
			return applySpans(s, r.spans(nil, s, ""))
		}
	}
	return s
}

func (r *redactor) suspect(s string) bool {
	if shapeHints(s) != 0 {
		return true
	}
	for _, secret := range r.secrets {
		if strings.Contains(s, secret) {
			return true
		}
	}
	return false
}

// rawStringSuspect is suspect for JSON text that has not been decoded.
func (r *redactor) rawStringSuspect(b []byte) bool {
	// The checks only read b, and nothing keeps the view past the call.
	s := unsafe.String(unsafe.SliceData(b), len(b))
	if shapeHints(s) != 0 {
		return true
	}
	for _, secret := range r.rawSecrets {
		if strings.Contains(s, secret) {
			return true
		}
	}
	return false
}

// rawSuspect reports whether a raw JSON document may need redaction: a
// suspect string, or a key that could be sensitive somewhere in it.
func (r *redactor) rawSuspect(b []byte) bool {
	return r.rawStringSuspect(b) || mayHoldSensitiveKey(b)
}

// span is a byte range [start, end) to replace by "[REDACTED]".
type span struct{ start, end int }

// spans appends the ranges of s to redact, sorted, overlapping ones merged
// (touching ones are not: the result must not depend on where a stream was
// cut). tail is the end of the text before s, which decides the \b at its
// start: "" for a whole string.
func (r *redactor) spans(dst []span, s, tail string) []span {
	for _, secret := range r.secrets {
		for i := 0; ; {
			j := strings.Index(s[i:], secret)
			if j < 0 {
				break
			}
			if !escapedAt(s, i+j, tail) {
				dst = append(dst, span{i + j, i + j + len(secret)})
			}
			i += j + 1
		}
	}
	return mergeSpans(shapeSpans(dst, s, tail, false))
}

// mergeSpans sorts spans and merges the overlapping ones.
func mergeSpans(dst []span) []span {
	if len(dst) < 2 {
		return dst
	}
	slices.SortFunc(dst, func(a, b span) int { return a.start - b.start })
	out := dst[:1]
	for _, sp := range dst[1:] {
		last := &out[len(out)-1]
		if sp.start < last.end {
			last.end = max(last.end, sp.end)
		} else {
			out = append(out, sp)
		}
	}
	return out
}

// applySpans replaces each span of s by "[REDACTED]".
func applySpans(s string, spans []span) string {
	if len(spans) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	prev := 0
	for _, sp := range spans {
		b.WriteString(s[prev:sp.start])
		b.WriteString(redactedText)
		prev = sp.end
	}
	b.WriteString(s[prev:])
	return b.String()
}
