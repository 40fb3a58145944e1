package provider

import (
	"cmp"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"trail/core/errs"
	"trail/core/settings"
	"trail/store"
)

// Provider names.
const (
	Anthropic = "anthropic"
	OpenAI    = "openai"
	Echo      = "echo"
	Script    = "script"
	Cassette  = "cassette"
)

// DefaultTimeout is the provider idle timeout when neither --timeout nor
// the settings name one (SPEC 1.3).
const DefaultTimeout = 120 * time.Second

// DefaultModel is the model of provider when no model is named anywhere;
// ok is false for a provider trail does not know.
func DefaultModel(provider string) (model string, ok bool) {
	switch provider {
	case Anthropic:
		return "claude-sonnet-4-5", true
	case OpenAI:
		return "gpt-4o", true
	case Echo:
		return "echo", true
	case Script:
		return "script", true
	case Cassette:
		// A cassette's calls are priced and sized by the model each
		// recorded call names (its answers carry it); "cassette" is the
		// session's.
		return "cassette", true
	}
	return "", false
}

// Flags are the provider choices given on the command line.
type Flags struct {
	Name, Model, BaseURL, Script string
	// Cassette is the recording the cassette provider plays (a log's
	// path); CassetteMode is strict or lenient, CassetteSpeed full or
	// recorded. Mode and speed are this step's, never stored.
	Cassette, CassetteMode, CassetteSpeed string
}

// envName is the variable that gives a provider's base URL.
func envName(provider string) string {
	if provider == OpenAI {
		return "OPENAI_BASE_URL"
	}
	return "ANTHROPIC_BASE_URL"
}

// Config is everything needed to build a Provider. APIKey comes from
// the environment only and is never stored.
type Config struct {
	Name     string
	Model    string
	BaseURL  string
	Script   string
	Cassette string
	// CassetteMode and CassetteSpeed as the flags or the environment
	// give them, checked ("strict" or "lenient", "full" or "recorded").
	CassetteMode, CassetteSpeed string
	// Cwd is where the step runs: the cassette reads the recorded
	// working directory as this one.
	Cwd        string
	APIKey     string
	BearerAuth bool // ANTHROPIC_AUTH_TOKEN: send "Authorization: Bearer" instead of x-api-key
	Timeout    time.Duration
	MaxRetries int
	// ModelFrom is the settings file that named the model, "" when a
	// flag, the environment, the session or the default did; ModelAsWritten
	// is the model as it was written there, when it was resolved
	// (model_alias.go). Errors about the model name them.
	ModelFrom, ModelAsWritten string
	// Warning is what the user should be told about the model chosen
	// (a Claude Code alias not sent to openai), "" when nothing.
	Warning string
	// Notes are what else the user should be told about the resolution:
	// which of two credentials was sent, a stored base URL kept over the
	// environment's.
	Notes []string
	// NetworkEnv are the network variables (networkVars) the settings'
	// env block sets and the environment lacks: the HTTP providers put
	// them in the process's environment before their first request.
	NetworkEnv map[string]string
	// Headers are added to every request (ANTHROPIC_CUSTOM_HEADERS: a
	// gateway's own key or routing); their values are secrets.
	Headers [][2]string
}

// CustomHeaders reads ANTHROPIC_CUSTOM_HEADERS as Claude Code does: one
// "Name: Value" a line. A line that is no header is a usage error, not a
// header silently dropped (a gateway would then refuse every request).
func CustomHeaders(v string) ([][2]string, error) {
	var out [][2]string
	for i, line := range strings.Split(v, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		name, value, ok := strings.Cut(line, ":")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			// the line is not quoted: its value may be a gateway's key
			return nil, errs.Usagef(`one "Name: Value" a line, e.g. ANTHROPIC_CUSTOM_HEADERS="x-gateway-key: $GATEWAY_KEY"`,
				"ANTHROPIC_CUSTOM_HEADERS: line %d is no header (a name without spaces, a colon, a value)", i+1)
		}
		out = append(out, [2]string{name, value})
	}
	return out, nil
}

