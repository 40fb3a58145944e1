package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"time"

	"trail/core/errs"
	"trail/store"
)

// Settings is the merge of every settings file (SPEC 2). Later files win for
// scalars; permission rules and each hook event's list are concatenated.
type Settings struct {
	Provider     string
	Model        string
	ModelFrom    string // the file that set Model
	BaseURL      string
	SystemPrompt string
	Permissions  Permissions
	Hooks        map[string][]HookMatcher
	// AutoCompactThreshold is nil when unset; AutoCompactOff when a file said false.
	AutoCompactThreshold *float64
	AutoCompactOff       bool
	MaxTurns             *int
	Timeout              time.Duration
	Env                  map[string]string
	// MaxTokens caps each answer (0: the model table's limit).
	MaxTokens int
	// Thinking is "on", "off", a budget in tokens ("8000"), or "" when no
	// file says: the settings' thinking (true, false or a number), else
	// Claude Code's alwaysThinkingEnabled.
	Thinking string
	// StreamOptionsOff: streamOptions false (servers that refuse
	// stream_options.include_usage).
	StreamOptionsOff bool
	// PromptCachingOff: promptCaching false (no cache_control breakpoints).
	PromptCachingOff bool
	// LogRequests is how provider_request lines carry the messages and
	// tools sent: LogRequestsDigest (the default, "" when no file says)
	// or LogRequestsFull (the whole lists, as Robota writes them).
	LogRequests string
	// Stream: "stream": true, plain text into a pipe is written as it
	// arrives (run's --stream); nil when no file says.
	Stream *bool
	// BashTimeout and BashMaxTimeout are the Bash tool's time limits when
	// no call names one, and the most a call may name: Claude Code's
	// BASH_DEFAULT_TIMEOUT_MS and BASH_MAX_TIMEOUT_MS (claude_vars.go);
	// 0 when unset (2 and 10 minutes).
	BashTimeout, BashMaxTimeout time.Duration
	// DisableAllHooks: a file said "disableAllHooks": true (Claude Code's
	// switch); no hook runs.
	DisableAllHooks bool
	// EnvFrom names the file that set each Env variable.
	EnvFrom map[string]string
	// APIKeyHelper is Claude Code's apiKeyHelper, a command printing the
	// key, and APIKeyHelperFrom its file. trail never runs it (keys come
	// from the environment only); a missing key's hint names it.
	APIKeyHelper, APIKeyHelperFrom string
	// Files lists the settings files that were read, in merge order.
	Files []string
	// Unknown lists the keys no settings file may hold (keys.go), in
	// merge order: each is worth a warning, since it is ignored.
	Unknown []UnknownKey

	// ManagedRulesOnly and ManagedHooksOnly: a managed settings file
	// (managed.go), named by ManagedRulesFrom and ManagedHooksFrom, set
	// allowManagedPermissionRulesOnly or allowManagedHooksOnly; the rules
	// and hooks of other files are gone from Permissions and Hooks, and
	// --allow-tool is ignored too.
	ManagedRulesOnly, ManagedHooksOnly bool
	ManagedRulesFrom, ManagedHooksFrom string
	// ManagedNotes say what the managed settings set aside, a warning each.
	ManagedNotes []string

	// project are the files a project brings (ProjectPaths); managed the
	// managed settings files, and managedHooks their hooks.
	project, managed map[string]bool
	managedHooks     map[string][]HookMatcher
	// disableAllHooksFrom is the file whose disableAllHooks stands.
	disableAllHooksFrom string
}

// Permissions are the permission rules of the settings files.
type Permissions struct {
	Allow       []string
	Ask         []string // Claude Code's ask rules: always a question, even when allowed
	Deny        []string
	DefaultMode string
	// DefaultModeFrom names the file that set DefaultMode.
	DefaultModeFrom string
	// IgnoredMode is a defaultMode a project's file set that only the
	// user may (bypassPermissions, auto: project_scope.go), and
	// IgnoredModeFrom that file: it would have been in effect, and is not.
	// "" when none, or when a later file set a mode of its own.
	IgnoredMode, IgnoredModeFrom string
	// DisableBypassFrom names the file that set Claude Code's
	// "disableBypassPermissionsMode": "disable" ("" when none did):
	// bypassPermissions is then refused.
	DisableBypassFrom string
	// Sources names the file each rule came from, for error messages.
	Sources map[string]string
	// AllowFrom, AskFrom and DenyFrom name the file of each rule, index for
	// index: a rule's "/path" pattern is anchored at its file's project.
	AllowFrom, AskFrom, DenyFrom []string
	// AdditionalDirectories are Claude Code's further working directories,
	// as the files wrote them (relative to the session's cwd, or ~/...):
	// the file tools reach them as they reach the cwd.
	AdditionalDirectories []string
}

