//go:build unix

package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A record locked by a running step is not broken: when such records are
// all that stood in the way, migrate-history exits 5 (busy, try again),
// not 7 (invalid data), and the next run migrates them.
func TestMigrateHistoryOfABusySessionIsExit5(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.rawLogs = true // Robota wrote these files, not trail
	e.robotaHome()
	lock, err := os.OpenFile(filepath.Join(e.home, "sessions", robotaID+".lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Skip(err)
	}
	r := e.run("", "migrate-history", "--wait", "0")
	if r.code != 5 || !strings.Contains(r.stderr, "is busy") || !strings.Contains(r.stderr, "1 session busy with a running step; run migrate-history again when it ends") {
		t.Errorf("migrate-history beside a running step: %s", r)
	}
	lock.Close()
	if r := e.must("", "migrate-history"); r.stdout != "Migrated: 1, Skipped: 0, Failed: 0, Total: 1\n" {
		t.Errorf("once the step ended: %s", r)
	}
}

// The home's names lock, held by a step stopped while it names a session,
// is waited for as a session's lock is, saying so, then exit 5 naming it.
// It is held only for the time of a check, so even --wait 0 (do not wait
// for a busy session) waits for it a while: steps naming different
// sessions side by side must not fail on each other.
func TestTheNamesLockIsWaitedForLikeASessions(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.must("", "run", "--provider", "echo", "first") // makes the home
	lock, err := os.OpenFile(filepath.Join(e.home, "names.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Skip(err)
	}
	r := e.run("", "run", "--provider", "echo", "--name", "job", "--wait", "0", "x")
	if r.code != 5 || !strings.Contains(r.stderr, "trail: the home's names lock is busy: waiting up to 30s") ||
		!strings.Contains(r.stderr, "hint: trail steps naming sessions queue for the home's names lock") || r.elapsed < 29*time.Second {
		t.Errorf("--wait 0 beside a held names lock: %s (%v)", r, r.elapsed)
	}
	e.must("", "run", "--provider", "echo", "unnamed") // a step that names nothing does not wait
}
