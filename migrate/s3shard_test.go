package migrate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/remodel-dev/remodel/internal/domain/s3out"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/migrate"
	"github.com/remodel-dev/remodel/verify"
)

// TestS3Shards: three shards (--shard i/3 --to) write into one prefix at
// once: each object's name carries its shard, every item is in exactly one
// object, each shard's manifest is beside the prefix and lists its own
// objects; a second run of a shard, a shard of another n, and any object
// no shard wrote are refused; --import in a shard is refused, and --import
// --shards-done 3 refuses a stray object or a missing manifest, then
// imports every shard's objects into a table that passes verify. On both
// engines.
func TestS3Shards(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	defer migrate.SetImportPoll(time.Millisecond)()
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			fx := personalization(t, eng)
			f := newFakeS3(t)
			dir := t.TempDir()
			opts := func(i int) migrate.Options {
				o := fx.s3Options(f, "job/")
				o.Shard = migrate.Shard{Index: i, Count: 3}
				o.Ranges, o.ObjectSize, o.Writers = 4, 32<<10, 2 // about 10 objects a shard
				o.CheckpointPath, o.MappingDigest, o.SourceID = filepath.Join(dir, fmt.Sprintf("ck%d.json", i)), "digest-1", "source-1"
				return o
			}
			reps := make([]*migrate.Report, 3) // one after the other: the fixture has one source (TestS3ShardsAtOnce in internal/cli runs them at once)
			errs := make([]error, 3)
			for i := range 3 {
				reps[i], errs[i] = migrate.Run(testContext(t), opts(i+1))
			}
			var rows int64
			for i, err := range errs {
				if err != nil {
					t.Fatalf("shard %d/3: %v", i+1, err)
				}
				rows += reps[i].RowsRead
				if want := fmt.Sprintf("s3://%s/job.shard-%d-of-3.remodel-manifest.json", bucket, i+1); reps[i].S3.Manifest != want {
					t.Errorf("shard %d/3's manifest is %s, want %s", i+1, reps[i].S3.Manifest, want)
				}
			}
			if rows != fx.total {
				t.Errorf("the shards read %d rows together, the source has %d", rows, fx.total)
			}
			got := readObjects(t, f, "job/", s3out.Gzip) // a key twice fails the test
			if int64(len(got.items)) != fx.total {
				t.Errorf("the objects hold %d items, the source has %d rows", len(got.items), fx.total)
			}
			loc := s3out.Location{Bucket: bucket, Prefix: "job/"}
			listed := map[string]bool{}
			var items int64
			for i := 1; i <= 3; i++ {
				b, err := f.store.Get(testContext(t), bucket, loc.ShardManifestKey(fmt.Sprintf("shard-%d-of-3", i)))
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(string(b), fmt.Sprintf(`"shard": "%d/3"`, i)) {
					t.Errorf("shard %d/3's manifest does not name its shard:\n%s", i, b)
				}
				m := readManifestBytes(t, b)
				items += m.Items
				for _, ob := range m.Objects {
					if !strings.HasPrefix(ob.Key, fmt.Sprintf("job/shard-%d-of-3-", i)) || listed[ob.Key] {
						t.Errorf("shard %d/3's manifest lists %s", i, ob.Key)
					}
					listed[ob.Key] = true
				}
			}
			if items != fx.total || len(listed) != len(got.objects) {
				t.Errorf("the manifests list %d objects with %d items; the prefix holds %d objects, the source %d rows", len(listed), items, len(got.objects), fx.total)
			}
			if ok, _ := f.s3.Exists(testContext(t), bucket, loc.ManifestKey()); ok {
				t.Errorf("an unsharded manifest %s was written", loc.ManifestKey())
			}

			refused := func(what string, o migrate.Options, want string) {
				t.Helper()
				_, err := migrate.Run(testContext(t), o)
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("%s: %v, want an error with %q", what, err, want)
				}
			}
			refused("shard 2/3 again", opts(2), "objects of shard 2/3")
			o := opts(1)
			o.Shard.Count = 4
			refused("shard 1/4", o, "a job of 3 shards, not 4")
			o = opts(1)
			o.Import = true
			refused("--import in a shard", o, "--import in a shard")

			db := newDB(t, endpoint)
			table := tableName(t, db)
			imp := &importer{API: db, t: t, f: f}
			importOpts := func(n int) migrate.Options {
				o := fx.s3Options(f, "job/")
				o.DB, o.Table, o.Import, o.ShardsDone, o.MappingDigest = imp, table, true, n, "digest-1"
				return o
			}
			stray := "job/stray.json.gz"
			if _, err := f.client.PutObject(testContext(t), &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(stray), Body: strings.NewReader("x")}); err != nil {
				t.Fatal(err)
			}
			refused("a shard with a stray object under the prefix", opts(3), "which no shard of a sharded job wrote")
			refused("--shards-done 3 with a stray object", importOpts(3), "s3://"+bucket+"/"+stray+" is under the prefix but in no shard's manifest")
			if _, err := f.client.DeleteObject(testContext(t), &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String(stray)}); err != nil {
				t.Fatal(err)
			}
			refused("--shards-done 4", importOpts(4), "no manifest of shard 1/4")
			if imp.req != nil {
				t.Fatal("ImportTable was called on a refused import")
			}
			rep, err := migrate.Run(testContext(t), importOpts(3))
			if err != nil {
				t.Fatal(err)
			}
			if imp.req == nil || aws.ToString(imp.req.S3BucketSource.S3KeyPrefix) != "job/" || rep.S3.ShardsImported != 3 || rep.S3.Objects != len(got.objects) {
				t.Fatalf("the import of 3 shards: request %+v, report %+v", imp.req, rep.S3)
			}
			if i := rep.S3.Import; i == nil || i.ImportedItems != fx.total {
				t.Errorf("import report: %+v", i)
			}
			verifyExact(t, fx, db, table)
		})
	}
}

