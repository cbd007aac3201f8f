package migrate

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/s3out"
	"github.com/remodel-dev/remodel/internal/domain/sink/objects"
	"github.com/remodel-dev/remodel/mapping"
)

// The S3 route (--to s3://bucket/prefix/): the copy writes the items as
// ImportTable's source objects (the objects sink: s3ledger.go) instead of into a table, then
// a manifest beside the prefix, and with --import has DynamoDB build the
// table from them (s3import.go). There is no table while it writes: no
// lock item, no emptiness check, no stray items; the prefix must hold no
// object when a job starts (ImportTable would read it as data). The key
// collision check always runs: ImportTable keeps one of two items with one
// key without a word.

// S3Report is what the S3 route wrote.
type S3Report struct {
	URL         string `json:"url"`
	Compression string `json:"compression"`
	// Manifest is the manifest's URL, once the job is complete and it is
	// written.
	Manifest     string `json:"manifest,omitempty"`
	Objects      int    `json:"objects"`
	Bytes        int64  `json:"bytes"`
	Uncompressed int64  `json:"uncompressed_bytes"`
	// ObjectsKept are the objects of the interrupted runs of a resumed job
	// (kept as they are); ItemsFound the items this run rendered again
	// that they already held (not written again).
	ObjectsKept int   `json:"objects_kept,omitempty"`
	ItemsFound  int64 `json:"items_found,omitempty"`
	// ItemsOlder are the items of ItemsFound whose rows changed since
	// (a followed run: the follower applies their changes after the load).
	ItemsOlder int64 `json:"items_older,omitempty"`
	// LateDeleted are the objects (URLs) an interrupted run's uploads
	// stored after this resumed run had listed the prefix, deleted before
	// the manifest (dropLateObjects).
	LateDeleted []string      `json:"late_objects_deleted,omitempty"`
	Import      *ImportReport `json:"import,omitempty"`
	// ShardsImported is the n of --import --shards-done n: the objects of
	// that many shards were imported, and none copied.
	ShardsImported int `json:"shards_imported,omitempty"`
	// ShardsLeft are the shards of a job whose manifests were not there
	// when this shard, given --import, finished: the last of them imports
	// (s3shardfollow.go).
	ShardsLeft []string `json:"shards_left,omitempty"`
	// Bulk is what --bulk-put did (s3bulk.go).
	Bulk     *BulkReport    `json:"bulk_put,omitempty"`
	objects  []s3Object     // the manifest's
	params   *tableCreation // the manifest's table
	manifest []byte         // the objects and the table, for the import's client token
	items    int64          // in the objects
}

// newS3Checkpoint is the S3 part of a new job's checkpoint.
func newS3Checkpoint(o Options) *s3Checkpoint {
	if o.To == nil {
		return nil
	}
	return &s3Checkpoint{URL: o.To.String(), Compression: string(o.Compression), Objects: []s3Object{}}
}

// s3State is the S3 part of the checkpoint being saved (tr.mu held).
func (tr *tracker) s3State() *s3Checkpoint {
	st := tr.file.S3
	if st == nil {
		return nil
	}
	out := *st
	if tr.s3 != nil {
		out.Objects = append(slices.Clone(st.Objects), tr.s3.covered()...)
	}
	return &out
}

// loadS3 checks that a checkpoint and the run agree on where the items go.
func (tr *tracker) loadS3(ck *checkpointFile, path string) error {
	switch {
	case ck.S3 == nil && tr.file.S3 == nil:
		return nil
	case ck.S3 == nil:
		return fmt.Errorf("migrate: --resume: checkpoint %s is of a migration into DynamoDB table %s, not into S3: resume it without --to", path, ck.Table)
	case tr.file.S3 == nil:
		return fmt.Errorf("migrate: --resume: checkpoint %s is of a migration into %s: resume it with --to %s", path, ck.S3.URL, ck.S3.URL)
	case ck.S3.URL != tr.file.S3.URL:
		return fmt.Errorf("migrate: --resume: checkpoint %s is of a migration into %s, not %s", path, ck.S3.URL, tr.file.S3.URL)
	case ck.S3.Compression != tr.file.S3.Compression:
		return fmt.Errorf("migrate: --resume: checkpoint %s wrote %s objects: resume it with --compression %s", path, ck.S3.Compression, ck.S3.Compression)
	}
	st := *ck.S3
	tr.file.S3 = &st
	return nil
}

