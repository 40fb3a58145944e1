package commands

import (
	"encoding/xml"
	"strings"
	"testing"
)

func TestXMLTextEscapesAsEncodingXML(t *testing.T) {
	for _, s := range []string{
		"", "plain", `<a href="x">'&'</a>`, "tab\tnl\ncr\r", "bad \xff utf8 \xc3", "nul \x00 bell \x07",
		"\uFFFD real replacement", "é ✓ 😀", "\uFFFE\uFFFF", "\U0010FFFF", strings.Repeat("<>", 100),
	} {
		var want strings.Builder
		if err := xml.EscapeText(&want, []byte(s)); err != nil {
			t.Fatal(err)
		}
		if got := xmlText(s); got != want.String() {
			t.Errorf("xmlText(%q) = %q, encoding/xml gives %q", s, got, want.String())
		}
	}
}
