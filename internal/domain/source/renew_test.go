package source_test

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/internal/domain/source/sourcetest"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/introspect"
)

// TestSnapshotRenew: a snapshot released and renewed on its connections
// (the follower's batches) reads what was committed before the renewal,
// and then holds its cut while another connection writes; on PostgreSQL with
// several readers too, which share the renewed cut. MySQL's several
// readers are not renewed (ErrNotRenewable): the follower opens a new
// snapshot for them.
func TestSnapshotRenew(t *testing.T) {
	for _, e := range testenv.Engines {
		t.Run(e.Name, func(t *testing.T) {
			dsn := e.Fresh(t)
			e.Exec(t, dsn, `
CREATE TABLE t (id int PRIMARY KEY, v varchar(10));
INSERT INTO t VALUES (1, 'a'), (2, 'b');`)
			ctx := sourcetest.Context(t)
			src := sourcetest.Open(t, ctx, dsn)
			tab := sourcetest.InspectTable(t, ctx, src, "t")
			for _, n := range []int{1, 2} {
				snap := sourcetest.OpenSnapshot(t, ctx, src, n)
				rs, ok := snap.(source.Renewable)
				if !ok {
					t.Fatalf("a %s snapshot is not Renewable", e.Name)
				}
				if err := rs.Release(ctx); err != nil {
					t.Fatalf("Release: %v", err)
				}
				e.Exec(t, dsn, "UPDATE t SET v = 'x' WHERE id = 1")
				err := rs.Renew(ctx)
				if n > 1 && errors.Is(err, source.ErrNotRenewable) && e.Name == "mysql" {
					continue
				}
				if err != nil {
					t.Fatalf("Renew (%d readers): %v", n, err)
				}
				want := [][]any{{int64(1), "x"}, {int64(2), "b"}} // the update before the renewal
				readers := snap.Readers()
				if got := byKeys(t, ctx, readers[0], tab); !reflect.DeepEqual(got, want) {
					t.Errorf("%d readers, reader 0 after Renew: rows %v, want %v", n, got, want)
				}
				// The cut holds (PostgreSQL takes it at the first read):
				// every reader, then and later, reads the same rows.
				e.Exec(t, dsn, "UPDATE t SET v = 'y' WHERE id = 2")
				for i, r := range readers {
					if got := byKeys(t, ctx, r, tab); !reflect.DeepEqual(got, want) {
						t.Errorf("%d readers, reader %d after Renew and a later update: rows %v, want %v", n, i, got, want)
					}
				}
				e.Exec(t, dsn, "UPDATE t SET v = 'b' WHERE id = 2; UPDATE t SET v = 'a' WHERE id = 1")
			}
		})
	}
}

// byKeys reads rows 1 and 2 of tab by key, as the follower does.
func byKeys(t *testing.T, ctx context.Context, r source.Reader, tab *introspect.Table) [][]any {
	t.Helper()
	var rows [][]any
	err := r.ScanKeys(ctx, tab, "", []source.KeyBound{{int64(1)}, {int64(2)}}, func(row []any) error {
		rows = append(rows, append([]any(nil), row...))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return rows
}
