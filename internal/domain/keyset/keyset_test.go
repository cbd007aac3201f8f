package keyset

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"os"
	"runtime"
	"testing"
)

var seed = maphash.MakeSeed()

func realHash(b []byte) uint64 { return maphash.Bytes(seed, b) }

// addAll adds keys to a set and compares every answer with a map's.
func addAll(t testing.TB, s *Set, keys [][]byte, hash func([]byte) uint64) {
	t.Helper()
	ref := map[string]bool{}
	for i, k := range keys {
		got, err := s.Add(hash(k), k)
		if err != nil {
			t.Fatal(err)
		}
		if want := ref[string(k)]; got != want {
			t.Fatalf("key %d %q: Add says seen=%v, want %v", i, k, got, want)
		}
		ref[string(k)] = true
	}
	if st := s.Stats(); st.Keys != int64(len(ref)) {
		t.Fatalf("Stats.Keys = %d, want %d", st.Keys, len(ref))
	}
}

// TestSetExact: over keys with repeats near and far, the set answers as a
// map does, through every path: the filter alone, the table, runs of
// several levels, hashes shared by distinct keys (a weak hash), and a
// filter saturated by a memory far too small for the keys.
func TestSetExact(t *testing.T) {
	for _, tc := range []struct {
		name    string
		n       int
		repeats float64
		memory  int64
		hash    func([]byte) uint64
		runs    bool // expect runs on disk at the end
	}{
		{"default memory, few keys", 20000, 0.01, 0, realHash, false},
		{"small memory, runs merged", 200000, 0.02, MinMemory, realHash, true},
		{"memory of 8 MiB (a filter of 6), runs merged", 300000, 0.02, 8 << 20, realHash, true},
		{"weak hash: 64 values", 5000, 0.05, MinMemory, func(b []byte) uint64 { return uint64(b[len(b)-1] % 64) }, true},
		{"weak hash: one value", 3000, 0.1, MinMemory, func([]byte) uint64 { return 7 }, false},
		{"every key twice, shuffled", 100000, 1, MinMemory, realHash, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			var keys [][]byte
			for i := range tc.n {
				keys = append(keys, fmt.Appendf(nil, "USER#%d|ORDER#%d", i, rng.IntN(1000)))
				if rng.Float64() < tc.repeats {
					keys = append(keys, keys[rng.IntN(len(keys))])
				}
			}
			if tc.repeats == 1 {
				rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
			}
			s, err := New(Options{Memory: tc.memory, Dir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			addAll(t, s, keys, tc.hash)
			st := s.Stats()
			if tc.runs && st.Runs == 0 {
				t.Errorf("no run written (%+v): the test does not reach the disk", st)
			}
			t.Logf("%+v", st)
		})
	}
}

// TestSetMemoryFixed: a set holds all of its Memory from the start, so
// that its memory does not depend on how many keys it is given: the
// filter is as large with no key as with millions (only the runs' sparse
// indexes and the scratch of lookups come on top).
func TestSetMemoryFixed(t *testing.T) {
	const memory = 8 << 20
	s, err := New(Options{Memory: memory, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	held := func() int64 { return s.Stats().MemoryBytes - int64(cap(s.page)+cap(s.rec)) - s.sparse() }
	if got := held(); got != memory {
		t.Fatalf("empty set: filter and table of %d bytes, want all of Memory, %d", got, memory)
	}
	for i := range 2_500_000 {
		k := fmt.Appendf(nil, "k%d", i)
		if _, err := s.Add(realHash(k), k); err != nil {
			t.Fatal(err)
		}
		if n := i + 1; n%500_000 == 0 {
			if got := held(); got != memory {
				t.Fatalf("%d keys: filter and table of %d bytes, want %d", n, got, memory)
			}
		}
	}
	if st := s.Stats(); st.Runs == 0 || st.Lookups == 0 {
		t.Errorf("%+v: the test reaches neither the runs nor the filter's false alarms", st)
	}
}

// TestSetPrefixKeys: keys that are prefixes of one another, and the empty
// key, are told apart (the log's records hold the length).
func TestSetPrefixKeys(t *testing.T) {
	s, err := New(Options{Memory: MinMemory, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var keys [][]byte
	for range 3 {
		for n := range 300 {
			keys = append(keys, make([]byte, n))
		}
	}
	addAll(t, s, keys, func([]byte) uint64 { return 1 })
}

// TestSetMemoryBounded: two million keys into a set of 1 MiB: the set
// says it holds about that much (its sparse indexes on top), and the Go
// heap does not grow by the keys (a map of them would take over 100 MB).
func TestSetMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("two million keys")
	}
	const memory = 1 << 20
	const n = 2_000_000
	s, err := New(Options{Memory: memory, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	key := make([]byte, 24)
	for i := range n {
		binary.BigEndian.PutUint64(key, uint64(i))
		binary.BigEndian.PutUint64(key[8:], uint64(i)*7919)
		if seen, err := s.Add(realHash(key), key); err != nil || seen {
			t.Fatalf("key %d: seen=%v err=%v", i, seen, err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	st := s.Stats()
	t.Logf("%+v; Go heap %d -> %d bytes", st, before.HeapInuse, after.HeapInuse)
	if limit := int64(memory + 2*pageSize + n/pageEntries*8*2); st.MemoryBytes > limit {
		t.Errorf("the set holds %d bytes in memory, want at most %d", st.MemoryBytes, limit)
	}
	if grew := int64(after.HeapInuse) - int64(before.HeapInuse); grew > 4<<20 {
		t.Errorf("the Go heap grew by %d bytes for %d keys", grew, n)
	}
	if st.Runs > 3*8 {
		t.Errorf("%d runs: they are not merged", st.Runs)
	}
	// Every key is still found, and a new one is not.
	for _, i := range []int{0, 1, n / 3, n - 2, n - 1} {
		binary.BigEndian.PutUint64(key, uint64(i))
		binary.BigEndian.PutUint64(key[8:], uint64(i)*7919)
		if seen, err := s.Add(realHash(key), key); err != nil || !seen {
			t.Fatalf("key %d added again: seen=%v err=%v", i, seen, err)
		}
	}
}

// TestSetFilesRemoved: the set's files have no name while in use, so a
// process killed with -9 leaves none.
func TestSetFilesRemoved(t *testing.T) {
	dir := t.TempDir()
	s, err := New(Options{Memory: MinMemory, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := range 50000 {
		k := fmt.Appendf(nil, "k%d", i)
		if _, err := s.Add(realHash(k), k); err != nil {
			t.Fatal(err)
		}
	}
	if st := s.Stats(); st.Runs == 0 || st.DiskBytes == 0 {
		t.Fatalf("nothing on disk: %+v", st)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 0 {
		t.Errorf("%d files left with a name in %s, want 0", len(ents), dir)
	}
}

// FuzzSet: any sequence of keys (split from the input at 0 bytes), with a
// hash of 3 bits so that distinct keys share hashes, gets a map's answers.
func FuzzSet(f *testing.F) {
	f.Add([]byte("a\x00b\x00a\x00\x00\x00ab\x00b"))
	f.Add(make([]byte, 100))
	f.Fuzz(func(t *testing.T, in []byte) {
		s, err := New(Options{Memory: MinMemory, Dir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		var keys [][]byte
		start := 0
		for i, b := range in {
			if b == 0 {
				keys = append(keys, in[start:i])
				start = i + 1
			}
		}
		keys = append(keys, in[start:])
		addAll(t, s, keys, func(b []byte) uint64 { return realHash(b) & 7 })
	})
}
