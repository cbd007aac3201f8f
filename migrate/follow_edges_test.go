package migrate_test

import (
	"context"
	"errors"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/progress"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/internal/testsupport/faultproxy"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/migrate"
)

// Nothing goes quiet (issue: a follower that never freezes or skips in
// silence). Each test plants one edge and requires the run to say so: a
// state, an error naming the cause, a refused resume; never "caught up" or
// a clean stop with a change not applied.

// TestFollowSourceSilent: the network between the follower and the source
// goes silent (a relay that forwards nothing more, connections open)
// while the application commits. The follower's progress must stop saying
// it is caught up and call itself stalled with the cause, and the stop
// must be an error that says the changes are not all applied.
func TestFollowSourceSilent(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	old := migrate.SetFollowDrain(5 * time.Second)
	t.Cleanup(func() { migrate.SetFollowDrain(old) }) // after the parallel engines
	for _, eng := range testenv.FollowEngines {
		t.Run(eng.Name, func(t *testing.T) {
			t.Parallel() // each its own database, relay and table
			s := newShop(t, eng, 20, 100)
			u, err := url.Parse(s.dsn)
			if err != nil {
				t.Fatal(err)
			}
			relay := faultproxy.NewRelay(t, u.Host)
			fx := open(t, strings.Replace(s.dsn, u.Host, relay.Addr, 1), "mapping.yaml", shopMapping)
			db := newDB(t, endpoint)
			table := tableName(t, db)
			o := fx.options(db, table)
			o.Follow, o.CreateTable = true, true
			o.CheckpointPath, o.MappingDigest, o.SourceID = filepath.Join(t.TempDir(), "c.json"), "digest-1", "source-1"
			f := startFollow(t, testContext(t), o)
			f.following(t)
			s.caughtUp(t, db, table, f)
			waitLag(t, f, "caught up", func(l progress.LagState) bool { return l.State == progress.LagCaughtUp })

			relay.Freeze()
			frozen := time.Now()
			s.mustExec(t, "UPDATE orders SET note = 'after the freeze' WHERE id = 1")
			l := waitLag(t, f, "stalled", func(l progress.LagState) bool { return l.State == progress.LagStalled })
			t.Logf("%s after the freeze: %s: %s (%.1fs behind)", time.Since(frozen).Round(time.Second), l.State, l.Cause, l.Behind.Seconds())
			if l.Cause == "" || l.Behind < time.Second {
				t.Errorf("the stalled follower says no cause, or too little lag: %+v", l)
			}
			f.cancel()
			select {
			case <-f.done:
			case <-time.After(2 * time.Minute):
				t.Fatal("the stopped follower did not end within 2 minutes")
			}
			var behind *migrate.StoppedBehindError
			if !errors.As(f.err, &behind) {
				t.Fatalf("the stop of a follower cut off from its source returned %v; want a StoppedBehindError", f.err)
			}
			if f.rep.Follow == nil || f.rep.Follow.CaughtUp {
				t.Errorf("the report of the stop says caught up: %+v", f.rep.Follow)
			}
			t.Logf("the stop: %v", f.err)
		})
	}
}

// waitLag waits (up to a minute) for a follower's progress to show a lag
// that ok accepts, and returns it; the run's end fails the test.
func waitLag(t *testing.T, f *following, what string, ok func(progress.LagState) bool) progress.LagState {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		if l := f.log.last(); ok(l) {
			return l
		}
		if f.ended() {
			t.Fatalf("the run ended (%v) before its follower was %s", f.err, what)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the follower was not %s within a minute: last %+v", what, f.log.last())
		}
		time.Sleep(followLogEvery)
	}
}

