package main_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"trail/core/provider/wire/wiretest"
)

// Secrets on the built binary (README "Secrets"): each way a secret can
// take into trail's files, then a search of every file under the home
// (records, logs, payloads) for it. The end-of-test check then holds each
// session to replay == record, which the scrubbed record must keep.

const (
	streamedToken = "ghp_" + "Zq8Xw2Lm4Np6Rt0Vb3Cd5Fg7Hj9Kk1Mm3Nn5Pp"
	streamedKeyID = "AKIA" + "Z7XQ2LM4NP6RT0VB"
	e2eAWSSecret  = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYE2E2ETESTKEY"
)

// checkNoSecrets fails for each file under the home that holds a secret.
func (e *env) checkNoSecrets(secrets ...string) {
	e.t.Helper()
	for path, b := range filesUnder(e.t, e.home) {
		for _, s := range secrets {
			if bytes.Contains(b, []byte(s)) {
				e.t.Errorf("%s holds %q", path, s)
			}
		}
	}
}

// inPieces cuts s into pieces of n bytes, as a model streams an answer.
func inPieces(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}

// streamedTranscript is a recorded transcript whose answer is replaced by
// text sent 4 characters per event: the event at tmpl, with its "Hello",
// repeated per piece, the events in drop left out.
func streamedTranscript(t *testing.T, name string, tmpl int, hello string, drop int, text string) []string {
	t.Helper()
	events := wiretest.Transcript(t, name)
	if !strings.Contains(events[tmpl], hello) {
		t.Fatalf("%s event %d has no %s", name, tmpl, hello)
	}
	out := append([]string(nil), events[:tmpl]...)
	for _, piece := range inPieces(text, 4) {
		q, _ := json.Marshal(piece)
		out = append(out, strings.Replace(events[tmpl], hello, strings.Replace(hello, `"Hello"`, string(q), 1), 1))
	}
	for i := tmpl + 1; i < len(events); i++ {
		if i != drop {
			out = append(out, events[i])
		}
	}
	return out
}

// streamedText joins the text the provider's own stream events carried.
func streamedText(lines []map[string]any) string {
	var b strings.Builder
	for _, l := range eventsNamed(lines, "provider_native_raw_payload") {
		p, _ := l["payload"].(map[string]any)
		if d, ok := p["delta"].(map[string]any); ok && d["type"] == "text_delta" {
			b.WriteString(d["text"].(string))
		}
		if ch, ok := p["choices"].([]any); ok && len(ch) > 0 {
			if d, ok := ch[0].(map[string]any)["delta"].(map[string]any); ok {
				s, _ := d["content"].(string)
				b.WriteString(s)
			}
		}
	}
	return b.String()
}

func joinedDeltas(lines []map[string]any, event string) string {
	var b strings.Builder
	for _, l := range eventsNamed(lines, event) {
		b.WriteString(l["delta"].(string))
	}
	return b.String()
}

