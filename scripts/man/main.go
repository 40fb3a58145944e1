// Command man writes trail's manual page, trail.1, in roff, from the
// command definitions themselves (`make man`), so the page never drifts
// from --help. It is its own program: the trail binary carries no page
// generator (urfave/cli's own is left out with its urfave_cli_no_docs
// build tag, and with it a Markdown library trail would load at every
// start).
package main

import (
	"bufio"
	"fmt"
	"os"

	"trail/commands"
)

func main() {
	w := bufio.NewWriter(os.Stdout)
	writeMan(w, commands.NewApp(commands.SystemDeps()))
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "man:", err)
		os.Exit(1)
	}
}
