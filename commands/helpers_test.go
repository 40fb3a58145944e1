package commands

import (
	"fmt"
	"testing"
	"time"

	"trail/store"
)

// testDeps wires commands to temp folders and buffers, with a fixed clock.
func testDeps(t *testing.T, ios *IOStreams) *Deps {
	t.Helper()
	home := t.TempDir()
	cwd := t.TempDir()
	env := map[string]string{"TRAIL_HOME": home + "/trail"}
	n := 0
	return &Deps{
		IO:          ios,
		Env:         func(k string) string { return env[k] },
		Getwd:       func() (string, error) { return cwd, nil },
		UserHome:    func() (string, error) { return home, nil },
		Now:         func() time.Time { return time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC) },
		NewID:       func() (string, error) { n++; return fmt.Sprintf("id-%04d", n), nil },
		OpenStore:   store.New,
		NewProvider: buildProvider,
		StdinWait:   50 * time.Millisecond,
	}
}
