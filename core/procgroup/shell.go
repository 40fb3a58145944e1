package procgroup

import (
	"os"
	"runtime"
)

// Shell is the program to run for shell name ("sh", "bash"): the name, for
// PATH to find, unless PATH is unset or empty (env -i, a minimal CI
// container), where nothing would be found: then the system's own, which
// searches its built-in default path for the command's programs.
func Shell(name string) string {
	if os.Getenv("PATH") != "" || runtime.GOOS == "windows" {
		return name
	}
	for _, dir := range [...]string{"/bin/", "/usr/bin/"} {
		if fi, err := os.Stat(dir + name); err == nil && fi.Mode().IsRegular() {
			return dir + name
		}
	}
	return name
}
