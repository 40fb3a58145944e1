package commands

// Soft heap limits (runtime/debug.SetMemoryLimit) by command. The runtime's
// settings are the process's, so commands only says what a command wants
// and main sets it, once, before the command runs.
const (
	// defaultHeapLimit makes the collector work harder before a large
	// session's heap passes 512 MiB (BenchmarkToolLoop200Rounds).
	defaultHeapLimit = 512 << 20
	// validateHeapLimit: validation's live memory is a read buffer and a
	// line, so a tight limit keeps its resident memory flat on huge logs
	// (BenchmarkValidateLog1GB, scripts/bench.sh).
	validateHeapLimit = 48 << 20
)

// HeapLimit is the soft heap limit for running args (os.Args).
func HeapLimit(args []string) int64 {
	if commandOf(args) == "validate-log" {
		return validateHeapLimit
	}
	return defaultHeapLimit
}
