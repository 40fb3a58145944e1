package main

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"trail/commands"
)

// The page names every command and every option the app defines, with
// the exit codes, and groff reads it without a warning.
func TestManPageCoversTheApp(t *testing.T) {
	app := commands.NewApp(commands.SystemDeps())
	var b bytes.Buffer
	writeMan(&b, app)
	page := b.String()
	for _, c := range app.Commands {
		if c.Hidden {
			continue
		}
		if !strings.Contains(page, `.SS "trail `+roff(c.Name)) {
			t.Errorf("no section for %s", c.Name)
		}
		for _, f := range c.Flags {
			if !strings.Contains(page, `\fB\-\-`+roff(f.Names()[0])+`\fR`) {
				t.Errorf("%s: option --%s missing", c.Name, f.Names()[0])
			}
		}
	}
	for _, want := range []string{".SH EXIT CODES", ".B 130", ".B 7\n", `\fB\-\-home\fR`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if _, err := exec.LookPath("groff"); err != nil {
		t.Skip("no groff to read the page with")
	}
	cmd := exec.Command("groff", "-man", "-Tutf8", "-ww", "-z")
	cmd.Stdin = strings.NewReader(page)
	out, err := cmd.CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Errorf("groff: %v\n%s", err, out)
	}
}
