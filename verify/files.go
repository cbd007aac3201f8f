package verify

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/av"
	"github.com/remodel-dev/remodel/internal/domain/keyset"
	"github.com/remodel-dev/remodel/internal/domain/progress"
	"github.com/remodel-dev/remodel/internal/domain/s3out"
	"github.com/remodel-dev/remodel/mapping"
)

// The problems of the check of files (Options.Files).
const (
	// KindObjectMissing: the manifest lists an object that is not under the prefix.
	KindObjectMissing Kind = "object_missing"
	// KindObjectUnlisted: an object under the prefix is not in the manifest
	// (ImportTable would import it all the same).
	KindObjectUnlisted Kind = "object_not_in_manifest"
	// KindObjectDamaged: an object's size, SHA-256 or item count is not the
	// manifest's, or it cannot be decompressed or holds a line that is not
	// ImportTable's DynamoDB JSON.
	KindObjectDamaged Kind = "object_damaged"
	// KindMappingDigest: the manifest was written with another mapping file.
	KindMappingDigest Kind = "mapping_digest_mismatch"
	// KindFilesDuplicate: the objects hold one key twice (ImportTable would
	// keep one of the items).
	KindFilesDuplicate Kind = "duplicate_key_in_objects"
	// KindManifestMissing: a shard of a sharded job (migrate --shard i/n
	// --to) has no manifest beside the prefix: it has not finished.
	KindManifestMissing Kind = "shard_manifest_missing"
	// KindManifestConflict: the manifests beside the prefix are not of one
	// job: an unsharded run's beside shards', shards of different n,
	// different compressions, or different --job.
	KindManifestConflict Kind = "manifest_conflict"
	// KindSplitConflict: the manifests of a sharded job's shards name
	// different split plans (migrate's split_digest): the shards cut the
	// source into different key ranges, so rows between differing
	// boundaries are in two shards' objects or in none.
	KindSplitConflict Kind = "split_conflict"
	// KindTableDefinition: a manifest's table (the one ImportTable is to
	// create) is not the mapping's: its key schema, attribute definitions,
	// billing, a global index or the TTL attribute differ (Attribute names
	// what, Want and Got how).
	KindTableDefinition Kind = "table_definition_mismatch"
)

// FilesCheck is the check of migrate --to's objects and their manifest
// (verify --files): every object the manifest lists is under the prefix
// with its size and SHA-256 and item count, no other object is, every line
// is ImportTable's DynamoDB JSON, no key is there twice, and the manifest
// was written with the mapping verify reads. The counts and items of the
// report then compare the objects' items, not a table's, with the source.
type FilesCheck struct {
	URL      string `json:"url"`
	Manifest string `json:"manifest"`
	// Shards is the n of a sharded job's objects (migrate --shard i/n
	// --to), whose n manifests (Manifests, those found) are read as one.
	Shards    int      `json:"shards,omitempty"`
	Manifests []string `json:"manifests,omitempty"`
	// Objects is how many objects the manifest lists; Read how many
	// objects were read (those under the prefix); Items the lines they hold.
	Objects int   `json:"objects"`
	Read    int   `json:"objects_read"`
	Items   int64 `json:"items"`
	Bytes   int64 `json:"bytes"`
	// MappingDigest is the manifest's, and MappingChecked whether it was
	// compared with the mapping file's.
	MappingDigest  string   `json:"mapping_digest,omitempty"`
	MappingChecked bool     `json:"mapping_checked"`
	Problems       Problems `json:"problems"`
	OK             bool     `json:"ok"`
	// held is the most items of the objects joinFiles held in memory at
	// once (a bucket's), pendingHeld the differing items resolveFiles held:
	// spilled the bytes the two spills held on disk: what the tests bound.
	held, pendingHeld int
	spilled           int64
}

// Summary says what the files check found.
func (c *FilesCheck) Summary() string {
	return fmt.Sprintf("%d objects of %d listed read, %d items, %d bytes", c.Read, c.Objects, c.Items, c.Bytes)
}