// networkVars are the variables of the settings' env block that apply to
// trail's own requests, not only to Bash and hooks: Claude Code applies its
// settings' env to itself, and its network-config page has users put their
// proxy and certificate authorities there. A variable the environment
// sets, in either case (https_proxy), wins.
var networkVars = [...]string{"HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY", "NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "SSL_CERT_DIR",
	"CLAUDE_CODE_CLIENT_CERT", "CLAUDE_CODE_CLIENT_KEY", "CLAUDE_CODE_CLIENT_KEY_PASSPHRASE"}

// EnvironmentOverrides names the environment variable that replaces the
// settings' env entry name for trail's own requests ("https_proxy", or
// ANTHROPIC_MODEL itself), "" when none does or trail does not read name.
func EnvironmentOverrides(env func(string) string, name string) string {
	switch name {
	case "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL", "ANTHROPIC_MODEL", "ANTHROPIC_CUSTOM_HEADERS":
		// read from the environment first, the settings' env after
		if env(name) != "" {
			return name
		}
		return ""
	}
	for _, k := range networkVars {
		if name == k || name == spellings(k)[1] {
			return setSpelling(env, k)
		}
	}
	return ""
}

// spellings are k's names Go reads: the proxy variables in either case,
// the others upper case only (a lower-case node_extra_ca_certs is read by
// nothing).
func spellings(k string) [2]string {
	if strings.HasSuffix(k, "_PROXY") {
		return [2]string{k, strings.ToLower(k)}
	}
	return [2]string{k, k}
}

// setSpelling is the spelling of k the environment sets, "" for none.
func setSpelling(env func(string) string, k string) string {
	for _, n := range spellings(k) {
		if env(n) != "" {
			return n
		}
	}
	return ""
}

func networkEnv(env func(string) string, set map[string]string) map[string]string {
	var out map[string]string
	for _, k := range networkVars {
		if setSpelling(env, k) != "" {
			continue
		}
		names := spellings(k)
		if v := cmp.Or(set[names[0]], set[names[1]]); v != "" {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = v
		}
	}
	return out
}

// Ref is what the record keeps of the provider (never a key).
func (c Config) Ref() *store.ProviderRef {
	return &store.ProviderRef{Name: c.Name, Model: c.Model, BaseURL: redactURL(c.BaseURL, c.APIKey), Script: c.Script, Cassette: c.Cassette}
}

// keyInURL stands for a credential in a stored base URL. Some proxies take
// the key in the query (…/v1?key=…) or the URL's user:password: the record
// must not hold it, and resume puts back what the environment holds then.
const keyInURL = "[REDACTED]"

