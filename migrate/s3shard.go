package migrate

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/remodel-dev/remodel/internal/domain/s3out"
)

// Sharded runs of the S3 route (--shard i/n --to s3://bucket/prefix/):
// every shard writes its own objects under the one prefix, named with the
// shard (shard-2-of-3-<run>-<number>.json.gz: never another shard's
// name), and, once its items are all in objects, its own manifest beside
// the prefix (orders.shard-2-of-3.remodel-manifest.json, whose "shard" is
// "2/3"). A new shard
// accepts its sibling shards' objects under the prefix (the same n, another
// i) and nothing else: another job's object, one of an unsharded run or of
// another n, or one of its own shard (an earlier run of it to --resume).
// A second copy of the shard running is refused before, by the shard's
// claim (s3claim.go). A resumed shard reads back and keeps its own objects
// only.
//
// ImportTable runs once, after every shard is done, from a run that copies
// nothing (migrate --to URL --import --shards-done n: importShards): it
// reads the n manifests, checks that they are all there, of one job (one
// mapping, compression, table, --job) and that the prefix holds exactly
// the objects they list, and that they name one split plan
// (manifestConflicts: shards that cut the reads differently read some rows
// twice and some not at all), and imports them all. No process sees every shard's keys as
// they are written: a key rendered by two shards (two rows rendering one
// key, or two copies of one shard on a store that ignores a conditional
// create) is found by verify --files, which reads every object of every
// shard.

// shardOfObject is the shard that wrote the object of that name (under
// the prefix); ok is false for a name no shard gives.
func shardOfObject(name string) (Shard, bool) {
	i, n, ok := s3out.ShardOfObject(name)
	return Shard{Index: i, Count: n}, ok && n <= MaxShards
}

// runName is the part of this run's object names before their number:
// the run's id, after the shard for a shard.
func runName(o Options, id string) string {
	if o.Shard.Sharded() {
		return o.Shard.FileSuffix() + "-" + id
	}
	return id
}

// manifestKey is the key of the run's manifest.
func manifestKey(o Options) string {
	if o.Shard.Sharded() {
		return o.To.ShardManifestKey(o.Shard.FileSuffix())
	}
	return o.To.ManifestKey()
}

func manifestURL(o Options) string { return o.To.URL(manifestKey(o)) }

// sortListed takes out of the listing the objects of the sibling shards of
// a shard (left to them) and refuses any object no shard of this job
// wrote; what is left is the run's own (for an unsharded run: everything).
func sortListed(o Options, listed []s3out.Listed) ([]s3out.Listed, error) {
	if !o.Shard.Sharded() {
		return listed, nil
	}
	var own []s3out.Listed
	for _, l := range listed {
		name := strings.TrimPrefix(l.Key, o.To.Prefix)
		s, ok := shardOfObject(name)
		switch {
		case !ok:
			return nil, fmt.Errorf("migrate: %s holds %s, which no shard of a sharded job wrote: ImportTable reads every object under the prefix as data; give a prefix that holds only this job's shards' objects", o.To, o.To.URL(l.Key))
		case s.Count != o.Shard.Count:
			return nil, fmt.Errorf("migrate: %s holds %s, written by shard %s: a job of %d shards, not %d; every shard of a job must be given the same n", o.To, o.To.URL(l.Key), s, s.Count, o.Shard.Count)
		case s.Index == o.Shard.Index:
			own = append(own, l)
		}
	}
	return own, nil
}