// HookMatcher is one entry of a hook event's list (Claude Code's shape).
type HookMatcher struct {
	Matcher string        `json:"matcher"`
	Hooks   []HookCommand `json:"hooks"`
}

// HookCommand is one command hook.
type HookCommand struct {
	Type    string  `json:"type"`
	Command string  `json:"command"`
	Timeout float64 `json:"timeout"` // seconds; 0 means the default
	// If is Claude Code's filter: one permission rule the tool call must
	// match for the hook to run ("Bash(rm *)"); tool events only.
	If string `json:"if"`
	// Args, when present, runs Command directly with these arguments,
	// without a shell (Claude Code's exec form).
	Args []string `json:"args"`
	// Shell is Claude Code's choice of shell: "bash" runs Command with
	// bash -c; "" with sh -c. trail runs no other (hooks' hook_shell.go).
	Shell string `json:"shell"`
}

// Paths lists the settings files in merge order (SPEC 2), the first in
// claudeDir (ClaudeDir). Files that do not exist are skipped by Load,
// except extra, which must exist.
func Paths(claudeDir, trailHome, cwd string) []string {
	var paths []string
	if claudeDir != "" {
		paths = append(paths, filepath.Join(claudeDir, "settings.json"))
	}
	paths = append(paths,
		filepath.Join(trailHome, "settings.json"),
		filepath.Join(cwd, ".claude", "settings.json"),
		filepath.Join(cwd, ".claude", "settings.local.json"),
		filepath.Join(cwd, ".trail", "settings.json"),
		filepath.Join(cwd, ".trail", "settings.local.json"),
	)
	return dedupe(paths)
}

// folderUnreadable reports whether the folder of path, not the file, is
// what cannot be read: looking the file up fails for another reason
// than its absence.
func folderUnreadable(path string) bool {
	_, err := os.Lstat(path)
	return err != nil && !errors.Is(err, fs.ErrNotExist)
}

// ClaudeDir is the user's Claude Code folder, whose settings.json is the
// user's settings: configDir (CLAUDE_CONFIG_DIR, where Claude Code then
// keeps its settings, as its own envUtils resolves it), else ~/.claude; ""
// when neither is known.
//
// A configDir written with ~ (in an env file no shell expanded) is under
// userHome, and a relative one is made absolute: read from the working
// folder and shown as written, a repository's folder named "~/x" was taken
// for the user's own settings, trusted as only the user's are.
func ClaudeDir(userHome, configDir string) string {
	if strings.HasPrefix(configDir, "~") && configDir != "~" && !strings.HasPrefix(configDir, "~/") {
		return "" // ~user: another user's folder, not looked up; never a folder named "~user" here
	}
	if configDir == "~" || strings.HasPrefix(configDir, "~/") {
		if userHome == "" {
			return "" // no user folder to read: no user settings
		}
		configDir = filepath.Join(userHome, strings.TrimPrefix(configDir, "~"))
	}
	if configDir != "" {
		if abs, err := filepath.Abs(configDir); err == nil {
			return abs
		}
		return configDir
	}
	if userHome == "" {
		return ""
	}
	return filepath.Join(userHome, ".claude")
}

