package cli

import (
	"os"
	"runtime/debug"
)

// migrate and verify run Go's garbage collector on a fixed memory budget:
// with GOGC off, the heap is collected when it reaches a soft memory limit
// (Go's GOGC=off plus GOMEMLIMIT), not when it has grown by a share of what
// was live at the last collection. What a run holds at its peak is then the
// limit, whatever its rows: a trial on a million rows shows the memory a
// run of a hundred million will take, where a share of the live heap peaks
// higher the longer the run (its live heap varies from one collection to
// the next, and the highest sets the peak). Both allocate every item they
// render and drop it soon after; their live heap was 14 to 41 MB in the
// runs measured (GODEBUG=gctrace=1 on the bench's data), well under the
// limit, and collecting took a few per cent of their CPU (with Go's default
// GOGC=100, about a fifth). A live heap near the limit (very large items or
// many writers; verify of a table that differs everywhere with
// --max-problems 0) makes Go collect back to back, at most half the CPU,
// and the heap then outgrows the limit: GOMEMLIMIT raises it.
//
// migrate's budget is shared with its key collision check, whose memory
// (--key-check-memory, all of it held from the start) is outside Go's
// heap: its limit is the budget less that, and at least migrateMemoryFloor.
const (
	migrateMemoryBudget = 144 << 20
	migrateMemoryFloor  = 64 << 20
	verifyMemoryLimit   = 64 << 20
	// partialGOGC is GOGC when GOMEMLIMIT is set but GOGC is not: without
	// a limit of its own, collection cannot be off.
	partialGOGC = 400
)

// migrateMemoryLimit is the soft memory limit of a migrate whose key
// collision check holds keyCheck bytes.
func migrateMemoryLimit(keyCheck int64) int64 {
	return max(migrateMemoryBudget-keyCheck, migrateMemoryFloor)
}

// tuneGC turns GOGC off under the soft memory limit limit, unless the
// user set GOGC or GOMEMLIMIT: a GOGC of theirs is kept under this limit,
// a GOMEMLIMIT of theirs gets GOGC=partialGOGC (GOGC off with their limit
// could mean no limit at all: GOMEMLIMIT=off). Only in remodel's own
// process (Main).
func (a *app) tuneGC(limit int64) {
	if !a.ownProcess {
		return
	}
	gogc, memlimit := os.Getenv("GOGC") != "", os.Getenv("GOMEMLIMIT") != ""
	switch {
	case !gogc && !memlimit:
		debug.SetMemoryLimit(limit)
		debug.SetGCPercent(-1)
	case !memlimit:
		debug.SetMemoryLimit(limit)
	case !gogc:
		debug.SetGCPercent(partialGOGC)
	}
}
