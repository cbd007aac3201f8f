package migrate

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/remodel-dev/remodel/internal/domain/keyset"
)

// collideRun feeds keys through a collider and returns the keys emitted and
// the keys rejected as collisions, each in order, and the earlier rows
// the collisions named.
func collideRun(t *testing.T, c *collider, keys []string) (emitted, collided, earlier []string) {
	t.Helper()
	emit := func(p pending) error {
		emitted = append(emitted, p.source)
		return nil
	}
	collide := func(p pending, e string) error {
		collided = append(collided, p.source)
		earlier = append(earlier, e)
		return nil
	}
	for _, k := range keys {
		p := item(k)
		p.source = k
		if err := c.add(p, emit, collide); err != nil {
			t.Fatal(err)
		}
	}
	return emitted, collided, earlier
}

// reference is the exact answer: first occurrences are written, later
// ones collide, in order.
func reference(keys []string) (emitted, collided []string) {
	seen := map[string]bool{}
	for _, k := range keys {
		if seen[k] {
			collided = append(collided, k)
		} else {
			seen[k] = true
			emitted = append(emitted, k)
		}
	}
	return emitted, collided
}

// TestColliderExact: with hashes that collide on purpose (a weak hash puts
// distinct keys on each of its 1 024 values) and with the real hash, in the
// least memory (so that keys go to runs on disk),
// over keys with repeats near and far, the collider writes every first
// occurrence and rejects every repeat, in order: never a false collision,
// never a missed one.
func TestColliderExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name    string
		n       int
		repeats float64
		weak    bool
	}{
		{"weak hash, no repeats", 5000, 0, true},
		{"weak hash, repeats", 5000, 0.05, true},
		{"real hash, repeats", 50000, 0.001, false},
		{"real hash, every key twice", 20000, 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var keys []string
			for i := range tc.n {
				keys = append(keys, fmt.Sprintf("K%d", i))
				if rng.Float64() < tc.repeats {
					keys = append(keys, keys[rng.IntN(len(keys))]) // a repeat, near or far
				}
			}
			if tc.repeats == 1 {
				rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
			}
			c := newCollider(testTable, false)
			c.memory = keyset.MinMemory // runs on disk, a filter that saturates
			defer c.close()
			if tc.weak {
				h := c.hash
				c.hash = func(b []byte) uint64 { return h(b) & 0x3ff } // 1 024 hashes: distinct keys share them
			}
			emitted, collided, _ := collideRun(t, c, keys)
			wantE, wantC := reference(keys)
			if !slices.Equal(emitted, wantE) {
				t.Errorf("%d keys written, want %d (or not in order)", len(emitted), len(wantE))
			}
			if !slices.Equal(collided, wantC) {
				t.Errorf("%d collisions %v, want %d %v", len(collided), head(collided), len(wantC), head(wantC))
			}
		})
	}
}

func head(s []string) []string { return s[:min(len(s), 5)] }

// TestColliderOff: with the keys proven distinct the collider passes every
// item on without looking (a repeat would go through: the proof rules it
// out) and keeps nothing.
func TestColliderOff(t *testing.T) {
	c := newCollider(testTable, true)
	emitted, collided, _ := collideRun(t, c, []string{"1", "2", "1"})
	if len(emitted) != 3 || len(collided) != 0 || c.set != nil {
		t.Errorf("off: emitted %v, collided %v, key set made %v", emitted, collided, c.set != nil)
	}
}

// TestColliderFileRemoved: the keys' file is used through its descriptor
// only, unlinked from the temporary directory as soon as it is made, so a
// run killed with -9 leaves no file behind; the check still works through
// it.
func TestColliderFileRemoved(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	c := newCollider(testTable, false)
	defer c.close()
	_, collided, _ := collideRun(t, c, []string{"1", "2", "3", "2"})
	if c.stats().DiskBytes == 0 {
		t.Fatal("no keys on disk during the run")
	}
	if len(collided) != 1 {
		t.Errorf("collided %v, want the repeated key 2", collided)
	}
	if left, _ := os.ReadDir(dir); len(left) > 0 {
		t.Errorf("files on disk during the run: %v, want none", left)
	}
}