func dedupe(paths []string) []string {
	seen := make(map[string]bool, len(paths))
	out := paths[:0]
	for _, p := range paths {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// Load reads and merges the files. A missing file is skipped, except
// extra (from --settings), which the user named and so must exist, or is
// inline JSON (inline.go).
// project are those of paths a project brings (ProjectPaths): they may
// not set what only the user may. managed (ManagedPaths) come last, after
// extra.
func Load(paths, project []string, extra string, managed ...string) (*Settings, error) {
	s := &Settings{Permissions: Permissions{Sources: map[string]string{}}, project: pathSet(project), managed: pathSet(managed)}
	for _, p := range paths {
		if err := s.mergeFile(p, false); err != nil {
			return nil, err
		}
	}
	if extra != "" {
		if err := s.mergeExtra(extra); err != nil {
			return nil, err
		}
	}
	for _, p := range managed {
		if err := s.mergeFile(p, false); err != nil {
			return nil, managedError(err)
		}
	}
	s.managedOnly()
	return s, nil
}

type settingsFile struct {
	Provider     *string `json:"provider"`
	Model        *string `json:"model"`
	BaseURL      *string `json:"baseUrl"`
	SystemPrompt *string `json:"systemPrompt"`
	Permissions  *struct {
		Allow                        []string        `json:"allow"`
		Ask                          []string        `json:"ask"`
		Deny                         []string        `json:"deny"`
		DefaultMode                  *string         `json:"defaultMode"`
		DisableBypassPermissionsMode json.RawMessage `json:"disableBypassPermissionsMode"`
		AdditionalDirectories        []string        `json:"additionalDirectories"`
	} `json:"permissions"`
	DisableAllHooks      *bool                    `json:"disableAllHooks"`
	Hooks                map[string][]HookMatcher `json:"hooks"`
	AutoCompactThreshold json.RawMessage          `json:"autoCompactThreshold"`
	MaxTurns             *int                     `json:"maxTurns"`
	Timeout              json.RawMessage          `json:"timeout"`
	Env                  map[string]string        `json:"env"`
	APIKeyHelper         *string                  `json:"apiKeyHelper"`
	MaxTokens            *int                     `json:"maxTokens"`
	Thinking             json.RawMessage          `json:"thinking"`
	AlwaysThinking       *bool                    `json:"alwaysThinkingEnabled"`
	StreamOptions        *bool                    `json:"streamOptions"`
	PromptCaching        *bool                    `json:"promptCaching"`
	LogRequests          *string                  `json:"logRequests"`
	Stream               *bool                    `json:"stream"`
	// Only a managed settings file may set these (managed.go).
	AllowManagedRulesOnly *bool `json:"allowManagedPermissionRulesOnly"`
	AllowManagedHooksOnly *bool `json:"allowManagedHooksOnly"`
}

// The values of logRequests.
const (
	LogRequestsDigest = "digest"
	LogRequestsFull   = "full"
)

// CheckLogRequests accepts "digest" or "full" (logRequests,
// --log-requests).
func CheckLogRequests(v string) error {
	switch v {
	case LogRequestsDigest, LogRequestsFull:
		return nil
	}
	return fmt.Errorf(`logRequests must be "digest" or "full", got %q`, v)
}

func (s *Settings) mergeFile(path string, required bool) error {
	data, err := readFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && !required {
			return nil
		}
		if errors.Is(err, fs.ErrNotExist) {
			return &errs.UsageError{Msg: "settings file " + path + " does not exist", Fix: "check the path given to --settings (settings given as JSON start with {)"}
		}
		if dir := filepath.Dir(path); !required && folderUnreadable(path) {
			// Not the file: its folder cannot be entered (another user's
			// 0700 home a CI cache restored, a parent that is a file). An
			// I/O error, not a settings file to replace.
			fix := "the folder (or one above it) is not this user's to enter; if it is trail's home, set TRAIL_HOME to a folder of your own"
			if errors.Is(err, syscall.ENOTDIR) {
				fix = "a part of that path is a file, not a folder; if it is trail's home, set TRAIL_HOME to a folder"
			}
			return &errs.FailureError{Msg: "cannot look in " + dir + " for settings: " + unwrapPathError(err).Error(), Fix: fix}
		}
		fix := "a settings file is a regular JSON file: replace or remove " + path
		if required {
			fix = "--settings takes a regular JSON file" // not a hint to remove /dev/null
		}
		return &errs.InvalidDataError{Path: path, Err: fmt.Errorf("read settings: %w", unwrapPathError(err)), Fix: fix}
	}
	return s.mergeData(path, data)
}

// mergeData merges the settings file at path, whose bytes are data.
func (s *Settings) mergeData(path string, data []byte) error {
	if len(bytes.TrimSpace(data)) == 0 {
		s.Files = append(s.Files, path)
		return nil
	}
	var f settingsFile
	if err := json.Unmarshal(data, &f); err != nil {
		return &errs.InvalidDataError{Path: path, Err: DescribeJSONError(data, err), Fix: "fix the JSON in " + path}
	}
	s.Files = append(s.Files, path)
	s.Unknown = append(s.Unknown, unknownKeys(path, data)...)
	if f.Provider != nil {
		s.Provider = *f.Provider
	}
	if f.Model != nil {
		s.Model, s.ModelFrom = *f.Model, path
	}
	if f.BaseURL != nil {
		s.BaseURL = *f.BaseURL
	}
	if f.SystemPrompt != nil {
		s.SystemPrompt = *f.SystemPrompt
	}
	if p := f.Permissions; p != nil {
		sp := &s.Permissions
		for _, r := range p.Allow {
			sp.Allow, sp.AllowFrom = append(sp.Allow, r), append(sp.AllowFrom, path)
			sp.Sources[r] = path
		}
		for _, r := range p.Ask {
			sp.Ask, sp.AskFrom = append(sp.Ask, r), append(sp.AskFrom, path)
			sp.Sources[r] = path
		}
		for _, r := range p.Deny {
			sp.Deny, sp.DenyFrom = append(sp.Deny, r), append(sp.DenyFrom, path)
			sp.Sources[r] = path
		}
		switch {
		case p.DefaultMode == nil:
		case s.ignoredMode(path, *p.DefaultMode):
			sp.IgnoredMode, sp.IgnoredModeFrom = *p.DefaultMode, path
		default:
			sp.DefaultMode, sp.DefaultModeFrom = *p.DefaultMode, path
			sp.IgnoredMode, sp.IgnoredModeFrom = "", ""
		}
		sp.AdditionalDirectories = append(sp.AdditionalDirectories, p.AdditionalDirectories...)
		// Claude Code's value is the string "disable"; true is read the
		// same way, and anything else leaves it as it was.
		switch strings.TrimSpace(string(p.DisableBypassPermissionsMode)) {
		case `"disable"`, "true":
			sp.DisableBypassFrom = path
		}
	}
	if f.DisableAllHooks != nil {
		s.DisableAllHooks, s.disableAllHooksFrom = *f.DisableAllHooks, path
	}
	for event, list := range f.Hooks {
		if s.Hooks == nil {
			s.Hooks = map[string][]HookMatcher{}
		}
		s.Hooks[event] = append(s.Hooks[event], list...)
		if s.managed[path] {
			if s.managedHooks == nil {
				s.managedHooks = map[string][]HookMatcher{}
			}
			s.managedHooks[event] = append(s.managedHooks[event], list...)
		}
	}
	if s.managed[path] {
		if f.AllowManagedRulesOnly != nil {
			s.ManagedRulesOnly, s.ManagedRulesFrom = *f.AllowManagedRulesOnly, path
		}
		if f.AllowManagedHooksOnly != nil {
			s.ManagedHooksOnly, s.ManagedHooksFrom = *f.AllowManagedHooksOnly, path
		}
	}
	if len(f.AutoCompactThreshold) > 0 && string(f.AutoCompactThreshold) != "null" {
		switch string(f.AutoCompactThreshold) {
		case "false":
			s.AutoCompactOff, s.AutoCompactThreshold = true, nil
		default:
			v, err := strconv.ParseFloat(string(f.AutoCompactThreshold), 64)
			if err != nil || v <= 0 || v > 1 {
				return &errs.InvalidDataError{Path: path, Err: fmt.Errorf("autoCompactThreshold must be a number in (0,1] or false, got %s", f.AutoCompactThreshold)}
			}
			s.AutoCompactOff, s.AutoCompactThreshold = false, &v
		}
	}
	if f.MaxTurns != nil {
		if *f.MaxTurns < 0 {
			return &errs.InvalidDataError{Path: path, Err: fmt.Errorf("maxTurns must be 0 (no cap) or more, got %d", *f.MaxTurns)}
		}
		s.MaxTurns = f.MaxTurns
	}
	if len(f.Timeout) > 0 && string(f.Timeout) != "null" {
		d, err := ParseTimeout(f.Timeout)
		if err != nil {
			return &errs.InvalidDataError{Path: path, Err: err}
		}
		s.Timeout = d
	}
	if f.MaxTokens != nil {
		if *f.MaxTokens < 1 {
			return &errs.InvalidDataError{Path: path, Err: fmt.Errorf("maxTokens must be 1 or more, got %d", *f.MaxTokens)}
		}
		s.MaxTokens = *f.MaxTokens
	}
	if err := s.mergeThinking(f, path); err != nil {
		return err
	}
	if f.StreamOptions != nil {
		s.StreamOptionsOff = !*f.StreamOptions
	}
	if f.PromptCaching != nil {
		s.PromptCachingOff = !*f.PromptCaching
	}
	if f.LogRequests != nil {
		if err := CheckLogRequests(*f.LogRequests); err != nil {
			return &errs.InvalidDataError{Path: path, Err: err}
		}
		s.LogRequests = *f.LogRequests
	}
	if f.Stream != nil {
		s.Stream = f.Stream
	}
	for k, v := range f.Env {
		// What no environment can hold fails every Bash call and hook
		// ("environment variable contains NUL"), or, with an "=" in the
		// name, sets another variable than the one written.
		if k == "" || strings.ContainsAny(k, "=\x00") || strings.ContainsRune(v, 0) {
			return &errs.InvalidDataError{Path: path, Err: fmt.Errorf("env %s cannot be set: a variable's name is not empty and holds no = or NUL, and its value no NUL", strconv.Quote(k))}
		}
		if s.Env == nil {
			s.Env, s.EnvFrom = map[string]string{}, map[string]string{}
		}
		s.Env[k], s.EnvFrom[k] = v, path
	}
	if f.APIKeyHelper != nil {
		s.APIKeyHelper, s.APIKeyHelperFrom = *f.APIKeyHelper, path
	}
	return nil
}

// mergeThinking reads thinking (true, false, or a budget in tokens) and
// Claude Code's alwaysThinkingEnabled; thinking wins when a file has both.
func (s *Settings) mergeThinking(f settingsFile, path string) error {
	if f.AlwaysThinking != nil {
		s.Thinking = "off"
		if *f.AlwaysThinking {
			s.Thinking = "on"
		}
	}
	raw := string(bytes.TrimSpace(f.Thinking))
	switch raw {
	case "", "null":
	case "true":
		s.Thinking = "on"
	case "false":
		s.Thinking = "off"
	default:
		n, err := strconv.Atoi(raw)
		if err != nil || n < 1 {
			return &errs.InvalidDataError{Path: path, Err: fmt.Errorf("thinking must be true, false or a budget in tokens, got %s", raw)}
		}
		s.Thinking = raw
	}
	return nil
}

// ParseTimeout reads a timeout: a "120s" style string or a number of
// seconds (JSON's, as a settings file writes it; --timeout passes "5" as
// the number it is).
func ParseTimeout(raw json.RawMessage) (time.Duration, error) {
	var str string
	if json.Unmarshal(raw, &str) == nil {
		d, err := time.ParseDuration(str)
		if err != nil || d <= 0 {
			return 0, fmt.Errorf("timeout %s is not a duration like \"120s\"", store.QuoteInput(str))
		}
		return d, nil
	}
	secs, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || secs <= 0 {
		return 0, fmt.Errorf("timeout must be a duration like \"120s\" or a number of seconds, got %s", raw)
	}
	// A Duration holds about 292 years; a number past it would wrap to a
	// negative timeout, and one under a nanosecond to none at all.
	d := time.Duration(secs * float64(time.Second))
	if secs > maxTimeoutSeconds || d <= 0 {
		return 0, fmt.Errorf("timeout %s is out of range: give from a nanosecond to %d seconds", raw, int64(maxTimeoutSeconds))
	}
	return d, nil
}

// maxTimeoutSeconds is the longest timeout a time.Duration holds, in seconds.
const maxTimeoutSeconds = float64(math.MaxInt64 / int64(time.Second))

// DescribeJSONError turns a decode error (of settings, or of a hook's
// answer) into "invalid JSON at line L, column C: why".
func DescribeJSONError(data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		line, col := lineCol(data, syn.Offset)
		return fmt.Errorf("invalid JSON at line %d, column %d: %s", line, col, syn.Error())
	case errors.As(err, &typ):
		line, col := lineCol(data, typ.Offset)
		field := pathAt(data, typ.Offset)
		if field == "" {
			field = "value"
		}
		return fmt.Errorf("line %d, column %d: %s must be %s, not %s", line, col, field, jsonKind(typ.Type), jsonValueKind(typ.Value))
	}
	return fmt.Errorf("invalid JSON: %s", err.Error())
}

// jsonKind names what a Go type reads in JSON's words: the user wrote
// JSON, and "[]settings.HookMatcher" names nothing in it.
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "another value"
	}
	switch t.Kind() {
	case reflect.Pointer:
		return jsonKind(t.Elem())
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		if e := jsonKind(t.Elem()); strings.HasPrefix(e, "a ") || strings.HasPrefix(e, "an ") {
			return "a list of " + plural(e)
		}
		return "a list"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "another value"
}

// plural is "strings" for "a string", "objects" for "an object".
func plural(kind string) string {
	kind = strings.TrimPrefix(strings.TrimPrefix(kind, "an "), "a ")
	if strings.HasPrefix(kind, "list of ") {
		return "lists"
	}
	return kind + "s"
}

// jsonValueKind says what the file held: json's "array" is a list there.
func jsonValueKind(v string) string {
	switch v {
	case "array":
		return "a list"
	case "object":
		return "an object"
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "number":
		return "a number"
	}
	return v
}

func lineCol(data []byte, offset int64) (line, col int) {
	if offset > int64(len(data)) {
		offset = int64(len(data))
	}
	line, col = 1, 1
	for _, c := range data[:offset] {
		if c == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
