package migrate

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/remodel-dev/remodel/internal/domain/s3out"
)

// "Verify before you pay": migrate --to URL (no --import) writes the
// objects and the manifest, verify --files checks them against the source,
// and then migrate --to URL --import (or --bulk-put) loads the objects of
// that finished run instead of refusing the prefix they are under. The
// manifest beside the prefix says the run finished; the run checks that it
// is this job's (the same URL, mapping file and table definition) and that
// the prefix holds exactly the objects it lists, with their sizes, and
// copies nothing.

// loadFinished loads the objects of a finished unsharded run under o.To
// (its manifest there) with ImportTable or StartBulkPutItems; false when
// there is no such run to load (the run then copies, as a new job).
func loadFinished(ctx context.Context, o Options, rep *Report, bulk *BulkPut) (bool, error) {
	if o.Resume || o.Follow || o.Shard.Sharded() || o.ShardsDone > 0 || !o.Import && bulk == nil {
		return false, nil
	}
	m, err := finishedManifest(ctx, o)
	if m == nil || err != nil {
		return false, err
	}
	want := importDefinition(&o.Plan.Table, o.Table)
	comp, err := manifestFits(ctx, o, m, want)
	if err != nil {
		return true, err
	}
	o.Compression = comp
	if err := reportLoaded(o, rep, m, want); err != nil {
		return true, err
	}
	return true, loadObjects(ctx, o, rep, bulk, m)
}

// finishedManifest reads the manifest of a finished run under o.To; nil
// when there is none.
func finishedManifest(ctx context.Context, o Options) (*s3Manifest, error) {
	listed, err := o.S3.List(ctx, o.To.Bucket, o.To.ManifestsPrefix())
	if err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	if !slices.ContainsFunc(listed, func(l s3out.Listed) bool { return l.Key == o.To.ManifestKey() }) {
		return nil, nil
	}
	raw, err := o.S3.Get(ctx, o.To.Bucket, o.To.ManifestKey())
	if err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	var m s3Manifest
	if err := json.Unmarshal(raw, &m); err != nil || m.Format != "remodel-import-manifest" {
		return nil, fmt.Errorf("migrate: %s is not a manifest of migrate --to (%v)", o.To.ManifestURL(), err)
	}
	return &m, nil
}

// manifestFits refuses a manifest that is not this run's (another --to,
// mapping or table) or whose objects are not what is under the prefix,
// and returns the compression its objects have.
func manifestFits(ctx context.Context, o Options, m *s3Manifest, want *tableCreation) (s3out.Compression, error) {
	var problems []string
	if m.URL != o.To.String() || m.Shard != "" {
		problems = append(problems, fmt.Sprintf("it is the manifest of %s (shard %q)", m.URL, m.Shard))
	}
	if o.MappingDigest != "" && m.MappingDigest != o.MappingDigest {
		problems = append(problems, fmt.Sprintf("it was written with another mapping file (SHA-256 %s, the mapping file's is %s)", m.MappingDigest, o.MappingDigest))
	}
	if got, w := m.Table.JSON(), want.JSON(); got != w {
		problems = append(problems, fmt.Sprintf("it describes another table than the mapping does: %s, the mapping %s", got, w))
	}
	comp, ok := s3out.CompressionOfImportType(m.Compression)
	if !ok {
		problems = append(problems, fmt.Sprintf("it names compression %q", m.Compression))
	}
	objs, err := o.S3.List(ctx, o.To.Bucket, o.To.Prefix)
	if err != nil {
		return "", fmt.Errorf("migrate: %w", err)
	}
	problems = append(problems, objectsUnlike(o, m, objs)...)
	if len(problems) > 0 {
		if len(problems) > 10 {
			problems = append(problems[:10], fmt.Sprintf("and %d more", len(problems)-10))
		}
		return "", fmt.Errorf("migrate: %s holds the objects of a finished run, but its manifest %s does not fit this one: %s; give an empty prefix, or the mapping, table and --to of that run", o.To, o.To.ManifestURL(), strings.Join(problems, "; "))
	}
	return comp, nil
}

