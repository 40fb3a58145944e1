package logfmt

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

const apiKey = "my-live-api-key-0123456789"

// logLine writes one line through a fresh Writer and returns it without
// its newline.
func logLine(t *testing.T, opts Options, fields ...Field) string {
	t.Helper()
	w := openTest(t, filepath.Join(t.TempDir(), "s1.jsonl"), opts)
	logOK(t, w, "test", fields...)
	lines := readLines(t, w.Path())
	return lines[len(lines)-1]
}

func TestRedaction(t *testing.T) {
	tests := []struct {
		name  string
		value any
		want  string
	}{
		{"sensitive keys at any depth, whatever the value's type",
			Object{F("apiKey", "k1"), F("n", Object{F("API_KEY", 5), F("x-api-key", Object{F("a", 1)}), F("Authorization", []any{"Bearer x"})}),
				F("l", []any{Object{F("accessToken", true), F("refresh_token", nil), F("password", "p"), F("secret", 1.5)}})},
			`{"apiKey":"[REDACTED]","n":{"API_KEY":"[REDACTED]","x-api-key":"[REDACTED]","Authorization":"[REDACTED]"},"l":[{"accessToken":"[REDACTED]","refresh_token":"[REDACTED]","password":"[REDACTED]","secret":"[REDACTED]"}]}`},
		{"keys that only contain a sensitive word are kept",
			Object{F("keyboard", "k"), F("tokens", 12), F("secretary", "s"), F("max_tokens", 5), F("apiKeys", "x")},
			`{"keyboard":"k","tokens":12,"secretary":"s","max_tokens":5,"apiKeys":"x"}`},
		{"map keys are checked too",
			map[string]any{"X_API_KEY": "v", "ok": "v"},
			`{"X_API_KEY":"[REDACTED]","ok":"v"}`},
		{"the secret in use is replaced inside strings",
			"key is " + apiKey + ", again:" + apiKey,
			`"key is [REDACTED], again:[REDACTED]"`},
		{"key-shaped strings are replaced",
			[]string{"use sk-ant-api03-abcdefghijklmnop_QRS now", "old sk-proj-abcdefghijklmnopqrstuv", "Authorization: Bearer eyJhbGciOi.J9x+/=", "short sk-abc and Bearer abc"},
			`["use [REDACTED] now","old [REDACTED]","Authorization: Bearer [REDACTED]","short sk-abc and Bearer abc"]`},
		{"GitHub tokens are replaced, short look-alikes kept",
			[]string{"clone with " + ghToken + "!", "pat github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEF ok", "ghp_short and xghp_" + ghToken[4:]},
			`["clone with [REDACTED]!","pat [REDACTED] ok","ghp_short and xghp_` + ghToken[4:] + `"]`},
		{"AWS access key ids and secret access keys are replaced",
			[]string{"id AKIAIOSFODNN7EXAMPLE, ASIAIOSFODNN7EXAMPL2", "AKIAIOSFODNN7EXAMPLEX is longer", "aws_secret_access_key = " + awsSecret, `{"AWS_SECRET_ACCESS_KEY": "` + awsSecret + `"}`},
			`["id [REDACTED], [REDACTED]","AKIAIOSFODNN7EXAMPLEX is longer","aws_secret_access_key = [REDACTED]","{\"AWS_SECRET_ACCESS_KEY\": \"[REDACTED]\"}"]`},
		{"JWTs are replaced, a lone base64 JSON is kept",
			[]string{"CI_JOB_JWT=" + jwt, "x.eyJhbGciOiJIUzI1NiJ9 alone", "eyJ.eyJ short", "is " + jwt + ". Next", "CI=" + jwt + ".x"},
			`["CI_JOB_JWT=[REDACTED]","x.eyJhbGciOiJIUzI1NiJ9 alone","eyJ.eyJ short","is [REDACTED]. Next","CI=[REDACTED].x"]`},
		{"keys after an escape in JSON text (a tool result's later lines) are replaced",
			[]string{`{"output":"line one\nsk-ant-api03-abcdefghijklmnop and\t` + ghToken + `\r\nAKIAIOSFODNN7EXAMPLE\u0026` + jwt + `"}`, `x\nsk-` + "ant", `notsk-ant-api03-abcdefghijklmnop`},
			`["{\"output\":\"line one\\n[REDACTED] and\\t[REDACTED]\\r\\n[REDACTED]\\u0026[REDACTED]\"}","x\\nsk-ant","notsk-ant-api03-abcdefghijklmnop"]`},
		{"a key-shaped run is replaced up to its cap",
			"sk-" + strings.Repeat("a", 600),
			`"[REDACTED]` + strings.Repeat("a", 600+3-maxSKKey) + `"`},
		{"words that merely contain sk- are kept",
			"task-management-system-design and risk-assessment-framework-v2 and mask-aaaaaaaaaaaaaaaaaaaaaaaa",
			`"task-management-system-design and risk-assessment-framework-v2 and mask-aaaaaaaaaaaaaaaaaaaaaaaa"`},
		{"inside a raw message: keys, secrets and shapes",
			json.RawMessage(`{"headers": {"Authorization": "Bearer abcdefghijkl", "x-api-key": {"deep": [1]}}, "text": "sk-ant-0123456789abcdefXYZ and ` + apiKey + `", "keyboard": "<b>"}`),
			`{"headers":{"Authorization":"[REDACTED]","x-api-key":"[REDACTED]"},"text":"[REDACTED] and [REDACTED]","keyboard":"<b>"}`},
		{"a raw message whose only secret is a key name is walked",
			json.RawMessage(`{"user":{"Password":"hunter2","name":"n"}}`),
			`{"user":{"Password":"[REDACTED]","name":"n"}}`},
		{"a raw message with escaped key names is still caught",
			json.RawMessage(`{"api\u004bey":"v","a\"b":"Bearer 0123456789\nz"}`),
			`{"api\u004bey":"[REDACTED]","a\"b":"Bearer [REDACTED]\nz"}`},
		{"a raw message with only harmless words is copied as written",
			json.RawMessage(`{"role":"user","content":"\u003cp\u003e hi"}`),
			`{"role":"user","content":"\u003cp\u003e hi"}`},
		{"raw from a Marshaler is redacted too",
			&ptrMarshaler{"sk-" + strings.Repeat("a", 24)},
			`"[REDACTED]"`},
		{"structs through encoding/json are redacted too",
			struct {
				APIKey string `json:"api_key"`
				Name   string `json:"name"`
			}{"k", "n"},
			`{"api_key":"[REDACTED]","name":"n"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line := logLine(t, Options{Secrets: []string{apiKey, "short"}}, F("v", tt.value))
			if got := gjson.Get(line, "v").Raw; got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			if strings.Contains(line, apiKey) {
				t.Errorf("line holds the secret: %s", line)
			}
		})
	}
}

func TestTopLevelFieldsAreRedacted(t *testing.T) {
	line := logLine(t, Options{}, F("apiKey", "k"), F("Password", Object{F("a", 1)}), F("model", "m"))
	want := `"apiKey":"[REDACTED]","Password":"[REDACTED]","model":"m"}`
	if !strings.HasSuffix(line, want) {
		t.Fatalf("line %s does not end with %s", line, want)
	}
}

func TestShortSecretsAreIgnored(t *testing.T) {
	line := logLine(t, Options{Secrets: []string{"", "abc", "1234567"}}, F("v", "abc 1234567"))
	if gjson.Get(line, "v").String() != "abc 1234567" {
		t.Fatalf("short secrets were applied: %s", line)
	}
}

// A secret that contains another must go whole, whichever order they come in.
func TestOverlappingSecrets(t *testing.T) {
	line := logLine(t, Options{Secrets: []string{"abcdefgh", "xxabcdefghyy"}}, F("v", "1 xxabcdefghyy 2"))
	if got := gjson.Get(line, "v").String(); got != "1 [REDACTED] 2" {
		t.Fatalf("got %q", got)
	}
}

// sensitiveKey must answer exactly as the rule's regular expression.
func TestSensitiveKeyMatchesTheRule(t *testing.T) {
	var keys []string
	parts := []string{"", "x", "X", "-", "_", "api", "API", "Api", "key", "KEY", "kEy", "access", "refresh", "token", "Token",
		"secret", "password", "authorization", "Authorization", "s", "\u212a", "\u017f", "é", "ey", "ecret"}
	for _, a := range parts {
		for _, b := range parts {
			for _, c := range parts {
				keys = append(keys, a+b+c)
			}
		}
	}
	keys = append(keys, "x-api-key", "x_api_key", "xapikey", "x-apikey", "api--key", "acce\u017f\u017f_to\u212aen", "\u017fecret", "api\u212aey", "apikey ", " apikey")
	for _, k := range keys {
		if got, want := sensitiveKey(k), sensitiveKeyRE.Get().MatchString(k); got != want {
			t.Errorf("sensitiveKey(%q) = %v, the rule says %v", k, got, want)
		}
		if got, want := sensitiveKey([]byte(k)), sensitiveKeyRE.Get().MatchString(k); got != want {
			t.Errorf("sensitiveKey([]byte %q) = %v, the rule says %v", k, got, want)
		}
	}
}

func FuzzSensitiveKey(f *testing.F) {
	for _, s := range []string{"apiKey", "x-api-key", "Access_Token", "secretary", "acce\u017f\u017f_to\u212aen"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, k string) {
		if got, want := sensitiveKey(k), sensitiveKeyRE.Get().MatchString(k); got != want {
			t.Fatalf("sensitiveKey(%q) = %v, the rule says %v", k, got, want)
		}
		// A document holding a sensitive key must not take the copy path.
		doc := appendString(nil, k)
		doc = append(append([]byte("{"), doc...), `:1}`...)
		if sensitiveKey(k) && !mayHoldSensitiveKey(doc) {
			t.Fatalf("mayHoldSensitiveKey misses %q", doc)
		}
		spaced := append(append([]byte("[ { \"x\" : \"a:b\" ,\n "), appendString(nil, k)...), "\t: 1 } ]"...)
		if sensitiveKey(k) && !mayHoldSensitiveKey(spaced) {
			t.Fatalf("mayHoldSensitiveKey misses %q", spaced)
		}
	})
}

// A secret holding quotes (Docker's DOCKER_AUTH_CONFIG is JSON) or lines
// (a private key) is found where a string holds JSON text with it escaped,
// up to three times over: a tool result keeps a command's output so, and
// the command may print JSON itself.
func TestASecretWithQuotesIsFoundEscaped(t *testing.T) {
	secret := `{"auths":{"r":{"auth":"Zm9vOmJhcjAxMjM0"}}}`
	key := "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----"
	r := NewRedactor([]string{secret, key})
	for _, s := range []string{"DOCKER_AUTH_CONFIG=" + secret, key} {
		// as printed, in a tool result, and in JSON a command printed
		// (jq -n env) inside a tool result, and once more over
		text := s
		for level := range 4 {
			if got := r.String(text); strings.Contains(got, "Zm9vOmJhcjAxMjM0") || strings.Contains(got, "b3BlbnNzaC1rZXktdjEAAAAA") {
				t.Errorf("escaped %d times, %q redacts to %q", level, text, got)
			}
			b, _ := json.Marshal(map[string]string{"output": text})
			text = string(b)
		}
	}
}

// A variable that holds a word trail writes as structure (MY_TOKEN=
// assistant) is no secret: redacting it rewrote every message's role and
// the record no longer loaded. A passphrase of plain words still is one.
func TestStructuralWordsAreNoSecrets(t *testing.T) {
	r := NewRedactor([]string{"assistant", "history_mutation", "correcthorsebattery"})
	got := r.String(`{"role":"assistant","event":"history_mutation","p":"correcthorsebattery"}`)
	if want := `{"role":"assistant","event":"history_mutation","p":"[REDACTED]"}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// A program's JSON encoder may escape more than trail's: Go's escapes &, <
// and > (docker, kubectl, terraform), Python's every character past ASCII,
// PHP's every /. A secret printed by any of them is found, in a tool
// result too.
func TestASecretPrintedByAnotherEncoderIsFound(t *testing.T) {
	secret := "p&ss<wörd>/2024x"
	r := NewRedactor([]string{secret})
	for _, printed := range []string{`p\u0026ss\u003cwörd\u003e/2024x`, `p&ss<w\u00f6rd>/2024x`, `p&ss<wörd>\/2024x`} {
		inResult := string(appendString(nil, `{"v":"`+printed+`"}`)) // as trail writes a tool result's output
		for _, s := range []string{printed, inResult} {
			if got := r.String(s); strings.Contains(got, "2024x") {
				t.Errorf("%q redacts to %q", s, got)
			}
		}
	}
}

// A cut falling in a key leaves no part of it: the run of key characters
// touching the cut goes when it has letters and digits, at most its 128
// characters next to the cut; words and runs of one letter stay.
func TestRedactCutEdges(t *testing.T) {
	for _, tt := range []struct{ in, end, start string }{
		{"text then AKIA4IOSFOD", "text then [REDACTED]", "text then AKIA4IOSFOD"},
		{"7Rt4Wx8Yv3 more text", "7Rt4Wx8Yv3 more text", "[REDACTED] more text"},
		{"just words here", "just words here", "just words here"},
		{strings.Repeat("x", 300), strings.Repeat("x", 300), strings.Repeat("x", 300)},
		{strings.Repeat("a1", 100), strings.Repeat("a1", 36) + "[REDACTED]", "[REDACTED]" + strings.Repeat("a1", 36)},
	} {
		if got := RedactCutEnd(tt.in); got != tt.end {
			t.Errorf("RedactCutEnd(%.20q...) = %.40q..., want %.40q...", tt.in, got, tt.end)
		}
		if got := RedactCutStart(tt.in); got != tt.start {
			t.Errorf("RedactCutStart(%.20q...) = %.40q..., want %.40q...", tt.in, got, tt.start)
		}
	}
}

// Keys after a colour sequence (grep --color, raw or as JSON escapes it)
// or in URL-encoded text are found; a secret is found as .NET prints it
// (\u00FC in capitals); a secret that starts with n is not found across
// the \n of JSON text, where replacing from the n broke the escape.
func TestKeysNextToEscapesAndSecretsInTheirForms(t *testing.T) {
	r := NewRedactor([]string{"pässwörd-2024", "nabcdef123"})
	for _, tt := range []struct{ in, want string }{
		{"\x1b[32msk-ant-api03-abcdefghijklmnop\x1b[0m", "\x1b[32m[REDACTED]\x1b[0m"},
		{`\u001b[1;31m` + ghToken + `\u001b[0m`, `\u001b[1;31m[REDACTED]\u001b[0m`},
		{"q=%22AKIAIOSFODNN7EXAMPLE%22", "q=%22[REDACTED]%22"},
		{`p\u00E4ssw\u00F6rd-2024`, `[REDACTED]`},
		{`{"a":"x\nabcdef123"}`, `{"a":"x\nabcdef123"}`},
		{`{"a":"x\\nabcdef123"}`, `{"a":"x\\[REDACTED]"}`},
		{"the term nabcdef123", "the term [REDACTED]"},
	} {
		if got := r.String(tt.in); got != tt.want {
			t.Errorf("%q redacts to %q, want %q", tt.in, got, tt.want)
		}
	}
}
