// Package store keeps trail's session records on disk: the folder layout,
// the record codec, atomic saves, the per-session lock (flock on unix,
// LockFileEx on Windows), listing, deletion and the history migration.
//
// Invariants every function here keeps:
//
//   - Every method that touches a file checks its id with ValidateID first,
//     so no caller reaches outside $TRAIL_HOME/sessions or $TRAIL_HOME/logs.
//     (The *Path helpers only build strings and do not check.)
//   - Folders are created 0700 and files 0600: records hold conversations.
//   - Files inside the home (records, their temp files and .bak, lock
//     files) are opened with O_NOFOLLOW (and O_NONBLOCK, so a FIFO never
//     blocks; on Windows, FILE_FLAG_OPEN_REPARSE_POINT, see open_windows.go)
//     and must be regular files; anything else is a
//     *NotRegularError, never followed, never replaced by a rename. The
//     home, sessions/ and logs/ folders themselves may be links.
//   - A record is corrupt when it is not valid JSON, or when a value trail
//     reads has the wrong shape (record_shape.go states the rule); Load,
//     Decode, list and migrate apply the same rule.
//   - A record is replaced only by rename of a fully written, fsynced temp
//     file in the same folder, then the folder is fsynced. A crash leaves
//     the old record or the new one, never a mix. Under a session lock the
//     temp file's name is noted in the lock file first, and the next holder
//     of the lock removes a temp file a killed step left.
//   - Nothing here writes a record it could not parse. Load returns a
//     *CorruptError and Save only writes a Record the caller already holds;
//     callers must Load (under the lock) before they Save over a file.
//   - Every field trail does not model is kept with its exact bytes and in
//     its order; only whitespace between tokens may change on a save.
//   - Encode validates every raw value it writes, except message and history
//     elements that are still the very slices Decode returned (gjson
//     validated those on the way in). So callers replace elements and never
//     edit a json.RawMessage's bytes in place.
//   - No input panics, hangs or takes quadratic time: nesting is bounded
//     before gjson's recursive validator runs, and the walkers that split a
//     record only ever see bytes gjson has validated.
//   - Readers (Load, ReadHead, ListHeads) take no lock; writers hold the
//     session's flock from Load to Save. Lock handling is the caller's job.
//   - store is a leaf: it imports no other trail package.
package store
