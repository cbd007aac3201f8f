package source_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/internal/domain/source/sourcetest"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// TestWaitVisible: a transaction the stream would hand out but that has
// not committed yet (the moment between the stream's send and the
// source's commit, held open here) keeps WaitVisible waiting; once it
// commits, WaitVisible returns. Fails when WaitVisible does not wait, and
// when the source Open returns does not offer it.
func TestWaitVisible(t *testing.T) {
	for _, e := range testenv.FollowEngines {
		t.Run(e.Name, func(t *testing.T) {
			dsn := e.Fresh(t)
			e.Exec(t, dsn, "CREATE TABLE t (id int PRIMARY KEY, v varchar(10));\nINSERT INTO t VALUES (1, 'a');\nCREATE TABLE np (v int);")
			ctx := sourcetest.Context(t)
			src := sourcetest.Open(t, ctx, dsn)
			w, ok := src.(source.VisibilityWaiter)
			if !ok {
				t.Fatalf("the %s source is not a VisibilityWaiter", e.Name)
			}
			tab := sourcetest.InspectTable(t, ctx, src, "t")
			app := e.Connect(t, dsn)
			if err := app.Exec(ctx, "BEGIN"); err != nil {
				t.Fatal(err)
			}
			if err := app.Exec(ctx, "UPDATE t SET v = 'b' WHERE id = 1"); err != nil {
				t.Fatal(err)
			}
			txn := &source.Txn{Changes: []source.Change{{Table: tab, Kind: source.Update, New: []any{int64(1), "b"}}}}
			if e.Name == "postgres" {
				x, err := app.Int(ctx, "SELECT txid_current()")
				if err != nil {
					t.Fatal(err)
				}
				txn.Xact = uint64(uint32(x))
			}
			other := &source.Txn{Changes: []source.Change{{Table: tab, Kind: source.Insert, New: []any{int64(9), "z"}}}}
			// The batch's last transaction changed only a table without a
			// primary key: nothing of it to lock, the one before stands for it.
			noKey := &source.Txn{Changes: []source.Change{{Table: sourcetest.InspectTable(t, ctx, src, "np"), Kind: source.Insert, New: []any{int64(1)}}}}
			// Not committed: WaitVisible waits until its context ends.
			short, cancel := context.WithTimeout(ctx, time.Second)
			err := w.WaitVisible(short, []*source.Txn{other, txn, noKey})
			cancel()
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("WaitVisible while the transaction is open: %v, want it to wait (context deadline exceeded)", err)
			}
			if err := app.Exec(ctx, "COMMIT"); err != nil {
				t.Fatal(err)
			}
			if err := w.WaitVisible(ctx, []*source.Txn{other, txn, noKey}); err != nil {
				t.Fatalf("WaitVisible after the commit: %v", err)
			}
		})
	}
}
