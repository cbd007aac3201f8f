package migrate_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/s3out"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/migrate"
)

// putClaim writes the claim object of shard (as "shard-1-of-2"; "" for an
// unsharded run) of a run of another host, as a run there would, with its
// heartbeat at beat.
func putClaim(t *testing.T, f *fakeS3, prefix, shard string, ranges int, beat time.Time) string {
	t.Helper()
	loc := s3out.Location{Bucket: f.bucket, Prefix: prefix, Dir: f.dir}
	key := loc.ClaimKey(shard)
	i, n, _ := s3out.ShardOfClaim(strings.TrimPrefix(key, loc.ManifestsPrefix()))
	b, _ := json.Marshal(map[string]any{
		"format": "remodel-claim", "url": loc.String(), "shard": fmt.Sprintf("%d/%d", i, n), "ranges": ranges, "mapping_digest": "digest-1",
		"run": "0123456789abcdef", "host": "elsewhere.example", "pid": 1, "since": beat, "heartbeat": beat,
	})
	if err := f.store.Create(testContext(t), f.bucket, key, b, "application/json"); err != nil {
		t.Fatal(err)
	}
	return key
}

// objectsOf is how many objects (and claims, and manifests) of shard
// (as "shard-2-of-2") the prefix and the names beside it hold.
func objectsOf(t *testing.T, f *fakeS3, prefix, shard string) int {
	t.Helper()
	listed, err := f.store.List(testContext(t), f.bucket, strings.TrimSuffix(prefix, "/"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, l := range listed {
		if strings.Contains(l.Key, shard) {
			n++
		}
	}
	return n
}

// TestS3OneCopyOfAShard: two copies of one shard started at once into one
// prefix (into S3 and into a local directory) cannot both write it: the
// first claims the shard before it looks at the prefix, and the second is
// refused at its start, however long the first takes to store an object
// (both succeeded, each replacing the other's manifest). A claim left by a
// run elsewhere refuses a new run while its heartbeat is recent, and is
// taken over, with a warning, once it is stale. No claim is left after a
// run.
func TestS3OneCopyOfAShard(t *testing.T) {
	eng := testenv.Engines[0]
	dsn := eng.Fresh(t)
	eng.Exec(t, dsn, readFile(t, filepath.Join(example, "schema."+eng.Name+".sql")))
	eng.Exec(t, dsn, readFile(t, filepath.Join(example, "data.sql")))
	fx := open(t, dsn, filepath.Join(example, "mapping.yaml"), readFile(t, filepath.Join(example, "mapping.yaml")))
	other, err := source.Open(context.Background(), dsn) // the second copy's own connections
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			f := st.new(t)
			dir := t.TempDir()
			opts := func(prefix string, copy int) migrate.Options {
				o := fx.s3Options(f, prefix)
				o.Shard = migrate.Shard{Index: 1, Count: 2}
				o.ObjectSize, o.Writers = 32<<10, 2
				o.CheckpointPath, o.MappingDigest, o.SourceID = filepath.Join(dir, fmt.Sprintf("%s%d.json", strings.TrimSuffix(prefix, "/"), copy)), "digest-1", "source-1"
				if copy == 2 {
					o.Source = other
				}
				return o
			}
			f.setDelay(5 * time.Millisecond) // every write held back: the copies start long before either stores an object
			errs := make([]error, 2)
			var wg sync.WaitGroup
			for i := range 2 {
				wg.Go(func() { _, errs[i] = migrate.Run(testContext(t), opts("twice/", i+1)) })
			}
			wg.Wait()
			f.setDelay(0)
			ok := 0
			for i, err := range errs {
				switch {
				case err == nil:
					ok++
				case !strings.Contains(err.Error(), "is claimed by run") && !strings.Contains(err.Error(), "already holds"):
					t.Errorf("copy %d: %v, want it refused as a second copy", i+1, err)
				}
			}
			if ok != 1 {
				t.Errorf("%d of two copies of shard 1/2 succeeded (%v), want one", ok, errors.Join(errs...))
			}
			loc := s3out.Location{Bucket: f.bucket, Prefix: "twice/", Dir: f.dir}
			if _, err := f.store.Get(testContext(t), f.bucket, loc.ClaimKey("shard-1-of-2")); err == nil {
				t.Error("the claim is left after the runs")
			}

			key := putClaim(t, f, "held/", "shard-1-of-2", 1, time.Now())
			_, err := migrate.Run(testContext(t), opts("held/", 1))
			if err == nil || !strings.Contains(err.Error(), "shard 1/2 of "+loc.URL("held/")+" is claimed by run 0123456789ab (pid 1 on host elsewhere.example") {
				t.Errorf("a shard claimed by a live run elsewhere: %v", err)
			}
			if n := objectsOf(t, f, "held/", "shard-1-of-2"); n != 1 {
				t.Errorf("the refused run left %d files of its shard, want its sibling's claim alone", n)
			}
			if err := f.store.Delete(testContext(t), f.bucket, key); err != nil {
				t.Fatal(err)
			}
			putClaim(t, f, "held/", "shard-1-of-2", 1, time.Now().Add(-time.Hour))
			rep, err := migrate.Run(testContext(t), opts("held/", 1))
			if err != nil || !strings.Contains(strings.Join(rep.Warnings, "\n"), "took over the claim "+loc.URL(key)+" of run 0123456789ab") {
				t.Errorf("a stale claim: %v, warnings %q", err, rep.Warnings)
			}
		})
	}
}

