package logfmt

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const corpus = "../testdata/logs"

// allCodes is SPEC 7.2's table, errors and warnings.
var allCodes = []string{
	CodeLineInvalidJSON, CodeEnvelopeInvalid, CodeSessionMismatch, CodeSequenceGap,
	CodeNativeRawPayloadMissing, CodeResponseRawMissing, CodeResponseNormalizedMissing, CodeResponseOrphan,
	CodeToolResultMissing, CodeToolRequestMissing, CodePayloadReferenceInvalid,
	CodePayloadNotFound, CodePayloadOutsideRoot, CodePayloadByteLength, CodePayloadSHA256, CodePayloadInvalidJSON,
	CodeTruncatedTail, CodeTimestampRegression, CodeHistoryIndexMismatch,
}

// corpusLines is the line each broken log of the corpus is broken at.
var corpusLines = map[string]int{
	CodeLineInvalidJSON: 2, CodeEnvelopeInvalid: 2, CodeSessionMismatch: 2, CodeSequenceGap: 13,
	CodeNativeRawPayloadMissing: 5, CodeResponseRawMissing: 5, CodeResponseNormalizedMissing: 5, CodeResponseOrphan: 13,
	CodeToolResultMissing: 10, CodeToolRequestMissing: 13, CodePayloadReferenceInvalid: 13,
	CodePayloadNotFound: 13, CodePayloadOutsideRoot: 13, CodePayloadByteLength: 13, CodePayloadSHA256: 13, CodePayloadInvalidJSON: 13,
	CodeTruncatedTail: 14, CodeTimestampRegression: 13, CodeHistoryIndexMismatch: 12,
}

func corpusFile(code string) string {
	return filepath.Join(corpus, strings.ReplaceAll(strings.ToLower(code), "_", "-")+".jsonl")
}

func TestCorpusReportsExactlyItsCodeAtItsLine(t *testing.T) {
	for _, code := range allCodes {
		t.Run(code, func(t *testing.T) {
			rep, err := ValidateFile(corpusFile(code), ValidateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Issues) != 1 {
				t.Fatalf("%d issues, want exactly one %s:\n%s", len(rep.Issues), code, issuesText(rep))
			}
			is := rep.Issues[0]
			if is.Code != code || is.Line != corpusLines[code] || is.EventIndex != is.Line-1 {
				t.Fatalf("got %s at line %d (index %d), want %s at line %d", is.Code, is.Line, is.EventIndex, code, corpusLines[code])
			}
			wantSev := SeverityError
			if code == CodeTruncatedTail || code == CodeTimestampRegression || code == CodeHistoryIndexMismatch {
				wantSev = SeverityWarning
			}
			if is.Severity != wantSev || rep.Valid() != (wantSev == SeverityWarning) {
				t.Errorf("severity %s, valid %v", is.Severity, rep.Valid())
			}
			if rep.Entries != 13 {
				t.Errorf("entries = %d, want 13", rep.Entries)
			}
		})
	}
}

func TestCorpusValidLogsAreValid(t *testing.T) {
	for _, name := range []string{"valid.jsonl", "valid-payload.jsonl"} {
		rep, err := ValidateFile(filepath.Join(corpus, name), ValidateOptions{})
		if err != nil || len(rep.Issues) != 0 || rep.Entries != 13 {
			t.Errorf("%s: %v\n%s", name, err, issuesText(rep))
		}
	}
}

func issuesText(rep *Report) string {
	if rep == nil {
		return ""
	}
	var b strings.Builder
	for _, is := range rep.Issues {
		fmt.Fprintf(&b, "%d: %s %s: %s\n", is.Line, is.Severity, is.Code, is.Message)
	}
	return b.String()
}

// logOf joins lines of a log; each gets a "\n".
func logOf(lines ...string) string { return strings.Join(lines, "\n") + "\n" }

// ev builds a Robota-style line (no seq) of session s at second sec.
func ev(sec int, event string, data string) string {
	s := fmt.Sprintf(`{"timestamp":"2026-01-01T00:00:%02d.000Z","sessionId":"s","event":%q`, sec, event)
	if data != "" {
		s += "," + data
	}
	return s + "}"
}

func codes(rep *Report) []string {
	var out []string
	for _, is := range rep.Issues {
		out = append(out, fmt.Sprintf("%s@%d", is.Code, is.Line))
	}
	return out
}

