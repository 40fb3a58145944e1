package chat

import "testing"

func TestFirstLineEndsAtANewlineNotALoneCR(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"one\ntwo", 80, "one"},
		{"one\r\ntwo", 80, "one"},
		// A progress line or a typed prompt may hold a lone CR: what
		// follows it is the same line, and views escape the CR.
		{"cr\rOVERWRITE\nnext", 80, "cr\rOVERWRITE"},
		{"\nsecond", 80, ""},
		{"héllo wörld", 8, "héllo w…"},
	} {
		if got := FirstLine(c.in, c.n); got != c.want {
			t.Errorf("FirstLine(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}
