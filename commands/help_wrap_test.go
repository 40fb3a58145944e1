package commands

import (
	"strings"
	"testing"
)

func TestWrapHelpFitsTheWidth(t *testing.T) {
	help := "DESCRIPTION:\n" +
		"   The prompt is -p, else the arguments joined by spaces, else standard input, read whole\n" +
		"   before the step starts.\n" +
		"      git diff | trail run \"review this\"\n" +
		"\n" +
		"   EXAMPLES:\n" +
		"      trail run --name triage --provider echo \"what does grep -v do\"   # an example is copied whole\n" +
		"\n" +
		"OPTIONS:\n" +
		"   --stream                   with -o text, write each round's text as it arrives even into a pipe\n" +
		"   --model value, -m value    model id\n"
	got := wrapHelp(help, 60)
	want := "DESCRIPTION:\n" +
		"   The prompt is -p, else the arguments joined by spaces,\n" +
		"   else standard input, read whole before the step starts.\n" +
		"      git diff | trail run \"review this\"\n" +
		"\n" +
		"   EXAMPLES:\n" +
		"      trail run --name triage --provider echo \"what does grep -v do\"   # an example is copied whole\n" +
		"\n" +
		"OPTIONS:\n" +
		"   --stream                   with -o text, write each\n" +
		"                              round's text as it arrives\n" +
		"                              even into a pipe\n" +
		"   --model value, -m value    model id\n"
	if got != want {
		t.Errorf("wrapHelp at 60:\n%s\nwant:\n%s", got, want)
	}
	// with no room beside its flag, a description goes under it
	narrow := wrapHelp("   --output-format value, -o value    text, json or stream-json (default: \"text\")\n", 50)
	if want := "   --output-format value, -o value\n           text, json or stream-json (default:\n           \"text\")\n"; narrow != want {
		t.Errorf("narrow:\n%q\nwant\n%q", narrow, want)
	}
	if wide := wrapHelp(help, 200); wide != help {
		t.Errorf("help that fits was changed:\n%s", wide)
	}
	for _, l := range strings.Split(wrapHelp(help, 40), "\n") {
		if len(l) > 40 && !strings.Contains(l, "trail run --name") {
			t.Errorf("line of %d columns at 40: %q", len(l), l)
		}
	}
}