// A key the model streams 4 characters at a time is in no log line, and
// not in the lines joined either: text_delta, the raw deltas and the
// provider's stream events each join into the answer the record keeps.
func TestAKeyStreamedInPiecesIsInNoFileOfTheHome(t *testing.T) {
	t.Parallel()
	answer := "Your token is " + streamedToken + " and the id " + streamedKeyID + "; keep them safe."
	redacted := "Your token is [REDACTED] and the id [REDACTED]; keep them safe."
	tests := []struct {
		name   string
		events []string
		setup  func(e *env, url string) []string
	}{
		{"anthropic", streamedTranscript(t, "anthropic/text.sse", 3, `"text": "Hello"`, 4, answer),
			func(e *env, url string) []string {
				e.setenv("ANTHROPIC_API_KEY="+anthropicKey, "ANTHROPIC_BASE_URL="+url)
				return nil
			}},
		{"openai", streamedTranscript(t, "openai/text.sse", 1, `"content":"Hello"`, 2, answer),
			func(e *env, url string) []string {
				e.setenv("OPENAI_API_KEY=sk-proj-e2e-redact-0123456789abcdef")
				return []string{"--provider", "openai", "--base-url", url + "/v1"}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := wiretest.NewServer(t, wiretest.Replay(tt.events))
			e := newEnv(t)
			args := tt.setup(e, srv.URL)
			r := e.must("", append(append([]string{"run"}, args...), "show me the keys")...)
			if r.stdout != answer+"\n" {
				t.Fatalf("the terminal does not show the answer as written: %s", r)
			}
			id := e.onlySession()
			e.checkNoSecrets(streamedToken, streamedKeyID)
			lines := e.logLines(id)
			if got := joinedDeltas(lines, "text_delta"); got != redacted {
				t.Errorf("text_delta lines join into %q, want %q", got, redacted)
			}
			if got := joinedDeltas(lines, "provider_stream_raw_delta"); got != redacted {
				t.Errorf("provider_stream_raw_delta lines join into %q", got)
			}
			if got := streamedText(lines); got != redacted {
				t.Errorf("the provider's stream events join into %q", got)
			}
			if got := lastMessage(t, e, id)["content"]; got != redacted {
				t.Errorf("the record keeps %q", got)
			}
			// Resumed, the model is sent what the record keeps.
			e.must("", "resume", id, "again")
			if body := srv.Body(1); bytes.Contains(body, []byte(streamedToken)) || !bytes.Contains(body, []byte(redacted)) {
				t.Errorf("the resumed request does not carry the redacted answer: %s", body)
			}
			e.checkNoSecrets(streamedToken, streamedKeyID)
		})
	}
}

