package migrate_test

import (
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/mapping"
	"github.com/remodel-dev/remodel/migrate"
)

// TestS3ImportFollow: migrate --to s3://… --import --follow on both
// engines. A workload commits changes while the objects are written (the
// S3 store slowed) and while the import runs (the stand-in's ImportTable
// commits more as it starts); after the import the follower applies every
// change since the objects' snapshot into the imported table. Stopped once
// the writes stop, the table is exactly the source. A second run with
// --follow --resume only follows (the copy and the import are not done
// again) and takes the changes made while nothing followed.
func TestS3ImportFollow(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	defer migrate.SetImportPoll(time.Millisecond)()
	for _, eng := range testenv.FollowEngines {
		t.Run(eng.Name, func(t *testing.T) {
			s := newShop(t, eng, 50, 600)
			db := newDB(t, endpoint)
			table := tableName(t, db)
			f := newFakeS3(t)
			f.setDelay(20 * time.Millisecond)
			w := newWorkload(t, s, 2, 7)
			stop := make(chan struct{})
			var wg sync.WaitGroup
			var before, during int64
			imp := &importer{API: db, t: t, f: f, during: func() {
				close(stop) // the workload of the objects' copy ends as the import starts
				wg.Wait()
				before = w.ops.Load()
				w.run(50, nil)
				during = w.ops.Load() - before
			}}
			ck := filepath.Join(t.TempDir(), "c.json")
			o := s.fx.s3Options(f, "live/")
			o.DB, o.Table, o.Import, o.Follow = imp, table, true, true
			o.CheckpointPath, o.MappingDigest, o.SourceID = ck, "digest-1", "source-1"
			o.CheckpointEvery = 100 * time.Millisecond
			wg.Go(func() { w.run(0, stop) }) // while the objects are written
			f2 := startFollow(t, testContext(t), o)
			f2.following(t)
			w.run(50, nil) // after the import
			w.check(t)
			if before == 0 || during == 0 {
				t.Fatalf("the workload made %d changes during the objects' copy and %d during the import; the test wants some of each", before, during)
			}
			s.caughtUp(t, db, table, f2)
			rep := f2.stop(t)
			if rep.S3 == nil || rep.S3.Import == nil || rep.S3.Import.Status != "COMPLETED" || rep.Follow == nil || rep.Follow.Changes == 0 || !rep.Follow.CaughtUp {
				t.Fatalf("report: s3 %+v, follow %+v", rep.S3, rep.Follow)
			}
			t.Logf("%d changes in all (%d during the copy, %d during the import); the follower applied %d", w.ops.Load(), before, during, rep.Follow.Changes)
			s.checkExact(t, db, table)

			w.run(40, nil) // while nothing follows
			w.check(t)
			imp.req = nil
			o.Resume = true
			f2 = startFollow(t, testContext(t), o)
			f2.following(t)
			s.caughtUp(t, db, table, f2)
			rep = f2.stop(t)
			if imp.req != nil || rep.Follow.Changes == 0 {
				t.Errorf("the resumed run imported again (%v) or applied no change (%+v)", imp.req != nil, rep.Follow)
			}
			s.checkExact(t, db, table)
		})
	}
}

// TestS3BulkPutFollow: migrate --to s3://… --bulk-put --follow into a
// table created beforehand with a local index, on both engines: a
// workload commits changes while the objects are written and while the
// bulk put runs (the stand-in applies an object per DescribeBulkOperation);
// the follower then applies every change since the objects' snapshot, and
// once stopped the table is exactly the source.
func TestS3BulkPutFollow(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	defer migrate.SetImportPoll(time.Millisecond)()
	for _, eng := range testenv.FollowEngines {
		t.Run(eng.Name, func(t *testing.T) {
			s := newShop(t, eng, 50, 600)
			plan := *s.fx.plan
			plan.Table.Indexes = append(append([]*mapping.Index(nil), plan.Table.Indexes...),
				&mapping.Index{Name: "ByNote", PK: []mapping.KeyAttr{plan.Table.PK}, SK: []mapping.KeyAttr{{Name: "note", Type: "S"}}, Local: true})
			s.fx.plan = &plan
			db := newDB(t, endpoint)
			table := tableName(t, db)
			if err := migrate.CreateTable(testContext(t), db, &plan.Table, table, time.Minute); err != nil {
				t.Fatal(err)
			}
			api := &bulkAPI{API: db, f: newFakeS3(t)}
			api.f.setDelay(10 * time.Millisecond)
			ck := filepath.Join(t.TempDir(), "c.json")
			o := s.fx.s3Options(api.f, "bulk/")
			o.DB, o.Table, o.Follow, o.RateLimit = api, table, true, 2000
			o.CheckpointPath, o.MappingDigest, o.SourceID = ck, "digest-1", "source-1"
			o.CheckpointEvery = 100 * time.Millisecond
			w := newWorkload(t, s, 2, 9)
			stop := make(chan struct{})
			var wg sync.WaitGroup
			wg.Go(func() { w.run(0, stop) }) // during the objects' copy and the bulk put
			f := startFollow(t, migrate.WithBulkPut(testContext(t), migrate.BulkPut{Tier: "standard"}), o)
			f.following(t)
			close(stop)
			wg.Wait()
			during := w.ops.Load()
			w.run(50, nil)
			w.check(t)
			s.caughtUp(t, db, table, f)
			rep := f.stop(t)
			if rep.S3 == nil || rep.S3.Bulk == nil || rep.S3.Bulk.Status != "COMPLETED" || rep.Follow == nil || !rep.Follow.CaughtUp {
				t.Fatalf("report: s3 %+v, follow %+v", rep.S3, rep.Follow)
			}
			if during == 0 {
				t.Fatal("the workload made no change before the follower started")
			}
			t.Logf("%d changes (%d before the follower started); the follower applied %d", w.ops.Load(), during, rep.Follow.Changes)
			s.checkExact(t, db, table)
		})
	}
}