func validateString(t *testing.T, log string) *Report {
	t.Helper()
	rep, err := Validate(strings.NewReader(log), ValidateOptions{Dir: t.TempDir(), SessionID: "s"})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestMatchingFollowsRobota(t *testing.T) {
	req := ev(0, "provider_request", `"executionId":"e","round":1`)
	native := ev(0, "provider_native_raw_payload", `"executionId":"e","round":1,"payloadKind":"stream_event"`)
	raw := ev(0, "provider_response_raw", `"executionId":"e","round":1`)
	norm := ev(0, "provider_response_normalized", `"executionId":"e","round":1`)
	tests := []struct {
		name string
		log  string
		want []string
	}{
		{"a complete round in order", logOf(req, native, raw, norm), nil},
		{"order in the file does not matter", logOf(norm, raw, native, req), nil},
		{"round 1.0 and 1 are one key", logOf(req, strings.Replace(native, `"round":1`, `"round":1.0`, 1), raw, norm), nil},
		{"a request payload answers nothing",
			logOf(req, strings.Replace(native, "stream_event", "request", 1), raw, norm),
			[]string{CodeNativeRawPayloadMissing + "@1"}},
		{"a response payload counts", logOf(req, strings.Replace(native, "stream_event", "response", 1), raw, norm), nil},
		{"a round given as a string is no key (the line is ignored)",
			logOf(req, native, strings.Replace(raw, `"round":1`, `"round":"1"`, 1), norm),
			[]string{CodeResponseRawMissing + "@1"}},
		{"a request without executionId is no key", logOf(ev(0, "provider_request", `"round":1`)), nil},
		{"everything missing, in Robota's order",
			logOf(req),
			[]string{CodeNativeRawPayloadMissing + "@1", CodeResponseRawMissing + "@1", CodeResponseNormalizedMissing + "@1"}},
		{"responses without a request are orphans, each at its line",
			logOf(ev(0, "user", ""), raw, norm),
			[]string{CodeResponseOrphan + "@2", CodeResponseOrphan + "@3"}},
		{"a late duplicate of a closed round is no orphan", logOf(req, native, raw, norm, raw), nil},
		{"a tool call and its result",
			logOf(ev(0, "tool_execution_request", `"executionId":"e","toolCallId":"t"`), ev(0, "tool_execution_result", `"executionId":"e","toolCallId":"t"`)),
			nil},
		{"toolExecutionId stands in for toolCallId",
			logOf(ev(0, "tool_execution_result", `"executionId":"e","toolExecutionId":"t"`), ev(0, "tool_execution_request", `"executionId":"e","toolCallId":"t"`)),
			nil},
		{"a tool result first, then its request",
			logOf(ev(0, "tool_execution_result", `"executionId":"e","toolCallId":"t"`), ev(0, "tool_execution_request", `"executionId":"e","toolCallId":"t"`)),
			nil},
		{"two executions with one tool call id are two keys",
			logOf(ev(0, "tool_execution_request", `"executionId":"e1","toolCallId":"t"`), ev(0, "tool_execution_result", `"executionId":"e2","toolCallId":"t"`)),
			[]string{CodeToolResultMissing + "@1", CodeToolRequestMissing + "@2"}},
		{"Robota lines without seq have no sequence to check", logOf(ev(0, "user", ""), ev(1, "user", "")), nil},
		{"a regression of a second or less is allowed",
			logOf(ev(5, "user", ""), strings.Replace(ev(4, "user", ""), "04.000", "04.000", 1)), nil},
		{"a regression of more than a second is not",
			logOf(ev(5, "user", ""), strings.Replace(ev(3, "user", ""), "03.000", "03.999", 1)),
			[]string{CodeTimestampRegression + "@2"}},
		{"timestamps in other ISO shapes parse",
			logOf(strings.Replace(ev(0, "user", ""), "2026-01-01T00:00:00.000Z", "2026-01-01T00:00:00Z", 1)), nil},
		{"a timestamp that is not a date is an invalid envelope",
			logOf(strings.Replace(ev(0, "user", ""), "2026-01-01T00:00:00.000Z", "yesterday", 1)),
			[]string{CodeEnvelopeInvalid + "@1"}},
		{"a blank line keeps line numbers right", "\n" + logOf(req), []string{
			CodeNativeRawPayloadMissing + "@2", CodeResponseRawMissing + "@2", CodeResponseNormalizedMissing + "@2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := validateString(t, tt.log)
			if got := codes(rep); !slices.Equal(got, tt.want) {
				t.Fatalf("issues %v, want %v\n%s", got, tt.want, issuesText(rep))
			}
		})
	}
}

func TestIssueCarriesItsKey(t *testing.T) {
	rep := validateString(t, logOf(
		ev(0, "provider_request", `"executionId":"e","round":2`),
		ev(0, "tool_execution_request", `"executionId":"e","toolCallId":"t"`),
	))
	if len(rep.Issues) != 4 {
		t.Fatalf("%s", issuesText(rep))
	}
	p, tl := rep.Issues[0], rep.Issues[3]
	if p.ExecutionID != "e" || p.Round != "2" || p.ToolCallID != "" || p.EventIndex != 0 {
		t.Errorf("provider issue %+v", p)
	}
	if tl.ExecutionID != "e" || tl.Round != "" || tl.ToolCallID != "t" || tl.EventIndex != 1 {
		t.Errorf("tool issue %+v", tl)
	}
	b, _ := Marshal(p.Object())
	if want := `{"code":"PROVIDER_NATIVE_RAW_PAYLOAD_MISSING","severity":"error","message":"Provider request e:2 has no provider-native raw response or stream payload event.","line":1,"eventIndex":0,"executionId":"e","round":2}`; string(b) != want {
		t.Errorf("issue JSON\n%s\nwant\n%s", b, want)
	}
}

func TestSequenceChecks(t *testing.T) {
	line := func(seq string) string {
		return `{"timestamp":"2026-01-01T00:00:00.000Z","sessionId":"s","event":"user","seq":` + seq + `}`
	}
	tests := []struct {
		name string
		log  string
		want []string
	}{
		{"0, 1, 2", logOf(line("0"), line("1"), line("2")), nil},
		{"a gap is reported once, then followed from the new value",
			logOf(line("0"), line("2"), line("3")), []string{CodeSequenceGap + "@2"}},
		{"a repeat is a gap", logOf(line("0"), line("0")), []string{CodeSequenceGap + "@2"}},
		{"trail appending to a Robota log counts the lines before it",
			logOf(ev(0, "user", ""), ev(0, "user", ""), line("2"), line("3")), nil},
		{"seq that is not an integer is an invalid envelope",
			logOf(line("0"), line(`"1"`)), []string{CodeEnvelopeInvalid + "@2"}},
		{"a broken line still counts", logOf(line("0"), "garbage", line("2")), []string{CodeLineInvalidJSON + "@2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := codes(validateString(t, tt.log)); !slices.Equal(got, tt.want) {
				t.Fatalf("issues %v, want %v", got, tt.want)
			}
		})
	}
}