// Every path a secret takes into a session, one at a time: each secret is
// in no file under the home afterwards.
func TestSecretsStayOutOfTheHomeOnEveryPath(t *testing.T) {
	t.Parallel()
	const (
		promptToken = "svc-0123456789-prompt"
		envBlockKey = "dk-0123456789-settings"
		githubToken = "gh-0123456789-environ"
		bearerToken = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig0123456789"
		hookToken   = "ghs_" + "Hook0123456789abcdefghijklmnopqrstuv"
		hookKeyID   = "ASIA" + "HOOK0123456789AB"
		pausedKey   = "pk-0123456789-paused"
		// a proxy's password is a secret whatever its variable's name
		proxyPassword = "Pr0xy-0123456789"
		ciJobJWT      = "eyJhbGciOiJSUzI1NiIsImtpZCI6IjEyMyJ9.eyJuYW1lc3BhY2VfaWQiOiIxIiwicHJvamVjdF9pZCI6IjIyIn0.c2lnbmF0dXJlMDEyMzQ1Njc4OWFiY2RlZg"
	)
	tests := []struct {
		name    string
		secrets []string
		run     func(e *env) result
	}{
		{"a key in the prompt, and in the answer", []string{promptToken}, func(e *env) result {
			e.setenv("MY_SERVICE_TOKEN=" + promptToken)
			return e.must("", "run", "--provider", "echo", "deploy with "+promptToken+" please")
		}},
		{"a value of the settings' env block, printed by Bash", []string{envBlockKey}, func(e *env) result {
			e.writeFile(".trail/settings.json", `{"env": {"DEPLOY_KEY": "`+envBlockKey+`", "NODE_ENV": "production"}}`)
			s := e.script(calls(call("Bash", map[string]any{"command": "echo $DEPLOY_KEY $NODE_ENV"})), answer("done"))
			return e.must("", "run", "--provider", "script", "--script", s, "--allow-tool", "Bash", "go")
		}},
		{"the environment printed by Bash (env)", []string{githubToken, e2eAWSSecret}, func(e *env) result {
			e.setenv("GITHUB_TOKEN="+githubToken, "AWS_SECRET_ACCESS_KEY="+e2eAWSSecret)
			s := e.script(calls(call("Bash", map[string]any{"command": "env"})), answer("done"))
			return e.must("", "run", "--provider", "script", "--script", s, "--allow-tool", "Bash", "go")
		}},
		{"a CI job's credentials printed by Bash (env)", []string{ciJobJWT[20:60], "dk0123456789deploy", "Zm9vOmJhcjAxMjM0NTY3ODk=", "hooks0123456789path", "sentry0123456789key"}, func(e *env) result {
			// GitLab's job token, a deploy key, Docker's auth config, a
			// webhook URL and a Sentry DSN, as CI jobs export them
			e.setenv("CI_JOB_JWT_V2="+ciJobJWT, "DEPLOY_KEY=dk0123456789deploy",
				`DOCKER_AUTH_CONFIG={"auths":{"registry.example":{"auth":"Zm9vOmJhcjAxMjM0NTY3ODk="}}}`,
				"SLACK_WEBHOOK_URL=https://hooks.slack.example/services/T0/B0/hooks0123456789path",
				"SENTRY_DSN=https://sentry0123456789key@o1.ingest.example/1")
			s := e.script(calls(call("Bash", map[string]any{"command": "env"})), calls(call("Bash", map[string]any{"command": "printf '%s' \"$CI_JOB_JWT_V2\" | cut -c1-200"})), answer("done"))
			return e.must("", "run", "--provider", "script", "--script", s, "--allow-tool", "Bash", "go")
		}},
		{"a proxy's password in the environment, printed by Bash (env)", []string{proxyPassword}, func(e *env) result {
			// a proxy that refuses (port 9): the echo provider never uses it
			e.setenv("https_proxy=http://build:" + proxyPassword + "@127.0.0.1:9")
			s := e.script(calls(call("Bash", map[string]any{"command": "env"})), answer("done"))
			return e.must("", "run", "--provider", "script", "--script", s, "--allow-tool", "Bash", "go")
		}},
		{"a proxy's password in the settings' env, printed alone by Bash", []string{proxyPassword + "-s"}, func(e *env) result {
			e.writeFile(".trail/settings.json", `{"env": {"HTTPS_PROXY": "http://build:`+proxyPassword+`-s@127.0.0.1:9"}}`)
			s := e.script(calls(call("Bash", map[string]any{"command": `echo "$HTTPS_PROXY" | cut -d: -f3 | cut -d@ -f1`})), answer("done"))
			return e.must("", "run", "--provider", "script", "--script", s, "--allow-tool", "Bash", "go")
		}},
		{"keys on the later lines of a tool's output (after a newline, a tab)", []string{"sk-ant-api03-later0123456789abc", "ghp_" + "Later0123456789abcdefghijklmnopqrstuv"}, func(e *env) result {
			// the tool result holds the output as JSON text: each later
			// line starts after an escaped newline
			s := e.script(calls(call("Bash", map[string]any{"command": `printf 'first line\nsk-ant-api03-later0123456789abc\n\tghp_Later0123456789abcdefghijklmnopqrstuv\n'`})), answer("done"))
			return e.must("", "run", "--provider", "script", "--script", s, "--allow-tool", "Bash", "go")
		}},
		{"a key a long output's cut falls in (its first characters kept before the cut)", []string{"Zk9Qm2Lp7R"}, func(e *env) result {
			// 14,990 characters, then a key whose first 10 characters the
			// kept head ends with (Bash keeps the first and last 15,000);
			// printed in two parts, so the call itself holds no part of it
			cmd := `head -c 14990 /dev/zero | tr '\0' a; printf '%s%s' Zk9Qm2 Lp7Rt4Wx8Yv3Nb6Hc1Jd5Fg0Se; head -c 20000 /dev/zero | tr '\0' b`
			s := e.script(calls(call("Bash", map[string]any{"command": cmd})), answer("done"))
			return e.must("", "run", "--provider", "script", "--script", s, "--allow-tool", "Bash", "go")
		}},
		{"a key in a tool call's arguments", []string{bearerToken}, func(e *env) result {
			s := e.script(calls(call("Bash", map[string]any{"command": "echo 'Authorization: Bearer " + bearerToken + "'"})), answer("done"))
			return e.must("", "run", "--provider", "script", "--script", s, "--allow-tool", "Bash", "go")
		}},
		{"hook output (SessionStart and UserPromptSubmit context)", []string{hookToken, hookKeyID}, func(e *env) result {
			e.withHooks(map[string][]map[string]any{
				"SessionStart":     {hook(e.t, "startup", "context.sh", hookToken)},
				"UserPromptSubmit": {hook(e.t, "", "context.sh", hookKeyID)},
			})
			return e.must("", "run", "--provider", "echo", "hi")
		}},
		{"the arguments of a call paused for approval", []string{pausedKey}, func(e *env) result {
			e.setenv("PAUSED_API_KEY=" + pausedKey)
			s := e.script(calls(call("Bash", map[string]any{"command": "printf %s " + pausedKey})), answer("done"))
			r := e.run("", "run", "--provider", "script", "--script", s, "--on-ask", "pause", "go")
			if r.code != 4 {
				e.t.Fatalf("want a paused session (exit 4): %s", r)
			}
			return r
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			tt.run(e)
			e.checkNoSecrets(tt.secrets...)
			id := e.onlySession()
			if rec, err := os.ReadFile(e.recordPath(id)); err != nil || !bytes.Contains(rec, []byte("[REDACTED]")) {
				t.Errorf("the record shows no redaction")
			}
		})
	}
}

