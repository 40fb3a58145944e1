// Package errs holds the typed errors every part of trail returns and the
// hints that go with them; commands/exit.go maps each type to its exit code
// (SPEC 1.1), so the whole table is written over this one package.
//
// ProviderError is here, not in core/provider: the engine makes them too
// (an empty compaction summary, a provider that answered nothing), the
// exit-code table needs it beside the others, and a provider package would
// otherwise have to be imported by everything that only reports errors.
//
// Invariants:
//   - Error() reads as one sentence: lowercase, no trailing period, the
//     user's own input quoted through store.QuoteInput (cut to 200
//     characters), never a secret.
//   - Hint() is the obvious fix, one line, or "" when there is none.
//   - An interrupt is ErrInterrupted for errors.Is, however it is wrapped.
//
// errs imports no trail package but store, the leaf every layer may use,
// for QuoteInput.
package errs
