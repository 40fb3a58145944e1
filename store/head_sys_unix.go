//go:build unix && !(linux && (amd64 || arm64))

package store

import "syscall"

// The system calls of list's reads, as the syscall package makes them (the
// raw ones are for linux on amd64 and arm64: head_sys_linux.go).

func sysOpen(path string, flags int) (int, error) { return syscall.Open(path, flags, 0) }

func sysPread(fd int, b []byte, off int64) (int, error) { return syscall.Pread(fd, b, off) }

func sysFstat(fd int, st *syscall.Stat_t) error { return syscall.Fstat(fd, st) }

func sysClose(fd int) { _ = syscall.Close(fd) }
