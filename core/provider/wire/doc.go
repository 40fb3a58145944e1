// Package wire is what the HTTP providers (anthropic, openai) share: a
// server-sent events reader and a client that sends one streaming request
// with retries, an idle timeout and errors the user can act on.
//
// Invariants:
//
//   - The SSE reader has no line-length cap and never panics, whatever the
//     bytes (FuzzReader); a stream cut inside an event is
//     io.ErrUnexpectedEOF, never a half event.
//   - A request is retried only before the first byte of a successful
//     response (HTTP 408, 409, 429, any 5xx but 501, 505 and 511, or the
//     connection failing); once a byte has streamed it never is, because
//     the user has already seen output. An idle timeout is not retried: the
//     user already waited --timeout. The server's x-should-retry ("true" or
//     "false") decides before the status, as the vendors' SDKs let it; an
//     error the provider's Final calls final (a used-up quota, a spending
//     cap) is never retried, whatever the header says.
//   - An error body in any known shape (an object, Gemini's array, vLLM's
//     object error, FastAPI's detail, OpenRouter's upstream error) is
//     reduced to the API's own message (ErrorMessage).
//   - Backoff starts at Options.BaseDelay (0.5 s; commands reads
//     TRAIL_RETRY_BASE_MS so tests wait milliseconds), doubles, is capped at
//     8 s and loses up to a quarter to jitter; a retry-after (or
//     retry-after-ms) header of at most 60 s replaces it. A longer one is
//     never shortened into an early retry the server would refuse again:
//     the call ends with the server's wait in the message, as does the
//     last failure once no retry is left.
//   - The idle timer runs from the moment the request is sent and is
//     refreshed by every line of the stream, pings and keep-alive comments
//     included (SPEC 4.1 names events; OpenRouter keeps a slow answer open
//     with comments): a server that sends them is at work, and one that
//     sends them forever is waited for until the user interrupts.
//   - Every error is a *errs.ProviderError naming the provider and the HTTP
//     status with the provider's own message, and never contains a secret:
//     the API key is scrubbed from every body before any of it is quoted,
//     and URLs are shown without user info or query. A base URL that is not
//     http(s) is a usage error before any request (Endpoint).
//   - A 2xx body labelled application/json is judged by its first bytes
//     (whole.go): an event stream is read as one, a JSON body is the
//     provider's whole answer (Client.Whole) or an error, and a body is
//     called JSON only when it parses.
//   - A cancelled context ends the call at once with the context's error.
package wire