// TestFollowRejectsStop: a changed row that cannot become an item beyond
// --max-rejects (0; here a partition key longer than DynamoDB's 2048
// bytes) stops the follower with an error naming the row and the way on
// (it froze before: nothing applied, nothing ended); after the row is
// corrected, --follow --resume applies it and the table is exact.
func TestFollowRejectsStop(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	for _, eng := range testenv.FollowEngines {
		t.Run(eng.Name, func(t *testing.T) {
			dsn := eng.Fresh(t)
			eng.Exec(t, dsn, "CREATE TABLE tags (id int PRIMARY KEY, name varchar(3000) NOT NULL);\nINSERT INTO tags VALUES (1, 'one'), (2, 'two');\n"+eng.FullRows("tags"))
			fx := open(t, dsn, "mapping.yaml", `version: 1
table: {name: tags, key: {pk: PK, sk: SK}}
entities:
  tag: {from: tags, pk: "TAG#{name}", sk: "T#{id}"}
`)
			conn := eng.Connect(t, dsn)
			exec := func(q string) {
				t.Helper()
				if err := conn.Exec(context.Background(), q); err != nil {
					t.Fatal(err)
				}
			}
			db := newDB(t, endpoint)
			table := tableName(t, db)
			o := fx.options(db, table)
			o.Follow, o.CreateTable = true, true
			o.CheckpointPath, o.MappingDigest, o.SourceID = filepath.Join(t.TempDir(), "c.json"), "digest-1", "source-1"
			f := startFollow(t, testContext(t), o)
			f.following(t)
			exec("UPDATE tags SET name = '" + strings.Repeat("x", 2100) + "' WHERE id = 1")
			exec("UPDATE tags SET name = 'later' WHERE id = 2")
			select {
			case <-f.done:
			case <-time.After(time.Minute):
				t.Fatal("the follower did not stop within a minute on a rejected change beyond --max-rejects")
			}
			if f.err == nil || !strings.Contains(f.err.Error(), "--max-rejects") || !strings.Contains(f.err.Error(), "--follow --resume") {
				t.Fatalf("the follower's end: %v; want the rejected row and the way on", f.err)
			}
			if f.rep.Follow == nil || f.rep.Follow.Rejected != 1 {
				t.Errorf("the report: %+v", f.rep.Follow)
			}
			exec("UPDATE tags SET name = 'corrected' WHERE id = 1")
			o.Resume, o.CreateTable = true, false
			f = startFollow(t, testContext(t), o)
			f.following(t)
			waitLag(t, f, "caught up", func(l progress.LagState) bool { return l.State == progress.LagCaughtUp })
			f.stop(t)
			checkExact(t, fx, db, table)
		})
	}
}

// TestFollowStopError: a change the stream cannot hand over exactly (on
// PostgreSQL a column of a followed table dropped; on MariaDB a session's
// row image MINIMAL) stops the follower with an error naming the table
// within a minute, and --follow --resume is refused with the reason.
func TestFollowStopError(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	for _, eng := range testenv.FollowEngines {
		t.Run(eng.Name, func(t *testing.T) {
			s := newShop(t, eng, 20, 50)
			db := newDB(t, endpoint)
			table := tableName(t, db)
			ck := filepath.Join(t.TempDir(), "c.json")
			o := s.followOptions(db, table, ck)
			o.CreateTable = true
			f := startFollow(t, testContext(t), o)
			f.following(t)
			if eng.Name == "postgres" {
				s.mustExec(t, "ALTER TABLE orders DROP COLUMN note")
				s.mustExec(t, "UPDATE orders SET status = 'x' WHERE id = 3")
			} else {
				s.mustExec(t, "SET SESSION binlog_row_image = MINIMAL", "UPDATE orders SET status = 'x' WHERE id = 3")
			}
			select {
			case <-f.done:
			case <-time.After(time.Minute):
				t.Fatal("the follower did not stop within a minute")
			}
			var se *source.StopError
			if !errors.As(f.err, &se) || !strings.Contains(se.Table, "orders") {
				t.Fatalf("the follower's end: %v; want a StopError naming orders", f.err)
			}
			o.Resume, o.CreateTable = true, false
			rep, err := migrate.Run(testContext(t), o)
			if err == nil || !strings.Contains(err.Error(), "refused") || !strings.Contains(err.Error(), se.What) {
				t.Fatalf("--follow --resume after the stop: %v (report %+v); want it refused with the reason", err, rep.Follow)
			}
		})
	}
}

// TestFollowSlotNames: two followed migrations into tables of one name
// (a rehearsal and the real one) get slots of their own.
func TestFollowSlotNames(t *testing.T) {
	a, b := migrate.DefaultSlot("Orders-2024", "0a1b2c3d"), migrate.DefaultSlot("Orders-2024", "ffffffff")
	if a == b || a != "remodel_orders_2024_0a1b2c3d" {
		t.Errorf("slots %q and %q", a, b)
	}
	if long := migrate.DefaultSlot(strings.Repeat("t", 80), "0a1b2c3d"); len(long) != 63 || !strings.HasSuffix(long, "_0a1b2c3d") {
		t.Errorf("a long table's slot: %q (%d)", long, len(long))
	}
}