// Resolve applies SPEC 2's precedence: flags, then (on resume) the
// session's stored provider, then the environment, then settings files, then
// auto-selection from the API keys present.
func Resolve(flags Flags, env func(string) string, s *settings.Settings, stored *store.ProviderRef, cwd string) (Config, error) {
	if s == nil {
		s = &settings.Settings{}
	}
	c := Config{Name: flags.Name, Cwd: cwd}
	if c.Name == "" && stored != nil {
		c.Name = stored.Name
	}
	if c.Name == "" {
		c.Name = env("TRAIL_PROVIDER")
	}
	if c.Name == "" {
		c.Name = s.Provider
	}
	if c.Name == "" {
		switch {
		case env("ANTHROPIC_API_KEY") != "" || env("ANTHROPIC_AUTH_TOKEN") != "":
			c.Name = Anthropic
		case env("OPENAI_API_KEY") != "" || env("OPENAI_BASE_URL") != "":
			c.Name = OpenAI
		default:
			return c, errs.Usagef(cmp.Or(keyInSettingsHint(s, ""), noProviderHint(s)), "no model provider configured")
		}
	}
	if _, ok := DefaultModel(c.Name); !ok {
		return c, errs.Usagef("providers: anthropic, openai, echo, script, cassette", "unknown provider %s", store.QuoteInput(c.Name))
	}
	sameStored := stored != nil && stored.Name == c.Name

	c.Model = cmp.Or(flags.Model, when(sameStored, storedField(stored, func(r *store.ProviderRef) string { return r.Model })), env("TRAIL_MODEL"))
	if c.Name == Anthropic {
		// Claude Code's variable, as gateway setups ask for it (with
		// ANTHROPIC_BASE_URL and ANTHROPIC_AUTH_TOKEN): the model the
		// gateway serves, where Anthropic's default would be refused
		c.Model = cmp.Or(c.Model, env("ANTHROPIC_MODEL"))
	}
	if c.Model == "" && s.Model != "" {
		c.Model, c.ModelFrom = s.Model, s.ModelFrom
	}
	if c.Name == Anthropic {
		c.Model = cmp.Or(c.Model, s.Env["ANTHROPIC_MODEL"]) // the settings' env: after trail's own "model"
	}
	c.Model = cmp.Or(c.Model, defaultModel(c.Name))
	if id, warning := ResolveModel(c.Name, c.Model, c.ModelFrom, AliasEnv(env, s)); id != c.Model {
		c.ModelAsWritten, c.Model, c.Warning = c.Model, id, warning
	}
	envBase := ""
	switch c.Name {
	case Anthropic:
		envBase = env("ANTHROPIC_BASE_URL")
	case OpenAI:
		envBase = env("OPENAI_BASE_URL")
	}
	storedBase := when(sameStored, storedField(stored, func(r *store.ProviderRef) string { return r.BaseURL }))
	// The settings' env block is where Claude Code users keep a gateway's
	// ANTHROPIC_BASE_URL; trail's own baseUrl key comes first.
	c.BaseURL = cmp.Or(flags.BaseURL, storedBase, envBase, s.BaseURL)
	if c.Name == Anthropic || c.Name == OpenAI {
		c.BaseURL = cmp.Or(c.BaseURL, s.Env[envName(c.Name)])
		c.NetworkEnv = networkEnv(env, s.Env)
	}
	if c.Name == Anthropic {
		h, err := CustomHeaders(cmp.Or(env("ANTHROPIC_CUSTOM_HEADERS"), s.Env["ANTHROPIC_CUSTOM_HEADERS"]))
		if err != nil {
			return c, err
		}
		c.Headers = h
	}
	if flags.BaseURL == "" && storedBase != "" && envBase != "" && envBase != storedBase {
		// The session goes on where it began (SPEC 1.4), but a server that
		// moved (a local one on a new port) must not be dialled in silence.
		c.Notes = append(c.Notes, "the session's base URL "+storedBase+" is used, not "+envName(c.Name)+"'s "+envBase+"; pass --base-url to change it")
	}

	switch c.Name {
	case Anthropic:
		// ANTHROPIC_AUTH_TOKEN first, as Claude Code takes it: it is what a
		// gateway's setup asks for, and the API key a shell keeps exported
		// beside it must not go to that gateway.
		if k := env("ANTHROPIC_AUTH_TOKEN"); k != "" {
			c.APIKey, c.BearerAuth = k, true
			if env("ANTHROPIC_API_KEY") != "" {
				c.Notes = append(c.Notes, "ANTHROPIC_AUTH_TOKEN and ANTHROPIC_API_KEY are both set: ANTHROPIC_AUTH_TOKEN is sent (Authorization: Bearer), as Claude Code sends it, and ANTHROPIC_API_KEY is not; unset the one you do not mean")
			}
		} else if k := env("ANTHROPIC_API_KEY"); k != "" {
			c.APIKey = k
		} else {
			return c, errs.Usagef(cmp.Or(keyInSettingsHint(s, Anthropic), "export ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN); keys are read from the environment only"),
				"the anthropic provider needs an API key")
		}
	case OpenAI:
		c.APIKey = env("OPENAI_API_KEY")
		if c.APIKey == "" && c.BaseURL == "" {
			return c, errs.Usagef(cmp.Or(keyInSettingsHint(s, OpenAI), "export OPENAI_API_KEY, or point --base-url at an OpenAI-compatible server"),
				"the openai provider needs an API key")
		}
	case Script:
		c.Script = cmp.Or(flags.Script, when(sameStored, storedField(stored, func(r *store.ProviderRef) string { return r.Script })), env("TRAIL_SCRIPT"))
		if c.Script == "" {
			return c, errs.Usagef("pass --script FILE (a JSON array or JSONL of responses)", "the script provider needs a script")
		}
		if !filepath.IsAbs(c.Script) {
			c.Script = filepath.Join(cwd, c.Script)
		}
	case Cassette:
		if err := resolveCassette(&c, flags, env, stored, sameStored, cwd); err != nil {
			return c, err
		}
	}
	if c.BaseURL != "" && c.BaseURL == storedBase && strings.Contains(c.BaseURL, keyInURL) {
		c.BaseURL = restoreURL(storedBase, c.APIKey, envBase, s.BaseURL)
		if c.BaseURL == "" {
			return c, errs.Usagef("export the API key (or the base URL) again, or pass --base-url", "the session's base URL carried a credential, which trail does not store")
		}
	}
	return c, nil
}

