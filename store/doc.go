// Package store keeps trail's session records on disk: the folder layout,
// the record codec, atomic saves, the per-session flock, listing, deletion
// and the history migration.
//
// Invariants every function here keeps:
//
//   - Every method that touches a file checks its id with ValidateID first,
//     so no caller reaches outside $TRAIL_HOME/sessions or $TRAIL_HOME/logs.
//     (The *Path helpers only build strings and do not check.)
//   - Folders are created 0700 and files 0600: records hold conversations.
//   - A record is replaced only by rename of a fully written, fsynced temp
//     file in the same folder, then the folder is fsynced. A crash leaves
//     the old record or the new one, never a mix.
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
