package commands

import (
	"runtime/debug"
	"testing"
)

func TestVersionFromBuildNamesWhatTheToolchainRecorded(t *testing.T) {
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	for _, tc := range []struct {
		name string
		bi   debug.BuildInfo
		want string
	}{
		{"go install trail@v1.2.0", debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}}, "v1.2.0"},
		{"go install . in a clean clone", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("37a3297c0ffee1234567890abcdef0123456789a", "false")}, "37a3297"},
		{"with changes", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("37a3297c0ffee1234567890abcdef0123456789a", "true")}, "37a3297-dirty"},
		{"outside git or -buildvcs=false", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, devVersion},
		{"Go 1.24's pseudo-version of a checkout", debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261127092001-37a3297c0ffe"}, Settings: vcs("37a3297c0ffee1234567890abcdef0123456789a", "false")}, "37a3297"},
		{"the same, with changes", debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261127092001-37a3297c0ffe+dirty"}, Settings: vcs("37a3297c0ffee1234567890abcdef0123456789a", "true")}, "37a3297-dirty"},
		{"a checkout of a tagged commit", debug.BuildInfo{Main: debug.Module{Version: "v1.3.0"}, Settings: vcs("37a3297c0ffee1234567890abcdef0123456789a", "false")}, "v1.3.0"},
		{"the same, with changes", debug.BuildInfo{Main: debug.Module{Version: "v1.3.0+dirty"}, Settings: vcs("37a3297c0ffee1234567890abcdef0123456789a", "true")}, "v1.3.0-dirty"},
	} {
		if got := versionFromBuild(&tc.bi); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