// filesManifest is the part of migrate's manifest (migrate/s3run.go) the
// check reads.
type filesManifest struct {
	Format        string `json:"format"`
	Version       int    `json:"version"`
	Shard         string `json:"shard"`
	Compression   string `json:"input_compression_type"`
	MappingDigest string `json:"mapping_digest"`
	// Table is the table ImportTable is to create (the mapping's, when
	// migrate wrote it).
	Table       *mapping.TableDefinition `json:"table"`
	SplitDigest string                   `json:"split_digest"`
	Job         string                   `json:"job"`
	Items       int64                    `json:"items"`
	Objects     []struct {
		Key    string `json:"key"`
		Items  int64  `json:"items"`
		Bytes  int64  `json:"bytes"`
		SHA256 string `json:"sha256"`
	} `json:"objects"`
}

// files is the state of a check of files: the objects' items and the
// rows compared are on disk (files_join.go), not in memory.
type files struct {
	fc      *FilesCheck
	comp    s3out.Compression
	objects []string      // the objects read, by index
	items   *keyset.Spill // a record of each item of the objects
	rows    *keyset.Spill // a record of each row compared; nil until the rows are read
	ics     []ItemCheck
}

func (f *files) close() {
	f.items.Close()
	f.rows.Close()
}

// runFiles checks the objects under Options.Files instead of a table.
func (v *verifier) runFiles(ctx context.Context, rep *Report) error {
	loc := *v.o.Files
	fc := &FilesCheck{URL: loc.String(), Manifest: loc.ManifestURL(), Problems: v.problems()}
	rep.Files = fc
	f := &files{fc: fc, items: keyset.NewCompressedSpill("the items of the objects")}
	defer f.close()
	for _, ap := range v.o.Plan.AccessPatterns {
		rep.Patterns = append(rep.Patterns, PatternCheck{Name: ap.Name, Target: ap.Target(), Problems: v.problems(),
			Note: "not checked (files)", NotChecked: true, OK: true})
	}
	if err := v.checkObjects(ctx, rep, f); err != nil {
		return err
	}
	fc.OK = fc.Problems.OK()

	per := 1 + v.o.Plan.MaxEmbeds()
	sets := 1
	if v.o.SkipItems {
		sets = 0
	}
	snap, err := v.o.Source.Snapshot(ctx, 1+sets*per)
	if err != nil {
		return err
	}
	defer snap.Close()
	if w := snap.Warning(); w != "" {
		rep.Warning = strings.TrimPrefix(rep.Warning+"; "+w, "; ")
	}
	readers := snap.Readers()
	v.r = readers[0]
	if err := v.sourceCounts(ctx, rep); err != nil {
		return err
	}
	v.listRejects(rep)
	v.compareCounts(rep)
	if v.o.SkipItems {
		_, err := v.joinFiles(rep, f) // the keys twice in the objects
		fc.OK = fc.Problems.OK()
		return err
	}
	rs := readerSet{r: readers[1], kr: readers[2 : per+1]}
	phase := v.itemsPhase(rep)
	f.ics = make([]ItemCheck, len(v.o.Plan.Entities))
	f.rows = keyset.NewCompressedSpill("the rows compared")
	for i, e := range v.o.Plan.Entities {
		if v.countFailed[e.Name] {
			f.ics[i] = ItemCheck{Entity: e.Name, Problems: v.problems()}
			f.ics[i].Problems.Add(Problem{Kind: KindCheckError, Entity: e.Name,
				Message: "items not compared: the rows of entity " + e.Name + " cannot be read (see its count)"})
			continue
		}
		if err := v.fileItems(ctx, f, i, rs, phase.Counter(i)); err != nil {
			phase.End(false)
			return err
		}
		phase.Counter(i).Finish()
	}
	phase.End(true)
	if err := f.rows.Err(); err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	pending, err := v.joinFiles(rep, f)
	fc.OK = fc.Problems.OK()
	if err != nil {
		return err
	}
	if err := v.resolveFiles(ctx, f, rs, pending); err != nil {
		return err
	}
	for i := range f.ics {
		ic := &f.ics[i]
		ic.OK = ic.Missing == 0 && ic.Different == 0 && ic.Rejected == 0 && ic.Problems.OK()
		rep.Items = append(rep.Items, *ic)
	}
	v.checkRejects(rep) // the rows the source lacks (v.keys is nil: nothing else)
	return nil
}

