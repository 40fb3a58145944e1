package tools

import "trail/core"

// All returns every built-in tool, in the order they are offered.
func All() []core.Tool {
	return []core.Tool{Read{}, Write{}, Edit{}, Bash{}, Glob{}, Grep{}}
}