// importShards is migrate --to URL --import --shards-done n: it copies
// nothing, checks the n shards' manifests and the objects under the prefix,
// and imports them (importTable). A followed job's (sf not nil) manifests
// must each name the shard's start, the earliest of which is recorded as
// the follower's (s3shardfollow.go).
func importShards(ctx context.Context, o Options, rep *Report, sf *followSetup, tr *tracker) error {
	set, err := readShardManifests(ctx, o.S3, *o.To, o.ShardsDone)
	if err != nil {
		return err
	}
	want := importDefinition(&o.Plan.Table, o.Table)
	problems := missingShards(o, set)
	so, more := listedObjects(o, set.Manifests, want.JSON())
	problems = append(problems, more...)
	problems = append(problems, manifestConflicts(set.Manifests)...)
	more, err = sf.shardsStart(o, tr, set.Manifests) // followed: from the earliest shard's start (s3shardfollow.go)
	if err != nil {
		return err
	}
	problems = append(problems, more...)
	more, err = so.underPrefix(ctx, o)
	if err != nil {
		return err
	}
	problems = append(problems, more...)
	if len(so.objs) > MaxImportObjects {
		problems = append(problems, fmt.Sprintf("the shards wrote %d objects, more than the %d one ImportTable reads: run them again with a larger --object-size", len(so.objs), MaxImportObjects))
	}
	if len(problems) > 0 {
		slices.Sort(problems[min(len(problems), len(set.Missing)+len(set.Others)):])
		if len(problems) > 10 {
			problems = append(problems[:10], fmt.Sprintf("and %d more", len(problems)-10))
		}
		return fmt.Errorf("migrate: --import --shards-done %d: %s", o.ShardsDone, strings.Join(problems, "; "))
	}
	return so.load(ctx, o, rep, tr, want)
}

// missingShards are the problems of a set of manifests that lacks a
// shard's or holds another job's.
func missingShards(o Options, set *shardManifests) []string {
	var problems []string
	if len(set.Missing) > 0 {
		var names []string
		for _, s := range set.Missing {
			names = append(names, "shard "+s.String()+" ("+o.To.ShardManifestURL(s.FileSuffix())+")")
		}
		problems = append(problems, "no manifest of "+strings.Join(names, ", ")+": that shard has not finished; run it (or --resume it) first")
	}
	for _, other := range set.Others {
		problems = append(problems, o.To.URL(other)+" is the manifest of another job or run beside the prefix")
	}
	return problems
}

// shardObjects are the objects the shards' manifests list, to be
// imported together.
type shardObjects struct {
	byKey map[string]s3Object
	objs  []s3Object
	comp  string // the compression the manifests name
	items int64
}

// listedObjects gathers the objects the manifests list, with the problems
// of manifests that disagree with each other or with the mapping (whose
// table definition, as JSON, is wantJSON).
func listedObjects(o Options, manifests []shardManifestRead, wantJSON string) (*shardObjects, []string) {
	so := &shardObjects{byKey: map[string]s3Object{}}
	var problems []string
	for _, m := range manifests {
		url := o.To.ShardManifestURL(m.shard.FileSuffix())
		if so.comp == "" {
			so.comp = m.Compression
		} else if m.Compression != so.comp {
			problems = append(problems, fmt.Sprintf("%s names compression %s, another shard's %s", url, m.Compression, so.comp))
		}
		if o.MappingDigest != "" && m.MappingDigest != o.MappingDigest {
			problems = append(problems, fmt.Sprintf("%s was written with another mapping file (SHA-256 %s, the mapping file's is %s)", url, m.MappingDigest, o.MappingDigest))
		}
		if got := m.Table.JSON(); got != wantJSON {
			problems = append(problems, fmt.Sprintf("%s describes another table than the mapping does: %s, the mapping %s", url, got, wantJSON))
		}
		for _, ob := range m.Objects {
			if was, dup := so.byKey[ob.Key]; dup && was.SHA256 != ob.SHA256 {
				problems = append(problems, fmt.Sprintf("two manifests list %s", o.To.URL(ob.Key)))
			}
			so.byKey[ob.Key] = ob
			so.objs = append(so.objs, ob)
			so.items += ob.Items
		}
	}
	return so, problems
}

// underPrefix compares the objects under the prefix with the listed ones:
// ImportTable imports every object under it.
func (so *shardObjects) underPrefix(ctx context.Context, o Options) ([]string, error) {
	listed, err := o.S3.List(ctx, o.To.Bucket, o.To.Prefix)
	if err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	var problems []string
	under := map[string]bool{}
	for _, l := range listed {
		under[l.Key] = true
		ob, ok := so.byKey[l.Key]
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("%s is under the prefix but in no shard's manifest: ImportTable would import it too", o.To.URL(l.Key)))
		case l.Size != ob.Bytes:
			problems = append(problems, fmt.Sprintf("%s has %d bytes, its manifest says %d", o.To.URL(l.Key), l.Size, ob.Bytes))
		}
	}
	for k := range so.byKey {
		if !under[k] {
			problems = append(problems, fmt.Sprintf("%s is in a manifest but not under the prefix", o.To.URL(k)))
		}
	}
	return problems, nil
}