// readManifests reads the manifest of the objects under the prefix, or
// the manifests of the shards of a sharded job (migrate --shard i/n --to:
// prefix.shard-i-of-n.remodel-manifest.json, read as one manifest listing
// every shard's objects: a shard without one, or manifests of more than
// one job, are problems), sets the check's compression, and compares the
// mapping digests.
func (v *verifier) readManifests(ctx context.Context, rep *Report, f *files) (filesManifest, error) {
	loc, fc := *v.o.Files, f.fc
	ml, err := v.listManifests(ctx)
	if err != nil {
		return filesManifest{}, err
	}
	var ms []filesManifest
	var urls []string
	if len(ml.shards) == 0 {
		m, err := v.readManifest(ctx, loc.ManifestKey())
		if err != nil {
			return m, err
		}
		fc.Manifest = loc.ManifestURL()
		ms, urls = append(ms, m), append(urls, fc.Manifest)
	} else if ms, urls, err = v.readShardManifests(ctx, fc, ml); err != nil {
		return filesManifest{}, err
	}
	out := mergeManifests(fc, ms, urls)
	comp, ok := s3out.CompressionOfImportType(out.Compression)
	if !ok {
		return out, fmt.Errorf("verify: the manifest %s names compression %q: GZIP, ZSTD or NONE", urls[0], out.Compression)
	}
	f.comp = comp
	fc.Objects, fc.MappingDigest = len(out.Objects), out.MappingDigest
	if v.o.MappingDigest != "" {
		fc.MappingChecked = true
		for i, m := range ms {
			if m.MappingDigest != v.o.MappingDigest {
				fc.Problems.Add(Problem{Kind: KindMappingDigest, Want: v.o.MappingDigest, Got: m.MappingDigest,
					Message: fmt.Sprintf("the manifest %s was written with another mapping file (SHA-256 %s, the mapping file's is %s)", urls[i], m.MappingDigest, v.o.MappingDigest)})
			}
		}
	} else {
		rep.Warning = strings.TrimPrefix(rep.Warning+"; the manifest's mapping digest was not compared with the mapping file's", "; ")
	}
	v.checkDefinitions(fc, ms, urls)
	return out, nil
}

// shardOf is a shard i of n, as its manifest's name says.
type shardOf struct{ i, n int }

// manifestList is what lies beside the prefix: the shards' manifests (by
// shard, with their keys) and whether an unsharded run's is there too.
type manifestList struct {
	shards []shardOf
	keys   map[shardOf]string
	plain  bool
}

// listManifests lists the manifests beside the prefix.
func (v *verifier) listManifests(ctx context.Context) (manifestList, error) {
	loc := *v.o.Files
	listed, err := v.o.S3.List(ctx, loc.Bucket, loc.ManifestsPrefix())
	if err != nil {
		return manifestList{}, fmt.Errorf("verify: %w", err)
	}
	ml := manifestList{keys: map[shardOf]string{}}
	for _, l := range listed {
		name := strings.TrimPrefix(l.Key, loc.ManifestsPrefix())
		if i, n, ok := s3out.ShardOfManifest(name); ok {
			ml.shards = append(ml.shards, shardOf{i, n})
			ml.keys[shardOf{i, n}] = l.Key
		} else if l.Key == loc.ManifestKey() {
			ml.plain = true
		}
	}
	return ml, nil
}

// readManifest reads the manifest at key.
func (v *verifier) readManifest(ctx context.Context, key string) (filesManifest, error) {
	loc := *v.o.Files
	url := loc.URL(key)
	raw, err := v.o.S3.Get(ctx, loc.Bucket, key)
	if err != nil {
		return filesManifest{}, fmt.Errorf("verify: reading the manifest %s (migrate --to writes it once every item is in an object): %w", url, err)
	}
	var m filesManifest
	if err := json.Unmarshal(raw, &m); err != nil || m.Format != "remodel-import-manifest" {
		return filesManifest{}, fmt.Errorf("verify: %s is not a manifest of migrate --to (%v)", url, err)
	}
	return m, nil
}

