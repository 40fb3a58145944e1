package commands

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"trail/core"
	"trail/core/errs"
	"trail/core/provider"
	"trail/core/provider/anthropic"
	"trail/core/provider/cassette"
	"trail/core/provider/echo"
	"trail/core/provider/openai"
	"trail/core/provider/script"
	"trail/core/provider/wire"
	"trail/core/tools"
	"trail/logfmt"
	"trail/store"
)

// Compile-time checks that the real implementations satisfy core's ports.
var (
	_ core.Store        = (*store.FS)(nil)
	_ core.Logger       = (*logfmt.Writer)(nil)
	_ provider.Provider = (*echo.Provider)(nil)
	_ provider.Provider = (*script.Provider)(nil)
	_ provider.Provider = (*cassette.Provider)(nil)
	_ provider.Provider = (*anthropic.Provider)(nil)
	_ provider.Provider = (*openai.Provider)(nil)
)

// Deps is everything commands needs from the outside world.
type Deps struct {
	IO       *IOStreams
	Env      func(string) string
	Environ  func() []string // nil: no variables scrubbed beyond the API keys
	Getwd    func() (string, error)
	UserHome func() (string, error)
	Now      func() time.Time
	NewID    func() (string, error)
	// OpenStore is the store of a trail home: every command reaches the
	// sessions through it.
	OpenStore func(home string) *store.FS
	// NewProvider builds the provider cfg names, tuned by env (the
	// injected environment, never the process's own).
	NewProvider func(cfg provider.Config, env func(string) string) (provider.Provider, error)
	Tools       []tools.Tool
	// StdinWait is how long a prompt waits for the first byte of a piped
	// stdin before ignoring it (SPEC 1.3).
	StdinWait time.Duration

	quiet bool // --quiet: no notices (readGlobals)
	// missingHome is the user's home folder when it does not exist (a
	// service account's /nonexistent), or a stand-in when HOME is unset
	// (unsetHome): trail's own home under it is not made, and noHome says
	// why, but what needs none (validate-log FILE, replay FILE, list) runs.
	missingHome string
	noHome      error
}

// unsetHome stands for the user's home when HOME is unset (env -i, some
// cron and container set-ups): a folder at the root, which only an
// administrator could make and trail never does (noHome), so a command
// that reads the home finds nothing there and one that writes is refused.
// (A constant: nothing may run at start-up.)
const unsetHome = string(filepath.Separator) + ".trail-home-unset"

// openStore is OpenStore with the line every command says, unless quiet,
// when the session it needs is held and it waits (--wait): cargo says as
// much for its file lock, and up to --wait of silence looked like a hang.
func (d *Deps) openStore(home string) *store.FS {
	st := d.OpenStore(home)
	if d.missingHome != "" && (home == d.missingHome || strings.HasPrefix(home, d.missingHome+string(filepath.Separator))) {
		st.NoHome = d.noHome
	}
	if !d.quiet {
		st.OnWait = func(what string, wait time.Duration) {
			fmt.Fprintf(d.IO.ErrOut, "trail: %s is busy: waiting up to %s for the step that holds it (Ctrl-C stops)\n", what, formatWait(wait))
		}
	}
	return st
}

// SystemDeps wires the real process environment.
func SystemDeps() *Deps {
	return &Deps{
		IO:          SystemIO(),
		Env:         os.Getenv,
		Environ:     os.Environ,
		Getwd:       os.Getwd,
		UserHome:    os.UserHomeDir,
		Now:         time.Now,
		NewID:       newUUIDv7,
		OpenStore:   store.New,
		NewProvider: buildProvider,
		Tools:       tools.All(),
		StdinWait:   3 * time.Second,
	}
}

func newUUIDv7() (string, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return "", err
	}
	return id.String(), nil
}

