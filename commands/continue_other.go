//go:build !unix

package commands

// onContinue: no job control here (no SIGCONT).
func onContinue(func()) (stop func()) { return func() {} }
