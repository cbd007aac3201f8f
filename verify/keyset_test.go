package verify

import (
	"fmt"
	"maps"
	"testing"
)

// TestKeySetSettle: of the keys the scan met, settle keeps those no row
// claimed, with their entity, but for the entities skip leaves out,
// whether a bucket's claimed keys are held whole or split (8 at a time),
// and a key claimed twice or claimed but not met changes nothing.
func TestKeySetSettle(t *testing.T) {
	for _, limit := range []int64{0, 8} {
		s := newKeySet()
		s.probeLimit = limit
		want := map[[16]byte]int32{}
		for i := range 5000 {
			key, entity := fmt.Sprintf("PK=ORDER#%d SK=ITEM#%d", i, i%3), i/10%4
			s.add(key, entity)
			switch {
			case i%10 != 0:
				s.claim(key)
				if i%7 == 0 {
					s.claim(key)
				}
			case entity != 2: // entity 2 is left out
				want[digest(key)] = int32(entity)
			}
		}
		for i := range 300 {
			s.claim(fmt.Sprintf("PK=GONE#%d", i))
		}
		if err := s.settle(func(e int) bool { return e == 2 }); err != nil {
			t.Fatal(err)
		}
		if !maps.Equal(s.unclaimed, want) {
			t.Errorf("holding %d claimed keys at once: %d unclaimed, want %d", limit, len(s.unclaimed), len(want))
		}
		if e, ok := s.unclaimedEntity("PK=ORDER#30 SK=ITEM#0"); !ok || e != 3 {
			t.Errorf("key 30: unclaimed %v, entity %d; want unclaimed, entity 3", ok, e)
		}
		if _, ok := s.unclaimedEntity("PK=ORDER#20 SK=ITEM#2"); ok {
			t.Errorf("key 20, of entity 2 (left out): unclaimed, want not")
		}
		if !s.claimLate("PK=ORDER#10 SK=ITEM#1") || s.claimLate("PK=ORDER#10 SK=ITEM#1") || s.claimLate("PK=ORDER#11 SK=ITEM#2") {
			t.Errorf("claimLate: an unclaimed key is claimed once, a claimed one never")
		}
	}
}