// readShardManifests reads the manifest of every shard of the job of the
// most shards listed; a missing one, or one of another job, is a problem.
func (v *verifier) readShardManifests(ctx context.Context, fc *FilesCheck, ml manifestList) (ms []filesManifest, urls []string, err error) {
	loc := *v.o.Files
	n := 0
	for _, s := range ml.shards {
		n = max(n, s.n)
	}
	fc.Shards = n
	fc.Manifest = loc.URL(loc.ManifestsPrefix()) + "shard-{1.." + fmt.Sprint(n) + "}-of-" + fmt.Sprint(n) + ".remodel-manifest.json"
	if ml.plain {
		fc.Problems.Add(Problem{Kind: KindManifestConflict, Key: loc.ManifestKey(),
			Message: fmt.Sprintf("the manifest %s of an unsharded run is beside the manifests of %d shards: the prefix holds the objects of more than one job", loc.ManifestURL(), n)})
	}
	for _, s := range ml.shards {
		if s.n != n {
			fc.Problems.Add(Problem{Kind: KindManifestConflict, Key: ml.keys[s],
				Message: fmt.Sprintf("the manifest %s is of shard %d/%d, beside the manifests of a job of %d shards", loc.URL(ml.keys[s]), s.i, s.n, n)})
		}
	}
	for i := 1; i <= n; i++ {
		key, ok := ml.keys[shardOf{i, n}]
		if !ok {
			want := loc.ShardManifestURL(fmt.Sprintf("shard-%d-of-%d", i, n))
			fc.Problems.Add(Problem{Kind: KindManifestMissing, Key: want,
				Message: fmt.Sprintf("shard %d/%d has no manifest (%s): it has not finished (its objects, if any, are in no manifest); run or --resume it, then verify again", i, n, want)})
			continue
		}
		m, err := v.readManifest(ctx, key)
		if err != nil {
			return nil, nil, err
		}
		if want := fmt.Sprintf("%d/%d", i, n); m.Shard != want {
			return nil, nil, fmt.Errorf("verify: %s is the manifest of shard %q, not %s", loc.URL(key), m.Shard, want)
		}
		ms, urls = append(ms, m), append(urls, loc.URL(key))
	}
	fc.Manifests = urls
	manifestConflicts(fc, ms)
	return ms, urls, nil
}

// mergeManifests is the manifests read as one: their objects and items,
// under the first one's compression (one naming another is a problem,
// and its objects are left out).
func mergeManifests(fc *FilesCheck, ms []filesManifest, urls []string) filesManifest {
	var out filesManifest
	for i, m := range ms {
		if i == 0 {
			out.Compression, out.MappingDigest = m.Compression, m.MappingDigest
		} else if !strings.EqualFold(m.Compression, out.Compression) {
			fc.Problems.Add(Problem{Kind: KindManifestConflict, Key: urls[i],
				Message: fmt.Sprintf("the manifest %s names compression %s, %s names %s", urls[i], m.Compression, urls[0], out.Compression)})
			continue
		}
		out.Items += m.Items
		out.Objects = append(out.Objects, m.Objects...)
	}
	return out
}

// checkDefinitions adds a problem for each way a manifest's table differs
// from the one the mapping describes (mapping.TableDefinition.Differences):
// an edited manifest would have ImportTable create another table than the
// one migrate and verify take the mapping's items to be in.
func (v *verifier) checkDefinitions(fc *FilesCheck, ms []filesManifest, urls []string) {
	want := v.o.Plan.Table.Definition("")
	for i, m := range ms {
		for _, d := range m.Table.Differences(want) {
			fc.Problems.Add(Problem{Kind: KindTableDefinition, Key: urls[i], Attribute: d.What, Want: d.Want, Got: d.Got,
				Message: fmt.Sprintf("the manifest %s describes another table than the mapping: its %s is %s, the mapping's %s", urls[i], d.What, d.Got, d.Want)})
		}
	}
}

