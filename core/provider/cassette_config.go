package provider

import (
	"cmp"
	"path/filepath"

	"trail/core/errs"
	"trail/store"
)

// resolveCassette fills in the recording the cassette plays and how: the
// flags, then (on resume) the recording the session stored, then
// TRAIL_CASSETTE; TRAIL_CASSETTE_MODE and TRAIL_CASSETTE_SPEED stand in for
// the flags, so a CI job can point every trail a script runs at a
// recording without touching the script.
func resolveCassette(c *Config, flags Flags, env func(string) string, stored *store.ProviderRef, sameStored bool, cwd string) error {
	c.Cassette = cmp.Or(flags.Cassette, when(sameStored, storedField(stored, func(r *store.ProviderRef) string { return r.Cassette })), env("TRAIL_CASSETTE"))
	if c.Cassette == "" {
		return errs.Usagef("pass --cassette LOG (a session's log file, or its id)", "the cassette provider needs a recording")
	}
	if !filepath.IsAbs(c.Cassette) {
		c.Cassette = filepath.Join(cwd, c.Cassette)
	}
	c.CassetteMode = cmp.Or(flags.CassetteMode, env("TRAIL_CASSETTE_MODE"), "strict")
	if c.CassetteMode != "strict" && c.CassetteMode != "lenient" {
		return errs.Usagef("use strict or lenient", "unknown cassette mode %s", store.QuoteInput(c.CassetteMode))
	}
	c.CassetteSpeed = cmp.Or(flags.CassetteSpeed, env("TRAIL_CASSETTE_SPEED"), "full")
	if c.CassetteSpeed != "full" && c.CassetteSpeed != "recorded" {
		return errs.Usagef("use full or recorded", "unknown cassette speed %s", store.QuoteInput(c.CassetteSpeed))
	}
	return nil
}
