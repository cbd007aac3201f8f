package migrate

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
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
	if err := c.flush(emit, collide); err != nil {
		t.Fatal(err)
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
// thousands of distinct keys on one fingerprint) and with the real hash,
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
			defer c.close()
			if tc.weak {
				c.hash = func(b []byte) uint64 { return uint64(len(b)) } // every key of one length shares a hash
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
	if len(emitted) != 3 || len(collided) != 0 || c.fps != nil || c.file != nil {
		t.Errorf("off: emitted %v, collided %v, fingerprints %v, file %v", emitted, collided, c.fps != nil, c.file)
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
	if c.file == nil {
		t.Fatal("no keys file during the run")
	}
	if len(collided) != 1 {
		t.Errorf("collided %v, want the repeated key 2", collided)
	}
	if left, _ := os.ReadDir(dir); len(left) > 0 {
		t.Errorf("files on disk during the run: %v, want none", left)
	}
}

// TestFingerprintsMemory: the set holds a few bytes a key (not the keys),
// and says "maybe seen" for every key added.
func TestFingerprintsMemory(t *testing.T) {
	f := newFingerprints()
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 1_000_000
	hs := make([]uint64, n)
	for i := range hs {
		hs[i] = rng.Uint64()
		if f.add(hs[i]) {
			t.Fatalf("key %d: a fresh random hash was seen before", i) // odds 1 in 2^44 per pair: would be a bug
		}
	}
	for i, h := range hs {
		if !f.add(h) {
			t.Fatalf("key %d added but not found", i)
		}
	}
	perKey := float64(f.bytes()) / n
	t.Logf("%d keys: %.1f bytes a key", n, perKey)
	if perKey > 11 {
		t.Errorf("%.1f bytes a key, want at most 11 (4-byte fingerprints, at least 3/8 full)", perKey)
	}
}