// manifestConflicts adds a problem when the shards' manifests name more than
// one split plan (KindSplitConflict), or more than one --job
// (KindManifestConflict), naming the shards of each.
func manifestConflicts(fc *FilesCheck, ms []filesManifest) {
	shards, digests, jobs := make([]string, len(ms)), make([]string, len(ms)), make([]string, len(ms))
	for i, m := range ms {
		shards[i], digests[i], jobs[i] = m.Shard, m.SplitDigest, m.Job
	}
	if p := s3out.SplitConflict(shards, digests); p != "" {
		fc.Problems.Add(Problem{Kind: KindSplitConflict, Key: fc.Manifest, Message: p})
	}
	if p := s3out.JobConflict(shards, jobs); p != "" {
		fc.Problems.Add(Problem{Kind: KindManifestConflict, Key: fc.Manifest, Message: p})
	}
}

// checkObjects reads the manifest, checks it against the listing and the
// mapping, and reads every object under the prefix into f.items, counting
// the items of each entity (v.itemCounts) and naming the items of no entity.
func (v *verifier) checkObjects(ctx context.Context, rep *Report, f *files) error {
	loc, fc := *v.o.Files, f.fc
	m, err := v.readManifests(ctx, rep, f)
	if err != nil {
		return err
	}
	listed, err := v.o.S3.List(ctx, loc.Bucket, loc.Prefix)
	if err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	sizes := map[string]int64{}
	for _, l := range listed {
		sizes[l.Key] = l.Size
	}
	type want struct {
		items, bytes int64
		sha          string
	}
	inManifest := map[string]want{}
	for _, o := range m.Objects {
		inManifest[o.Key] = want{o.Items, o.Bytes, o.SHA256}
		if _, ok := sizes[o.Key]; !ok {
			fc.Problems.Add(Problem{Kind: KindObjectMissing, Key: o.Key,
				Message: fmt.Sprintf("object %s is in the manifest (%d items) but not under the prefix", loc.URL(o.Key), o.Items)})
		}
	}
	keys := make([]string, 0, len(sizes))
	for k := range sizes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	idx := map[string]int{}
	for i, e := range v.o.Plan.Entities {
		idx[e.Name] = i
	}
	counts := make([]int64, len(v.o.Plan.Entities))
	var rec []byte
	for _, key := range keys {
		url := loc.URL(key)
		w, listedOK := inManifest[key]
		if !listedOK {
			fc.Problems.Add(Problem{Kind: KindObjectUnlisted, Key: key,
				Message: fmt.Sprintf("object %s is under the prefix but not in the manifest: ImportTable would import it too", url)})
		}
		obj := int32(len(f.objects))
		f.objects = append(f.objects, key)
		st, damage, err := v.readObject(ctx, key, f.comp, func(item mapping.Item) {
			if v.t.IsLock(item) {
				return
			}
			k := v.t.KeyString(item)
			ent := int32(-1)
			if i, ok := idx[entityOf(item, v.t.EntityAttr)]; ok {
				ent = int32(i)
				counts[i]++
			} else {
				rep.Stray.Add(Problem{Kind: KindStray, Key: k,
					Message: fmt.Sprintf("item %s of %s belongs to no entity of the mapping (%s %s)", k, url, v.t.EntityAttr, quoteEntity(item, v.t.EntityAttr))})
			}
			rec = appendItemRecord(rec[:0], itemDigest(item), obj, ent, k)
			_ = f.items.Add(digest(k), rec) // a failure is kept: Err below
		})
		if err != nil {
			return err
		}
		if err := f.items.Err(); err != nil {
			return fmt.Errorf("verify: %w", err)
		}
		fc.Read++
		fc.Items += st.lines
		fc.Bytes += st.size
		for _, d := range damage {
			fc.Problems.Add(Problem{Kind: KindObjectDamaged, Key: key, Message: fmt.Sprintf("object %s: %s", url, d)})
		}
		if !listedOK {
			continue
		}
		switch {
		case st.size != w.bytes || st.sha != w.sha:
			fc.Problems.Add(Problem{Kind: KindObjectDamaged, Key: key, Want: w.sha, Got: st.sha,
				Message: fmt.Sprintf("object %s is not the one the manifest lists: %d bytes with SHA-256 %s, the manifest says %d bytes with SHA-256 %s", url, st.size, st.sha, w.bytes, w.sha)})
		case st.lines != w.items && len(damage) == 0:
			fc.Problems.Add(Problem{Kind: KindObjectDamaged, Key: key, Want: fmt.Sprint(w.items), Got: fmt.Sprint(st.lines),
				Message: fmt.Sprintf("object %s holds %d items, the manifest says %d", url, st.lines, w.items)})
		}
	}
	v.itemCounts = counts
	return nil
}

