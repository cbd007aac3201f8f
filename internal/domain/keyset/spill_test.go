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
	want := make([][]byte, SpillBuckets)
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
		}
	}
	p, err1 := plain.Size()
	z, err2 := packed.Size()
	if err1 != nil || err2 != nil || z == 0 || z > p*3/4 {
		t.Errorf("on disk: plain %d bytes (%v), compressed %d bytes (%v): want at most 3/4", p, err1, z, err2)
	}
}