// TestS3ShardResume: a shard stopped mid-way and resumed keeps every
// object it uploaded (each put once), leaves its sibling's objects alone,
// and ends with its shard's items, once each; its manifest names its
// sibling's split plan.
func TestS3ShardResume(t *testing.T) {
	eng := testenv.Engines[0]
	fx := personalization(t, eng)
	f := newFakeS3(t)
	dir := t.TempDir()
	opts := func(i int) migrate.Options {
		o := fx.s3Options(f, "job/")
		o.Shard = migrate.Shard{Index: i, Count: 2}
		o.Ranges, o.ObjectSize, o.Writers = 4, 16<<10, 2 // about 40 objects a shard: 4 of them uploaded before it is stopped
		o.CheckpointPath, o.CheckpointEvery, o.MappingDigest, o.SourceID = filepath.Join(dir, fmt.Sprintf("ck%d.json", i)), 20*time.Millisecond, "digest-1", "source-1"
		return o
	}
	rep1, err := migrate.Run(testContext(t), opts(1))
	if err != nil {
		t.Fatal(err)
	}
	first := len(f.putCounts())
	f.setDelay(40 * time.Millisecond)
	ctx, cancel := context.WithCancel(testContext(t))
	go func() {
		defer cancel()
		// Stopped once 4 objects are uploaded and the checkpoint holds one
		// (an object put but not yet settled leaves nothing to resume).
		for len(f.putCounts()) < first+4 || !checkpointHoldsObject(opts(2).CheckpointPath) {
			time.Sleep(5 * time.Millisecond)
		}
	}()
	if rep, err := migrate.Run(ctx, opts(2)); err == nil || !rep.Interrupted {
		t.Fatalf("the stopped shard: %v", err)
	}
	f.setDelay(0)
	o := opts(2)
	o.Resume = true
	rep2, err := migrate.Run(testContext(t), o)
	if err != nil {
		t.Fatal(err)
	}
	if rep2.S3.ObjectsKept == 0 || rep1.RowsRead+rep2.RowsRead != fx.total {
		t.Errorf("the resumed shard kept %d objects; the shards read %d + %d rows, the source has %d", rep2.S3.ObjectsKept, rep1.RowsRead, rep2.RowsRead, fx.total)
	}
	for key, n := range f.putCounts() {
		if n != 1 && !strings.HasSuffix(key, ".remodel-claim.json") { // a claim is written again by its heartbeat
			t.Errorf("%s was put %d times", key, n)
		}
	}
	if got := readObjects(t, f, "job/", s3out.Gzip); int64(len(got.items)) != fx.total {
		t.Errorf("the objects hold %d items, the source has %d rows", len(got.items), fx.total)
	}
	// The resumed shard's manifest names the split plan of its
	// checkpoint's ranges: its sibling's.
	var digests []string
	for i := 1; i <= 2; i++ {
		b, err := f.store.Get(testContext(t), bucket, s3out.Location{Bucket: bucket, Prefix: "job/"}.ShardManifestKey(fmt.Sprintf("shard-%d-of-2", i)))
		if err != nil {
			t.Fatal(err)
		}
		var m struct {
			SplitDigest string `json:"split_digest"`
		}
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		digests = append(digests, m.SplitDigest)
	}
	if digests[0] == "" || digests[0] != digests[1] {
		t.Errorf("the shards' manifests name split plans %q and %q, want one", digests[0], digests[1])
	}
}

