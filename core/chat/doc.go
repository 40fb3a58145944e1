// Package chat is the vocabulary every other part of trail speaks: the
// message (Robota's TUniversalMessage) and its codec, tool calls and the
// schemas of the tools offered, token usage, and the context window with
// its estimator (SPEC 3.3, 5.6).
//
// Invariants:
//   - A message decoded from a record and left unchanged encodes to the
//     very bytes it was read from (RecordJSON), so a save rewrites nothing
//     it did not change and fields of other programs survive; any change
//     goes through Touch, which drops every cached encoding.
//   - A message's compact JSON is the one the log writes, the estimator
//     counts and the providers are sent (CompactJSON, CompactLen): one
//     encoding, computed once.
//   - Keys trail does not know are kept, in order, after Robota's own.
//
// chat imports no trail package but logfmt, whose JSON writer it encodes
// with.
package chat