// The settings' env values that are plainly not secrets stay readable.
// Names that only the broad rules call secret (*_KEY, *_AUTH...) also name
// plain identifiers: a lowercase word or a path that exists under them is
// no secret. Taken for one, PARTITION_KEY=assistant redacted every
// message's role (a record that no longer loaded) and PROJECT_KEY=$PWD
// the session's folder (tools that could not run). A word trail writes as
// structure is no secret under any name (ODD_TOKEN=assistant).
func TestPlainValuesUnderBroadSecretNamesAreKept(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	today := time.Now().UTC().Format("2006-01-02")
	e.setenv("PARTITION_KEY=assistant", "PROJECT_KEY="+e.cwd, "DEPLOY_KEY=dk-0123456789-real", "ODD_TOKEN=assistant",
		"CACHE_KEY="+today, "REPO_KEY="+filepath.Base(os.Getenv("TMPDIR")), "SESSION_KEY=correct-horse-battery-staple",
		"SONAR_PROJECT_KEY=Widgets42")
	e.writeFile("words.txt", "correct-horse-battery-staple\n")
	e.writeFile("Widgets42/a.txt", "in the subfolder\n")
	s := e.script(calls(call("Bash", map[string]any{"command": "pwd; echo $DEPLOY_KEY; cat words.txt; ls Widgets42"})), answer("done"))
	e.must("", "run", "--provider", "script", "--script", s, "--allow-tool", "Bash", "--name", "p", "go")
	e.must("", "resume", "p", "--provider", "echo", "again")
	if r := e.must("", "list", "--json"); !strings.Contains(r.stdout, e.cwd) {
		t.Errorf("the session's folder was redacted: %s", r.stdout)
	}
	results := e.toolResults(e.onlySession())
	if out := fmt.Sprint(results["call_0_0"]["output"]); !strings.Contains(out, e.cwd) || strings.Contains(out, "dk-0123456789-real") {
		t.Errorf("Bash output %q: the folder is plain, the deploy key a secret", out)
	}
	if log := readFile(t, e.logPath(e.onlySession())); strings.Contains(log, "[REDACTED]T") {
		t.Errorf("a date under CACHE_KEY redacted the times in the log (createdAt, the messages' timestamps)")
	}
	e.checkNoSecrets("correct-horse-battery-staple") // a passphrase of lowercase words under *_KEY
	if out := fmt.Sprint(results["call_0_0"]["output"]); !strings.Contains(out, "a.txt") || strings.Contains(out, "REDACTED]/") {
		t.Errorf("a subfolder named by SONAR_PROJECT_KEY: %q", out)
	}
	if r := e.must("", "replay", "p", "--format", "json"); !strings.Contains(r.stdout, "ls Widgets42") {
		t.Errorf("the call naming the subfolder was redacted: %.300s", r.stdout)
	}
}

func TestPlainSettingsValuesAreNotRedacted(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.writeFile(".trail/settings.json", `{"env": {"NODE_ENV": "production", "BUILD_DIR": "out/build-dir", "GREETING": "hello there"}}`)
	s := e.script(calls(call("Bash", map[string]any{"command": "echo $NODE_ENV $BUILD_DIR $GREETING"})), answer("done"))
	e.must("", "run", "--provider", "script", "--script", s, "--allow-tool", "Bash", "go")
	out := e.toolResults(e.onlySession())["call_0_0"]
	if got, _ := json.Marshal(out); !strings.Contains(string(got), "production out/build-dir hello there") {
		t.Fatalf("tool result = %s", got)
	}
}

