package analyze

import (
	"slices"
	"testing"
)

// TestStandOut: a partition stands out when its weight less what it may be
// overstated is at least StandOut times the mean and StandOutShare of the
// total; one of an index's two even partitions, or a heavy one of a single
// partition, does not.
func TestStandOut(t *testing.T) {
	p := func(w, err int64) Partition { return Partition{Key: "k", Weight: w, Error: err} }
	for _, tc := range []struct {
		name         string
		ps           []Partition
		total, parts int64
		want         []bool
	}{
		{"one hot key of 201", []Partition{p(599, 0), p(1, 0)}, 799, 201, []bool{true, false}},
		{"two even keys", []Partition{p(400, 0), p(399, 0)}, 799, 2, []bool{false, false}},
		{"the only key", []Partition{p(2483, 0)}, 2483, 1, []bool{false}},
		{"overstated: its lower bound decides", []Partition{p(40, 30)}, 1000, 100, []bool{false}},
		{"3 times the mean but under 1% of a large index", []Partition{p(40, 0)}, 1_000_000, 100_000, []bool{false}},
		{"at 3 times the mean and over 1%", []Partition{p(60, 0)}, 1000, 50, []bool{true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := standOut(slices.Clone(tc.ps), tc.total, tc.parts)
			for i := range got {
				if got[i].StandsOut != tc.want[i] {
					t.Errorf("partition %d (weight %d, error %d) stands out %v, want %v", i, got[i].Weight, got[i].Error, got[i].StandsOut, tc.want[i])
				}
			}
		})
	}
}
