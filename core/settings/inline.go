package settings

import "strings"

// --settings takes a file or, as Claude Code's does, the settings
// themselves as a JSON string: a value whose first non-space character is
// "{" is JSON (a file whose name starts with "{" is still reachable as
// ./{...). Inline settings have the place of a --settings file, the
// highest precedence, and are named InlineName wherever a file's path
// would be: in errors, warnings and trail config.

// InlineName names inline --settings JSON where a file would be named.
const InlineName = "--settings (inline JSON)"

// IsInline reports whether a --settings value is JSON rather than a path.
func IsInline(v string) bool {
	return strings.HasPrefix(strings.TrimLeft(v, " \t\r\n"), "{")
}

// mergeExtra merges --settings: inline JSON, or the file it names, which
// must exist.
func (s *Settings) mergeExtra(extra string) error {
	if IsInline(extra) {
		return s.mergeData(InlineName, []byte(extra))
	}
	return s.mergeFile(extra, true)
}