func readManifestBytes(t *testing.T, b []byte) manifest {
	t.Helper()
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestS3ShardsSplitDiffer: each shard's manifest names the digest of its
// split plan (every read's key range boundaries, n, --ranges, the
// mapping): two shards of one split name one digest, and --import
// --shards-done and verify --files accept them as far as the split goes.
// Two shards of one prefix given different --ranges cut the reads into
// different ranges (rows read by both, or by neither): --import
// --shards-done 2 refuses their manifests and verify --files reports a
// split_conflict, both naming the shards and their plans. Two shards of one
// split given different --job are refused and reported as well (a
// manifest_conflict), and a shard of a third --job is refused at its start
// by its finished sibling's manifest. Both engines.
func TestS3ShardsSplitDiffer(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	defer migrate.SetImportPoll(time.Millisecond)()
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			fx := personalization(t, eng)
			f := newFakeS3(t)
			dir := t.TempDir()
			opts := func(prefix string, i, ranges int) migrate.Options {
				o := fx.s3Options(f, prefix)
				o.Shard = migrate.Shard{Index: i, Count: 2}
				if prefix == "jobs/" { // one split, two --job
					o.Job = fmt.Sprint("job-", i)
				}
				o.Ranges, o.ObjectSize, o.Writers = ranges, 32<<10, 2
				o.CheckpointPath, o.MappingDigest, o.SourceID = filepath.Join(dir, fmt.Sprintf("%s%d.json", strings.TrimSuffix(prefix, "/"), i)), "digest-1", "source-1"
				return o
			}
			for _, r := range []struct {
				prefix string
				i      int
				ranges int
			}{{"same/", 1, 4}, {"same/", 2, 4}, {"split/", 1, 4}, {"split/", 2, 3}, {"jobs/", 1, 4}, {"jobs/", 2, 4}} {
				// jobs/ and split/: shard 2/2 runs as if it started while
				// shard 1/2 ran and before it claimed its shard (its
				// manifest, which refuses shard 2/2 at its start,
				// TestS3ShardsRangesRefused, is put back after).
				hidden := s3out.Location{Bucket: bucket, Prefix: r.prefix}.ShardManifestKey("shard-1-of-2")
				var manifest []byte
				if r.prefix != "same/" && r.i == 2 {
					var err error
					if manifest, err = f.store.Get(testContext(t), bucket, hidden); err != nil {
						t.Fatal(err)
					}
					if _, err := f.client.DeleteObject(testContext(t), &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String(hidden)}); err != nil {
						t.Fatal(err)
					}
				}
				if _, err := migrate.Run(testContext(t), opts(r.prefix, r.i, r.ranges)); err != nil {
					t.Fatalf("%sshard %d/2 --ranges %d: %v", r.prefix, r.i, r.ranges, err)
				}
				if manifest != nil {
					if _, err := f.client.PutObject(testContext(t), &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(hidden), Body: bytes.NewReader(manifest)}); err != nil {
						t.Fatal(err)
					}
				}
			}
			digest := func(prefix string, i int) string {
				loc := s3out.Location{Bucket: bucket, Prefix: prefix}
				b, err := f.store.Get(testContext(t), bucket, loc.ShardManifestKey(fmt.Sprintf("shard-%d-of-2", i)))
				if err != nil {
					t.Fatal(err)
				}
				var m struct {
					SplitDigest string `json:"split_digest"`
				}
				if err := json.Unmarshal(b, &m); err != nil {
					t.Fatal(err)
				}
				return m.SplitDigest
			}
			same1, same2, split1, split2 := digest("same/", 1), digest("same/", 2), digest("split/", 1), digest("split/", 2)
			if len(same1) != 64 || same1 != same2 || same1 != split1 || split1 == split2 {
				t.Fatalf("the manifests' split digests: same/ %q and %q, split/ %q and %q", same1, same2, split1, split2)
			}

			db := newDB(t, endpoint)
			imp := &importer{API: db, t: t, f: f}
			o := fx.s3Options(f, "split/")
			o.DB, o.Table, o.Import, o.ShardsDone, o.MappingDigest = imp, tableName(t, db), true, 2, "digest-1"
			want := fmt.Sprintf("the shards did not read one split of the source (shard 1/2: split plan %s; shard 2/2: split plan %s)", split1[:12], split2[:12])
			if _, err := migrate.Run(testContext(t), o); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("--import --shards-done 2 of shards of two splits: %v, want an error with %q", err, want)
			}
			if imp.req != nil {
				t.Fatal("ImportTable was called on a refused import")
			}
			third := opts("jobs/", 1, 4)
			third.Job, third.CheckpointPath = "job-3", filepath.Join(dir, "jobs-third.json")
			if _, err := migrate.Run(testContext(t), third); err == nil || !strings.Contains(err.Error(), `holds the objects of shard 2/2 of --job "job-2"`) {
				t.Errorf("shard 1/2 of job-3 beside shard 2/2 of job-2's manifest: %v", err)
			}
			o = fx.s3Options(f, "jobs/")
			o.DB, o.Table, o.Import, o.ShardsDone, o.MappingDigest = imp, tableName(t, db), true, 2, "digest-1"
			wantJobs := `the manifests are not one job's: their shards were given different --job (shard 1/2: --job "job-1"; shard 2/2: --job "job-2")`
			if _, err := migrate.Run(testContext(t), o); err == nil || !strings.Contains(err.Error(), wantJobs) || strings.Contains(err.Error(), "did not read one split") {
				t.Errorf("--import --shards-done 2 of shards of two --job: %v, want an error with %q alone", err, wantJobs)
			}
			if imp.req != nil {
				t.Fatal("ImportTable was called on a refused import")
			}

			for _, prefix := range []string{"same/", "split/", "jobs/"} {
				loc := &s3out.Location{Bucket: bucket, Prefix: prefix, Dir: f.dir}
				rep, err := verify.Run(testContext(t), verify.Options{Plan: fx.plan, Source: fx.src, Samples: 3, Seed: 1, Files: loc, S3: f.store, MappingDigest: "digest-1"})
				if err != nil {
					t.Fatalf("verify --files %s: %v", prefix, err)
				}
				var found, jobs []string
				for _, p := range rep.Files.Problems.List {
					switch p.Kind {
					case verify.KindSplitConflict:
						found = append(found, p.Message)
					case verify.KindManifestConflict:
						jobs = append(jobs, p.Message)
					}
				}
				switch {
				case prefix == "jobs/" && (len(found) > 0 || len(jobs) != 1 || !strings.Contains(jobs[0], wantJobs) || rep.OK):
					t.Errorf("verify --files of shards of two --job: ok %v, split conflicts %q, manifest conflicts %q, want one with %q", rep.OK, found, jobs, wantJobs)
				case prefix != "jobs/" && len(jobs) > 0:
					t.Errorf("verify --files %s: manifest conflicts %q", prefix, jobs)
				case prefix == "same/" && (len(found) > 0 || !rep.OK):
					t.Errorf("verify --files of shards of one split: ok %v, split conflicts %q", rep.OK, found)
				case prefix == "split/" && (len(found) != 1 || !strings.Contains(found[0], want) || rep.OK):
					t.Errorf("verify --files of shards of two splits: ok %v, split conflicts %q, want one with %q", rep.OK, found, want)
				}
			}
		})
	}
}

// checkpointHoldsObject says whether the checkpoint at path names an
// uploaded object (a file being replaced reads as not yet).
func checkpointHoldsObject(path string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	var ck struct {
		S3 *struct {
			Objects []json.RawMessage `json:"objects"`
		} `json:"s3"`
	}
	return json.Unmarshal(b, &ck) == nil && ck.S3 != nil && len(ck.S3.Objects) > 0
}
