package commands

import (
	"runtime/debug"
	"strings"
)

// Version is set at build time: make build passes
// -ldflags "-X trail/commands.Version=$(git describe --tags --always --dirty)".
var Version = devVersion

const devVersion = "0.1.0-dev"

// VersionString is what trail --version prints. A build that did not set
// Version (go install . in a clone, go install trail@v1.2.0) names what
// the Go toolchain recorded, so it says the same commit make build says.
func VersionString() string {
	if Version != devVersion {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		return versionFromBuild(bi)
	}
	return devVersion
}

// versionFromBuild names a build as make build's git describe --tags
// --always --dirty would: a checkout's commit as its first 7 hex digits
// (-dirty with changes), or its tag when the commit is a tagged one. The
// toolchain records a checkout's commit as vcs.revision, and, since Go
// 1.24, a module version too: the tag, or a pseudo-version holding the
// commit, which is no name a user knows. A build from the module cache
// (go install trail@v1.2.0) has no commit, only its version. Anything
// else is the development version.
func versionFromBuild(bi *debug.BuildInfo) string {
	var rev string
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	v := strings.TrimSuffix(bi.Main.Version, "+dirty")
	if v == "(devel)" {
		v = ""
	}
	if rev != "" {
		if v == "" || strings.Contains(v, rev[:min(12, len(rev))]) {
			v = rev[:min(7, len(rev))] // no tag here: a pseudo-version
		}
		if dirty {
			v += "-dirty"
		}
	}
	if v == "" {
		return devVersion
	}
	return v
}