type objectStats struct {
	size, lines int64
	sha         string
}

// readObject downloads the object into a temporary file (unlinked at
// once), then reads it once: its SHA-256, and each line parsed with
// ImportTable's strict reader, handed to each. damage lists what is wrong
// with the object's bytes (not decompressed, a line not read); err is an
// S3 or disk failure.
func (v *verifier) readObject(ctx context.Context, key string, comp s3out.Compression, each func(mapping.Item)) (st objectStats, damage []string, err error) {
	tmp, err := os.CreateTemp("", "remodel-verify-*")
	if err != nil {
		return st, nil, fmt.Errorf("verify: a temporary file for an object: %w", err)
	}
	os.Remove(tmp.Name())
	defer tmp.Close()
	if _, err := v.o.S3.Download(ctx, v.o.Files.Bucket, key, tmp); err != nil {
		return st, nil, fmt.Errorf("verify: %w", err)
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return st, nil, fmt.Errorf("verify: %w", err)
	}
	sum := sha256.New()
	counted := &countingReader{r: io.TeeReader(bufio.NewReaderSize(tmp, 256<<10), sum)}
	finish := func() {
		_, _ = io.Copy(io.Discard, counted) // the rest of the bytes, for the SHA-256 and the size
		st.size, st.sha = counted.n, hex.EncodeToString(sum.Sum(nil))
	}
	zr, err := comp.NewReader(counted)
	if err != nil {
		finish()
		return st, []string{fmt.Sprintf("not %s: %v", comp, err)}, nil
	}
	defer zr.Close()
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 16<<20)
	bad := 0
	for sc.Scan() {
		st.lines++
		item, err := av.ParseImportLine(sc.Bytes())
		if err != nil {
			if bad++; bad <= 3 {
				damage = append(damage, fmt.Sprintf("line %d is not ImportTable's DynamoDB JSON: %v", st.lines, err))
			}
			continue
		}
		each(item)
	}
	if err := sc.Err(); err != nil {
		if ctx.Err() != nil {
			return st, nil, ctx.Err()
		}
		damage = append(damage, fmt.Sprintf("cannot be read after line %d: %v", st.lines, err))
	}
	if bad > 3 {
		damage = append(damage, fmt.Sprintf("and %d more lines that are not", bad-3))
	}
	finish()
	return st, damage, nil
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// fileItems streams the rows of entity i, renders each, and writes down
// (f.rows) the digest of its item with its key, for joinFiles to compare
// with the item of that key in the objects, beside the oracle's findings
// on the rendered item (the source's own JSON rendering of the row against
// it, as the table check does), which count if the objects hold that very
// item.
func (v *verifier) fileItems(ctx context.Context, f *files, i int, rs readerSet, prog *progress.Counter) error {
	e := v.o.Plan.Entities[i]
	rate := v.sampleRate()
	ic := &f.ics[i]
	*ic = ItemCheck{Entity: e.Name, SampleRate: rate, Problems: v.problems()}
	q := newItemQuery(v.o.Source.Engine(), e)
	var rec []byte
	err := v.fileRows(ctx, e, q, rs, func(row []any, js any, ejs []any, dup *mapping.RowError) error {
		ic.Rows++
		prog.Add(1)
		if v.acceptedReject(e, row) {
			return nil
		}
		key := e.SourceKey(row)
		if rate < 1 && !sampled(key, rate) {
			return nil
		}
		ic.Sampled++
		var err error
		rec, err = v.compareFileRow(f, i, q, srcRow{row: row, js: js, ejs: ejs, key: key, dup: dup}, rec)
		return err
	})
	if err != nil {
		return fmt.Errorf("verify: comparing items of entity %s: %w", e.Name, err)
	}
	return nil
}

