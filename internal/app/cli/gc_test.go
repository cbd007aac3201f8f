package cli

import (
	"runtime/debug"
	"testing"
)

// TestMigrateMemoryLimit: the heap's soft limit leaves the key collision
// check's memory (outside Go's heap) within the budget, down to a floor.
func TestMigrateMemoryLimit(t *testing.T) {
	for _, c := range []struct{ keyCheck, want int64 }{
		{64 << 20, 80 << 20}, // the default --key-check-memory
		{1 << 20, 143 << 20},
		{80 << 20, 64 << 20},
		{512 << 20, 64 << 20}, // the floor
	} {
		if got := migrateMemoryLimit(c.keyCheck); got != c.want {
			t.Errorf("key check of %d MiB: limit %d MiB, want %d MiB", c.keyCheck>>20, got>>20, c.want>>20)
		}
	}
}

// TestTuneGC: remodel's own process collects at its soft limit with GOGC
// off; a GOGC or GOMEMLIMIT of the user's is kept (GOGC off is never set
// without a limit of remodel's), and Run, for tests, changes nothing.
func TestTuneGC(t *testing.T) {
	const limit = 77 << 20
	gogc0, limit0 := debug.SetGCPercent(100), debug.SetMemoryLimit(-1)
	t.Cleanup(func() {
		debug.SetGCPercent(gogc0)
		debug.SetMemoryLimit(limit0)
	})
	const unset = "unset"
	for _, c := range []struct {
		name           string
		gogc, memlimit string
		own            bool
		wantGC         int
		wantLimit      int64
	}{
		{"own process", unset, unset, true, -1, limit},
		{"the user's GOGC", "200", unset, true, 100, limit},
		{"the user's GOMEMLIMIT", unset, "1GiB", true, partialGOGC, 1 << 62},
		{"both the user's", "50", "1GiB", true, 100, 1 << 62},
		{"Run (tests)", unset, unset, false, 100, 1 << 62},
	} {
		t.Run(c.name, func(t *testing.T) {
			for k, v := range map[string]string{"GOGC": c.gogc, "GOMEMLIMIT": c.memlimit} {
				if v == unset {
					v = ""
				}
				t.Setenv(k, v)
			}
			// what the runtime has (it read the variables at start: the
			// test sets its state as if it had read these)
			debug.SetGCPercent(100)
			debug.SetMemoryLimit(1 << 62)
			(&app{ownProcess: c.own}).tuneGC(limit)
			if got := debug.SetGCPercent(100); got != c.wantGC {
				t.Errorf("GOGC %d, want %d", got, c.wantGC)
			}
			if got := debug.SetMemoryLimit(-1); got != c.wantLimit {
				t.Errorf("memory limit %d, want %d", got, c.wantLimit)
			}
		})
	}
}
