package keyset

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
)

// probeDigest is the digest of key i.
func probeDigest(i int) [16]byte {
	s := sha256.Sum256([]byte(fmt.Sprintf("PK=ORDER#%d", i)))
	return [16]byte(s[:16])
}

// readProbeRecord reads the records of the tests: a digest and a 4-byte
// number.
func readProbeRecord(r *bufio.Reader) (d [16]byte, rest []byte, err error) {
	var rec [20]byte
	if _, err := io.ReadFull(r, rec[:]); err != nil {
		return d, nil, err
	}
	return [16]byte(rec[:16]), rec[16:], nil
}

// TestProbe: every record comes back once with whether its digest is in
// the keys, whatever the limit; a limit below a bucket's digests splits
// the bucket, by one byte or two, and then no more than the limit is held;
// the records of one digest keep their order.
func TestProbe(t *testing.T) {
	const keys, recs = 30000, 40000 // keys 0..29 999 written; records of 10 000..49 999, and again every 7th
	for _, tc := range []struct {
		name       string
		limit      int64
		compressed bool
		maxHeld    int64 // at most this many held
		minHeld    int64 // and at least this many (the buckets held whole)
		levels     int   // digest bytes that picked the buckets held
	}{
		{"whole buckets", 1 << 20, true, 400, 150, 1},
		{"split once", 120, true, 120, 30, 2},
		// At the last level a bucket is held as it is: in buckets of 3 on
		// average, one may hold a few more.
		{"split twice", 6, false, 12, 3, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			newS := NewSpill
			if tc.compressed {
				newS = NewCompressedSpill
			}
			k, r := newS("the keys written"), newS("the keys read")
			defer k.Close()
			defer r.Close()
			for i := range keys {
				if err := k.Add(probeDigest(i), nil); err != nil {
					t.Fatal(err)
				}
			}
			var want []string
			add := func(i, n int) {
				var b [4]byte
				binary.LittleEndian.PutUint32(b[:], uint32(n))
				if err := r.Add(probeDigest(i), b[:]); err != nil {
					t.Fatal(err)
				}
				want = append(want, fmt.Sprintf("%d:%d:%v", i, n, i < keys))
			}
			for i := 10000; i < 10000+recs; i++ {
				add(i, i)
				if i%7 == 0 {
					add(i, -i)
				}
			}
			byDigest := map[[16]byte]int{}
			for i := range 10000 + recs {
				byDigest[probeDigest(i)] = i
			}
			var got []string
			last := map[int]int{} // key → the number of its last record
			st, err := Probe(k, r, readProbeRecord, tc.limit, func(d [16]byte, rest []byte, found bool) error {
				i, n := byDigest[d], int(int32(binary.LittleEndian.Uint32(rest)))
				if prev, ok := last[i]; ok && !(prev > 0 && n < 0) {
					t.Errorf("key %d: record %d came after %d", i, n, prev)
				}
				last[i] = n
				got = append(got, fmt.Sprintf("%d:%d:%v", i, n, found))
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("%d records probed, want %d", len(got), len(want))
				for i := range min(len(got), len(want)) {
					if got[i] != want[i] {
						t.Errorf("first difference: %s, want %s", got[i], want[i])
						break
					}
				}
			}
			if st.Held > tc.maxHeld || st.Held < tc.minHeld || st.Levels != tc.levels || (st.Split > 0) != (tc.levels > 1) {
				t.Errorf("held at most %d digests at once, %d buckets split, %d levels; want %d to %d held, %d levels", st.Held, st.Split, st.Levels, tc.minHeld, tc.maxHeld, tc.levels)
			}
		})
	}
}

// TestProbeOneDigestOften: a digest added more times than the limit
// cannot be split apart: past the last level its bucket is held as it is,
// and the probe ends.
func TestProbeOneDigestOften(t *testing.T) {
	k, r := NewSpill("the keys written"), NewSpill("the keys read")
	defer k.Close()
	defer r.Close()
	for range 50 {
		k.Add(probeDigest(1), nil)
	}
	k.Add(probeDigest(2), nil)
	r.Add(probeDigest(1), []byte("abcd"))
	r.Add(probeDigest(3), []byte("efgh"))
	var got []string
	st, err := Probe(k, r, readProbeRecord, 4, func(d [16]byte, rest []byte, found bool) error {
		got = append(got, fmt.Sprintf("%s %v", rest, found))
		return nil
	})
	slices.Sort(got)
	if held := st.Held; err != nil || held < 50 || st.Levels != probeLevels || !slices.Equal(got, []string{"abcd true", "efgh false"}) {
		t.Errorf("probe of one digest 50 times: %q, held %d, %v; want abcd found, efgh not, 50 or more held at the last level", got, st.Held, err)
	}
}

// TestProbeFails: the caller's error, a record cut short and spills made
// with different buckets end the probe with an error.
func TestProbeFails(t *testing.T) {
	k, r := NewSpill("the keys written"), NewSpill("the keys read")
	defer k.Close()
	defer r.Close()
	for i := range 1000 {
		k.Add(probeDigest(i), nil)
		r.Add(probeDigest(i), []byte("abcd"))
	}
	stop := errors.New("stop here")
	for _, limit := range []int64{0, 3} {
		n := 0
		_, err := Probe(k, r, readProbeRecord, limit, func([16]byte, []byte, bool) error {
			if n++; n == 500 {
				return stop
			}
			return nil
		})
		if !errors.Is(err, stop) || n != 500 {
			t.Errorf("limit %d: the caller's error after %d records: %v, want it at record 500", limit, n, err)
		}
	}
	short := func(r *bufio.Reader) ([16]byte, []byte, error) {
		d, rest, err := readProbeRecord(r)
		if err == nil {
			_, err = io.ReadFull(r, make([]byte, 3)) // a record of 23 bytes: the last one is cut short
		}
		return d, rest, err
	}
	if _, err := Probe(k, r, short, 0, func([16]byte, []byte, bool) error { return nil }); !errors.Is(err, io.ErrUnexpectedEOF) || !strings.Contains(err.Error(), "reading the keys read") {
		t.Errorf("records cut short: %v, want an unexpected EOF reading the keys read", err)
	}
	other := NewCompressedSpillBy("other keys", 1, 7)
	defer other.Close()
	if _, err := Probe(other, r, readProbeRecord, 0, func([16]byte, []byte, bool) error { return nil }); err == nil || !strings.Contains(err.Error(), "buckets differ") {
		t.Errorf("spills of different buckets: %v, want refused", err)
	}
}
