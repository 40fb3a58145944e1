package permission

import "testing"

func TestToolCaseMissNamesTheToolMeant(t *testing.T) {
	tests := []struct{ tool, want string }{
		{"bash", "Bash"},
		{"read", "Read"},
		{"BASH", "Bash"},
		{"webfetch", "WebFetch"},
		{"ls", "LS"},
		{"Bash", ""},
		{"WebFetch", ""},
		{"mcp__github", ""},
		{"Bsh", ""},
		{"*", ""},
	}
	for _, tt := range tests {
		if got := ToolCaseMiss(tt.tool); got != tt.want {
			t.Errorf("ToolCaseMiss(%q) = %q, want %q", tt.tool, got, tt.want)
		}
	}
}
