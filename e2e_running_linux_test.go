//go:build linux

package main_test

import (
	"strings"
	"testing"
)

// A session is running while a step holds its lock (SPEC 5.4), from the
// step's start, not only between the rounds it saves: list finds the
// holder through the kernel's lock table, touching no lock. A new
// session is listed before its first save, a resumed one from its first
// round, and both are idle again once the step ends.
func TestListShowsAStepRunningWhileItHoldsTheLock(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.script(map[string]any{"text": "first", "delayMs": 1500}, map[string]any{"text": "second", "delayMs": 1500})
	listed := func(status string) func() bool {
		return func() bool {
			r := e.run("", "list", "--status", status)
			return r.code == 0 && strings.Count(r.stdout, "\n") == 1
		}
	}
	c := e.cmd("run", "--provider", "script", "--script", s, "--name", "slow", "go")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, listed("running"))
	if err := c.Wait(); err != nil {
		t.Fatal(err)
	}
	if r := e.must("", "list"); !strings.Contains(r.stdout, "\tidle\t") {
		t.Errorf("after the step: %s", r)
	}
	c = e.cmd("resume", "slow", "again")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, listed("running"))
	if r := e.must("", "list"); !strings.Contains(r.stdout, "\trunning\t") || !strings.Contains(r.stdout, "\tslow\t") {
		t.Errorf("resumed: %s", r)
	}
	if err := c.Wait(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, listed("idle"))
}
