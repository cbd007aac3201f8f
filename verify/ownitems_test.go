package verify

import (
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/mapping"
)

// TestOwnItemsWarning: the scan's lock items and split plan item are named
// in a warning, each with what it means; none, no warning.
func TestOwnItemsWarning(t *testing.T) {
	tb := &mapping.Table{PK: mapping.KeyAttr{Name: "PK", Type: "S"}, SK: &mapping.KeyAttr{Name: "SK", Type: "S"}}
	v := &verifier{t: tb}
	if w := v.ownItemsWarning(); w != "" {
		t.Errorf("no own item: %q", w)
	}
	v.ownItems = []string{tb.KeyString(tb.ShardLockKey(2, 3)), tb.KeyString(tb.SplitPlanKey()), tb.KeyString(tb.LockKey())}
	w := v.ownItemsWarning()
	for _, want := range []string{
		"the table holds a sharded migrate job's split plan item (key PK=#remodel#lock#plan SK=#remodel#lock#plan)",
		"the table holds 2 lock items of migrate runs (key ",
		"a run may be writing into the table now",
	} {
		if !strings.Contains(w, want) {
			t.Errorf("no %q in %q", want, w)
		}
	}
}
