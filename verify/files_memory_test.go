package verify_test

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/keyset"
	"github.com/remodel-dev/remodel/internal/domain/s3out"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/mapping"
	"github.com/remodel-dev/remodel/verify"
)

// TestFilesMemory: the check of files holds one bucket of the objects'
// items in memory at a time, not all of them, and at most MaxProblems
// differing items of each entity to name their attributes. (One engine:
// what is held does not depend on it.)
func TestFilesMemory(t *testing.T) {
	eng := testenv.Engines[0]
	fx := exported(t, eng.Name, eng.Fresh, s3out.Gzip)
	const items = 6828

	rep := run(t, fx.o)
	if !rep.OK {
		t.Fatalf("verify --files failed on a faithful export:\n%s", text(rep))
	}
	held, differing := verify.FilesHeld(rep)
	// A bucket holds 1/128 of the keys, 53 on average here: 4 times that
	// is far past what a digest's first byte puts in one bucket.
	if limit := 4 * items / keyset.SpillBuckets; held == 0 || held > limit || differing != 0 {
		t.Errorf("held %d items of the objects at once (want 1 to %d of %d) and %d differing items (want 0)", held, limit, items, differing)
	}
	// With a limit of 8 items held, every bucket (53 items on average) is
	// split again by the next byte of the digest into parts of 4 on
	// average, a part of more than 8 again by the byte after; the check
	// passes as before. (A part split twice is joined whatever it holds:
	// the bound here is twice the limit.)
	small := fx.o
	small.JoinLimit = 8
	rep8 := run(t, small)
	if held8, _ := verify.FilesHeld(rep8); !rep8.OK || held8 == 0 || held8 > 16 {
		t.Errorf("with a join limit of 8: held %d items at once (want 1 to 16), ok %v\n%s", held8, rep8.OK, text(rep8))
	}
	// On disk, the records of an item and of its row, compressed: about
	// 110 bytes here (uncompressed they are about 200).
	if per := float64(verify.FilesSpilled(rep)) / items; per < 32 || per > 140 {
		t.Errorf("the spills held %.0f bytes an item on disk, want 32 to 140", per)
	}

	// 725 items differ (those of the partition keys that start with USER#1
	// or SERVICE#), in 4 entities: with a cap of 2 problems a check, 2 of
	// each are held to be named.
	restore := fx.plant(t, func(its []mapping.Item) []mapping.Item {
		for j, it := range its {
			if k := fx.plan.Table.KeyString(it); strings.HasPrefix(k, "PK=USER#1") || strings.HasPrefix(k, "PK=SERVICE#") {
				its[j] = cloneItem(it)
				its[j][firstAttr(it, fx.plan.Table.EntityAttr)] = &types.AttributeValueMemberS{Value: "tampered"}
			}
		}
		return its
	})
	defer restore()
	o := fx.o
	o.MaxProblems = 2
	rep = runFailing(t, o)
	var different int64
	for _, ic := range rep.Items {
		different += ic.Different
	}
	if _, differing = verify.FilesHeld(rep); different != 725 || differing != 4*2 {
		t.Errorf("%d items differ (want 725), %d held to be named (want 8)", different, differing)
	}
	o.JoinLimit = 8
	rep = runFailing(t, o)
	different = 0
	for _, ic := range rep.Items {
		different += ic.Different
	}
	if held, differing := verify.FilesHeld(rep); different != 725 || differing != 4*2 || held > 16 {
		t.Errorf("with a join limit of 8: %d items differ (want 725), %d held to be named (want 8), %d items held at once (want at most 16)", different, differing, held)
	}
}
