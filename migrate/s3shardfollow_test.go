package migrate_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/s3out"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/migrate"
)

// TestS3ShardsFollow: migrate --shard i/2 --to s3://… --follow on both
// engines, while a workload commits changes during the shards' copy (each
// shard takes its snapshot at another moment) and during the import. The
// shards share the job's slot (PostgreSQL) or each record their binlog
// position (MySQL) in their manifests; the run that imports follows from
// the earliest of them. Two routes: the shards given --import, started at
// once, of which the last to finish imports and follows (the other ends
// saying so); and the shards one after the other, then migrate --import
// --shards-done 2 --follow. Stopped once the writes stop, the table is
// exactly the source, and the stand-in of ImportTable saw one import.
func TestS3ShardsFollow(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	t.Cleanup(migrate.SetImportPoll(time.Millisecond)) // after the parallel routes
	for _, eng := range testenv.FollowEngines {
		for _, last := range []bool{true, false} {
			route := "shards-done"
			if last {
				route = "last-shard"
			}
			t.Run(eng.Name+"/"+route, func(t *testing.T) {
				t.Parallel() // each its own database, table, S3 and slot
				s := newShop(t, eng, 50, 600)
				db := newDB(t, endpoint)
				table := tableName(t, db)
				f := newFakeS3(t)
				f.setDelay(20 * time.Millisecond)
				w := newWorkload(t, s, 2, 13)
				stop := make(chan struct{})
				var wg sync.WaitGroup
				var before, during int64
				var imports atomic.Int32
				imp := &importer{API: db, t: t, f: f, during: func() {
					imports.Add(1)
					close(stop) // the workload of the shards' copy ends as the import starts
					wg.Wait()
					before = w.ops.Load()
					w.run(50, nil)
					during = w.ops.Load() - before
				}}
				dir := t.TempDir()
				shard := func(i int, fx *fixture) migrate.Options {
					o := fx.s3Options(f, "live/")
					o.Shard = migrate.Shard{Index: i, Count: 2}
					o.Ranges, o.ObjectSize, o.Writers = 4, 32<<10, 2
					o.DB, o.Table, o.Follow, o.Import = imp, table, true, last
					o.CheckpointPath, o.MappingDigest, o.SourceID = filepath.Join(dir, fmt.Sprintf("ck%d.json", i)), "digest-1", "source-1"
					o.CheckpointEvery = 100 * time.Millisecond
					return o
				}
				wg.Go(func() { w.run(0, stop) }) // while the shards copy
				var fol *following
				if last {
					// At once, each with a source of its own (two processes).
					a := startFollow(t, testContext(t), shard(1, s.fx))
					b := startFollow(t, testContext(t), shard(2, open(t, s.dsn, "mapping.yaml", shopMapping)))
					ended := a
					select {
					case <-a.done:
						fol = b
					case <-b.done:
						ended = b
						fol = a
					}
					if ended.err != nil || ended.rep.S3.Import != nil || ended.rep.Follow != nil {
						t.Fatalf("the shard that ended first: %v; import %+v, follow %+v", ended.err, ended.rep.S3.Import, ended.rep.Follow)
					}
					t.Logf("shard %s ended first (shards left %v, warnings %q)", ended.rep.Shard, ended.rep.S3.ShardsLeft, ended.rep.Warnings)
				} else {
					// One after the other: the second shard's snapshot is
					// later than the first's, with changes between.
					for i := 1; i <= 2; i++ {
						rep, err := migrate.Run(testContext(t), shard(i, s.fx))
						if err != nil {
							t.Fatalf("shard %d/2: %v", i, err)
						}
						if rep.Follow != nil || rep.S3.Import != nil {
							t.Fatalf("shard %d/2 imported or followed: %+v", i, rep.S3)
						}
					}
					o := s.fx.s3Options(f, "live/")
					o.DB, o.Table, o.Follow, o.Import, o.ShardsDone = imp, table, true, true, 2
					o.CheckpointPath, o.MappingDigest, o.SourceID = filepath.Join(dir, "follow.json"), "digest-1", "source-1"
					o.CheckpointEvery = 100 * time.Millisecond
					fol = startFollow(t, testContext(t), o)
				}
				fol.following(t)
				w.run(50, nil) // after the import
				w.check(t)
				if before == 0 || during == 0 {
					t.Fatalf("the workload made %d changes during the shards' copy and %d during the import; the test wants some of each", before, during)
				}
				s.caughtUp(t, db, table, fol)
				rep := fol.stop(t)
				if rep.S3 == nil || rep.S3.Import == nil || rep.S3.Import.Status != "COMPLETED" || rep.S3.ShardsImported != 2 || rep.Follow == nil || !rep.Follow.CaughtUp {
					t.Fatalf("report: s3 %+v, follow %+v", rep.S3, rep.Follow)
				}
				if n := imports.Load(); n != 1 {
					t.Errorf("ImportTable was called %d times, want once", n)
				}
				starts := shardStarts(t, f, "live/")
				slot := s.fx.src.Engine().Dialect().KeepsStreamPosition() // PostgreSQL: the shards' start is the job's slot's
				switch {
				case slot && starts[0] != starts[1]:
					t.Errorf("the shards of one slot name the starts %q", starts)
				case !slot && !last && (starts[0] == starts[1] || rep.Follow.Start != starts[0]):
					t.Errorf("the shards, run one after the other, name the starts %q; the follower started from %s, want the first", starts, rep.Follow.Start)
				}
				t.Logf("%d changes (%d during the copy, %d during the import); the shards' starts %q, the follower's %s; it applied %d", w.ops.Load(), before, during, starts, rep.Follow.Start, rep.Follow.Changes)
				s.checkExact(t, db, table)
			})
		}
	}
}

// shardStarts are the starts the two shards' manifests under prefix name.
func shardStarts(t *testing.T, f *fakeS3, prefix string) [2]string {
	t.Helper()
	loc := s3out.Location{Bucket: bucket, Prefix: prefix}
	var out [2]string
	for i := range 2 {
		b, err := f.store.Get(testContext(t), bucket, loc.ShardManifestKey(fmt.Sprintf("shard-%d-of-2", i+1)))
		if err != nil {
			t.Fatal(err)
		}
		var m struct {
			Follow struct{ Start string } `json:"follow"`
		}
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		out[i] = m.Follow.Start
	}
	return out
}
