package provider

import (
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The secrets in use are the exact values the log and the record never
// hold, beside the key shapes logfmt knows (SPEC 7.1; README "Secrets"):
//
//   - the API keys trail reads (Secrets);
//   - every value of an environment variable whose name says it holds a
//     secret (secretName: *_API_KEY, *_TOKEN, *SECRET*, *PASSWORD*, *_KEY,
//     *JWT*, *CREDENTIAL*, *_AUTH, *_DSN, *WEBHOOK*, ...),
//     the password of every URL-valued one (a proxy's) and the values of
//     ANTHROPIC_CUSTOM_HEADERS, since Bash and hooks inherit the
//     environment and `env` prints it;
//   - the values of the settings' `env` block, which trail itself exports
//     to Bash and hooks, except those that are plainly not secrets: paths,
//     numbers, lowercase words ("production"), text with spaces, and names
//     that say they hold a place or a choice (plainSetting). A name that
//     says secret always counts.
//
// Values shorter than 8 bytes never count (logfmt ignores them), so "1" or
// "true" does not blank the log. The rules err on the side of hiding: a
// value that is not a secret but sits under a secret's name (a region in
// AWS_SECRET_REGION) becomes [REDACTED] wherever it appears.

// SecretsInUse lists the secrets of this process: the API keys, the
// secret-named variables of environ ("NAME=value" entries, as os.Environ
// gives them) and the settings' env values.
func SecretsInUse(env func(string) string, environ []string, settingsEnv map[string]string) []string {
	out := Secrets(env)
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		switch {
		case ok && secretName(name) && !plainUnderBroadName(name, value):
			out = append(out, value)
		case ok && name == "ANTHROPIC_CUSTOM_HEADERS":
			out = append(out, headerValues(value)...)
		case ok:
			if pw := urlPassword(value); pw != "" {
				out = append(out, pw)
			}
		}
	}
	for _, name := range sortedNames(settingsEnv) {
		value := settingsEnv[name]
		switch {
		case secretName(name) && !plainUnderBroadName(name, value), !secretName(name) && !plainSetting(name, value):
			out = append(out, value)
		}
		if pw := urlPassword(value); pw != "" {
			out = append(out, pw) // a tool may print it alone
		}
		if name == "ANTHROPIC_CUSTOM_HEADERS" {
			out = append(out, headerValues(value)...)
		}
	}
	return out
}

// headerValues are the values of ANTHROPIC_CUSTOM_HEADERS's headers: a
// gateway's key travels there.
func headerValues(v string) []string {
	h, _ := CustomHeaders(v)
	out := make([]string, 0, len(h))
	for _, kv := range h {
		out = append(out, kv[1])
	}
	return out
}

// urlPassword is the password of a URL with one (a proxy's
// HTTPS_PROXY=http://user:password@proxy:8080, a database URL): a secret
// whatever the variable's name, since `env` prints it.
func urlPassword(value string) string {
	if !strings.Contains(value, "://") || !strings.Contains(value, "@") {
		return "" // most values: no parse
	}
	u, err := url.Parse(value)
	if err != nil || u.User == nil {
		return ""
	}
	pw, _ := u.User.Password()
	return pw
}

func sortedNames(m map[string]string) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// secretName reports whether an environment variable's name says it holds
// a secret. Names that say where a secret is kept (…_FILE, …_PATH, …_DIR)
// do not: their value is a path.
func secretName(name string) bool {
	n := strings.ToUpper(name)
	for _, suffix := range []string{"_FILE", "_PATH", "_DIR"} {
		if strings.HasSuffix(n, suffix) {
			return false
		}
	}
	return strongSecretName(n) || broadSecretName(n)
}

// strongSecretName: a name that says secret whatever the value. n is
// upper case.
func strongSecretName(n string) bool {
	return n == "API_KEY" || strings.HasSuffix(n, "_API_KEY") || strings.HasSuffix(n, "_APIKEY") ||
		n == "TOKEN" || strings.HasSuffix(n, "_TOKEN") ||
		strings.Contains(n, "SECRET") ||
		strings.Contains(n, "PASSWORD") || strings.Contains(n, "PASSWD") || strings.Contains(n, "PASSPHRASE") || n == "PASS" || strings.HasSuffix(n, "_PASS") ||
		strings.HasSuffix(n, "PRIVATE_KEY")
}

// broadSecretName: what CI systems and deploy set-ups export beside the
// tokens (GitLab's CI_JOB_JWT(_V2), DEPLOY_KEY, SIGNING_KEY,
// GCP_CREDENTIALS, NPM_AUTH, DOCKER_AUTH_CONFIG, SENTRY_DSN,
// SLACK_WEBHOOK_URL, whose URL is the credential). These names also cover
// plain identifiers (PARTITION_KEY, CACHE_KEY), so their plain values are
// no secrets (plainUnderBroadName). n is upper case.
func broadSecretName(n string) bool {
	return strings.Contains(n, "JWT") ||
		n == "KEY" || strings.HasSuffix(n, "_KEY") ||
		strings.Contains(n, "CREDENTIAL") ||
		n == "AUTH" || strings.HasSuffix(n, "_AUTH") || strings.Contains(n, "AUTH_CONFIG") ||
		strings.HasSuffix(n, "_DSN") ||
		strings.Contains(n, "WEBHOOK")
}

// plainUnderBroadName reports whether value, under a name only the broad
// rules call secret, is plainly none: a path that exists (PROJECT_KEY=
// $PWD) or a number, date or version (CACHE_KEY=2026-11-28). Taken for
// secrets, such values were replaced wherever trail writes them: the
// session's folder (tools that could not run), the log's timestamps. A
// word of lowercase letters stays a secret (correct-horse-battery-staple);
// the words trail writes as structure never are (logfmt).
func plainUnderBroadName(name, value string) bool {
	if strongSecretName(strings.ToUpper(name)) {
		return false
	}
	if value != "" && strings.Trim(value, "0123456789.:-+TZ") == "" {
		return true
	}
	if filepath.IsAbs(value) {
		if _, err := os.Stat(value); err == nil {
			return true
		}
	}
	return false
}

// plainSetting reports whether a settings env value is plainly not a
// secret, by its name or its shape.
func plainSetting(name, value string) bool {
	n := strings.ToUpper(name)
	switch n {
	case "PATH", "HOME", "SHELL", "USER", "LANG", "TERM", "TZ", "EDITOR", "PAGER", "PWD", "NO_PROXY":
		return true
	}
	if u, err := url.Parse(value); err == nil && u.Host != "" && u.User == nil && u.RawQuery == "" &&
		(u.Scheme == "http" || u.Scheme == "https" || u.Scheme == "socks5") {
		// A gateway's or a proxy's address; one with a user:password or
		// a query (where gateways take keys) stays a secret.
		return true
	}
	for _, suffix := range []string{"_DIR", "_PATH", "_FILE", "_HOME", "_MODEL", "_REGION", "_MODE", "_LEVEL"} {
		if strings.HasSuffix(n, suffix) {
			return true
		}
	}
	if strings.HasPrefix(value, "/") || strings.HasPrefix(value, "~") || strings.HasPrefix(value, "./") {
		return true
	}
	if strings.ContainsAny(value, " \t\r\n") {
		return true
	}
	// Numbers, and lowercase words such as "production": a secret has
	// digits or capitals among its letters.
	return strings.Trim(value, "0123456789.") == "" || strings.Trim(value, "abcdefghijklmnopqrstuvwxyz-_") == ""
}
