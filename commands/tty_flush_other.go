//go:build !linux && !darwin && !dragonfly && !freebsd && !netbsd && !openbsd

package commands

import "os"

// dropTypeahead: a Windows console keeps its own input buffer; only what
// trail buffered itself is dropped (terminal.Ask).
func dropTypeahead(*os.File) {}
