package cli

import "testing"

// TestMigrateMemoryLimit: the heap's soft limit leaves the key collision
// check's memory (outside Go's heap) within the budget, down to a floor.
func TestMigrateMemoryLimit(t *testing.T) {
	for _, c := range []struct{ keyCheck, want int64 }{
		{64 << 20, 96 << 20}, // the default --key-check-memory
		{1 << 20, 159 << 20},
		{96 << 20, 64 << 20},
		{512 << 20, 64 << 20}, // the floor
	} {
		if got := migrateMemoryLimit(c.keyCheck); got != c.want {
			t.Errorf("key check of %d MiB: limit %d MiB, want %d MiB", c.keyCheck>>20, got>>20, c.want>>20)
		}
	}
}
