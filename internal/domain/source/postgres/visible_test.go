package postgres

import (
	"strconv"
	"testing"

	"github.com/remodel-dev/remodel/internal/domain/source"
)

// TestPGSnapshotVisible: a 32-bit transaction id read against a snapshot's
// 64-bit ids, across an epoch's end too.
func TestPGSnapshotVisible(t *testing.T) {
	const epoch = uint64(1) << 32
	for _, tc := range []struct {
		snap string
		xid  uint32
		want bool
	}{
		{"100:105:100,103", 99, true},
		{"100:105:100,103", 100, false},
		{"100:105:100,103", 101, true},
		{"100:105:100,103", 103, false},
		{"100:105:100,103", 105, false}, // not yet begun when it was taken
		{"100:105:", 104, true},
		{"4294967290:" + u(epoch+5) + ":4294967295", 0xfffffffe, true},       // the last epoch's
		{"4294967290:" + u(epoch+5) + ":4294967295", 0xffffffff, false},      // running
		{u(epoch+1) + ":" + u(epoch+5) + ":" + u(epoch+3), 3, false},         // this epoch's, running
		{u(epoch+1) + ":" + u(epoch+5) + ":" + u(epoch+3), 4, true},          // this epoch's, finished
		{u(epoch+1) + ":" + u(epoch+5) + ":" + u(epoch+3), 0xfffffff0, true}, // the last epoch's
	} {
		s, err := parsePGSnapshot(tc.snap)
		if err != nil {
			t.Fatal(err)
		}
		_, got := s.firstInvisible([]*source.Txn{{Xact: uint64(tc.xid)}})
		if got != tc.want {
			t.Errorf("snapshot %s, transaction %d: visible %v, want %v", tc.snap, tc.xid, got, tc.want)
		}
	}
	if _, err := parsePGSnapshot("1:2"); err == nil {
		t.Error("parsePGSnapshot(1:2) did not fail")
	}
}

func u(x uint64) string { return strconv.FormatUint(x, 10) }
