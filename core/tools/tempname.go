package tools

// Temp file names of the tools, and the removal of one a killed step left
// behind: only a regular file whose name has the temp form, reached through
// folders that are still no symlinks (SweepToolTemps hands each journaled
// path here).

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"trail/lazy"
)

// maxTempBase keeps ".<base>.tmp-<20 digits>" within a 255-byte file name
// for any base that is itself a valid name.
const maxTempBase = 200

// TempName is a fresh temp file name for replacing the file named base:
// ".<base>.tmp-<random digits>", hidden, and recognisable by the sweep.
func TempName(base string) string {
	if len(base) > maxTempBase {
		base = base[:maxTempBase]
	}
	return "." + base + ".tmp-" + strconv.FormatUint(rand.Uint64(), 10)
}

var leftoverNameRE = lazy.Regexp{Expr: `^\..+\.tmp-[0-9]+$`}

// isTempName reports whether name has TempName's form.
func isTempName(name string) bool {
	return leftoverNameRE.Get().MatchString(name)
}

// RemoveLeftover removes one journaled temp file if it is still ours.
func RemoveLeftover(p string) {
	if !filepath.IsAbs(p) || filepath.Clean(p) != p || !isTempName(filepath.Base(p)) {
		return
	}
	// The journal names canonical paths; a folder that resolves elsewhere
	// now was replaced by a link, and a link is not followed.
	dir := filepath.Dir(p)
	if real, err := filepath.EvalSymlinks(dir); err != nil || real != dir {
		return
	}
	if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() {
		return
	}
	_ = os.Remove(p)
}
