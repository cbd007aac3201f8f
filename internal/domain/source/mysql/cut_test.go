package mysql

import (
	"database/sql"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/introspect"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/internal/domain/source/sourcetest"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// TestMyCutUnderLoad: the copy's readers and the stream's start are one
// cut while writers commit as fast as they can: every row a writer
// inserted is in the snapshot every reader sees, or in the stream from
// the snapshot's position (started from its GTID, as a follower does),
// exactly once, and every reader sees the same rows. Several rounds
// (REMODEL_CUT_ROUNDS, default 3).
func TestMyCutUnderLoad(t *testing.T) {
	ctx := sourcetest.Context(t)
	dsn := testenv.MySQLBinlog(t)
	db := binlogDB(t, dsn)
	mustExec(t, db, "CREATE TABLE c (id int PRIMARY KEY, w int NOT NULL, v int NOT NULL)")
	src := sourcetest.Open(t, ctx, dsn)
	tab := sourcetest.InspectTable(t, ctx, src, "c")
	rounds := 3
	if s := os.Getenv("REMODEL_CUT_ROUNDS"); s != "" {
		rounds, _ = strconv.Atoi(s)
	}
	var next atomic.Int64
	for round := range rounds {
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for w := range 6 {
			wg.Go(func() {
				for {
					select {
					case <-stop:
						return
					default:
					}
					id := next.Add(1)
					if _, err := db.Exec("INSERT INTO c VALUES (?, ?, 0)", id, w); err != nil {
						t.Error(err)
						return
					}
					if id%3 == 0 {
						if _, err := db.Exec("UPDATE c SET v = v + 1 WHERE id = ?", id-1); err != nil {
							t.Error(err)
							return
						}
					}
				}
			})
		}
		time.Sleep(50 * time.Millisecond) // the writers are busy (load, not synchronisation)
		o := source.FollowOptions{Slot: fmt.Sprintf("remodel_cut%d", round), Tables: []*introspect.Table{tab}}
		start, err := src.(source.Follower).StartFollow(ctx, o, 4)
		if err != nil {
			close(stop)
			wg.Wait()
			t.Fatal(err)
		}
		seen := map[int64]int{}
		var first map[int64]bool
		for i, r := range start.Snapshot.Readers() {
			got := map[int64]bool{}
			for _, row := range sourcetest.Scan(t, ctx, r, tab, "", 0) {
				got[row[0].(int64)] = true
			}
			if i == 0 {
				first = got
			} else if len(got) != len(first) {
				t.Errorf("round %d: reader %d sees %d rows, reader 0 %d", round, i, len(got), len(first))
			}
		}
		start.Snapshot.Close()
		time.Sleep(50 * time.Millisecond)
		close(stop)
		wg.Wait()
		for id := range first {
			seen[id]++
		}
		sentinel := next.Add(1)
		mustExec(t, db, "INSERT INTO c VALUES (?, -1, 0)", sentinel)
		st := sourcetest.OpenStream(t, ctx, src, o, start.Position)
		streamed := 0
		for done := false; !done; {
			txn := next_(t, ctx, st)
			for _, c := range txn.Changes {
				id := c.New[0].(int64)
				if id == sentinel {
					done = true
					continue
				}
				if c.Kind == source.Insert {
					seen[id]++
					streamed++
				}
			}
		}
		st.Close()
		for id := int64(1); id < sentinel; id++ {
			if n := seen[id]; n != 1 && idInTable(t, db, id) {
				t.Errorf("round %d: row %d is %d times in the snapshot (%v) and the stream from %s", round, id, n, first[id], start.Position)
			}
		}
		t.Logf("round %d: %d rows in the snapshot, %d inserts streamed from %s", round, len(first), streamed, start.Position)
		for k := range seen {
			delete(seen, k)
		}
	}
}

var next_ = sourcetest.Next

func idInTable(t *testing.T, db interface {
	QueryRow(string, ...any) *sql.Row
}, id int64) bool {
	var n int
	if err := db.QueryRow("SELECT count(*) FROM c WHERE id = ?", id).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n == 1
}
