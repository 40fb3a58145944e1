package commands

import (
	"context"
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
