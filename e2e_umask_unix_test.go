//go:build unix

package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// trail's own files are 0600 and its folders 0700 whatever the umask
// (SPEC 3.1): under umask 277 the record, log and lock were made 0400 and
// the user's next step could not open the lock (exit 1); under 777 they
// were 000, payload folders too. A file the Write tool makes follows the
// umask, as the user's own files do.
func TestTrailsFilesHaveTheirModesWhateverTheUmask(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	big := strings.Repeat("a pasted log line\n", 4000) // large enough to go to a payload file
	for _, umask := range []string{"277", "777", "077"} {
		c := exec.Command("sh", "-c", "umask "+umask+`; exec "$0" "$@"`, trailBin, "run", "--provider", "echo")
		c.Dir, c.Env, c.Stdin = e.cwd, e.environ(), strings.NewReader(big)
		if r := e.wait(c); r.code != 0 {
			t.Fatalf("umask %s: %s", umask, r)
		}
	}
	checked := 0
	filepath.Walk(e.home, func(path string, fi os.FileInfo, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		want := os.FileMode(0o600)
		if fi.IsDir() {
			want = 0o700
		}
		if path != e.home && fi.Mode().Perm() != want {
			t.Errorf("%s is %v, want %v", path, fi.Mode().Perm(), want)
		}
		checked++
		return nil
	})
	if payloads, _ := filepath.Glob(filepath.Join(e.home, "logs", "*.payloads", "*")); len(payloads) == 0 || checked < 12 {
		t.Errorf("only %d files, payloads %v: the runs did not make what the test looks at", checked, payloads)
	}
}