// objectsUnlike lists where the objects under the prefix (objs) and the
// manifest's differ: one in either only, or of another size.
func objectsUnlike(o Options, m *s3Manifest, objs []s3out.Listed) []string {
	var problems []string
	in := map[string]s3Object{}
	for _, ob := range m.Objects {
		in[ob.Key] = ob
	}
	for _, l := range objs {
		ob, ok := in[l.Key]
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("%s is under the prefix but not in the manifest: it would be loaded too", o.To.URL(l.Key)))
		case l.Size != ob.Bytes:
			problems = append(problems, fmt.Sprintf("%s has %d bytes, the manifest says %d", o.To.URL(l.Key), l.Size, ob.Bytes))
		}
		delete(in, l.Key)
	}
	for k := range in {
		problems = append(problems, fmt.Sprintf("%s is in the manifest but not under the prefix", o.To.URL(k)))
	}
	return problems
}

// reportLoaded puts the manifest's objects in the report, and what names
// the load: the objects and this run's table (--table may name another
// than the copy's).
func reportLoaded(o Options, rep *Report, m *s3Manifest, want *tableCreation) error {
	rep.S3 = &S3Report{URL: o.To.String(), Compression: string(o.Compression), Manifest: o.To.ManifestURL(), ObjectsKept: len(m.Objects)}
	id, err := json.Marshal(struct {
		Objects []s3Object
		Table   *tableCreation
	}{m.Objects, want})
	if err != nil {
		return fmt.Errorf("migrate: encoding the manifest: %w", err)
	}
	rep.S3.params, rep.S3.manifest, rep.S3.items, rep.S3.objects = want, id, m.Items, m.Objects
	for _, ob := range m.Objects {
		rep.S3.Objects++
		rep.S3.Bytes += ob.Bytes
		rep.S3.Uncompressed += ob.Uncompressed
	}
	return nil
}

// loadObjects imports the manifest's objects, or bulk puts them into the
// table there, with the rejects file of this run, and completes the
// report: the counts are the copy's (the manifest's entities).
func loadObjects(ctx context.Context, o Options, rep *Report, bulk *BulkPut, m *s3Manifest) (err error) {
	c := loadedCounters(o, m.Entities)
	rej := &rejects{path: o.RejectsPath, max: o.MaxRejects}
	if err := rej.start(false); err != nil {
		return err
	}
	if bulk != nil {
		if err = checkBulkTable(ctx, o); err == nil {
			bulk.units, o.RateLimit = o.RateLimit, 0
			err = bulkPut(ctx, o, rep, nil, c, rej, bulk)
		}
	} else {
		err = importTable(ctx, o, rep)
	}
	if cerr := rej.close(); err == nil {
		err = cerr
	}
	rep.finish(o.Plan, c, rej)
	rep.WriteUnits = 0
	if rej.n > 0 && o.RejectsPath != "" {
		rep.RejectsFile = o.RejectsPath
	}
	return err
}

// loadedCounters are the counts of a run that loads objects written before
// (their manifests' entities): the report then gives the rows and items
// the objects hold, not nothing.
func loadedCounters(o Options, entities []EntityReport) *counters {
	c := &counters{perEntity: map[string]*entityCounters{}}
	for _, e := range o.Plan.Entities {
		c.perEntity[e.Name] = &entityCounters{}
	}
	for _, e := range entities {
		ec := c.perEntity[e.Name]
		if ec == nil {
			continue
		}
		ec.read.Add(e.Rows)
		ec.written.Add(e.Items)
		ec.rejected.Add(e.Rejected)
		c.read.Add(e.Rows)
		c.written.Add(e.Items)
		c.rejected.Add(e.Rejected)
	}
	return c
}

// reportShards gives the report of --import --shards-done n the rows and
// items of the shards' manifests, and the time the import took.
func reportShards(ctx context.Context, o Options, rep *Report) {
	set, err := readShardManifests(ctx, o.S3, *o.To, o.ShardsDone)
	var ents []EntityReport
	if err == nil {
		byName := map[string]*EntityReport{}
		for _, m := range set.Manifests {
			for _, e := range m.Entities {
				if byName[e.Name] == nil {
					ents = append(ents, EntityReport{Name: e.Name})
					byName[e.Name] = &ents[len(ents)-1]
				}
			}
		}
		byName = map[string]*EntityReport{}
		for i := range ents {
			byName[ents[i].Name] = &ents[i]
		}
		for _, m := range set.Manifests {
			for _, e := range m.Entities {
				t := byName[e.Name]
				t.Rows += e.Rows
				t.Items += e.Items
				t.Rejected += e.Rejected
			}
		}
	}
	rej := &rejects{}
	rep.finish(o.Plan, loadedCounters(o, ents), rej)
	rep.WriteUnits = 0
}
