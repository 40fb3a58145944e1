//go:build unix

package main

import (
	"fmt"
	"syscall"
)

// minOpenFiles is what one step can hold open at once: the standard
// streams, the runtime's poller and its wake-up descriptor, the session's
// lock, record, temp record and log, a folder being synced, and a tool's
// pipes (a Bash call failed to start at 16). Below it the Go runtime dies with a stack trace the first time it
// needs its poller (`ulimit -n 6`), or a save fails half way through.
const minOpenFiles = 20

// fdLimitError says, in one line, that the open-files limit is too low for
// trail to run, or returns "" when it is not. The runtime has already
// raised the soft limit to the hard one where it could.
func fdLimitError() string {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || lim.Cur >= minOpenFiles {
		return ""
	}
	return fmt.Sprintf("trail: the open-files limit is %d (ulimit -n); trail needs at least %d", lim.Cur, minOpenFiles)
}