// buildProvider builds the provider cfg names. TRAIL_RETRY_BASE_MS sets
// the first retry's backoff in milliseconds (default 500, doubling up to
// 8 s): tests and scripts that replay faults set it to wait milliseconds.
func buildProvider(cfg provider.Config, env func(string) string) (provider.Provider, error) {
	switch cfg.Name {
	case provider.Echo:
		return echo.New(), nil
	case provider.Script:
		return script.Load(cfg.Script)
	case provider.Cassette:
		return cassette.Load(cfg.Cassette, cassette.Options{
			Lenient: cfg.CassetteMode == cassette.ModeLenient, Recorded: cfg.CassetteSpeed == cassette.SpeedRecorded, Cwd: cfg.Cwd})
	case provider.Anthropic:
		p, err := anthropic.New(cfg, wireOptions(env))
		if err != nil { // a nil *Provider must not become a non-nil provider.Provider
			return nil, err
		}
		return p, nil
	case provider.OpenAI:
		p, err := openai.New(cfg, wireOptions(env))
		if err != nil {
			return nil, err
		}
		return p, nil
	}
	return nil, errs.Usagef("providers: anthropic, openai, echo, script, cassette", "unknown provider %s", store.QuoteInput(cfg.Name))
}

func wireOptions(env func(string) string) wire.Options {
	var o wire.Options
	if ms, err := strconv.Atoi(env("TRAIL_RETRY_BASE_MS")); err == nil && ms > 0 {
		o.BaseDelay = time.Duration(ms) * time.Millisecond
	}
	return o
}

// newEngine wires an engine to st and the rest of d. Logs are opened in
// st's logs folder, which the session lock the engine takes before any
// log has made.
func newEngine(d *Deps, st core.Store) *core.Engine {
	return &core.Engine{
		Store: st,
		OpenLog: func(id string, secrets []string) (core.Logger, error) {
			return logfmt.OpenWriter(st.LogPath(id), logfmt.Options{SessionID: id, Secrets: secrets, Now: d.Now})
		},
		NewProvider: func(cfg provider.Config) (provider.Provider, error) { return d.NewProvider(cfg, d.Env) },
		Clock:       clockFunc(d.Now),
		NewID:       d.NewID,
		Terminal:    &terminal{io: d.IO, ci: inCI(d.Env)},
		Env:         d.Env,
		Environ:     d.Environ,
		Tools:       d.Tools,
	}
}

type clockFunc func() time.Time

func (f clockFunc) Now() time.Time { return f() }

// terminal asks questions on stderr and reads answers from stdin.
type terminal struct {
	io *IOStreams
	in *bufio.Reader
	ci bool // CI is set: no one is there to answer, terminal or not
}

// CanPrompt: a person at a terminal, and not a CI job. Runners that give a
// job a pseudo-terminal (docker run -t, GitLab and Jenkins agents) would
// otherwise wait at a question until the job's time limit; they all set
// CI, as gh and npm read it.
func (t *terminal) CanPrompt() bool { return t.io.CanPrompt() && !t.ci }

// inCI reports whether CI is set to anything but false or 0.
func inCI(env func(string) string) bool {
	if env == nil {
		return false
	}
	switch v := strings.ToLower(strings.TrimSpace(env("CI"))); v {
	case "", "false", "0":
		return false
	}
	return true
}

// Ask prints question and reads one line. Only keys typed after the
// question is shown answer it: what was typed before (a "y" and Enter
// while the model streamed, a paste) is dropped first, in the terminal's
// queue and in trail's own buffer, or it would approve a call the person
// never saw, or a stray Enter would deny it.
func (t *terminal) Ask(question string) (string, error) {
	t.io.asking.Store(true)
	if f, ok := t.io.In.(*os.File); ok && t.io.stdinTTY {
		dropTypeahead(f)
	}
	if t.in == nil {
		t.in = bufio.NewReader(t.io.In)
	} else {
		t.in.Reset(t.io.In)
	}
	// The question holds the model's arguments and hooks' words: a bidi
	// override or an escape sequence there would make the call read as
	// something else at the one place a person decides on it.
	shown := safeText(question)
	// Ctrl-Z at the question and fg later: the shell's job line has
	// pushed the question out of sight, so it is shown again. Watched
	// for before the question shows: a stop and continue right after it
	// appeared went unseen.
	stop := onContinue(func() { fmt.Fprint(t.io.ErrOut, "\n"+strings.TrimPrefix(shown, "\n")) })
	fmt.Fprint(t.io.ErrOut, shown)
	line, err := t.in.ReadString('\n')
	stop()
	t.io.asking.Store(false)
	if err != nil && err != io.EOF {
		return "", err
	}
	if err == io.EOF && line == "" {
		fmt.Fprintln(t.io.ErrOut)
	}
	return strings.TrimSpace(line), nil
}
