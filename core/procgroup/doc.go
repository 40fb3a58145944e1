// Package procgroup starts a command so that one kill reaches it and every
// process it starts: a session and its process group on unix (with no
// controlling terminal), a job object on Windows.
// The Bash tool and hooks both run user commands that may leave children
// behind, and both must end them all on timeout or interrupt.
package procgroup
