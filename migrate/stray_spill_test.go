package migrate

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/mapping"
)

// TestKeySetUnwritten: the written keys' digests go to bucket files and the
// table's keys are compared with them bucket by bucket. Of 20 000 keys
// written (from several goroutines, as the writers do) and a table holding
// all of them plus 300 others (and the written keys' numbers as DynamoDB
// normalises them: 7.50 read back as 7.5), exactly the 300 come back, each
// decoded to the key read (S, N and B), whether a bucket's written digests
// are held whole or split, and close removes the files.
func TestKeySetUnwritten(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	for _, tc := range []struct {
		name string
		tab  mapping.Table
		key  func(i int, normalised bool) mapping.Item
	}{
		{"S and N", mapping.Table{PK: mapping.KeyAttr{Name: "PK", Type: "S"}, SK: &mapping.KeyAttr{Name: "SK", Type: "N"}},
			func(i int, normalised bool) mapping.Item {
				n := strconv.Itoa(i) + ".50"
				if normalised {
					n = strconv.Itoa(i) + ".5"
				}
				return mapping.Item{"PK": &types.AttributeValueMemberS{Value: fmt.Sprintf("K#%d", i%97)}, "SK": &types.AttributeValueMemberN{Value: n}}
			}},
		{"B only", mapping.Table{PK: mapping.KeyAttr{Name: "PK", Type: "B"}},
			func(i int, _ bool) mapping.Item {
				return mapping.Item{"PK": &types.AttributeValueMemberB{Value: []byte{byte(i), byte(i >> 8), 0, byte(i >> 16)}}}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ks := newKeySet()
			const written, stray = 20000, 300
			var wg sync.WaitGroup
			for g := range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := g; i < written; i += 4 {
						ks.add(&tc.tab, tc.key(i, false))
					}
				}()
			}
			wg.Wait()
			tk := newTableKeys()
			var want []string
			for i := range written + stray {
				if err := tk.add(&tc.tab, tc.key(i, true)); err != nil {
					t.Fatal(err)
				}
				if i >= written {
					want = append(want, tc.tab.KeyString(tc.key(i, true)))
				}
			}
			slices.Sort(want)
			// The same with the written digests held 16 at a time: every
			// bucket split by the next digest byte, both sides.
			for _, limit := range []int64{0, 16} {
				ks.probeLimit = limit
				var got []string
				if err := ks.unwritten(&tc.tab, tk, func(key mapping.Item) error {
					got = append(got, tc.tab.KeyString(key))
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				slices.Sort(got)
				if !slices.Equal(got, want) {
					t.Errorf("holding %d digests at once: %d keys not written, want %d: %.5q…", limit, len(got), len(want), got)
				}
			}
			// The spill files live on through their descriptors only:
			// nothing of them is on disk by name, so a run killed with -9
			// leaves nothing behind.
			if left, err := os.ReadDir(tmp); err != nil || len(left) > 0 {
				t.Errorf("while the key sets are open, the temporary directory holds %v (%v), want nothing", left, err)
			}
			tk.spill.Close()
			ks.close()
		})
	}
}

// TestKeySetNothingWritten: a run that wrote nothing finds every item of
// the table stray.
func TestKeySetNothingWritten(t *testing.T) {
	tab := mapping.Table{PK: mapping.KeyAttr{Name: "PK", Type: "S"}}
	ks := newKeySet()
	defer ks.close()
	tk := newTableKeys()
	defer tk.spill.Close()
	for i := range 50 {
		tk.add(&tab, mapping.Item{"PK": &types.AttributeValueMemberS{Value: strconv.Itoa(i)}})
	}
	n := 0
	if err := ks.unwritten(&tab, tk, func(mapping.Item) error { n++; return nil }); err != nil || n != 50 {
		t.Errorf("%d unwritten, %v; want 50", n, err)
	}
}
