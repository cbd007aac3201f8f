package cli

import (
	"os"
	"runtime/debug"
)

// migrateGOGC and migrateMemoryLimit tune the garbage collector for
// migrate, which allocates every item it renders and drops it once written:
// with the default GOGC=100 and a live heap of some tens of MB, collecting
// took about a fifth of its CPU. GOGC=400 collects a quarter as often; the
// soft memory limit keeps the heap that lets grow under 160 MiB (Go
// collects more often as it nears the limit), which the benchmark's target
// of 200 MB at 10 million rows leaves room for.
const (
	migrateGOGC        = 400
	migrateMemoryLimit = 160 << 20
)

// tuneGC applies migrateGOGC and migrateMemoryLimit, unless the user set
// GOGC or GOMEMLIMIT.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(migrateGOGC)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(migrateMemoryLimit)
	}
}
