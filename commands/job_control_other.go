//go:build !unix

package commands

// watchJobControl: no job control here.
func watchJobControl() {}