// sampleRate is the share of the rows the item check compares.
func (v *verifier) sampleRate() float64 {
	if rate := v.o.SampleRate; rate > 0 && rate <= 1 {
		return rate
	}
	return 1
}

// fileRows streams the rows of entity e with the item query q: each row
// (with its child rows), the engine's JSON rendering of it and of its
// child rows, and the error of a row whose key names several rows.
func (v *verifier) fileRows(ctx context.Context, e *mapping.Entity, q *itemQuery, rs readerSet, each func(row []any, js any, ejs []any, dup *mapping.RowError) error) error {
	ncols := len(e.Columns)
	scan := func(each func([]any) error) error {
		return rs.r.Query(ctx, q.sql, nil, q.kindOf, func(names []string, vals []any) error {
			if len(vals) != ncols+1+len(q.embeds) || names[ncols] != q.jsonCol {
				return fmt.Errorf("the item query returned %d columns, want %d", len(vals), ncols+1+len(q.embeds))
			}
			return each(vals)
		})
	}
	return e.StreamEmbedded(ctx, scan, func(ctx context.Context, j int, each func([]any) error) error {
		m := e.Embeds()[j]
		return rs.kr[j].ScanTable(ctx, m.Scan(0), m.Where, 0, each)
	}, func(vals []any, kids [][][]any, dup *mapping.RowError) error {
		return each(e.WithChildren(vals[:ncols], kids), vals[ncols], vals[ncols+1:], dup)
	})
}

// compareFileRow renders one row (fileItems) and appends its record to
// f.rows, using rec as its buffer (returned for the next row).
func (v *verifier) compareFileRow(f *files, i int, q *itemQuery, r srcRow, rec []byte) ([]byte, error) {
	e, ic := v.o.Plan.Entities[i], &f.ics[i]
	var item mapping.Item
	var err error
	if r.dup != nil {
		err = r.dup
	} else {
		item, err = e.Render(r.row)
	}
	if err != nil {
		var re *mapping.RowError
		if !errors.As(err, &re) {
			return rec, err
		}
		ic.Rejected++
		ic.Problems.Addf(Problem{Kind: KindUnrenderable, Entity: e.Name, SourceKey: re.Key},
			"row %s of entity %s cannot become an item: %s", re.Key, e.Name, re.Reason)
		return rec, nil
	}
	k := v.t.KeyString(item)
	ic.Compared++
	var found Problems
	var findings []byte
	if v.fileFindings(&found, e, q, k, &r, item, nil) {
		if findings, err = json.Marshal(found.List); err != nil {
			return rec, fmt.Errorf("writing down the findings on item %s: %w", k, err)
		}
	}
	rec = appendRowRecord(rec[:0], itemDigest(item), i, k, r.key, findings)
	return rec, f.rows.Add(digest(k), rec)
}

// fileFindings adds to ps the oracle's findings on the stored item have
// (the source's own JSON rendering of the row against it), as compareChunk
// does, and says whether there were any.
func (v *verifier) fileFindings(ps *Problems, e *mapping.Entity, q *itemQuery, k string, r *srcRow, have mapping.Item, flagged map[string]bool) bool {
	var findings []finding
	js, err := parseRowJSON(r.js)
	if err != nil {
		findings = []finding{{attr: "*", note: err.Error()}}
	} else {
		findings = q.oracle.check(js, r.row, have, flagged)
	}
	findings = append(findings, q.oracle.checkEmbeds(q.embeds, r.ejs, r.row, have)...)
	for _, fd := range findings {
		p := Problem{Kind: KindValueMismatch, Entity: e.Name, Key: k, SourceKey: r.key, Attribute: fd.attr, Want: fd.want, Got: fd.got}
		if fd.note != "" {
			ps.Addf(p, "item %s (entity %s, row %s): attribute %s (%s) cannot be checked against the source's own JSON rendering of column %s: %s", k, e.Name, r.key, fd.attr, fd.got, fd.column, fd.note)
		} else {
			ps.Addf(p, "item %s (entity %s, row %s): attribute %s is %s, but the source's own JSON rendering of column %s is %s", k, e.Name, r.key, fd.attr, fd.got, fd.column, fd.want)
		}
	}
	return len(findings) > 0
}

