package commands

import "testing"

func TestHeapLimitIsTightForValidateLogOnly(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want int64
	}{
		{"validate-log", []string{"trail", "validate-log", "a.jsonl"}, validateHeapLimit},
		{"validate-log after global options and their values", []string{"trail", "--home", "validate-log", "-q", "validate-log", "x"}, validateHeapLimit},
		{"a global option's value is not the command", []string{"trail", "--home", "validate-log", "run", "hi"}, defaultHeapLimit},
		{"a prompt that says validate-log", []string{"trail", "run", "validate-log"}, defaultHeapLimit},
		{"no command", []string{"trail", "--version"}, defaultHeapLimit},
		{"nothing after --", []string{"trail", "--", "validate-log"}, defaultHeapLimit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := HeapLimit(tt.args); got != tt.want {
				t.Errorf("HeapLimit(%q) = %d, want %d", tt.args, got, tt.want)
			}
		})
	}
}