// A proxy key in the base URL that is not the API key: the record keeps
// "[REDACTED]" in its place, and resume takes the URL from the environment
// again, so the proxy sees its key both times.
func TestAProxyKeyInTheBaseURLIsNotStored(t *testing.T) {
	t.Parallel()
	const proxyKey = "proxy-0123456789-inurl"
	text := wiretest.Transcript(t, "openai/text.sse")
	var mu sync.Mutex
	var uris []string
	srv := wiretest.NewServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		uris = append(uris, r.URL.RequestURI())
		mu.Unlock()
		wiretest.Replay(text)(w, r)
	})
	e := newEnv(t)
	e.setenv("OPENAI_API_KEY=sk-proj-e2e-proxy-0123456789abcdef", "OPENAI_BASE_URL="+srv.URL+"/v1?key="+proxyKey)
	e.must("", "run", "--provider", "openai", "Hello!")
	id := e.onlySession()
	if p := e.record(id)["provider"].(map[string]any); p["baseUrl"] != srv.URL+"/v1?key=[REDACTED]" {
		t.Errorf("stored base URL = %v", p["baseUrl"])
	}
	e.must("", "resume", id, "again")
	want := "/v1/chat/completions?key=" + proxyKey
	mu.Lock()
	defer mu.Unlock()
	if len(uris) != 2 || uris[0] != want || uris[1] != want {
		t.Errorf("requested %q, want %q twice", uris, want)
	}
	e.checkNoSecrets(proxyKey)
}

// What redaction holds back (here the start of a GitHub token) is logged
// when the answer stops short, as "[REDACTED]": cut short, it is no key
// shape any more, and its part was kept in clear. On Ctrl-C the
// text_delta lines still join into the interrupted answer the record
// keeps.
func TestHeldBackTextIsLoggedWhenTheAnswerIsInterrupted(t *testing.T) {
	t.Parallel()
	partial := "Here it is: " + streamedToken[:10]
	events := streamedTranscript(t, "anthropic/text.sse", 3, `"text": "Hello"`, 4, partial)
	srv := wiretest.NewServer(t, wiretest.Hold(events, len(events)-3))
	e := anthropicEnv(t)
	rd, c, wait := startTrail(t, e, "run", "--base-url", srv.URL, "-o", "stream-json", "show me")
	var shown strings.Builder
	for shown.String() != partial {
		line, err := rd.ReadString('\n')
		if err != nil {
			t.Fatalf("stdout ended after %q: %v", shown.String(), err)
		}
		if gjson.Get(line, "type").String() == "text_delta" {
			shown.WriteString(gjson.Get(line, "delta").String())
		}
	}
	if err := c.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if r := wait(); r.code != 130 {
		t.Fatalf("exit %d, want 130\n%s", r.code, r)
	}
	id := e.onlySession()
	last := lastMessage(t, e, id)
	kept := "Here it is: [REDACTED]"
	if last["state"] != "interrupted" || last["content"] != kept {
		t.Fatalf("last message = %v", last)
	}
	if got := joinedDeltas(e.logLines(id), "text_delta"); got != kept {
		t.Fatalf("text_delta lines join into %q, want %q", got, kept)
	}
	e.checkNoSecrets(streamedToken[4:10])
}

// When the connection drops mid-answer, the log still gets what streamed,
// the held-back tail included, the start of a key redacted.
func TestHeldBackTextIsLoggedWhenTheStreamIsCut(t *testing.T) {
	t.Parallel()
	partial := "Here it is: " + streamedToken[:10]
	events := streamedTranscript(t, "anthropic/text.sse", 3, `"text": "Hello"`, 4, partial)
	srv := wiretest.NewServer(t, wiretest.Cut(events, len(events)-3))
	e := anthropicEnv(t)
	r := e.run("", "run", "--base-url", srv.URL, "--max-retries", "0", "show me")
	if r.code != 6 {
		t.Fatalf("exit %d, want 6\n%s", r.code, r)
	}
	if got, kept := joinedDeltas(e.logLines(e.onlySession()), "text_delta"), "Here it is: [REDACTED]"; got != kept {
		t.Fatalf("text_delta lines join into %q, want %q", got, kept)
	}
	e.checkNoSecrets(streamedToken[4:10])
}

