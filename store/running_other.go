//go:build !linux

package store

// RunningIDs cannot tell running steps where the kernel does not list its
// locks (see running_linux.go): a record's own status stands.
func (s *FS) RunningIDs() (map[string]bool, bool) { return nil, false }