// OutsideObjects refuses a file of the run's own (what names it: its
// checkpoint, rejects file, a report of --output-file) at path when it is
// where the objects of to go: under its local directory's prefix, where
// ImportTable would import it and a resume finds a file remodel did not
// write, or named as one of its manifests, which the run replaces or
// which replaces them. An S3 location (to not a local directory) holds no
// local file: nothing is refused.
func OutsideObjects(to *s3out.Location, what, path string) error {
	if to == nil || path == "" {
		return nil
	}
	if abs, err := filepath.Abs(path); err == nil && s3out.UnderPrefix(*to, abs) {
		return fmt.Errorf("migrate: the %s %s is under %s or one of its manifests: ImportTable's objects go there alone; give another path", what, path, to)
	}
	return nil
}

// refuseS3 refuses what the S3 route cannot do (bulk: with --bulk-put).
func refuseS3(o Options, bulk *BulkPut) error {
	if bulk != nil { // --bulk-put (s3bulk.go): into an existing table
		if err := refuseBulk(o, bulk); err != nil {
			return err
		}
	}
	var bad []string
	if o.CreateTable {
		bad = append(bad, "--create-table (ImportTable creates the table: --import)")
	}
	if o.AllowNonEmpty && bulk == nil {
		bad = append(bad, "--allow-non-empty (ImportTable only creates a new table)")
	}
	if o.DeleteStale {
		bad = append(bad, "--delete-stale")
	}
	if o.Follow && !o.Import && bulk == nil && !o.Shard.Sharded() { // a shard keeps the changes for the job's import (s3shardfollow.go)
		bad = append(bad, "--follow without --import or --bulk-put (the changes are written into a table: ImportTable creates it, or the bulk put loads one)")
	}
	if o.Import && o.Shard.Sharded() && !o.Follow {
		bad = append(bad, "--import in a shard without --follow (ImportTable runs once, after every shard is done: migrate --to URL --import --shards-done n)")
	}
	if bulk != nil && (o.Shard.Sharded() || o.ShardsDone > 0) {
		bad = append(bad, "--bulk-put with --shard or --shards-done")
	}
	if len(bad) > 0 {
		return fmt.Errorf("migrate: --to writes S3 objects for ImportTable, not into a table: it does not go with %s", strings.Join(bad, ", "))
	}
	if o.To != nil && o.To.Dir {
		if o.Import || o.ShardsDone > 0 {
			return fmt.Errorf("migrate: --import does not go with a local directory (--to %s): ImportTable reads its objects from S3; write them to S3 (--to s3://bucket/prefix/ --import), or copy the directory to an S3 prefix first", o.To)
		}
		for _, p := range []struct{ what, path string }{{"rejected-rows file", o.RejectsPath}, {"checkpoint file", o.CheckpointPath}} {
			if err := OutsideObjects(o.To, p.what, p.path); err != nil {
				return err
			}
		}
	}
	for _, ix := range o.Plan.Table.Indexes {
		if ix.Local && bulk == nil {
			return fmt.Errorf("migrate: --to: index %s is a local secondary index, and ImportTable cannot create local indexes (only global ones): write through the API instead (migrate --create-table, without --to)", ix.Name)
		}
	}
	return nil
}

// siblingsJob refuses a shard whose finished siblings' manifests beside the
// prefix name another --job: their objects are another job's.
func siblingsJob(ctx context.Context, o Options) error {
	if !o.Shard.Sharded() {
		return nil
	}
	set, err := readShardManifests(ctx, o.S3, *o.To, o.Shard.Count)
	if err != nil {
		return err
	}
	for _, m := range set.Manifests {
		if m.shard != o.Shard && m.Job != o.Job {
			return fmt.Errorf("migrate: %s holds the objects of shard %s of %s (its manifest %s), not of this shard's %s: a new job starts from an empty prefix; give every shard of a job one --job", o.To, m.shard, s3out.JobName(m.Job), o.To.ShardManifestURL(m.shard.FileSuffix()), s3out.JobName(o.Job))
		}
	}
	return nil
}

