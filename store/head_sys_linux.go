//go:build linux && (amd64 || arm64)

package store

import (
	"syscall"
	"unsafe"
)

// The system calls of list's reads, made raw: without telling the
// scheduler the goroutine is in a system call. A record's open, read,
// fstat and close are a few microseconds each when it is in the page
// cache; announced, each lets the runtime's monitor hand the core to
// another thread, and ten thousand records kept it waking every 20 µs
// (15,000 nanosleep and 4,000 futex calls for one list). A read that does
// wait on the disk holds its core meanwhile, which a list with one reader
// per core does not mind.

func sysOpen(path string, flags int) (int, error) {
	p, err := syscall.BytePtrFromString(path)
	if err != nil {
		return -1, err
	}
	atFDCWD := -0x64 // relative to the working folder, as open(2)
	fd, _, e := syscall.RawSyscall6(syscall.SYS_OPENAT, uintptr(atFDCWD), uintptr(unsafe.Pointer(p)), uintptr(flags), 0, 0, 0)
	if e != 0 {
		return -1, e
	}
	return int(fd), nil
}

func sysPread(fd int, b []byte, off int64) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	n, _, e := syscall.RawSyscall6(syscall.SYS_PREAD64, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), uintptr(off), 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

func sysFstat(fd int, st *syscall.Stat_t) error {
	if _, _, e := syscall.RawSyscall(syscall.SYS_FSTAT, uintptr(fd), uintptr(unsafe.Pointer(st)), 0); e != 0 {
		return e
	}
	return nil
}

func sysClose(fd int) { syscall.RawSyscall(syscall.SYS_CLOSE, uintptr(fd), 0, 0) }
