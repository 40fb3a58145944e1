package core

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"trail/core/chat"
	"trail/core/errs"
	"trail/core/provider"
	"trail/core/settings"
	"trail/core/tools"
)

func ptr[T any](v T) *T { return &v }

// Each option's precedence, flag over settings over default, row by row.
// effective is what resolve made of the options a row checks.
type effective struct {
	maxTurns    int
	timeout     time.Duration
	maxTokens   int
	autoCompact float64 // 0: off
	onAsk       string
}

// with is w changed by f: a row's difference from the defaults.
func with(w effective, f func(*effective)) effective { f(&w); return w }

func TestResolveGivesEachOptionItsEffectiveValue(t *testing.T) {
	defaults := effective{maxTurns: 0, timeout: provider.DefaultTimeout, maxTokens: 0, autoCompact: DefaultAutoCompact, onAsk: OnAskDeny}
	tests := []struct {
		name     string
		opts     StepOptions
		settings *settings.Settings
		want     effective
	}{
		{"nothing given: the defaults", StepOptions{}, nil, defaults},
		{"the settings' maxTurns applies when the flag is not given",
			StepOptions{}, &settings.Settings{MaxTurns: ptr(3)}, with(defaults, func(w *effective) { w.maxTurns = 3 })},
		{"--max-turns wins over the settings",
			StepOptions{MaxTurns: 7}, &settings.Settings{MaxTurns: ptr(3)}, with(defaults, func(w *effective) { w.maxTurns = 7 })},
		{"the settings' timeout applies when the flag is not given",
			StepOptions{}, &settings.Settings{Timeout: 250 * time.Millisecond}, with(defaults, func(w *effective) { w.timeout = 250 * time.Millisecond })},
		{"--timeout wins over the settings",
			StepOptions{Timeout: time.Second}, &settings.Settings{Timeout: 250 * time.Millisecond}, with(defaults, func(w *effective) { w.timeout = time.Second })},
		{"a caller's answer cap is kept",
			StepOptions{MaxTokens: 100}, nil, with(defaults, func(w *effective) { w.maxTokens = 100 })},
		{"the settings' maxTokens applies when the flag is not given (0: the model's limit, once known)",
			StepOptions{}, &settings.Settings{MaxTokens: 2000}, with(defaults, func(w *effective) { w.maxTokens = 2000 })},
		{"--max-tokens wins over the settings",
			StepOptions{MaxTokens: 100}, &settings.Settings{MaxTokens: 2000}, with(defaults, func(w *effective) { w.maxTokens = 100 })},
		{"the settings' threshold applies when the flag is not given",
			StepOptions{}, &settings.Settings{AutoCompactThreshold: ptr(0.5)}, with(defaults, func(w *effective) { w.autoCompact = 0.5 })},
		{"the settings' false turns auto-compaction off",
			StepOptions{}, &settings.Settings{AutoCompactOff: true}, with(defaults, func(w *effective) { w.autoCompact = 0 })},
		{"--auto-compact X wins over the settings' false",
			StepOptions{AutoCompact: 0.9}, &settings.Settings{AutoCompactOff: true}, with(defaults, func(w *effective) { w.autoCompact = 0.9 })},
		{"--auto-compact off wins over the settings' threshold",
			StepOptions{AutoCompactOff: true}, &settings.Settings{AutoCompactThreshold: ptr(0.5)}, with(defaults, func(w *effective) { w.autoCompact = 0 })},
		{"--on-ask pause is kept",
			StepOptions{OnAsk: OnAskPause}, nil, with(defaults, func(w *effective) { w.onAsk = OnAskPause })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.opts
			o.Resume, o.Settings = true, tt.settings
			if _, err := o.resolve(nil); err != nil {
				t.Fatal(err)
			}
			got := effective{maxTurns: o.MaxTurns, timeout: o.Timeout, maxTokens: o.MaxTokens, autoCompact: o.AutoCompact, onAsk: o.OnAsk}
			if o.AutoCompactOff {
				got.autoCompact = 0
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
			if o.Observer == nil || o.Settings == nil {
				t.Error("observer or settings left nil")
			}
		})
	}
}

