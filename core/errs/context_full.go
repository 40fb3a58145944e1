package errs

import "fmt"

// ContextFullFix is the hint for a request the model's context window
// could not hold: compacting the session shortens it. session is its id,
// "" when the failure is not a session's (trail compact's own request);
// window is the context size the server stated (llama-server's n_ctx), 0
// when it stated none. --context-window then lets auto-compaction act
// before the window fills, which it cannot do for a model trail does not
// know.
func ContextFullFix(session string, window int64) string {
	compact := "trail compact"
	if session != "" {
		compact = "trail compact " + session
	}
	if window > 0 {
		return fmt.Sprintf("the conversation outgrew the model's context: shorten it with %s, then resume; the server's context is %d tokens (n_ctx): --context-window %d has trail compact by itself before it fills", compact, window, window)
	}
	return fmt.Sprintf("the conversation outgrew the model's context window: shorten it with %s, then resume; --context-window N (the model's window) has trail compact by itself before it fills", compact)
}
