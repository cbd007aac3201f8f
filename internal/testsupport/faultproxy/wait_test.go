package faultproxy_test

import (
	"testing"
	"time"
)

// waitFor polls cond until it holds, and fails the test if it does not
// within a generous deadline (a loaded machine is slow, a broken proxy never
// gets there).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-tick.C:
		case <-deadline.C:
			t.Fatalf("waited 30s for %s", what)
		}
	}
}
