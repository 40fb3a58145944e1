//go:build !linux

package store

// RunningIDs finds no running step where the kernel does not list its
// locks (see running_linux.go): a record's own status stands.
func (s *FS) RunningIDs() map[string]bool { return nil }