func TestHistoryIndexFollowsReplay(t *testing.T) {
	mut := func(seq int, index string, role string) string {
		return fmt.Sprintf(`{"timestamp":"2026-01-01T00:00:00.000Z","sessionId":"s","event":"history_mutation","seq":%d,"mutation":"append_message","index":%s,"message":{"id":"m%d","role":%q,"content":"x"}}`, seq, index, seq, role)
	}
	initLine := func(seq int) string {
		return fmt.Sprintf(`{"timestamp":"2026-01-01T00:00:00.000Z","sessionId":"s","event":"session_init","seq":%d,"cwd":"/","systemPrompt":"be brief"}`, seq)
	}
	replaceAll := func(seq int, n int) string {
		msgs := make([]string, n)
		for i := range msgs {
			msgs[i] = fmt.Sprintf(`{"id":"r%d","role":"user","content":"x"}`, i)
		}
		return fmt.Sprintf(`{"timestamp":"2026-01-01T00:00:00.000Z","sessionId":"s","event":"history_mutation","seq":%d,"mutation":"replace_all","messages":[%s]}`, seq, strings.Join(msgs, ","))
	}
	tests := []struct {
		name string
		log  string
		want []string
	}{
		{"trail logs the system message at 0", logOf(initLine(0), mut(1, "0", "system"), mut(2, "1", "user")), nil},
		{"an index that skips", logOf(mut(0, "0", "system"), mut(1, "2", "user")), []string{CodeHistoryIndexMismatch + "@2"}},
		{"a missing index", logOf(mut(0, "null", "system")), []string{CodeHistoryIndexMismatch + "@1"}},
		{"Robota's unlogged system message is at 0 when session_init has a prompt",
			logOf(initLine(0), mut(1, "1", "user"), mut(2, "2", "assistant")), nil},
		{"replace_all resets the position", logOf(mut(0, "0", "system"), mut(1, "1", "user"), replaceAll(2, 2), mut(3, "2", "user")), nil},
		{"a re-sync to a shorter record counts from the record's length",
			logOf(mut(0, "0", "system"), mut(1, "1", "user"), mut(2, "2", "user"), mut(3, "3", "user"),
				strings.Replace(replaceAll(4, 2), `"replace_all"`, `"replace_all","reason":"resync"`, 1), mut(5, "2", "user")), nil},
		{"after replace_all the old position is wrong",
			logOf(mut(0, "0", "system"), mut(1, "1", "user"), mut(2, "2", "user"), replaceAll(3, 2), mut(4, "3", "user")),
			[]string{CodeHistoryIndexMismatch + "@5"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := codes(validateString(t, tt.log)); !slices.Equal(got, tt.want) {
				t.Fatalf("issues %v, want %v", got, tt.want)
			}
		})
	}
	// Lines without seq (Robota's) are never checked.
	rep := validateString(t, logOf(ev(0, "history_mutation", `"mutation":"append_message","index":7,"message":{"role":"user"}`)))
	if len(rep.Issues) != 0 {
		t.Errorf("Robota line checked: %s", issuesText(rep))
	}
}

