package keyset

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"testing"
)

// TestSpillCompressed: a compressed spill gives back each bucket's
// records as they were added, in order, as a plain one does, and holds
// records of text in fewer bytes on disk.
func TestSpillCompressed(t *testing.T) {
	plain, packed := NewSpill("plain records"), NewCompressedSpill("packed records")
	defer plain.Close()
	defer packed.Close()
	// by spreads the records of bucket 5 over 7 buckets by their second
	// byte.
	by := NewCompressedSpillBy("bucket 5 again", 1, 7)
	defer by.Close()
	want := make([][]byte, SpillBuckets)
	wantBy := make([][]byte, 7)
	counts := make([]int64, SpillBuckets)
	for i := range 20000 {
		key := fmt.Sprintf("PK=USER#%d SK=PERSONAL#service_%d#setting", i, i%7)
		d := sha256.Sum256([]byte(key))
		var h [16]byte
		copy(h[:], d[:])
		for _, s := range []*Spill{plain, packed} {
			if err := s.Add(h, []byte(key)); err != nil {
				t.Fatal(err)
			}
		}
		b := int(h[0]) % SpillBuckets
		want[b] = append(append(want[b], h[:]...), key...)
		counts[b]++
		if b == 5 {
			if err := by.Add(h, []byte(key)); err != nil {
				t.Fatal(err)
			}
			sb := int(h[1]) % 7
			wantBy[sb] = append(append(wantBy[sb], h[:]...), key...)
		}
	}
	var inBy int64
	for b := range by.Buckets() {
		if by.BucketLen(b) == 0 {
			t.Errorf("bucket 5 spread again: bucket %d of 7 is empty", b)
		}
		r, err := by.Bucket(b)
		if err != nil {
			t.Fatal(err)
		}
		var got []byte
		if r != nil {
			got, err = io.ReadAll(r)
		}
		if err != nil || !bytes.Equal(got, wantBy[b]) {
			t.Fatalf("bucket 5 spread by the second byte: bucket %d read back %d bytes (%v), want %d", b, len(got), err, len(wantBy[b]))
		}
		inBy += by.BucketLen(b)
	}
	if inBy != counts[5] || counts[5] == 0 {
		t.Errorf("bucket 5 spread again holds %d records, want %d", inBy, counts[5])
	}
	for b := range SpillBuckets {
		for _, s := range []*Spill{plain, packed} {
			r, err := s.Bucket(b)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(r)
			if err != nil || !bytes.Equal(got, want[b]) {
				t.Fatalf("%s: bucket %d read back %d bytes (%v), want %d", s.what, b, len(got), err, len(want[b]))
			}
			if n := s.BucketLen(b); n != counts[b] {
				t.Fatalf("%s: bucket %d counts %d records, want %d", s.what, b, n, counts[b])
			}
		}
	}
	p, err1 := plain.Size()
	z, err2 := packed.Size()
	if err1 != nil || err2 != nil || z == 0 || z > p*3/4 {
		t.Errorf("on disk: plain %d bytes (%v), compressed %d bytes (%v): want at most 3/4", p, err1, z, err2)
	}
}
