package provider

import (
	"errors"
	"maps"
	"testing"

	"trail/core/errs"
	"trail/core/settings"
	"trail/store"
)

func TestResolveProviderPrecedence(t *testing.T) {
	envOf := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	stored := &store.ProviderRef{Name: "openai", Model: "stored-model", BaseURL: "http://stored"}
	tests := []struct {
		name      string
		flags     Flags
		env       map[string]string
		settings  settings.Settings
		stored    *store.ProviderRef
		wantName  string
		wantModel string
		wantBase  string
		wantUsage bool
	}{
		{name: "nothing configured is a usage error naming the variables", wantUsage: true},
		{name: "an anthropic key selects anthropic", env: map[string]string{"ANTHROPIC_API_KEY": "k"}, wantName: "anthropic", wantModel: "claude-sonnet-4-5"},
		{name: "an auth token selects anthropic too", env: map[string]string{"ANTHROPIC_AUTH_TOKEN": "t"}, wantName: "anthropic", wantModel: "claude-sonnet-4-5"},
		{name: "an openai base url without a key selects openai", env: map[string]string{"OPENAI_BASE_URL": "http://localhost:11434/v1"}, wantName: "openai", wantModel: "gpt-4o", wantBase: "http://localhost:11434/v1"},
		{name: "anthropic wins over openai", env: map[string]string{"ANTHROPIC_API_KEY": "k", "OPENAI_API_KEY": "o"}, wantName: "anthropic", wantModel: "claude-sonnet-4-5"},
		{name: "settings name the provider", settings: settings.Settings{Provider: "echo", Model: "m"}, wantName: "echo", wantModel: "m"},
		{name: "env beats settings", env: map[string]string{"TRAIL_PROVIDER": "echo", "TRAIL_MODEL": "e"}, settings: settings.Settings{Provider: "script", Model: "m"}, wantName: "echo", wantModel: "e"},
		{name: "flags beat env", flags: Flags{Name: "echo", Model: "f"}, env: map[string]string{"TRAIL_PROVIDER": "openai", "TRAIL_MODEL": "e"}, wantName: "echo", wantModel: "f"},
		{name: "a stored session keeps its provider over env", env: map[string]string{"TRAIL_PROVIDER": "echo", "OPENAI_API_KEY": "o"}, stored: stored, wantName: "openai", wantModel: "stored-model", wantBase: "http://stored"},
		{name: "a flag overrides the stored provider, and its model", flags: Flags{Name: "echo"}, stored: stored, wantName: "echo", wantModel: "echo"},
		{name: "openai without key or base url is a usage error", flags: Flags{Name: "openai"}, wantUsage: true},
		{name: "anthropic without a key is a usage error", flags: Flags{Name: "anthropic"}, wantUsage: true},
		{name: "an unknown provider is a usage error", flags: Flags{Name: "llama"}, wantUsage: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.settings
			c, err := Resolve(tt.flags, envOf(tt.env), &s, tt.stored, "/work")
			var usage *errs.UsageError
			if tt.wantUsage {
				if !errors.As(err, &usage) || usage.Hint() == "" {
					t.Fatalf("want a usage error with a hint, got %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Name != tt.wantName || c.Model != tt.wantModel || c.BaseURL != tt.wantBase {
				t.Fatalf("got %s/%s/%s, want %s/%s/%s", c.Name, c.Model, c.BaseURL, tt.wantName, tt.wantModel, tt.wantBase)
			}
		})
	}
}

func TestResolveProviderKeysComeOnlyFromTheEnvironment(t *testing.T) {
	env := map[string]string{"ANTHROPIC_AUTH_TOKEN": "tok-123456789"}
	c, err := Resolve(Flags{}, func(k string) string { return env[k] }, &settings.Settings{}, nil, "/")
	if err != nil {
		t.Fatal(err)
	}
	if c.APIKey != "tok-123456789" || !c.BearerAuth {
		t.Fatalf("auth token not used as bearer: %+v", c)
	}
	if ref := c.Ref(); ref.Name != "anthropic" || ref.Model == "" {
		t.Fatalf("ref = %+v", ref)
	}
	if got := Secrets(func(k string) string { return env[k] }); len(got) != 1 || got[0] != "tok-123456789" {
		t.Fatalf("secrets = %v", got)
	}
}

func TestScriptPathIsRelativeToCwd(t *testing.T) {
	c, err := Resolve(Flags{Name: "script", Script: "s.json"}, func(string) string { return "" }, &settings.Settings{}, nil, "/work")
	if err != nil || c.Script != "/work/s.json" {
		t.Fatalf("script = %q, err %v", c.Script, err)
	}
}

// A proxy that takes the key in its URL: the record keeps the URL without
// the key, and resume puts back the key the environment holds.
func TestAKeyInTheBaseURLIsNotStored(t *testing.T) {
	const key = "sk-proj-0123456789abcdefghijklmn"
	env := map[string]string{"OPENAI_API_KEY": key}
	c, err := Resolve(Flags{Name: "openai", BaseURL: "https://proxy.example/v1?key=" + key}, func(k string) string { return env[k] }, &settings.Settings{}, nil, "/work")
	if err != nil {
		t.Fatal(err)
	}
	ref := c.Ref()
	if ref.BaseURL != "https://proxy.example/v1?key=[REDACTED]" {
		t.Fatalf("stored base URL = %q", ref.BaseURL)
	}
	c, err = Resolve(Flags{}, func(k string) string { return env[k] }, &settings.Settings{}, ref, "/work")
	if err != nil || c.BaseURL != "https://proxy.example/v1?key="+key {
		t.Fatalf("resumed base URL = %q, %v", c.BaseURL, err)
	}
	delete(env, "OPENAI_API_KEY")
	_, err = Resolve(Flags{}, func(k string) string { return env[k] }, &settings.Settings{}, ref, "/work")
	var usage *errs.UsageError
	if !errors.As(err, &usage) {
		t.Fatalf("resume without the key: err = %v, want a usage error", err)
	}
	short := Config{Name: "openai", BaseURL: "http://localhost:11434/v1", APIKey: "v1"}
	if got := short.Ref().BaseURL; got != "http://localhost:11434/v1" {
		t.Errorf("a dummy key cut the URL: %q", got)
	}
}

func TestCredentialsInTheBaseURLAreNotStored(t *testing.T) {
	for _, tt := range []struct{ url, want string }{
		{"https://proxy.example/v1?key=proxy-0123&api-version=2024-06-01", "https://proxy.example/v1?key=[REDACTED]&api-version=2024-06-01"},
		{"https://proxy.example/v1?Subscription-Key=abc&x=1#top", "https://proxy.example/v1?Subscription-Key=[REDACTED]&x=1#top"},
		{"https://proxy.example/v1?sig=abc&access_token=def", "https://proxy.example/v1?sig=[REDACTED]&access_token=[REDACTED]"},
		{"https://me:hunter2@proxy.example:8443/v1", "https://me:[REDACTED]@proxy.example:8443/v1"},
		{"https://proxy.example/v1?keyword=go&key=", "https://proxy.example/v1?keyword=go&key="},
		{"http://localhost:11434/v1", "http://localhost:11434/v1"},
	} {
		if got := redactURL(tt.url, ""); got != tt.want {
			t.Errorf("redactURL(%q) = %q, want %q", tt.url, got, tt.want)
		}
	}
}

// A proxy key that is not the API key comes back from the environment's
// base URL on resume; without it, the API key is the best guess.
func TestAProxyKeyInTheBaseURLComesBackFromTheEnvironment(t *testing.T) {
	const base = "https://proxy.example/v1?token=proxy-token-0123"
	env := map[string]string{"OPENAI_API_KEY": "sk-proj-0123456789abcdefghijklmn", "OPENAI_BASE_URL": base}
	getenv := func(k string) string { return env[k] }
	c, err := Resolve(Flags{Name: "openai"}, getenv, &settings.Settings{}, nil, "/work")
	if err != nil {
		t.Fatal(err)
	}
	ref := c.Ref()
	if ref.BaseURL != "https://proxy.example/v1?token=[REDACTED]" {
		t.Fatalf("stored base URL = %q", ref.BaseURL)
	}
	if c, err = Resolve(Flags{}, getenv, &settings.Settings{}, ref, "/work"); err != nil || c.BaseURL != base {
		t.Fatalf("resumed base URL = %q, %v", c.BaseURL, err)
	}
	delete(env, "OPENAI_BASE_URL")
	if c, err = Resolve(Flags{}, getenv, &settings.Settings{BaseURL: base}, ref, "/work"); err != nil || c.BaseURL != base {
		t.Fatalf("resumed base URL from the settings = %q, %v", c.BaseURL, err)
	}
	if c, err = Resolve(Flags{}, getenv, &settings.Settings{}, ref, "/work"); err != nil || c.BaseURL != "https://proxy.example/v1?token="+env["OPENAI_API_KEY"] {
		t.Fatalf("resumed base URL without the environment's = %q, %v", c.BaseURL, err)
	}
}

// The settings' network variables apply where the environment lacks
// them; the environment's own wins in the spellings Go reads: either case
// for the proxies, upper case only for the rest (a lower-case
// node_extra_ca_certs is read by nothing, so it must not hide the
// settings' NODE_EXTRA_CA_CERTS).
func TestNetworkEnvFromTheSettings(t *testing.T) {
	set := map[string]string{"HTTPS_PROXY": "http://proxy.corp:8080", "NO_PROXY": "localhost 10.0.0.5",
		"NODE_EXTRA_CA_CERTS": "/etc/corp/ca.pem", "PATH": "/usr/bin"}
	environ := map[string]string{"https_proxy": "http://mine:3128", "node_extra_ca_certs": "/tmp/ignored.pem"}
	got := networkEnv(func(k string) string { return environ[k] }, set)
	want := map[string]string{"NO_PROXY": "localhost 10.0.0.5", "NODE_EXTRA_CA_CERTS": "/etc/corp/ca.pem"}
	if !maps.Equal(got, want) {
		t.Errorf("networkEnv = %v, want %v", got, want)
	}
}

func TestEnvironmentOverrides(t *testing.T) {
	environ := map[string]string{"https_proxy": "http://mine:3128", "NODE_EXTRA_CA_CERTS": "/etc/corp.pem", "node_extra_ca_certs": "x", "ANTHROPIC_MODEL": "glm-4.6"}
	env := func(k string) string { return environ[k] }
	for name, want := range map[string]string{"HTTPS_PROXY": "https_proxy", "https_proxy": "https_proxy",
		"NODE_EXTRA_CA_CERTS": "NODE_EXTRA_CA_CERTS", "NO_PROXY": "", "DEPLOY_KEY": "", "ANTHROPIC_MODEL": "ANTHROPIC_MODEL", "ANTHROPIC_BASE_URL": ""} {
		if got := EnvironmentOverrides(env, name); got != want {
			t.Errorf("EnvironmentOverrides(%s) = %q, want %q", name, got, want)
		}
	}
}