func TestMaxIssuesKeepsCounting(t *testing.T) {
	log := strings.Repeat("garbage\n", 50)
	rep, err := Validate(strings.NewReader(log), ValidateOptions{MaxIssues: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Issues) != 10 || rep.Errors != 50 || rep.Dropped != 40 || rep.Entries != 50 {
		t.Fatalf("issues %d errors %d dropped %d entries %d", len(rep.Issues), rep.Errors, rep.Dropped, rep.Entries)
	}
}

func TestLogsTheWriterWritesAreValid(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "w.jsonl")
	w := openTest(t, path, Options{SessionID: "w", PayloadThreshold: 64})
	big := strings.Repeat("payload ", 40)
	logOK(t, w, "session_init", F("cwd", "/"), F("systemPrompt", "sp"))
	logOK(t, w, "provider_request", F("executionId", "e"), F("round", 1), F("messages", []any{Object{F("role", "user"), F("content", big)}}))
	logOK(t, w, "provider_native_raw_payload", F("executionId", "e"), F("round", 1), F("payloadKind", "response"), F("payload", big))
	logOK(t, w, "provider_response_raw", F("executionId", "e"), F("round", 1), F("response", big))
	logOK(t, w, "provider_response_normalized", F("executionId", "e"), F("round", 1), F("response", Object{F("content", big)}))
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	rep, err := ValidateFile(path, ValidateOptions{})
	if err != nil || len(rep.Issues) != 0 {
		t.Fatalf("%v\n%s", err, issuesText(rep))
	}
	if files := payloadFiles(t, path, "w"); len(files) == 0 {
		t.Fatal("the test wrote no payload file")
	}
}

