package logfmt

import (
	"encoding/json"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

const (
	ghToken   = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
	awsSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	// the example token of RFC 7519 §3.1's shape: header, claims, signature
	jwt = "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODB9.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
)

// streamSecrets holds a secret with spaces and one that ends where a key
// shape could start, the cases a cut at word boundaries alone would split.
var streamSecrets = []string{apiKey, "pass word 12", "xyzzy-passphrase"}

// streamAll writes pieces and flushes, returning each released text.
func streamAll(t *TextStream, pieces []string) []string {
	var out []string
	for _, p := range pieces {
		got, _ := t.Write(p)
		out = append(out, got.String())
	}
	return append(out, t.Flush().String())
}

func splitEvery(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}

func TestStreamedKeysAreRedactedOnTheJoinedText(t *testing.T) {
	tests := []struct {
		name, text string
	}{
		{"an Anthropic key", "your key: sk-ant-api03-" + strings.Repeat("Zx9", 12) + " keep it safe"},
		{"a GitHub token", "token " + ghToken + "."},
		{"a fine-grained GitHub token", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEF done"},
		{"an AWS key id and secret", "AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = " + awsSecret + "\n"},
		{"a bearer token", "curl -H 'Authorization: Bearer abcdefghijklmnop.qrstuvwxyz' https://x"},
		{"a secret in use", "the key is " + apiKey + "!"},
		{"a secret with spaces", "it says pass word 12 here"},
		{"a JWT", "CI_JOB_JWT=" + jwt + "\n"},
	}
	for _, tt := range tests {
		for _, size := range []int{1, 4, 7} {
			t.Run(tt.name, func(t *testing.T) {
				r := NewRedactor(streamSecrets)
				want := r.String(tt.text)
				if want == tt.text {
					t.Fatalf("the whole text is not redacted: %q", want)
				}
				out := streamAll(r.Stream(), splitEvery(tt.text, size))
				if got := strings.Join(out, ""); got != want {
					t.Fatalf("joined stream %q, want %q", got, want)
				}
				for _, o := range out {
					for _, secret := range []string{"Zx9Zx9Zx9", ghToken[4:], awsSecret[:20], "abcdefghijklmnop", apiKey[6:], "word 12", jwt[40:60]} {
						if strings.Contains(o, secret) {
							t.Fatalf("released %q holds %q", o, secret)
						}
					}
				}
			})
		}
	}
}

// Plain words are released at once: nothing they start can become a key.
func TestStreamReleasesPlainTextAtOnce(t *testing.T) {
	s := NewRedactor(streamSecrets).Stream()
	for _, piece := range []string{"Hello", "!", " the quick", " brown fox ", "jumps"} {
		if got, _ := s.Write(piece); got.String() != piece {
			t.Fatalf("Write(%q) released %q", piece, got)
		}
	}
	// The start of a shape waits for the next piece.
	for _, piece := range []string{" s", " Bea", " gh", " AKI", " aws_secr", " xyzzy-pass", " ey", " eyJhbGci"} {
		s := NewRedactor(streamSecrets).Stream()
		if got, _ := s.Write(piece); got.String() != " " {
			t.Errorf("Write(%q) released %q, want only the space", piece, got)
		}
		if got := s.Flush(); got.String() != piece[1:] {
			t.Errorf("Flush after %q released %q", piece, got)
		}
	}
}

// Each piece, once released, is what the joined text made of it, so the
// payloads that carried the pieces join into the redacted text too.
func TestStreamPieces(t *testing.T) {
	text := "a " + ghToken + " b s"
	r := NewRedactor(nil)
	s := r.Stream()
	pieces := splitEvery(text, 4)
	for i, p := range pieces {
		if _, n := s.Write(p); n != i {
			t.Fatalf("piece %d numbered %d", i, n)
		}
	}
	if _, ok := s.Piece(len(pieces) - 1); ok {
		t.Fatal("the last piece is resolved before the stream is flushed")
	}
	s.Flush()
	var joined strings.Builder
	for i := range pieces {
		out, ok := s.Piece(i)
		if !ok {
			t.Fatalf("piece %d not resolved after Flush", i)
		}
		joined.WriteString(out)
	}
	if got, want := joined.String(), r.String(text); got != want {
		t.Fatalf("pieces join into %q, want %q", got, want)
	}
}

// streamFragments make texts where shapes, secrets and their near misses
// meet piece boundaries.
var streamFragments = []string{
	"hello", " ", "  ", "\n", "\t", ".", "-", "_", "=", ":", "'", `"`, "/", "+", "x", "s", "k", "B", "A", "é",
	"sk-", "sk-ant-", "Bearer", "Bearer ", "ghp_", "gho_", "github_pat_", "AKIA", "ASIA", "aws_", "aws_secret_access_key",
	"AWS_SECRET_ACCESS_KEY", " = ", ": ", "abcdefghij", "ABCDEFGHIJKLMNOP", "0123456789", "Zz09", "[REDACTED]",
	apiKey, apiKey[:9], "pass word 12", "pass wo", "xyzzy-passphrase", "xyzzy", "task-", "mask",
	"eyJ", "eyJhbGciOiJIUzI1NiJ9", ".eyJ", "eyJzdWIiOiIx", jwt, jwt[:50],
	`\`, `\n`, `\t`, "n", `\u0026`, `\u00`, "26", ghToken, ghToken[:10], "AKIAIOSFODNN7EXAMPLE",
	"\x1b[32m", "\x1b[", "32m", `\u001b[1;31m`, `\u001b`, "%22", "%2", "m",
}

func randomText(rng *rand.Rand) string {
	var b strings.Builder
	for range 1 + rng.IntN(30) {
		b.WriteString(streamFragments[rng.IntN(len(streamFragments))])
	}
	return b.String()
}

func randomPieces(rng *rand.Rand, s string) []string {
	var out []string
	for len(s) > 0 {
		n := min(len(s), 1+rng.IntN(8))
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

func checkStream(t *testing.T, r *Redactor, text string, pieces []string) {
	t.Helper()
	want := r.String(text)
	s := r.Stream()
	got := strings.Join(streamAll(s, pieces), "")
	if got != want {
		t.Fatalf("text %q in pieces %q:\njoined stream %q\nwhole text    %q", text, pieces, got, want)
	}
	var joined strings.Builder
	for i := range pieces {
		out, ok := s.Piece(i)
		if !ok {
			t.Fatalf("text %q: piece %d not resolved after Flush", text, i)
		}
		joined.WriteString(out)
	}
	if joined.String() != want {
		t.Fatalf("text %q in pieces %q: pieces join into %q, want %q", text, pieces, joined.String(), want)
	}
}

func TestStreamJoinsToTheWholeTextRedacted(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	r := NewRedactor(streamSecrets)
	for range 5000 {
		text := randomText(rng)
		checkStream(t, r, text, randomPieces(rng, text))
	}
}

func FuzzTextStream(f *testing.F) {
	f.Add("key sk-ant-api03-abcdefghijklmnopqrstu end", []byte{4, 4, 4})
	f.Add("Bearer  abcdefghijk, "+ghToken, []byte{1, 2, 3})
	f.Add("aws_secret_access_key: '"+awsSecret+"'", []byte{5})
	f.Add("xpass word 12sk-aaaaaaaaaaaaaaaaaaaaaaaaa", []byte{2, 9})
	f.Add("token="+jwt+" and eyJabc.eyJ", []byte{3, 7, 11})
	f.Add(`a\nsk-ant-api03-abcdefghijklmnop\u0026`+ghToken+`\tAKIAIOSFODNN7EXAMPLE`, []byte{1, 2, 5, 9})
	f.Fuzz(func(t *testing.T, text string, cuts []byte) {
		if len(text) > 4096 {
			return
		}
		var pieces []string
		rest := text
		for _, c := range cuts {
			n := min(len(rest), int(c%16))
			pieces = append(pieces, rest[:n])
			rest = rest[n:]
		}
		pieces = append(pieces, rest)
		checkStream(t, NewRedactor(streamSecrets), text, pieces)
	})
}

// A released text is logged as it is: redacting a piece alone would take
// out a "sk-…" the text before it made part of a longer word.
func TestWriterLogsReleasedTextAsItIs(t *testing.T) {
	r := NewRedactor([]string{apiKey})
	s := r.Stream()
	first, _ := s.Write("xsk")
	second, _ := s.Write("-aaaaaaaaaaaaaaaaaaaaaaaaa ")
	w := openTest(t, filepath.Join(t.TempDir(), "s1.jsonl"), Options{Secrets: []string{apiKey}})
	logOK(t, w, "text_delta", F("delta", first))
	logOK(t, w, "text_delta", F("delta", second))
	logOK(t, w, "text_delta", F("delta", RedactedText{"leaked " + apiKey}))
	lines := readLines(t, w.Path())
	var joined string
	for _, l := range lines[:2] {
		joined += gjson.Get(l, "delta").String()
	}
	if want := "xsk-aaaaaaaaaaaaaaaaaaaaaaaaa "; joined != want {
		t.Errorf("joined deltas %q, want %q", joined, want)
	}
	if got := gjson.Get(lines[2], "delta").String(); got != "leaked [REDACTED]" {
		t.Errorf("a secret in use in released text was logged: %q", got)
	}
}

func TestRedactorJSON(t *testing.T) {
	r := NewRedactor([]string{apiKey})
	clean := json.RawMessage(`{"role": "user", "content": "hi"}`)
	if got, err := r.JSON(clean); err != nil || &got[0] != &clean[0] {
		t.Errorf("a clean document was copied: %s %v", got, err)
	}
	words := json.RawMessage(`{"tokens": 5, "content": "sk-abc"}`)
	if got, _ := r.JSON(words); &got[0] != &words[0] {
		t.Errorf("a document with nothing to redact was rewritten: %s", got)
	}
	dirty := json.RawMessage(`{"content": "use ` + apiKey + ` and ` + ghToken + `", "metadata": {"apiKey": 1}}`)
	got, err := r.JSON(dirty)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"content":"use [REDACTED] and [REDACTED]","metadata":{"apiKey":"[REDACTED]"}}`; string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// The record and the log must agree: the writer gives the same bytes.
	line := logLine(t, Options{Secrets: []string{apiKey}}, F("message", dirty))
	if gjson.Get(line, "message").Raw != string(got) {
		t.Errorf("the writer logged %s, the redactor gave %s", gjson.Get(line, "message").Raw, got)
	}
	if got, _ := r.Member("password", json.RawMessage(`"hunter2"`)); string(got) != `"[REDACTED]"` {
		t.Errorf("Member(password) = %s", got)
	}
	if got := (*Redactor)(nil).String("x " + ghToken); got != "x [REDACTED]" {
		t.Errorf("a nil Redactor left a shape: %q", got)
	}
}

func TestReplacePieceText(t *testing.T) {
	ev := json.RawMessage(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"ghp_"}}`)
	got := ReplacePieceText(ev, "ghp_", "[REDACTED]")
	if want := `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"[REDACTED]"}}`; string(got.(json.RawMessage)) != want {
		t.Errorf("got %s", got)
	}
	// A key with the same text as the piece is not a value.
	ev = json.RawMessage(`{"text":"a","b":{"text":"text"}}`)
	if got := ReplacePieceText(ev, "text", ""); string(got.(json.RawMessage)) != `{"text":"a","b":{"text":""}}` {
		t.Errorf("got %s", got)
	}
	if got := ReplacePieceText(json.RawMessage(`{"text":"other"}`), "ghp_", ""); got != "[REDACTED]" {
		t.Errorf("a payload without the piece was kept: %v", got)
	}
}

// An answer cut short (an interrupt, a dropped connection) leaves no part
// of a key it was writing: FlushCut releases what the stream held from
// where a key could have grown, as CutEnd does to the whole text, and the
// pieces join into the same.
func TestStreamCutShortJoinsToCutEnd(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 3))
	r := NewRedactor(streamSecrets)
	for range 5000 {
		text := randomText(rng)
		pieces := randomPieces(rng, text)
		s := r.Stream()
		var out strings.Builder
		for _, p := range pieces {
			got, _ := s.Write(p)
			out.WriteString(got.String())
		}
		out.WriteString(s.FlushCut().String())
		want := r.CutEnd(text)
		if out.String() != want {
			t.Fatalf("text %q in pieces %q:\ncut stream %q\nCutEnd     %q", text, pieces, out.String(), want)
		}
		var joined strings.Builder
		for i := range pieces {
			p, _ := s.Piece(i)
			joined.WriteString(p)
		}
		if joined.String() != want {
			t.Fatalf("text %q: pieces join into %q, want %q", text, joined.String(), want)
		}
	}
	if got := r.CutEnd("the key is sk-ant-api03-abc"); got != "the key is [REDACTED]" {
		t.Errorf("a key cut short: %q", got)
	}
}