// load imports the checked objects into a new table of definition want.
func (so *shardObjects) load(ctx context.Context, o Options, rep *Report, tr *tracker, want *tableCreation) error {
	switch strings.ToUpper(so.comp) {
	case "ZSTD":
		o.Compression = s3out.Zstd
	default:
		o.Compression = s3out.Gzip
	}
	rep.S3.Compression = string(o.Compression)
	if err := checkNoTable(ctx, o); err != nil {
		return err
	}
	objs := so.objs
	slices.SortFunc(objs, func(a, b s3Object) int { return strings.Compare(a.Key, b.Key) })
	for _, ob := range objs {
		rep.S3.Objects++
		rep.S3.Bytes += ob.Bytes
		rep.S3.Uncompressed += ob.Uncompressed
	}
	id, err := json.Marshal(struct {
		Objects []s3Object
		Table   *tableCreation
	}{objs, want})
	if err != nil {
		return fmt.Errorf("migrate: encoding the import's token: %w", err)
	}
	rep.S3.params, rep.S3.manifest, rep.S3.items = want, id, so.items
	rep.S3.ShardsImported = o.ShardsDone
	if err := tr.followLoading(PhaseImport); err != nil {
		return err
	}
	return importTable(ctx, o, rep)
}

// manifestConflicts are the problems of the shards' manifests that name
// more than one split plan or more than one --job (s3out.SplitConflict,
// s3out.JobConflict).
func manifestConflicts(ms []shardManifestRead) []string {
	shards, digests, jobs := make([]string, len(ms)), make([]string, len(ms)), make([]string, len(ms))
	for i, m := range ms {
		shards[i], digests[i], jobs[i] = m.shard.String(), m.SplitDigest, m.Job
	}
	var problems []string
	for _, p := range []string{s3out.SplitConflict(shards, digests), s3out.JobConflict(shards, jobs)} {
		if p != "" {
			problems = append(problems, p)
		}
	}
	return problems
}

// shardManifests is what the manifests beside a prefix are: the shards'
// of a job of n shards (Manifests, in shard order), the shards of it that
// have none yet (Missing), and the keys of the other manifests there (of
// an unsharded run, or of shards of another n).
type shardManifests struct {
	Manifests []shardManifestRead
	Missing   []Shard
	Others    []string
}

type shardManifestRead struct {
	s3Manifest
	shard Shard
}

// readShardManifests reads the manifests of the n shards of the job
// under loc.
func readShardManifests(ctx context.Context, st s3out.Store, loc s3out.Location, n int) (*shardManifests, error) {
	listed, err := st.List(ctx, loc.Bucket, loc.ManifestsPrefix())
	if err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	out := &shardManifests{}
	have := map[int]bool{}
	for _, l := range listed {
		name := strings.TrimPrefix(l.Key, loc.ManifestsPrefix())
		if strings.Contains(name, "/") {
			continue
		}
		i, n2, ok := s3out.ShardOfManifest(name)
		s := Shard{Index: i, Count: n2}
		if !ok && name != "remodel-manifest.json" {
			continue
		}
		if !ok || s.Count != n {
			out.Others = append(out.Others, l.Key)
			continue
		}
		raw, err := st.Get(ctx, loc.Bucket, l.Key)
		if err != nil {
			return nil, fmt.Errorf("migrate: %w", err)
		}
		var m shardManifestRead
		if err := json.Unmarshal(raw, &m.s3Manifest); err != nil || m.Format != "remodel-import-manifest" {
			return nil, fmt.Errorf("migrate: %s is not a manifest of migrate --to (%v)", loc.URL(l.Key), err)
		}
		if m.Shard != s.String() || m.URL != loc.String() {
			return nil, fmt.Errorf("migrate: %s is the manifest of shard %q of %s, not of shard %s of %s", loc.URL(l.Key), m.Shard, m.URL, s, loc)
		}
		m.shard = s
		have[s.Index] = true
		out.Manifests = append(out.Manifests, m)
	}
	slices.SortFunc(out.Manifests, func(a, b shardManifestRead) int { return a.shard.Index - b.shard.Index })
	for i := 1; i <= n; i++ {
		if !have[i] {
			out.Missing = append(out.Missing, Shard{Index: i, Count: n})
		}
	}
	return out, nil
}
