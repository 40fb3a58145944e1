// Package settings reads the settings files (SPEC 2) and merges them in
// their order of precedence: ~/.claude, $TRAIL_HOME, the project's .claude
// and .trail files, then --settings. Later files win for scalars;
// permission rules and each hook event's list are concatenated.
//
// Invariants:
//   - A settings file is read only if it is a regular file of at most 4 MiB:
//     a FIFO, a device or a socket planted in a cloned repository's .claude
//     folder is refused before any read can block.
//   - A file that is not valid JSON, or holds a value of the wrong type, is
//     an *errs.InvalidDataError naming the file, the line and the column
//     (exit 7); a missing file is skipped unless the user named it.
//   - Settings only say what the files say: flags and the environment are
//     weighed against them by the engine (core's options.go) and the
//     provider's resolution, each precedence in one place.
package settings
