package verify

import (
	"bufio"
	"bytes"
	"testing"
)

// TestRecordReader: the records of the objects' items read back as they
// were written, and a record cut short is a failure, not the end of the
// bucket.
func TestRecordReader(t *testing.T) {
	var buf []byte
	keys := []string{"PK=USER#1 SK=USER#", "", "PK=USER#22 SK=PERSONAL#news#alerts"}
	for i, k := range keys {
		kd := digest(k)
		buf = append(buf, kd[:]...)
		buf = appendItemRecord(buf, itemDigest(nil), int32(i), int32(i)-1, k)
	}
	read := func(b []byte) ([]string, error) {
		rr := &recordReader{r: bufio.NewReader(bytes.NewReader(b))}
		var got []string
		for i := 0; ; i++ {
			kd, ok := rr.next()
			if !ok {
				break
			}
			r := rr.item()
			if rr.err == nil && (kd != digest(r.key) || r.sum != itemDigest(nil) || r.obj != int32(i) || r.entity != int32(i)-1) {
				t.Errorf("record %d: %x %+v", i, kd, r)
			}
			got = append(got, r.key)
		}
		return got, rr.fail("the records")
	}
	got, err := read(buf)
	if err != nil || len(got) != len(keys) || got[0] != keys[0] || got[1] != "" || got[2] != keys[2] {
		t.Errorf("read %q, %v; want %q", got, err, keys)
	}
	for _, cut := range []int{1, 16, 20, len(buf) - 1 - len(keys[2])} {
		if _, err := read(buf[:len(buf)-cut]); err == nil {
			t.Errorf("a bucket cut %d bytes short reads with no error", cut)
		}
	}
}
