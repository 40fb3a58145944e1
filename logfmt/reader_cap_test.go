package logfmt

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// readCapped reads every line of in with a cap of maxLine bytes.
func readCapped(t *testing.T, r io.Reader, maxLine int) []Line {
	t.Helper()
	rd := newReader(nil, r, maxLine)
	defer rd.Release()
	var out []Line
	for {
		l, err := rd.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		l.Bytes = bytes.Clone(l.Bytes)
		out = append(out, l)
	}
}

// A line over the cap comes back once, marked too long with its whole
// length and only its start, wherever it is (in the read buffer or past
// it, ended by "\n" or by the input); the lines around it read as ever.
func TestReaderLineOverTheCap(t *testing.T) {
	const small, large = 100, readerBufSize + 100 // under and over the read buffer
	obj := `{"a":1}`
	big := func(n int) string { return `{"event":"provider_request","x":"` + strings.Repeat("x", n-35) + `"}` }
	tests := []struct {
		name     string
		cap      int
		in       string
		wantLong int // the too-long line's length
		at       int // its line number
		after    int // lines after it
	}{
		{"within the buffer", small, obj + "\n" + big(small+1) + "\n" + obj + "\n", small + 1, 2, 1},
		{"past the buffer", small, obj + "\n" + big(3*readerBufSize+7) + "\n" + obj + "\n", 3*readerBufSize + 7, 2, 1},
		{"past the buffer, its end over a cap past it", large, big(large+1) + "\n" + obj + "\n", large + 1, 1, 1},
		{"past the buffer, its middle over a cap past it", large, big(3*large) + "\n" + obj + "\n", 3 * large, 1, 1},
		{"the last line, no newline", small, obj + "\n" + big(2*readerBufSize), 2 * readerBufSize, 2, 0},
		{"the last line past a cap past the buffer, no newline", large, obj + "\n" + big(large+1), large + 1, 2, 0},
		{"the last line within the buffer, no newline", small, obj + "\n" + big(small+50), small + 50, 2, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines := readCapped(t, strings.NewReader(tt.in), tt.cap)
			var long *Line
			for i := range lines {
				if lines[i].tooLong > 0 {
					if long != nil {
						t.Fatalf("two lines too long: %d and %d", long.Num, lines[i].Num)
					}
					long = &lines[i]
				}
			}
			if long == nil {
				t.Fatalf("no line marked too long in %d lines", len(lines))
			}
			if long.tooLong != int64(tt.wantLong) || long.Num != tt.at || long.Object || long.Torn {
				t.Errorf("too long line = num %d len %d object %v torn %v, want num %d len %d", long.Num, long.tooLong, long.Object, long.Torn, tt.at, tt.wantLong)
			}
			if len(long.Bytes) > tooLongPrefix || !bytes.HasPrefix(long.Bytes, []byte(`{"event":"provider_request"`)) {
				t.Errorf("kept %d bytes starting %.40q", len(long.Bytes), long.Bytes)
			}
			if p := long.Problem(); !strings.Contains(p, fmt.Sprintf("%d-byte line limit", tt.cap)) {
				t.Errorf("problem = %q", p)
			}
			if got := len(lines) - tt.at; got != tt.after {
				t.Fatalf("%d lines after it, want %d", got, tt.after)
			}
			for _, l := range lines[tt.at:] {
				if !l.Object || string(l.Bytes) != obj || l.Index != l.Num-1 {
					t.Errorf("line after it = %+v", l)
				}
			}
		})
	}
	// At the cap exactly, a line is read whole, in the buffer or past it.
	for _, c := range []int{small, large} {
		at := big(c)
		lines := readCapped(t, strings.NewReader(at+"\n"+at), c)
		if len(lines) != 2 || !lines[0].Object || !lines[1].Object || lines[0].tooLong != 0 || string(lines[0].Bytes) != at || string(lines[1].Bytes) != at {
			t.Errorf("lines at the cap %d = %d lines", c, len(lines))
		}
	}
}

// zeros is an endless line: n bytes of '0' and then "\n".
type zeros struct{ n, read int64 }