// prepareS3 checks the prefix: a new job's holds no object; a resumed
// job's holds the objects its checkpoint lists (kept as they are) and
// those of its interrupted runs the checkpoint does not cover, read back
// (their items are not written again), and nothing else.
func prepareS3(ctx context.Context, o Options, s *objects.Sink, l *objectLedger, kept []s3Object) error {
	listed, err := o.S3.List(ctx, o.To.Bucket, o.To.Prefix)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if listed, err = sortListed(o, listed); err != nil { // a shard's: its own objects
		return err
	}
	if err := siblingsJob(ctx, o); err != nil {
		return err
	}
	if !o.Resume {
		if len(listed) > 0 && o.Shard.Sharded() {
			return fmt.Errorf("migrate: %s already holds %d objects of shard %s (%s, ...): a second copy of this shard is running, or an earlier run of it stopped; --resume that one with its checkpoint, or delete its objects", o.To, len(listed), o.Shard, listed[0].Key)
		}
		if len(listed) > 0 {
			return fmt.Errorf("migrate: %s already holds %d objects (%s, ...): ImportTable reads every object under the prefix as data; give an empty prefix, or --resume the job that wrote them", o.To, len(listed), listed[0].Key)
		}
		return nil
	}
	want := map[string]s3Object{}
	for _, k := range kept {
		want[k.Key] = k
	}
	for _, ls := range listed {
		if k, ok := want[ls.Key]; ok {
			if ls.Size != k.Bytes {
				return fmt.Errorf("migrate: --resume: %s has %d bytes, not the %d the checkpoint says it was uploaded with: it was changed since; start over", o.To.URL(ls.Key), ls.Size, k.Bytes)
			}
			delete(want, ls.Key)
			continue
		}
		name := strings.TrimPrefix(ls.Key, o.To.Prefix)
		if !o.Shard.Sharded() && !objects.IsName(name) || !strings.HasSuffix(name, o.Compression.Ext()) {
			return fmt.Errorf("migrate: --resume: %s holds %s, which remodel did not write: ImportTable would read it as data; remove it", o.To, o.To.URL(ls.Key))
		}
		id, info, err := s.ReadBack(ctx, ls)
		if err != nil {
			return fmt.Errorf("migrate: --resume: %w", err)
		}
		l.readBackObject(id, info)
	}
	for k := range want {
		return fmt.Errorf("migrate: --resume: %s, which the checkpoint lists as uploaded, is gone: start over", o.To.URL(k))
	}
	return nil
}

// dropLateObjects runs before the manifest is written, and compares the
// prefix with the job's objects once more. An upload in flight when an
// interrupted run was killed can be stored after the resumed run listed
// the prefix (prepareS3): its rows were not covered by the checkpoint, so
// this run read them again and wrote their items into its own objects,
// and ImportTable would import both (one of two items with one key, maybe
// the older). Such an object (remodel's name, a resumed run) is deleted
// and reported; any other object the job did not write stops the run, as
// at the start.
func dropLateObjects(ctx context.Context, o Options, rep *Report) error {
	listed, err := o.S3.List(ctx, o.To.Bucket, o.To.Prefix)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if listed, err = sortListed(o, listed); err != nil { // a shard's: its own objects
		return err
	}
	known := make(map[string]bool, len(rep.S3.objects))
	for _, ob := range rep.S3.objects {
		known[ob.Key] = true
	}
	for _, l := range listed {
		if known[l.Key] {
			continue
		}
		name := strings.TrimPrefix(l.Key, o.To.Prefix)
		if !o.Resume || !o.Shard.Sharded() && !objects.IsName(name) || !strings.HasSuffix(name, o.Compression.Ext()) {
			return fmt.Errorf("migrate: %s holds %s, which is not one of this job's objects: ImportTable would read it as data; remove it, then --resume", o.To, o.To.URL(l.Key))
		}
		if err := o.S3.Delete(ctx, o.To.Bucket, l.Key); err != nil {
			return fmt.Errorf("migrate: deleting %s, which an interrupted run's upload stored late: %w", o.To.URL(l.Key), err)
		}
		rep.S3.LateDeleted = append(rep.S3.LateDeleted, o.To.URL(l.Key))
	}
	return nil
}

