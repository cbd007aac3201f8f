package cli

import (
	"os"
	"runtime/debug"
)

// migrateGOGC and migrateMemoryBudget tune the garbage collector for
// migrate, which allocates every item it renders and drops it once written:
// with the default GOGC=100 and a live heap of some tens of MB, collecting
// took about a fifth of its CPU. GOGC=400 collects a quarter as often; a
// soft memory limit keeps the heap that lets grow in bounds (Go collects
// more often as it nears the limit). The budget is shared with the key
// collision check, whose memory (--key-check-memory) is outside Go's heap:
// the limit is the budget less that, and at least migrateMemoryFloor, so
// that the process as a whole stays under the benchmark's target of 200 MB
// at any number of rows.
const (
	migrateGOGC         = 400
	migrateMemoryBudget = 160 << 20
	migrateMemoryFloor  = 64 << 20
)

// migrateMemoryLimit is the soft memory limit of a migrate whose key
// collision check may hold keyCheck bytes.
func migrateMemoryLimit(keyCheck int64) int64 {
	return max(migrateMemoryBudget-keyCheck, migrateMemoryFloor)
}

// tuneGC applies migrateGOGC and migrateMemoryLimit, unless the user set
// GOGC or GOMEMLIMIT.
func tuneGC(keyCheck int64) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(migrateGOGC)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(migrateMemoryLimit(keyCheck))
	}
}
