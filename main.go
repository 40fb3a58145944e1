// Command trail runs AI-agent sessions from the shell.
package main

import (
	"os"

	"trail/commands"
)

func main() {
	ctx, stop := commands.SignalContext()
	code := commands.Main(ctx, os.Args, commands.SystemDeps())
	stop()
	os.Exit(code)
}
