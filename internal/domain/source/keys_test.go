package source_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// TestScanKeys: the rows named by full keys and by key prefixes, on both
// engines, in key order within each statement, across the statements of
// maxKeysPerStatement keys; a key that names no row reads nothing, and the
// where still applies.
func TestScanKeys(t *testing.T) {
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			dsn := eng.Fresh(t)
			script := "CREATE TABLE pairs (a int NOT NULL, b varchar(10) NOT NULL, v int NOT NULL, PRIMARY KEY (a, b));\nINSERT INTO pairs VALUES "
			for i := range 700 {
				if i > 0 {
					script += ", "
				}
				script += fmt.Sprintf("(%d, 'x%d', %d), (%d, 'y', %d)", i, i%3, i, i, -i)
			}
			eng.Exec(t, dsn, script+";")
			src, err := source.Open(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			schema, err := src.Inspect(ctx)
			if err != nil {
				t.Fatal(err)
			}
			tbl, err := schema.Table("pairs")
			if err != nil {
				t.Fatal(err)
			}
			snap, err := src.Snapshot(ctx, 1)
			if err != nil {
				t.Fatal(err)
			}
			defer snap.Close()
			r := snap.Readers()[0]
			read := func(where string, keys []source.KeyBound) []string {
				var got []string
				err := r.ScanKeys(ctx, tbl, where, keys, func(row []any) error {
					got = append(got, fmt.Sprintf("%v/%v/%v", row[0], row[1], row[2]))
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				return got
			}
			// Full keys, one missing.
			got := read("", []source.KeyBound{{int64(5), "y"}, {int64(2), "x2"}, {int64(9), "nope"}})
			if want := []string{"2/x2/2", "5/y/-5"}; !slices.Equal(got, want) {
				t.Errorf("full keys: %v, want %v", got, want)
			}
			// Prefixes: both rows of each a, over two statements (600 keys).
			var keys []source.KeyBound
			for a := range 600 {
				keys = append(keys, source.KeyBound{int64(a)})
			}
			got = read("", keys)
			if len(got) != 1200 {
				t.Fatalf("600 prefixes read %d rows, want 1200", len(got))
			}
			if !slices.Contains(got, "599/y/-599") || !slices.Contains(got, "0/x0/0") || slices.Contains(got, "600/y/-600") {
				t.Errorf("prefixes read the wrong rows: %v ...", got[:4])
			}
			// The where applies.
			got = read("v >= 0", []source.KeyBound{{int64(7)}})
			if want := []string{"7/x1/7"}; !slices.Equal(got, want) {
				t.Errorf("with a where: %v, want %v", got, want)
			}
		})
	}
}
