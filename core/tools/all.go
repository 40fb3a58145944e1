package tools

// All returns every built-in tool, in the order they are offered.
func All() []Tool {
	return []Tool{Read{}, Write{}, Edit{}, Bash{}, Glob{}, Grep{}}
}