// A value that becomes a secret after it was saved: the messages saved
// before stay as the log holds them (replay still gives the record), and
// whatever logs them again — a fork's new log, compaction — scrubs them in
// the record and the log alike.
func TestAValueThatBecomesASecretLaterKeepsRecordAndLogTogether(t *testing.T) {
	t.Parallel()
	const value = "val-0123456789-later"
	e := newEnv(t)
	s := e.script(answer("noted "+value), answer("second"), answer("the summary"), answer("after"), answer("in the fork"))
	e.must("", "run", "--provider", "script", "--script", s, "--session-id", "late-1", "remember "+value)
	e.setenv("LATER_TOKEN=" + value)
	e.must("", "resume", "late-1", "second")
	if rec, _ := os.ReadFile(e.recordPath("late-1")); !bytes.Contains(rec, []byte(value)) {
		t.Fatalf("a message saved before the value was a secret was rewritten in the record only")
	}
	e.checkReplayMatchesRecord("late-1")
	e.must("", "resume", "late-1", "--fork", "--name", "late-fork", "in a fork")
	for path, b := range filesUnder(t, e.home) {
		if strings.Contains(path, e.sessionByName("late-fork")) && bytes.Contains(b, []byte(value)) {
			t.Errorf("the fork's %s holds the secret", path)
		}
	}
	e.must("", "compact", "late-1")
	if rec, _ := os.ReadFile(e.recordPath("late-1")); bytes.Contains(rec, []byte(value)) {
		t.Errorf("the record still holds the secret after compaction logged every message again")
	}
	for _, id := range e.sessionIDs() {
		e.checkReplayMatchesRecord(id)
	}
}

// sessionByName is the id of the session with that name.
func (e *env) sessionByName(name string) string {
	e.t.Helper()
	for _, id := range e.sessionIDs() {
		if e.record(id)["name"] == name {
			return id
		}
	}
	e.t.Fatalf("no session named %s", name)
	return ""
}

// A key in a tool call's arguments, streamed 4 characters per
// input_json_delta: no stream event holds it, nor do they joined.
func TestAKeyStreamedInToolArgumentsIsInNoFileOfTheHome(t *testing.T) {
	t.Parallel()
	const token = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJlMmUifQ.c2lnbmF0dXJl"
	args := `{"command": "echo 'Authorization: Bearer ` + token + `'"}`
	var events []string
	for _, ev := range wiretest.Transcript(t, "anthropic/tool_use.sse") {
		switch {
		case strings.Contains(ev, `"partial_json":"{\"location\":"`):
			for _, piece := range inPieces(args, 4) {
				q, _ := json.Marshal(piece)
				events = append(events, strings.Replace(ev, `"{\"location\":"`, string(q), 1))
			}
		case strings.Contains(ev, "input_json_delta"):
		default:
			events = append(events, strings.Replace(ev, `"name":"get_weather"`, `"name":"Bash"`, 1))
		}
	}
	srv := wiretest.NewServer(t, wiretest.Replay(events), wiretest.Replay(wiretest.Transcript(t, "anthropic/after_tool.sse")))
	e := anthropicEnv(t)
	e.must("", "run", "--base-url", srv.URL, "--allow-tool", "Bash", "call it")
	e.checkNoSecrets(token)
	var joined strings.Builder
	for _, l := range eventsNamed(e.logLines(e.onlySession()), "provider_native_raw_payload") {
		if p, ok := l["payload"].(map[string]any); ok {
			if d, ok := p["delta"].(map[string]any); ok && d["type"] == "input_json_delta" {
				joined.WriteString(d["partial_json"].(string))
			}
		}
	}
	if want := `{"command": "echo 'Authorization: Bearer [REDACTED]'"}`; joined.String() != want {
		t.Errorf("the stream events' arguments join into %q, want %q", joined.String(), want)
	}
}
