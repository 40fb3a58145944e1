package tools

// stopCommand stops a background command and what it started.
func stopCommand(pid string, _ int) string {
	return "taskkill /T /F /PID " + pid
}
