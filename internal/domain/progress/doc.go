// Package progress owns the counts a long command reports while it runs,
// and the loop that shows them; it does not draw anything itself.
//
// The domain packages (migrate, verify, preview) get a *Tracker (nil: no
// progress, every method is then a no-op) and report through it only: a
// command is a sequence of phases ("count", "copy", "items", "patterns"),
// each with one task per entity or access pattern, whose done count is
// either added to (Counter.Add) or read from a counter the domain package
// already keeps (Task.Count, polled). A task's total is the source's row
// estimate, an exact count, or unknown. A phase that follows a stream of
// changes (LagPhase: migrate --follow) also has a lag, polled likewise:
// the source's and the applied positions and how far behind, with the
// rate of changes over the last seconds (lag.go).
//
// Snapshot turns the live counts into a State, which computes percent, rate
// and ETA (state.go). Run drives a Printer: it hands it a State every
// interval and at every phase start and end, and a final one when stopped.
// The printers (live bars on a terminal, plain lines, JSON lines) live in
// internal/app/progressview, which only internal/app/cli imports.
package progress