// itemDigest is a digest of the item that two items share exactly when
// Equal holds for every attribute: numbers by their normalized text, sets
// in sorted order, maps by sorted names. It hashes the item's canonical
// bytes (appendCanon) written into a buffer of a pool.
func itemDigest(item mapping.Item) [16]byte {
	c := canonPool.Get().(*canonBuf)
	c.b = c.appendCanon(c.b[:0], &types.AttributeValueMemberM{Value: item})
	sum := sha256.Sum256(c.b)
	if cap(c.b) <= 1<<20 {
		canonPool.Put(c)
	}
	return [16]byte(sum[:16])
}

// canonBuf is itemDigest's scratch: the canonical bytes, and the names
// and set members being sorted.
type canonBuf struct {
	b     []byte
	names []string
}

var canonPool = sync.Pool{New: func() any { return &canonBuf{} }}

// appendCanon appends the canonical bytes of v: each value a tag and its
// text (length first), sets and maps their count then members in sorted
// order.
func (c *canonBuf) appendCanon(b []byte, v types.AttributeValue) []byte {
	str := func(b []byte, tag byte, s string) []byte {
		b = append(b, tag)
		b = binary.AppendUvarint(b, uint64(len(s)))
		return append(b, s...)
	}
	count := func(b []byte, tag byte, n int) []byte {
		var d [20]byte
		return str(b, tag, string(strconv.AppendInt(d[:0], int64(n), 10)))
	}
	// sorted sorts the canonical texts of a set's members, on the end of
	// c.names (restored before return: a set holds no set).
	set := func(b []byte, tag byte, n int, member func(int) string) []byte {
		base := len(c.names)
		for i := range n {
			c.names = append(c.names, member(i))
		}
		ms := c.names[base:]
		slices.Sort(ms)
		b = count(b, tag, len(ms))
		for _, s := range ms {
			b = str(b, '.', s)
		}
		clear(ms)
		c.names = c.names[:base]
		return b
	}
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		b = str(b, 'S', x.Value)
	case *types.AttributeValueMemberN:
		b = str(b, 'N', mapping.CanonNumber(x.Value))
	case *types.AttributeValueMemberB:
		b = str(b, 'B', string(x.Value))
	case *types.AttributeValueMemberBOOL:
		b = str(b, 'T', strconv.FormatBool(x.Value))
	case *types.AttributeValueMemberNULL:
		b = str(b, '0', "")
	case *types.AttributeValueMemberSS:
		b = set(b, 's', len(x.Value), func(i int) string { return x.Value[i] })
	case *types.AttributeValueMemberNS:
		b = set(b, 'n', len(x.Value), func(i int) string { return mapping.CanonNumber(x.Value[i]) })
	case *types.AttributeValueMemberBS:
		b = set(b, 'b', len(x.Value), func(i int) string { return string(x.Value[i]) })
	case *types.AttributeValueMemberL:
		b = count(b, 'L', len(x.Value))
		for _, e := range x.Value {
			b = c.appendCanon(b, e)
		}
	case *types.AttributeValueMemberM:
		base := len(c.names)
		for k := range x.Value {
			c.names = append(c.names, k)
		}
		names := c.names[base:]
		slices.Sort(names)
		b = count(b, 'M', len(names))
		for i := range names {
			k := c.names[base+i] // c.names may grow below: index it afresh
			b = str(b, 'k', k)
			b = c.appendCanon(b, x.Value[k])
		}
		clear(c.names[base:])
		c.names = c.names[:base]
	default:
		b = str(b, '?', fmt.Sprintf("%T", v))
	}
	return b
}
