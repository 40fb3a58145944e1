// Package provider is what a model API is to trail: the Provider interface
// beside the Request, Response and Sink types its implementations share
// (anthropic, openai, echo, script and cassette live under it, with wire,
// their HTTP client), and the resolution of which provider, model, endpoint and key a
// step uses (Resolve).
//
// Invariants:
//   - Resolve applies SPEC 2's precedence in one place: flags, then (on
//     resume) the session's stored provider, then the environment, then
//     the settings files, then the defaults and the API keys present.
//   - An API key comes from the environment only and is never stored:
//     Config.Ref is what the record keeps, with a credential found in the
//     base URL replaced by "[REDACTED]" and put back on resume.
//   - SecretsInUse lists every value the log and the record must never
//     hold: the API keys, secret-named environment variables and the
//     settings' env values that are not plainly harmless.
//   - The model table (models.go) is the one place that knows models:
//     their output limit (the default max_tokens), their price (Cost: null,
//     never a guess, for a model it does not know) and their form of
//     extended thinking.
//   - What a provider needs back on later requests rides on the message as
//     its providerData, naming the provider (chat.Message.DataFor); only
//     that provider reads it.
//   - Implementations import this package and core/chat, never the engine.
package provider
