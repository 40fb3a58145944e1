//go:build !unix

package commands

import "os"

// closedAtStart: Windows gives a closed standard stream no stand-in.
func closedAtStart(*os.File) bool { return false }
