//go:build unix

package tools

import "strconv"

// stopCommand stops a background command and all it started: the call's
// shell led a process group of its own (procgroup), which a pipeline's
// every process shares; kill of the pid alone left `server | tee log`'s
// server running on its port.
func stopCommand(_ string, shell int) string {
	return "kill -- -" + strconv.Itoa(shell)
}