func (z *zeros) Read(p []byte) (int, error) {
	if z.read >= z.n {
		return 0, io.EOF
	}
	m := min(int64(len(p)), z.n-z.read)
	for i := range p[:m] {
		p[i] = '0'
	}
	z.read += m
	if z.read == z.n {
		p[m-1] = '\n'
	}
	return int(m), nil
}

// Memory follows the cap, not the line: a line of 256 MiB over a 4 MiB
// cap is read through without being assembled.
func TestReaderDoesNotAssembleALineOverTheCap(t *testing.T) {
	const line = 256 << 20
	src := io.MultiReader(&zeros{n: line}, strings.NewReader(`{"a":1}`+"\n"))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	lines := readCapped(t, src, 4<<20)
	runtime.ReadMemStats(&after)
	if len(lines) != 2 || lines[0].tooLong != line-1 || !lines[1].Object {
		t.Fatalf("lines = %d, first too long by %d", len(lines), lines[0].tooLong)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 32<<20 {
		t.Errorf("reading a %d MiB line over a 4 MiB cap allocated %d MiB", line>>20, got>>20)
	}
}

// validate-log reports a line over the cap once, as LOG_LINE_TOO_LONG,
// and, as for a line cut short, the request its start names still
// counts: its responses are not orphans.
func TestValidateLineTooLong(t *testing.T) {
	long := ev(0, "provider_request", `"executionId":"e","round":1,"messages":"`+strings.Repeat("m", 2*readerBufSize)+`"`)
	log := logOf(
		ev(0, "user", `"content":"hi"`),
		long,
		ev(1, "provider_native_raw_payload", `"executionId":"e","round":1,"payloadKind":"response","payload":{}`),
		ev(1, "provider_response_raw", `"executionId":"e","round":1`),
		ev(1, "provider_response_normalized", `"executionId":"e","round":1,"response":{}`),
	)
	rep, err := Validate(strings.NewReader(log), ValidateOptions{Dir: t.TempDir(), SessionID: "s", maxLine: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if got := codes(rep); len(got) != 1 || got[0] != CodeLineTooLong+"@2" || rep.Errors != 1 || rep.Entries != 5 {
		t.Fatalf("issues %v, errors %d, entries %d:\n%s", got, rep.Errors, rep.Entries, issuesText(rep))
	}
	if msg := rep.Issues[0].Message; !strings.Contains(msg, "2097") || !strings.Contains(msg, "1048576-byte line limit") {
		t.Errorf("message = %q", msg)
	}
	// The default cap reads the same line whole.
	if rep := validateString(t, log); len(rep.Issues) != 0 {
		t.Errorf("under the default cap:\n%s", issuesText(rep))
	}
}

// replay treats a line over the cap as any broken line: a strict replay
// fails naming it, a lenient one warns and keeps the rest.
func TestReplayLineTooLong(t *testing.T) {
	msg := func(id, role string) string {
		return `{"id":"` + id + `","role":"` + role + `","content":"` + id + `"}`
	}
	log := logOf(
		ev(0, "history_mutation", `"mutation":"append_message","index":0,"message":`+msg("u1", "user")),
		ev(1, "history_mutation", `"mutation":"append_message","index":1,"message":`+msg(strings.Repeat("a", 4096), "assistant")),
		ev(2, "history_mutation", `"mutation":"append_message","index":2,"message":`+msg("u2", "user")),
	)
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte(log), 0o600); err != nil {
		t.Fatal(err)
	}
	lenient, err := ReplayFile(path, ReplayOptions{maxLine: 1024})
	if err != nil {
		t.Fatalf("lenient replay: %v", err)
	}
	if len(lenient.Messages) != 2 || len(lenient.Warnings) != 1 || lenient.Warnings[0].Line != 2 ||
		!strings.Contains(lenient.Warnings[0].Message, "line limit") {
		t.Fatalf("lenient replay: %d messages, warnings %+v", len(lenient.Messages), lenient.Warnings)
	}
	for _, opts := range []ReplayOptions{
		{Strict: true, maxLine: 1024},
		{Strict: true, maxLine: 1024, Context: func(json.RawMessage) error { return nil }},
	} {
		_, err := ReplayFile(path, opts)
		if !errors.Is(err, ErrBrokenLine) || !strings.Contains(err.Error(), "line 2") {
			t.Errorf("strict replay (streaming %v): %v", opts.Context != nil, err)
		}
	}
}
