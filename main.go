// Command trail runs AI-agent sessions from the shell.
package main

import (
	"context"
	"os"
	"runtime/debug"

	"trail/commands"
)

func main() {
	// Scripts probe for trail with --version: nothing to interrupt, no
	// heap to pace, so no signal handlers and no collector settings (each
	// costs a thread or a stop of the world at start-up).
	if len(os.Args) == 2 && os.Args[1] == "--version" {
		if commands.StdoutClosed() {
			// the write would land in the runtime's /dev/null: Main's own
			// fast path fails it, as every command does (exit 1)
			os.Exit(commands.Main(context.Background(), os.Args, commands.SystemDeps()))
		}
		if _, err := os.Stdout.WriteString("trail " + commands.VersionString() + "\n"); err != nil {
			// as commands.Main's own fast path: a lost answer is a failure
			os.Exit(commands.Main(context.Background(), os.Args, commands.SystemDeps()))
		}
		return
	}
	if msg := fdLimitError(); msg != "" {
		os.Stderr.WriteString(msg + "\n")
		os.Exit(1)
	}
	// First: until the handlers are in, Ctrl-C kills the process outright.
	ctx, stop := commands.SignalContext()
	tuneGC(commands.HeapLimit(os.Args))
	code := commands.Main(ctx, os.Args, commands.SystemDeps())
	stop()
	os.Exit(code)
}

// tuneGC sets the collector's pace for the whole process, once, here and
// nowhere else. A step's live heap is the session it loaded, so collecting
// at half the default pace (GOGC 200) halves the collections of a big
// resume while a long tool loop's heap stays within three times its live
// data; the soft limit (commands.HeapLimit: 512 MiB, 48 MiB for
// validate-log) makes the collector work harder before the heap passes
// it. GOGC and GOMEMLIMIT in the environment win
// (BenchmarkToolLoop200Rounds measures the peak).
func tuneGC(limit int64) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(200)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(limit)
	}
}
