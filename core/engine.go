package core

import (
	"context"
	"time"

	"trail/core/provider"
	"trail/core/settings"
	"trail/core/tools"
)

// Engine runs steps. Every dependency is injected so tests can drive it
// in-process; commands/deps.go wires the real ones.
type Engine struct {
	Store       Store
	OpenLog     func(sessionID string, secrets []string) (Logger, error)
	NewProvider func(cfg provider.Config) (provider.Provider, error)
	Clock       Clock
	NewID       func() (string, error)
	Terminal    Terminal
	Env         func(string) string
	// Environ lists the process environment ("NAME=value"), whose
	// secret-named values are scrubbed from the log and the record; nil
	// means none.
	Environ func() []string
	Tools   []tools.Tool
}

// StepOptions is one run or resume, as parsed from flags. A zero value
// means "not given": the step resolves each option against the settings
// and the defaults (options.go) before it touches a file.
type StepOptions struct {
	Resume    bool
	Ref       SessionRef // resume: which session
	Fork      bool       // resume: continue in a new session
	SessionID string     // run: use this id
	Name      string     // run: name; resume: rename
	Prompt    string     // may be empty on resume with --approve/--deny
	Approve   string     // resume: "all" or comma-separated tool call ids to allow
	Deny      string     // resume: "all" or comma-separated tool call ids to deny

	System       *string // run: replaces the default system prompt
	AppendSystem string  // run: appended to the system prompt

	Provider   provider.Flags
	MaxTurns   int           // 0: the settings' maxTurns, else no cap
	Timeout    time.Duration // provider idle timeout; 0: the settings', else provider.DefaultTimeout
	MaxRetries int
	// MaxTokens caps each answer; 0: the settings' maxTokens, else the
	// model table's limit (output_limits.go).
	MaxTokens int
	// Thinking is --thinking: "" (not given: the settings decide), "on"
	// (no budget), "off", or a budget in tokens.
	Thinking string
	// Stream is --stream: text written as it arrives even into a pipe;
	// nil (not given): the settings' stream, else off. Resolved, it is
	// told to the observer with EvSession.
	Stream *bool

	// Tools and permissions (SPEC 5.2).
	PermissionMode string   // --permission-mode; "" = the session's, else settings, else default
	AllowRules     []string // --allow-tool
	DenyRules      []string // --deny-tool
	OnAsk          string   // --on-ask: deny (default) or pause
	// AddDirs are --add-dir's folders: working directories beside the
	// session's cwd, with the settings' permissions.additionalDirectories.
	AddDirs []string

	// AutoCompact is the auto-compaction threshold in (0,1]; 0 means the
	// settings' autoCompactThreshold, else DefaultAutoCompact.
	AutoCompact    float64
	AutoCompactOff bool     // --auto-compact off (or the settings' false, once resolved)
	ContextWindow  int64    // --context-window: overrides the model table
	Tools          []string // --tools: the tools offered; nil = every built-in tool

	NoLog bool
	// LogRequests is --log-requests: "full" logs every request's messages
	// and tools whole, "digest" only their digests; "" leaves it to the
	// settings (logRequests), else digest.
	LogRequests string
	Wait        time.Duration // how long to wait for the session lock
	Cwd         string
	Settings    *settings.Settings
	Observer    Observer
}

// Step runs one prompt to completion in a new or stored session.
func (e *Engine) Step(ctx context.Context, opts StepOptions) (*Result, error) {
	start := e.Clock.Now()
	s, err := e.open(ctx, &opts, requirePrompt)
	if err != nil {
		return nil, err
	}
	defer s.close()
	res, err := s.runPrompt(ctx, opts.Prompt)
	if res != nil {
		res.DurationMS = e.Clock.Now().Sub(start).Milliseconds()
	}
	return res, err
}
