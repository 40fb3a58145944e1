package tools

import "errors"

// mkfifo fails: Windows has no named pipes in the file system, and the
// tests that need one skip.
func mkfifo(string) error { return errors.New("no FIFOs on Windows") }

// setUmask does nothing: Windows has no umask.
func setUmask(int) (restore func()) { return func() {} }