// s3Manifest is the manifest written beside the prefix once every item is
// in an object: the objects with their items, sizes and SHA-256, the
// table ImportTable is to create, and whose job it was.
type s3Manifest struct {
	Format        string         `json:"format"`
	Version       int            `json:"version"`
	URL           string         `json:"url"`
	Shard         string         `json:"shard,omitempty"` // "2/3": the manifest of shard 2 of 3 (s3shard.go)
	Bucket        string         `json:"bucket"`
	Prefix        string         `json:"prefix"`
	InputFormat   string         `json:"input_format"`
	Compression   string         `json:"input_compression_type"`
	Table         *tableCreation `json:"table"`
	MappingDigest string         `json:"mapping_digest"`
	// SplitDigest is a shard's: the digest of its split plan (splitplan.go),
	// the same in every shard's manifest of a job whose shards read one
	// split.
	SplitDigest string `json:"split_digest,omitempty"`
	// Job is a shard's --job, when given (a record: a new job's prefix
	// holds no object, so two jobs' objects never mix).
	Job string `json:"job,omitempty"`
	// Follow is a followed shard's (s3shardfollow.go): where its snapshot
	// is in the source's history, for the follower of the job.
	Follow       *manifestFollow `json:"follow,omitempty"`
	Source       string          `json:"source"`
	Engine       string          `json:"engine"`
	Written      time.Time       `json:"written"`
	Items        int64           `json:"items"`
	Bytes        int64           `json:"bytes"`
	Uncompressed int64           `json:"uncompressed_bytes"`
	Rejected     int64           `json:"rejected"`
	Entities     []EntityReport  `json:"entities"`
	Objects      []s3Object      `json:"objects"`
}

// writeManifest writes the manifest of a complete job.
func writeManifest(ctx context.Context, o Options, rep *Report, c *counters, rej *rejects, splitDigest string, fol *manifestFollow) error {
	objs := slices.Clone(rep.S3.objects)
	slices.SortFunc(objs, func(a, b s3Object) int { return strings.Compare(a.Key, b.Key) })
	m := s3Manifest{
		Format: "remodel-import-manifest", Version: 1, URL: o.To.String(), Shard: o.Shard.String(), Bucket: o.To.Bucket, Prefix: o.To.Prefix,
		InputFormat: "DYNAMODB_JSON", Compression: o.Compression.ImportType(), Table: importDefinition(&o.Plan.Table, o.Table),
		MappingDigest: o.MappingDigest, SplitDigest: splitDigest, Job: o.Job, Source: o.SourceID, Engine: string(o.Source.Engine()), Written: time.Now().UTC(),
		Objects: objs, Follow: fol,
	}
	var tmp Report
	tmp.finish(o.Plan, c, rej)
	m.Entities = tmp.Entities
	for _, ob := range objs {
		m.Items += ob.Items
		m.Bytes += ob.Bytes
		m.Uncompressed += ob.Uncompressed
	}
	for _, e := range m.Entities {
		m.Rejected += e.Rejected
	}
	if !o.Resume && m.Items != c.written.Load() {
		return fmt.Errorf("migrate: the objects hold %d items, but %d were acknowledged", m.Items, c.written.Load())
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("migrate: encoding the manifest: %w", err)
	}
	if err := o.S3.Put(ctx, o.To.Bucket, manifestKey(o), append(b, '\n'), "application/json"); err != nil {
		return fmt.Errorf("migrate: the manifest: %w", err)
	}
	rep.S3.Manifest = manifestURL(o)
	// The import's client token comes from the objects and the table, not
	// the manifest's time: a resumed --import of the same objects is the
	// same import.
	id, err := json.Marshal(struct {
		Objects []s3Object
		Table   *tableCreation
	}{objs, m.Table})
	if err != nil {
		return fmt.Errorf("migrate: encoding the manifest: %w", err)
	}
	rep.S3.params, rep.S3.manifest, rep.S3.items = m.Table, id, m.Items
	return nil
}

// tableCreation is the table ImportTable creates, as its
// TableCreationParameters, with the TTL attribute it enables afterwards:
// the mapping's definition (verify --files compares a manifest's with it).
type tableCreation = mapping.TableDefinition

// importDefinition is the table the mapping describes, for ImportTable:
// its keys, attributes, billing and global indexes (a local index is
// refused before: refuseS3).
func importDefinition(t *mapping.Table, name string) *tableCreation {
	d := t.Definition(name)
	d.Local = nil
	return d
}
