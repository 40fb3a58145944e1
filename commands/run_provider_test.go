package commands

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"trail/core/provider/wire/wiretest"
)

// The idle timeout follows SPEC 2's precedence: --timeout, else the
// settings' timeout, else 120 s. A flag that always carried its default
// would hide the settings.
func TestTimeoutComesFromFlagElseSettings(t *testing.T) {
	tests := []struct {
		name     string
		settings string
		args     []string
		want     string
	}{
		{"settings timeout applies when the flag is not given", `{"timeout": "250ms"}`, nil, "no data from the server for 250ms"},
		{"the flag wins over the settings", `{"timeout": "250ms"}`, []string{"--timeout", "150ms"}, "no data from the server for 150ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := wiretest.NewServer(t, wiretest.Hang())
			ios, _, out, errOut := TestIO()
			d := testDeps(t, ios)
			home := d.Env("TRAIL_HOME")
			env := map[string]string{"TRAIL_HOME": home, "ANTHROPIC_API_KEY": "sk-ant-test-0123456789abcdef"}
			d.Env = func(k string) string { return env[k] }
			if err := os.MkdirAll(home, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(tt.settings), 0o600); err != nil {
				t.Fatal(err)
			}
			args := append([]string{"trail", "run", "--base-url", srv.URL, "--no-stdin", "hi"}, tt.args...)
			code := Main(context.Background(), args, d)
			if code != ExitProvider || !strings.Contains(errOut.String(), tt.want) {
				t.Fatalf("exit %d, stderr %q; want 6 and %q", code, errOut.String(), tt.want)
			}
			if out.Len() != 0 {
				t.Errorf("stdout = %q", out.String())
			}
		})
	}
}

// The provider is built from the injected environment: a retry backoff
// set in Deps.Env (and not in the process's) is the one the retry waits.
func TestProviderIsTunedByTheInjectedEnvironment(t *testing.T) {
	if os.Getenv("TRAIL_RETRY_BASE_MS") != "" {
		t.Skip("the process environment sets TRAIL_RETRY_BASE_MS")
	}
	srv := wiretest.NewServer(t,
		wiretest.Status(500, wiretest.Body(t, "anthropic/500.json")),
		wiretest.Replay(wiretest.Transcript(t, "anthropic/text.sse")))
	ios, _, _, errOut := TestIO()
	d := testDeps(t, ios)
	home := d.Env("TRAIL_HOME")
	env := map[string]string{"TRAIL_HOME": home, "ANTHROPIC_API_KEY": "sk-ant-test-0123456789abcdef", "TRAIL_RETRY_BASE_MS": "40"}
	d.Env = func(k string) string { return env[k] }
	if code := Main(context.Background(), []string{"trail", "run", "--base-url", srv.URL, "--no-stdin", "hi"}, d); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	logs, _ := filepath.Glob(filepath.Join(home, "logs", "*.jsonl"))
	if len(logs) != 1 {
		t.Fatalf("logs %v", logs)
	}
	b, err := os.ReadFile(logs[0])
	if err != nil {
		t.Fatal(err)
	}
	var waits []int
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var ev struct {
			Event  string
			WaitMs int
		}
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Event == "provider_retry" {
			waits = append(waits, ev.WaitMs)
		}
	}
	// A first backoff of 40 ms loses at most a quarter to jitter; the
	// process default (500 ms) would be at least 375.
	if len(waits) != 1 || waits[0] <= 0 || waits[0] > 40 {
		t.Fatalf("provider_retry waits %v ms, want one of at most 40", waits)
	}
}
