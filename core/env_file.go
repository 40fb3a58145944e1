package core

// CLAUDE_ENV_FILE (Claude Code's hooks reference, "Persist environment
// variables"): SessionStart hooks get the path of a file to write export
// lines to; every Bash call of the step runs it first, in the command's own
// shell, so what the hooks exported reaches the commands. The file lives in
// a private temporary folder (0700) made when the first SessionStart hook
// runs and removed when the step ends: what a hook exports there may be a
// secret, and it is never kept.

import (
	"os"
	"path/filepath"
)

// prepareEnvFile makes the env file before SessionStart hooks run.
func (s *session) prepareEnvFile() {
	if s.envFile != "" || !s.hooks.Has("SessionStart") {
		return
	}
	dir, err := os.MkdirTemp("", "trail-env-")
	if err != nil {
		s.obs.Event(StepEvent{Kind: EvWarning, Text: "CLAUDE_ENV_FILE not made: " + err.Error()})
		return
	}
	f := filepath.Join(dir, "env.sh")
	if err := os.WriteFile(f, nil, 0o600); err != nil {
		_ = os.RemoveAll(dir)
		s.obs.Event(StepEvent{Kind: EvWarning, Text: "CLAUDE_ENV_FILE not made: " + err.Error()})
		return
	}
	s.envDir, s.envFile = dir, f
	s.hooks.EnvFile = f
}

// activeEnvFile is the env file Bash runs first: set once a hook wrote to it.
func (s *session) activeEnvFile() string {
	if s.envFile == "" {
		return ""
	}
	if fi, err := os.Stat(s.envFile); err != nil || fi.Size() == 0 {
		return ""
	}
	return s.envFile
}

func (s *session) removeEnvFile() {
	if s.envDir != "" {
		_ = os.RemoveAll(s.envDir)
		s.envDir, s.envFile = "", ""
	}
}