func FuzzValidate(f *testing.F) {
	for _, code := range allCodes {
		if b, err := os.ReadFile(corpusFile(code)); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"timestamp":"x","sessionId":"s","event":"e","a":{"kind":"external-payload","encoding":"json","sha256":"` + strings.Repeat("a", 64) + `","byteLength":1,"relativePath":"s.payloads/../../x"}}`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		rep, err := Validate(bytes.NewReader(data), ValidateOptions{Dir: dir, SessionID: "s"})
		if err != nil {
			t.Fatal(err)
		}
		errs, warns := 0, 0
		for i, is := range rep.Issues {
			if i > 0 && is.Line < rep.Issues[i-1].Line {
				t.Fatal("issues not sorted by line")
			}
			if is.Code == "" || is.Message == "" || is.Line < 1 {
				t.Fatalf("empty issue %+v", is)
			}
			if is.Severity == SeverityError {
				errs++
			} else {
				warns++
			}
		}
		if errs != rep.Errors || warns != rep.Warnings {
			t.Fatalf("counts %d/%d, issues %d/%d", rep.Errors, rep.Warnings, errs, warns)
		}
	})
}

func TestClosedKeysAreBounded(t *testing.T) {
	c := newClosedSet()
	for i := range uint64(3 * maxClosedKeys) {
		c.add(i)
	}
	if len(c.set) != maxClosedKeys || len(c.ring) != maxClosedKeys {
		t.Fatalf("set %d ring %d", len(c.set), len(c.ring))
	}
	if c.has(0) || !c.has(3*maxClosedKeys-1) || !c.has(2*maxClosedKeys) {
		t.Error("the set does not keep the most recent keys")
	}
}

func TestBigPayloadsAreCheckedAsAStream(t *testing.T) {
	orig := inMemoryPayload
	inMemoryPayload = 64
	t.Cleanup(func() { inMemoryPayload = orig })
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "s.payloads"), 0o700); err != nil {
		t.Fatal(err)
	}
	good := []byte(`{"list":[` + strings.Repeat(`"an element",`, 20) + `"last"]}`)
	notJSON := []byte(`{"list":[` + strings.Repeat(`"an element",`, 20) + `"last"]}}`)
	twoValues := []byte(`{"a":"` + strings.Repeat("x", 80) + `"} {"b":1}`)
	put := func(content, stored []byte) string {
		os.WriteFile(filepath.Join(dir, "s.payloads", sha(content)+".json"), stored, 0o600)
		return refJSON("s", content)
	}
	tampered := bytes.Replace(good, []byte("last"), []byte("LAST"), 1)
	tests := []struct {
		name            string
		content, stored []byte
		want            []string
	}{
		{"a good payload", good, good, nil},
		{"one byte changed", good, tampered, []string{CodePayloadSHA256 + "@1"}},
		{"not JSON", notJSON, notJSON, []string{CodePayloadInvalidJSON + "@1"}},
		{"two JSON values", twoValues, twoValues, []string{CodePayloadInvalidJSON + "@1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ref := put(tt.content, tt.stored)
			rep, err := Validate(strings.NewReader(logOf(ev(0, "user", `"content":`+ref))), ValidateOptions{Dir: dir, SessionID: "s"})
			if err != nil {
				t.Fatal(err)
			}
			if got := codes(rep); !slices.Equal(got, tt.want) {
				t.Fatalf("issues %v, want %v", got, tt.want)
			}
		})
	}
}

func TestQuoteValueCutsLikeStoreQuoteInput(t *testing.T) {
	long := strings.Repeat("a", 10_000)
	for in, want := range map[string]string{
		"abc":                    `"abc"`,
		long[:200]:               `"` + long[:200] + `"`,
		long[:201]:               `"` + long[:200] + `"… (201 bytes)`,
		strings.Repeat("é", 300): `"` + strings.Repeat("é", 200) + `"… (600 bytes)`,
		"a\nb\x00":               `"a\nb\x00"`,
	} {
		if got := quoteValue(in); got != want {
			t.Errorf("quoteValue(%.40q) = %.300s, want %.300s", in, got, want)
		}
	}
}

// The log of a session a step is writing now ends on requests that step
// has not seen answered: with Live they are warnings saying so. A request
// an earlier step left open (before the last session_init) is still an
// error, and without Live every open request is.
func TestARunningStepsOpenRequestsAreWarnings(t *testing.T) {
	log := logOf(
		ev(0, "session_init", `"cwd":"/"`),
		ev(1, "provider_request", `"executionId":"old","round":1`),
		ev(2, "session_init", `"cwd":"/","resumed":true`),
		ev(3, "provider_request", `"executionId":"e","round":1`),
		ev(4, "tool_execution_request", `"executionId":"e","toolCallId":"c1"`),
	)
	for _, live := range []bool{false, true} {
		rep, err := Validate(strings.NewReader(log), ValidateOptions{Live: live})
		if err != nil {
			t.Fatal(err)
		}
		var errors, warnings []string
		for _, is := range rep.Issues {
			tag := fmt.Sprintf("%s@%d", is.Code, is.Line)
			if is.Severity == SeverityError {
				errors = append(errors, tag)
			} else {
				warnings = append(warnings, tag)
				if !strings.HasSuffix(is.Message, "Its step is still running.") {
					t.Errorf("live %v: %s says nothing of the running step: %s", live, tag, is.Message)
				}
			}
		}
		wantErrors := 3 + 4 // the old request's three answers missing, and the running step's four
		if live {
			wantErrors = 3
		}
		if len(errors) != wantErrors || len(warnings) != 7-wantErrors {
			t.Errorf("live %v: errors %v, warnings %v", live, errors, warnings)
		}
	}
}