// TestS3ShardsRangesRefused: a shard of a job into S3 given another
// --ranges than its sibling is refused at its start, before it writes an
// object: by its running sibling's claim (which names its --ranges), and
// by its finished sibling's manifest (which names its split plan). Both
// were accepted, and only --import --shards-done found the split differ.
func TestS3ShardsRangesRefused(t *testing.T) {
	fx := personalization(t, testenv.Engines[1%len(testenv.Engines)])
	f := newFakeS3(t)
	dir := t.TempDir()
	opts := func(i, ranges int) migrate.Options {
		o := fx.s3Options(f, "job/")
		o.Shard = migrate.Shard{Index: i, Count: 2}
		o.Ranges, o.ObjectSize, o.Writers = ranges, 32<<10, 2
		o.CheckpointPath, o.MappingDigest, o.SourceID = filepath.Join(dir, fmt.Sprintf("ck%d.json", i)), "digest-1", "source-1"
		return o
	}
	key := putClaim(t, f, "job/", "shard-1-of-2", 4, time.Now())
	_, err := migrate.Run(testContext(t), opts(2, 3))
	if err == nil || !strings.Contains(err.Error(), "its sibling shard 1/2") || !strings.Contains(err.Error(), "it was given --ranges 4, this shard --ranges 3") {
		t.Errorf("shard 2/2 --ranges 3 beside shard 1/2 --ranges 4 running: %v", err)
	}
	if n := objectsOf(t, f, "job/", "shard-2-of-2"); n != 0 {
		t.Errorf("the refused shard left %d files", n)
	}
	if err := f.store.Delete(testContext(t), f.bucket, key); err != nil {
		t.Fatal(err)
	}
	rep, err := migrate.Run(testContext(t), opts(1, 4))
	if err != nil {
		t.Fatal(err)
	}
	_, err = migrate.Run(testContext(t), opts(2, 3))
	want := fmt.Sprintf("and its sibling shard 1/2, which finished, split plan %s", rep.SplitDigest[:12])
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("shard 2/2 --ranges 3 beside shard 1/2 --ranges 4 finished: %v, want an error with %q", err, want)
	}
	if n := objectsOf(t, f, "job/", "shard-2-of-2"); n != 0 {
		t.Errorf("the refused shard left %d files", n)
	}
	if _, err := migrate.Run(testContext(t), opts(2, 4)); err != nil {
		t.Errorf("shard 2/2 with its sibling's --ranges: %v", err)
	}
}
