//go:build linux

package store

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// RunningIDs returns the sessions whose lock a step holds now (SPEC 5.4's
// running), without touching a lock: probing one, even shared and for a
// moment, could make a step starting that instant give up as busy. The
// kernel lists every flock in /proc/locks by the holder's pid, and the
// holder's /proc/<pid>/fd names the file; only holders of a write lock on
// the sessions folder's device are looked at, so with no step running it
// costs one read. known is false where the kernel's table cannot be read
// (other systems, /proc hidden): then a record's own status stands; where
// it is known, a record that says running without a holder is a step that
// was killed.
func (s *FS) RunningIDs() (running map[string]bool, known bool) {
	locks, err := os.ReadFile("/proc/locks")
	if err != nil {
		return nil, false
	}
	dir, err := filepath.EvalSymlinks(s.SessionsDir())
	if err != nil {
		return nil, os.IsNotExist(err) // no folder: no session, none running
	}
	dev, ok := deviceOf(dir)
	if !ok {
		return nil, false
	}
	self := os.Getpid()
	seen := map[int]bool{}
	for _, line := range bytes.Split(locks, []byte{'\n'}) {
		f := strings.Fields(string(line))
		// "1: FLOCK ADVISORY WRITE 1234 fe:00:10199231 0 EOF"; a waiter's
		// line has "->" after the number.
		if len(f) < 6 || f[1] != "FLOCK" || f[3] != "WRITE" || !strings.HasPrefix(f[5], dev) {
			continue
		}
		pid, err := strconv.Atoi(f[4])
		if err != nil || pid == self || seen[pid] {
			continue
		}
		seen[pid] = true
		fds := "/proc/" + f[4] + "/fd"
		entries, err := os.ReadDir(fds)
		if err != nil {
			continue
		}
		for _, e := range entries {
			target, err := os.Readlink(fds + "/" + e.Name())
			if err != nil || filepath.Dir(target) != dir {
				continue
			}
			if id, ok := strings.CutSuffix(filepath.Base(target), ".lock"); ok && ValidateID(id) == nil {
				if running == nil {
					running = map[string]bool{}
				}
				running[id] = true
			}
		}
	}
	return running, true
}

// deviceOf is dir's device as /proc/locks writes it: "fe:00:", major and
// minor in hex, two digits at least.
func deviceOf(dir string) (string, bool) {
	st, err := os.Stat(dir)
	if err != nil {
		return "", false
	}
	dev, ok := statDev(st)
	if !ok {
		return "", false
	}
	major := (dev >> 8) & 0xfff
	minor := (dev & 0xff) | ((dev >> 12) & 0xfff00)
	return hex2(major) + ":" + hex2(minor) + ":", true
}

func hex2(n uint64) string {
	s := strconv.FormatUint(n, 16)
	if len(s) < 2 {
		s = "0" + s
	}
	return s
}

func statDev(st os.FileInfo) (uint64, bool) {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return uint64(sys.Dev), true // Dev is uint64 on most architectures, not all
}
