package provider

import (
	"slices"
	"testing"
)

func TestSecretsInUse(t *testing.T) {
	env := map[string]string{"ANTHROPIC_API_KEY": "sk-ant-in-use-0123456789"}
	environ := []string{
		"ANTHROPIC_API_KEY=sk-ant-in-use-0123456789",
		"GITHUB_TOKEN=gh-token-value-0001",
		"AWS_SECRET_ACCESS_KEY=aws-secret-value-0002",
		"PGPASSWORD=pg-password-0003",
		"STRIPE_API_KEY=stripe-value-0004",
		"DEPLOY_PASS=deploy-pass-0005",
		"CLAUDE_CODE_CLIENT_KEY_PASSPHRASE=key-passphrase-0009",
		"SSH_PRIVATE_KEY=private-key-0006",
		"PASSWORD_STORE_DIR=/home/me/.password-store",
		"GOOGLE_CLIENT_SECRET_FILE=/etc/secret.json",
		"HOME=/home/me",
		"EDITOR=vim-editor-long",
		"https_proxy=http://build:Pr0xyPassw0rd-env@proxy.corp.example:8080",
		"DATABASE_URL=postgres://app:Db-Passw0rd-0008@db:5432/app",
		"GIT_URL=https://github.com/org/repo.git",
		"ANTHROPIC_CUSTOM_HEADERS=x-gateway-key: gw-key-0010\nx-route: eu",
		"MALFORMED",
	}
	settings := map[string]string{
		"DEPLOY_KEY":      "dk-settings-0007",
		"SERVICE_TOKEN":   "short", // counted by name, dropped by length in logfmt
		"NODE_ENV":        "production",
		"ANTHROPIC_MODEL": "claude-sonnet-4-5",
		"AWS_REGION":      "eu-west-1",
		"BUILD_DIR":       "out/build-dir",
		"CACHE":           "/var/cache/thing",
		"GREETING":        "hello there world",
		"TIMEOUT_MS":      "1200000",
		"DEBUG":           "true",
		"WEBHOOK_SIGNING": "whsec_Abc123Def456",
		// a company network's settings (Claude Code's network config):
		// URLs without a credential and host lists are no secrets; a
		// proxy URL with a password is one
		"ANTHROPIC_BASE_URL": "https://llm-gateway.corp.example/anthropic",
		"HTTPS_PROXY":        "http://proxy.corp.example:8080",
		"HTTP_PROXY":         "http://build:Pr0xyPassw0rd@proxy.corp.example:8080",
		"NO_PROXY":           "localhost,10.0.0.5,.corp.example",
		"HOOK_URL":           "https://hooks.example/x?token=Abc123Def456",
	}
	got := SecretsInUse(func(k string) string { return env[k] }, environ, settings)
	want := []string{
		"sk-ant-in-use-0123456789",
		"sk-ant-in-use-0123456789", "gh-token-value-0001", "aws-secret-value-0002", "pg-password-0003",
		"stripe-value-0004", "deploy-pass-0005", "key-passphrase-0009", "private-key-0006", "Pr0xyPassw0rd-env", "Db-Passw0rd-0008", "gw-key-0010", "eu",
		"dk-settings-0007", "https://hooks.example/x?token=Abc123Def456", "http://build:Pr0xyPassw0rd@proxy.corp.example:8080", "Pr0xyPassw0rd",
		"short", "whsec_Abc123Def456",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("secrets in use:\n got %q\nwant %q", got, want)
	}
	if got := SecretsInUse(func(string) string { return "" }, nil, nil); len(got) != 0 {
		t.Fatalf("nothing configured gave %q", got)
	}
}

func TestSecretNames(t *testing.T) {
	for _, name := range []string{"OPENAI_API_KEY", "api_key", "X_APIKEY", "GH_TOKEN", "TOKEN", "CLIENT_SECRET",
		"SECRET_KEY_BASE", "MYSQL_PASSWORD", "PASSWD", "SMTP_PASS", "TLS_PRIVATE_KEY",
		// CI credentials (GitLab, Docker, npm, Sentry, Slack)
		"CI_JOB_JWT", "CI_JOB_JWT_V2", "DEPLOY_KEY", "SIGNING_KEY", "GCP_CREDENTIALS", "GOOGLE_APPLICATION_CREDENTIALS_JSON",
		"NPM_AUTH", "DOCKER_AUTH_CONFIG", "SENTRY_DSN", "SLACK_WEBHOOK_URL"} {
		if !secretName(name) {
			t.Errorf("%s does not name a secret", name)
		}
	}
	for _, name := range []string{"TOKEN_FILE", "NPM_TOKEN_PATH", "SECRETS_DIR", "KEYBOARD", "TOKENIZER", "PASSPORT",
		"AWS_ACCESS_KEY_ID", "SSH_AUTH_SOCK", "KEY_FILE", "SIGNING_KEY_PATH", "KEYS", "MONKEY_BUSINESS", "AUTHOR", "OAUTH_ENABLED"} {
		if secretName(name) {
			t.Errorf("%s names a secret", name)
		}
	}
}
