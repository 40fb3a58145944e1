package tools

import (
	"fmt"
	"os"
	"strings"

	"trail/logfmt"
)

// Claude Code's Bash takes run_in_background for a dev server or a watch
// that never ends: the call returns at once and a BashOutput tool reads on.
// trail's step ends with its process, so there is no BashOutput: the
// command runs on in the background, detached from the call, its output
// going to a file the model reads with Bash (tail) and the pid it stops it
// with. Without this the call waited for the timeout and was then killed.

// inBackground is script run in the background with its output in a new
// file, and that file's path.
func inBackground(script string) (string, string, *Result) {
	f, err := os.CreateTemp("", "trail-bash-*.log")
	if err != nil {
		r := fail("run_in_background: no file for the output: %v", err)
		return "", "", &r
	}
	path := f.Name()
	f.Close()
	quoted := "'" + strings.ReplaceAll(path, "'", `'\''`) + "'"
	return "(\n" + script + "\n) > " + quoted + " 2>&1 < /dev/null &\necho $!", path, nil
}

// startedInBackground is the result of a call that started its command in
// the background: the shell printed the command's pid; shell is the pid of
// the shell the call started, which leads the command's process group.
func startedInBackground(r Result, logPath string, shell int) Result {
	pid := strings.TrimSpace(r.Output)
	r.Output = fmt.Sprintf("Running in the background, pid %s. Its output goes to %s: read it with `tail -n 50 %s`; stop it with `%s`.", pid, logPath, logPath, stopCommand(pid, shell))
	r.Response = bashResponse(r.Output, logfmt.F("backgroundTaskId", pid))
	return r
}