// AliasEnv reads the variables that pick what a model alias resolves to:
// the environment's, else the settings' "env" (where Claude Code users
// keep ANTHROPIC_DEFAULT_OPUS_MODEL and the like).
func AliasEnv(env func(string) string, s *settings.Settings) func(string) string {
	return func(k string) string {
		if v := env(k); v != "" || s == nil {
			return v
		}
		return s.Env[k]
	}
}

// noProviderHint names every way to choose a provider, and the settings
// files that were read without naming one (a misspelt key among them is
// warned about as they are read).
// keyInSettingsHint is the hint for a missing key that the user keeps
// where Claude Code reads it and trail does not: a settings file's env
// block (where gateways' guides put ANTHROPIC_AUTH_TOKEN) or its
// apiKeyHelper command. trail takes keys from the environment only, so
// the fix is to export it; "" when no settings file has one for provider
// name ("" for any).
func keyInSettingsHint(s *settings.Settings, name string) string {
	const only = "trail reads API keys from the environment only"
	for _, k := range [...]struct{ variable, provider string }{
		{"ANTHROPIC_AUTH_TOKEN", Anthropic}, {"ANTHROPIC_API_KEY", Anthropic}, {"OPENAI_API_KEY", OpenAI},
	} {
		if s.Env[k.variable] != "" && (name == "" || name == k.provider) {
			return fmt.Sprintf("%s sets %s in its \"env\", where Claude Code reads it; %s: export %s in the shell (the rest of that env block applies as it is)", s.EnvFrom[k.variable], k.variable, only, k.variable)
		}
	}
	if s.APIKeyHelper != "" && name != OpenAI {
		return fmt.Sprintf("%s names an apiKeyHelper, which trail never runs (%s): export ANTHROPIC_API_KEY=\"$(%s)\"", s.APIKeyHelperFrom, only, s.APIKeyHelper)
	}
	return ""
}

func noProviderHint(s *settings.Settings) string {
	read := "none was found"
	if len(s.Files) > 0 {
		read = "read: " + strings.Join(s.Files, ", ")
	}
	return "export ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, OPENAI_API_KEY or OPENAI_BASE_URL; or set \"provider\" (and \"model\") in " +
		"$TRAIL_HOME/settings.json or ./.trail/settings.json (" + read + "; trail config shows them); or try offline with --provider echo"
}

// Secrets returns the API key values present in the environment, so the log
// writer can scrub them whichever provider is in use.
func Secrets(env func(string) string) []string {
	var out []string
	for _, k := range []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY"} {
		if v := env(k); v != "" {
			out = append(out, v)
		}
	}
	return out
}

func when(ok bool, v string) string {
	if ok {
		return v
	}
	return ""
}

func storedField(r *store.ProviderRef, f func(*store.ProviderRef) string) string {
	if r == nil {
		return ""
	}
	return f(r)
}

func defaultModel(provider string) string {
	m, _ := DefaultModel(provider)
	return m
}