type namedTool string

func (n namedTool) Schema() chat.ToolSchema { return chat.ToolSchema{Name: string(n)} }
func (namedTool) Run(context.Context, json.RawMessage, tools.Env) tools.Result {
	return tools.Result{}
}

// Each check says which value is wrong, in the order a user meets them:
// the flags first, then the settings.
func TestResolveRefusesBadOptionsBeforeAnyFileIsTouched(t *testing.T) {
	available := []tools.Tool{namedTool("Read"), namedTool("Bash")}
	tests := []struct {
		name    string
		opts    StepOptions
		wantErr string
	}{
		{"an unknown --permission-mode", StepOptions{PermissionMode: "yolo", Prompt: "p"}, `unknown --permission-mode "yolo"`},
		{"the flag's mode is checked before the prompt", StepOptions{PermissionMode: "yolo"}, "--permission-mode"},
		{"a run without a prompt", StepOptions{Prompt: " \n"}, "no prompt"},
		{"an unknown tool in --tools", StepOptions{Prompt: "p", Tools: []string{"Read", "Nope"}}, `--tools: unknown tool "Nope"`},
		{"an unknown defaultMode in the settings", StepOptions{Prompt: "p", Settings: &settings.Settings{Permissions: settings.Permissions{DefaultMode: "all"}}}, `unknown permissions.defaultMode "all" in the settings`},
		{"an unknown --on-ask", StepOptions{Prompt: "p", OnAsk: "maybe"}, `unknown --on-ask value "maybe"`},
		{"--approve on a run", StepOptions{Prompt: "p", Approve: "all"}, "--approve/--deny need resume"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.opts
			_, err := o.resolve(available)
			var ue *errs.UsageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("got %v, want a usage error with %q", err, tt.wantErr)
			}
		})
	}
}

func TestResolveOffersTheNamedToolsInTheirOrder(t *testing.T) {
	available := []tools.Tool{namedTool("Read"), namedTool("Bash"), namedTool("Grep")}
	for _, tt := range []struct {
		names []string
		want  string
	}{
		{nil, "Read,Bash,Grep"},
		{[]string{}, ""},
		{[]string{"Grep", "Read"}, "Grep,Read"},
	} {
		o := StepOptions{Prompt: "p", Tools: tt.names}
		got, err := o.resolve(available)
		if err != nil {
			t.Fatal(err)
		}
		if s := strings.Join(toolNames(got), ","); s != tt.want {
			t.Errorf("--tools %q offers %q, want %q", tt.names, s, tt.want)
		}
	}
}

func TestPermissionModeWeighsFlagSessionSettingsDefault(t *testing.T) {
	tests := []struct {
		name                   string
		flag                   string
		stored                 string // raw JSON of the record's field, "" for none
		settingsMode, wantMode string
	}{
		{"nothing: default", "", "", "", "default"},
		{"the settings' defaultMode", "", "", "acceptEdits", "acceptEdits"},
		{"the session's mode wins over the settings", "", `"plan"`, "acceptEdits", "plan"},
		{"the flag wins over the session", "bypassPermissions", `"plan"`, "acceptEdits", "bypassPermissions"},
		{"a stored mode trail does not know is skipped", "", `"yolo"`, "acceptEdits", "acceptEdits"},
		{"a stored value that is not a string is skipped", "", `3`, "", "default"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stored json.RawMessage
			if tt.stored != "" {
				stored = json.RawMessage(tt.stored)
			}
			if got := permissionMode(tt.flag, stored, tt.settingsMode); got != tt.wantMode {
				t.Errorf("got %q, want %q", got, tt.wantMode)
			}
		})
	}
}
