package migrate

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/dynamo"
	"github.com/remodel-dev/remodel/internal/domain/introspect"
	"github.com/remodel-dev/remodel/internal/domain/mapping"
	"github.com/remodel-dev/remodel/internal/domain/process"
	"github.com/remodel-dev/remodel/internal/domain/s3out"
	"github.com/remodel-dev/remodel/internal/domain/source"
)

// DefaultCheckpointEvery is how often a run saves its checkpoint.
const DefaultCheckpointEvery = 2 * time.Second

// checkpointVersion is the version of the checkpoint file's format.
const checkpointVersion = 2

// checkpointFile is what a checkpoint file holds: whose job it is (the
// mapping's digest; the table, by name and by the ARN and creation time of
// the one the settled items are in; the source without its password, by
// address and by what the database is; the runs whose lock item --resume
// may take over: the one holding it and, for a moment while a resumed run
// takes it, the one before; the process that wrote it) and, per entity,
// the key up to which every row is settled: its item acknowledged by
// DynamoDB, or the row rejected (and in the rejects file). Checksum is the
// SHA-256 of the file written with Checksum empty: a file damaged or
// edited by hand is refused.
type checkpointFile struct {
	Version      int       `json:"version"`
	Checksum     string    `json:"checksum"`
	Mapping      string    `json:"mapping_digest"`
	Table        string    `json:"table"`
	TableARN     string    `json:"table_arn"`
	TableCreated time.Time `json:"table_created"`
	Source       string    `json:"source"`
	// SourceServer is source.ServerID's: "" where the user may not read it.
	SourceServer string `json:"source_server,omitempty"`
	Engine       string `json:"engine"`
	// Shard is "i/n" for a shard of a sharded job (--shard): Entities
	// then holds only this shard's key ranges, and an entity none of whose
	// ranges is this shard's is not in it.
	Shard string `json:"shard,omitempty"`
	// SplitDigest is the digest of the sharded job's split plan whose key
	// ranges Entities holds (splitplan.go).
	SplitDigest string `json:"split_digest,omitempty"`
	// SplitRanges is the job's --ranges, which its split plan item records
	// (0 in checkpoints written before it was kept): a resumed shard that
	// finds the item gone records it again by its digest.
	SplitRanges int `json:"split_ranges,omitempty"`
	// Job is the shard's --job ("": not named); --resume must name the same.
	Job         string             `json:"job,omitempty"`
	Owners      []string           `json:"lock_owners"`
	Host        string             `json:"host"`
	PID         int64              `json:"pid"`
	PIDStart    string             `json:"pid_start,omitempty"`
	Saved       time.Time          `json:"saved"`
	RejectsFile string             `json:"rejects_file,omitempty"`
	ItemsBefore int64              `json:"items_before"`
	Entities    []checkpointEntity `json:"entities"`
	// Follow is the change stream of a followed migration (--follow).
	Follow *followState `json:"follow,omitempty"`
	// S3 is the objects of a migration into S3 (--to, s3run.go).
	S3 *s3Checkpoint `json:"s3,omitempty"`
}

// followState is where a followed migration stands: its slot and
// publication (and whether remodel created the publication, so that
// follow-cleanup drops it), where the copy's snapshot is in the source's
// history, whether the copy is done, and the last position applied.
type followState struct {
	Slot               string `json:"slot"`
	Publication        string `json:"publication"`
	PublicationCreated bool   `json:"publication_created"`
	Start              string `json:"start,omitempty"`
	CopyDone           bool   `json:"copy_done"`
	Applied            string `json:"applied,omitempty"`
	// Doubtful are the rows of copy requests in doubt (followdoubt.go).
	Doubtful []doubtRow `json:"doubtful,omitempty"`
	// Refused says why the follower stopped on a change it cannot follow
	// (a source.StopError): --follow --resume is refused with it.
	Refused string `json:"refused,omitempty"`
	// Rejected counts the changed rows the follower rejected, over every
	// run of the job: the lines it added to the rejects file (a row an
	// interrupted run named there already is not counted again). The
	// copy's are the entities'.
	Rejected int64 `json:"rejected,omitempty"`
}

// checkpointEntity is the progress of one entity, or of one key range of
// it (--ranges): the rows after RangeAfter (nil: from the first) up to
// RangeUpTo (nil: to the last). Rows, Items and Rejected count the settled
// rows up to After, over every run of the job. Also names the other
// entities of a shared read (shared.go), read with Name by one statement,
// each with its own counts: their checkpoint is the read's, After.
type checkpointEntity struct {
	Name       string     `json:"name"`
	RangeAfter []keyValue `json:"range_after,omitempty"`
	RangeUpTo  []keyValue `json:"range_up_to,omitempty"`
	// Done: every row was read and settled.
	Done bool `json:"done"`
	// After is the key of the last settled row (nil: none yet); AfterRow
	// names it for people.
	After    []keyValue     `json:"after,omitempty"`
	AfterRow string         `json:"after_row,omitempty"`
	Rows     int64          `json:"rows"`
	Items    int64          `json:"items"`
	Rejected int64          `json:"rejected"`
	Also     []sharedEntity `json:"also,omitempty"`
}

// sharedEntity is another entity of a shared read in a checkpoint, with
// its settled rows.
type sharedEntity struct {
	Name     string `json:"name"`
	Rows     int64  `json:"rows"`
	Items    int64  `json:"items"`
	Rejected int64  `json:"rejected"`
}

// tally counts an entity's settled rows: its items acknowledged, its rows
// rejected.
type tally struct{ rows, items, rejected int64 }

func (t *tally) add(u tally) {
	t.rows += u.rows
	t.items += u.items
	t.rejected += u.rejected
}

// keyValue is one canonical key value, typed: i int64, s string (text,
// decimals, integers beyond int64), f float64, b bool, t time.Time
// (RFC 3339, nanoseconds), x bytes (base64).
type keyValue struct {
	T string `json:"t"`
	V string `json:"v"`
}

func encodeKey(k source.KeyBound) ([]keyValue, error) {
	out := make([]keyValue, len(k))
	for i, v := range k {
		switch x := v.(type) {
		case int64:
			out[i] = keyValue{"i", strconv.FormatInt(x, 10)}
		case string:
			out[i] = keyValue{"s", x}
		case float64:
			out[i] = keyValue{"f", strconv.FormatFloat(x, 'g', -1, 64)}
		case bool:
			out[i] = keyValue{"b", strconv.FormatBool(x)}
		case time.Time:
			out[i] = keyValue{"t", x.UTC().Format(time.RFC3339Nano)}
		case []byte:
			out[i] = keyValue{"x", base64.StdEncoding.EncodeToString(x)}
		default:
			return nil, fmt.Errorf("a key value of type %T", v)
		}
	}
	return out, nil
}

func decodeKey(kv []keyValue) (source.KeyBound, error) {
	out := make(source.KeyBound, len(kv))
	for i, v := range kv {
		var err error
		switch v.T {
		case "i":
			out[i], err = strconv.ParseInt(v.V, 10, 64)
		case "s":
			out[i] = v.V
		case "f":
			out[i], err = strconv.ParseFloat(v.V, 64)
		case "b":
			out[i], err = strconv.ParseBool(v.V)
		case "t":
			out[i], err = time.Parse(time.RFC3339Nano, v.V)
		case "x":
			out[i], err = base64.StdEncoding.DecodeString(v.V)
		default:
			err = fmt.Errorf("unknown type %q", v.T)
		}
		if err != nil {
			return nil, fmt.Errorf("key value %d (%q): %w", i+1, v.V, err)
		}
	}
	return out, nil
}

// tracker follows, per entity, which rows are settled, and saves the
// checkpoint. Rows are read in key order; their items finish in any order
// (batches, writers, retries): an entity's checkpoint key is the key of the
// last row of the contiguous settled prefix.
type tracker struct {
	path   string
	plan   *mapping.Plan
	engine introspect.Engine
	mu     sync.Mutex // serialises saves
	file   checkpointFile
	ents   []*entityTrack
	byName map[string][]*entityTrack // an entity's tracks, one per key range; a shared read's are each of its entities'
	shared map[string]*sharedRead    // the shared reads of a resumed job, by their entities' names
	rej    *rejects
	// resumed: the job's earlier runs left this checkpoint; removed: the
	// job finished and its checkpoint is gone.
	resumed, removed bool
	s3               *s3Sink // --to: the objects it uploaded, for the checkpoint
	gate             objectGate
	doubted          map[string]bool // the rows of Follow.Doubtful (followdoubt.go)
}

// entityTrack is the rows in flight and the settled prefix of one entity,
// or of one key range of it (lo, hi; nil: open). A shared read's track
// (sh) follows the rows of all its entities (ents; e is the first): a row
// is settled when its item of every entity whose where it matches is.
type entityTrack struct {
	lo, hi source.KeyBound
	e      *mapping.Entity
	ents   []*mapping.Entity
	sh     *sharedRead // nil: e's own read
	engine introspect.Engine
	keyIdx []int
	keyCol []*introspect.Column

	mu      sync.Mutex
	q       []*rowMark // read and not yet part of the settled prefix, in key order
	readAll bool       // every row of the entity has been read (and marked)
	done    bool       // an earlier run settled every row
	// The settled prefix: up to after (the last row whose key can bound a
	// range), with its counts per entity (of ents) over every run; tail
	// counts the settled rows after it, whose key cannot (they are read
	// again on resume).
	after     source.KeyBound
	afterRow  string   // of an earlier run's checkpoint
	afterMark *rowMark // this run's: named when the checkpoint is saved
	n, tail   []tally
	// What the earlier runs settled per entity, for the report; resumeFrom
	// is where this run starts reading (nil: from the first row).
	earlier    []tally
	resumeFrom source.KeyBound
	// The rows' sequence numbers in this run (rowMark.seq): the last given,
	// the last row of the settled prefix's, and that one's when the
	// checkpoint was last saved (every row when the track is done): an S3
	// object is covered by the checkpoint when all its rows are (s3sink.go).
	seqs, afterSeq, savedSeq uint64
	// gate, for --to: a row is settled once its item's line is in an open
	// object (the S3 sink settles it then, so that no row stays in memory
	// until its object is uploaded), and the checkpoint saves instead the
	// track's state at a moment when every object begun by then is
	// uploaded: held, the latest such state; pending, later states waiting
	// for their objects (see heldState).
	gate    objectGate
	held    *trackState
	pending []trackState
}

// objectGate is the S3 sink as a gated track sees it: objects are numbered
// from 1 as they are begun.
type objectGate interface {
	// begun is the number of the last object begun.
	begun() uint64
	// storedThrough says whether every object numbered up to n is uploaded.
	storedThrough(n uint64) bool
}

// trackState is a track's part of the checkpoint at one moment: the
// entity's state, the sequence number of the last row it counts settled
// (savedSeq's value when it is saved), whether it counts any row settled,
// and the last object begun at that moment (upTo; every row it counts
// written is in one of the objects up to it).
type trackState struct {
	ce   checkpointEntity
	seq  uint64
	some bool
	upTo uint64
	// fresh: taken before this run marked a row of the track (true of the
	// earlier runs' state alone, whatever is uploaded).
	fresh bool
}

// rowMark is one row on its way: settled when its item is acknowledged or
// the row is rejected. A row of a shared read has an item for each entity
// whose where it matches (the bits of matched), each with a mark of its
// own (item) whose parent is the row's: the row is settled when all are.
type rowMark struct {
	t       *entityTrack
	key     source.KeyBound // nil: the key cannot bound a range
	row     string          // the row's source key text (name); set when it is rejected
	ent     *mapping.Entity // with keyVals: how to name it otherwise (named)
	keyVals []any
	parent  *rowMark // an item's mark of a shared row: the row's
	idx     int      // that item's entity, in the track's ents
	left    int      // the row's items not settled yet (t.mu)
	settled bool
	seq     uint64 // the row's place in its track, from 1
	// The entities of the track whose item the row has (bit i: ents[i]),
	// and those whose item was rejected.
	matched, rejected uint64
}

func newTracker(path string, o Options, rej *rejects) (*tracker, error) {
	tr := &tracker{path: path, plan: o.Plan, engine: o.Source.Engine(), byName: map[string][]*entityTrack{}, shared: map[string]*sharedRead{}, rej: rej}
	self := process.Self()
	tr.file = checkpointFile{
		Version: checkpointVersion, Mapping: o.MappingDigest, Table: o.Table, Source: o.SourceID,
		Engine: string(o.Source.Engine()), Host: self.Host, PID: self.PID, PIDStart: self.Start, RejectsFile: o.RejectsPath,
		Shard: o.Shard.String(), Job: o.Job,
	}
	if o.Follow {
		tr.file.Follow = &followState{Slot: o.Slot, Publication: o.Publication}
	}
	tr.file.S3 = newS3Checkpoint(o)
	for _, e := range o.Plan.Entities {
		et, err := tr.newTrack([]*mapping.Entity{e}, nil, nil, nil)
		if err != nil {
			return nil, err
		}
		tr.ents = append(tr.ents, et)
		tr.byName[e.Name] = []*entityTrack{et}
	}
	return tr, nil
}

// newTrack is a track of the rows after lo up to hi of an entity (ents
// has one), or of a shared read (sh, of ents). A shared read's rows have
// the table's columns first, as each of its entities' rows.
func (tr *tracker) newTrack(ents []*mapping.Entity, sh *sharedRead, lo, hi source.KeyBound) (*entityTrack, error) {
	e := ents[0]
	n := len(ents)
	et := &entityTrack{e: e, ents: ents, sh: sh, engine: tr.engine, lo: lo, hi: hi, n: make([]tally, n), tail: make([]tally, n), earlier: make([]tally, n), gate: tr.gate}
	for _, name := range e.Table.PrimaryKey {
		idx := -1
		for i, c := range e.Columns {
			if c.Name == name {
				idx = i
			}
		}
		if idx < 0 {
			return nil, fmt.Errorf("migrate: entity %s: key column %s is not read", e.Name, name)
		}
		et.keyIdx = append(et.keyIdx, idx)
		et.keyCol = append(et.keyCol, e.Columns[idx])
	}
	return et, nil
}

// split replaces the one track of a read (an entity, or the entities of
// a shared read sh) by one per key range, cut at the boundaries, before any
// of its rows is read; share replaces the entities' own tracks by the
// shared read's one, before any of its rows is read.
func (tr *tracker) split(rd readSpec, bounds []source.KeyBound) ([]*entityTrack, error) {
	ents := rd.entities()
	var tracks []*entityTrack
	var lo source.KeyBound
	for i := 0; i <= len(bounds); i++ {
		var hi source.KeyBound
		if i < len(bounds) {
			hi = bounds[i]
		}
		et, err := tr.newTrack(ents, rd.sh, lo, hi)
		if err != nil {
			return nil, err
		}
		tracks = append(tracks, et)
		lo = hi
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	var kept []*entityTrack
	for _, et := range tr.ents {
		if !slices.Contains(ents, et.e) {
			kept = append(kept, et)
		}
	}
	tr.ents = append(kept, tracks...)
	for _, e := range ents {
		tr.byName[e.Name] = tracks
	}
	return tracks, nil
}

func (tr *tracker) share(sh *sharedRead) error {
	_, err := tr.split(readSpec{e: sh.ents[0], sh: sh}, nil)
	return err
}

// loadCheckpoint reads the checkpoint of an interrupted run for --resume
// and checks that it is intact (its checksum, and what it claims) and this
// job's: the same mapping, table name and source (the same database, at
// whatever address; a warning says when the address changed).
func loadCheckpoint(path string, tr *tracker) (*checkpointFile, string, error) {
	var warning string
	ck, err := readCheckpoint(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, "", fmt.Errorf("migrate: --resume: no checkpoint %s: nothing to resume (a run that succeeds removes its checkpoint; --checkpoint names another file)", path)
	case errors.Is(err, errCheckpointDamaged):
		return nil, "", fmt.Errorf("migrate: --resume: %w, so what it says was settled cannot be trusted; start over (migrate --allow-non-empty writes every row again)", err)
	case err != nil:
		return nil, "", fmt.Errorf("migrate: --resume: %w", err)
	}
	if err := ck.sane(); err != nil {
		return nil, "", fmt.Errorf("migrate: --resume: checkpoint %s cannot be right: %w; start over (migrate --allow-non-empty writes every row again)", path, err)
	}
	var diffs []string
	if ck.Mapping != tr.file.Mapping {
		diffs = append(diffs, "the mapping file changed since (its digest was "+short(ck.Mapping)+", now "+short(tr.file.Mapping)+")")
	}
	if ck.Table != tr.file.Table {
		diffs = append(diffs, fmt.Sprintf("it is of table %s, not %s", ck.Table, tr.file.Table))
	}
	if ck.Shard != tr.file.Shard {
		diffs = append(diffs, fmt.Sprintf("it is of %s, not %s", shardName(ck.Shard), shardName(tr.file.Shard)))
	}
	if ck.Job != tr.file.Job {
		diffs = append(diffs, fmt.Sprintf("it is of %s, not %s", s3out.JobName(ck.Job), s3out.JobName(tr.file.Job)))
	}
	switch {
	case ck.SourceServer != "" && tr.file.SourceServer != "":
		// The database is named by what it is: its address may change.
		if ck.SourceServer != tr.file.SourceServer {
			diffs = append(diffs, fmt.Sprintf("it read the database %s (%s), not %s (%s)", ck.SourceServer, ck.Source, tr.file.SourceServer, tr.file.Source))
		} else if ck.Source != tr.file.Source {
			warning = fmt.Sprintf("the source's address changed since the interrupted run (%s, now %s): it is the same database (%s)", ck.Source, tr.file.Source, ck.SourceServer)
		}
	case ck.Source != tr.file.Source:
		diffs = append(diffs, fmt.Sprintf("it read the source %s, not %s", ck.Source, tr.file.Source))
	}
	if len(diffs) > 0 {
		msg := fmt.Sprintf("migrate: --resume: checkpoint %s belongs to another migration: ", path)
		for i, d := range diffs {
			if i > 0 {
				msg += "; "
			}
			msg += d
		}
		return nil, "", errors.New(msg + ". " + resumeAdvice(ck))
	}
	if p := (process.ID{Host: ck.Host, PID: ck.PID, Start: ck.PIDStart}); p.Host == tr.file.Host && !p.Self() && p.Running() {
		return nil, "", fmt.Errorf("migrate: --resume: the run that wrote checkpoint %s (pid %d on this host) is still running: stop it first", path, ck.PID)
	}
	// The tracks are the checkpoint's: the key ranges of the interrupted
	// run, whatever the new snapshot holds.
	tr.ents, tr.byName = nil, map[string][]*entityTrack{}
	for _, ce := range ck.Entities {
		ents := []*mapping.Entity{entityNamed(tr.plan, ce.Name)}
		counts := []tally{{ce.Rows, ce.Items, ce.Rejected}}
		for _, a := range ce.Also {
			ents = append(ents, entityNamed(tr.plan, a.Name))
			counts = append(counts, tally{a.Rows, a.Items, a.Rejected})
		}
		for i, e := range ents {
			if e == nil {
				name := ce.Name
				if i > 0 {
					name = ce.Also[i-1].Name
				}
				return nil, "", fmt.Errorf("migrate: --resume: checkpoint %s names entity %s, which the mapping does not have", path, name)
			}
		}
		sh, err := tr.sharedOf(ents)
		if err != nil {
			return nil, "", fmt.Errorf("migrate: --resume: checkpoint %s: %w", path, err)
		}
		var lo, hi source.KeyBound
		if ce.RangeAfter != nil {
			if lo, err = decodeKey(ce.RangeAfter); err != nil {
				return nil, "", fmt.Errorf("migrate: --resume: checkpoint %s, entity %s: %w", path, ce.Name, err)
			}
		}
		if ce.RangeUpTo != nil {
			if hi, err = decodeKey(ce.RangeUpTo); err != nil {
				return nil, "", fmt.Errorf("migrate: --resume: checkpoint %s, entity %s: %w", path, ce.Name, err)
			}
		}
		et, err := tr.newTrack(ents, sh, lo, hi)
		if err != nil {
			return nil, "", err
		}
		tr.ents = append(tr.ents, et)
		for _, e := range ents {
			tr.byName[e.Name] = append(tr.byName[e.Name], et)
		}
		et.done = ce.Done
		copy(et.n, counts)
		copy(et.earlier, counts)
		if ce.After != nil {
			k, err := decodeKey(ce.After)
			if err != nil {
				return nil, "", fmt.Errorf("migrate: --resume: checkpoint %s, entity %s: %w", path, ce.Name, err)
			}
			et.after, et.afterRow, et.resumeFrom = k, ce.AfterRow, k
		}
	}
	for _, e := range tr.plan.Entities {
		if tr.byName[e.Name] == nil && ck.Shard == "" { // a shard's checkpoint has the entities of which it owns a range
			return nil, "", fmt.Errorf("migrate: --resume: checkpoint %s does not have entity %s", path, e.Name)
		}
	}
	tr.file.ItemsBefore = ck.ItemsBefore
	tr.file.TableARN, tr.file.TableCreated = ck.TableARN, ck.TableCreated
	tr.file.SplitDigest, tr.file.SplitRanges = ck.SplitDigest, ck.SplitRanges // the split plan its ranges are of
	switch {
	case ck.Follow != nil && tr.file.Follow == nil:
		return nil, "", fmt.Errorf("migrate: --resume: checkpoint %s is of a migration that follows the source's changes (slot %s): resume it with --follow, or end it with remodel follow-cleanup", path, ck.Follow.Slot)
	case ck.Follow == nil && tr.file.Follow != nil:
		return nil, "", fmt.Errorf("migrate: --resume --follow: checkpoint %s is of a migration that did not follow the source's changes: the changes since its snapshot were not kept; start over with --follow, without --resume", path)
	case ck.Follow != nil:
		fs := *ck.Follow
		tr.file.Follow = &fs
	}
	if err := tr.loadS3(ck, path); err != nil {
		return nil, "", err
	}
	return ck, warning, nil
}

// shardName names a checkpoint's shard for people.
func shardName(shard string) string {
	if shard == "" {
		return "a run that is not sharded"
	}
	return "shard " + shard
}

// resumeAdvice is what a --resume refused by checkpoint ck can do instead.
func resumeAdvice(ck *checkpointFile) string {
	with := "the mapping, source and table"
	if ck.Shard != "" {
		with = fmt.Sprintf("the mapping, source, table, --shard %s and %s", ck.Shard, s3out.JobName(ck.Job))
	}
	switch {
	case ck.S3 != nil:
		return "Resume with " + with + " of the interrupted run, or start over into an empty prefix"
	case ck.Shard != "":
		return "Resume with " + with + " of the interrupted run, or run the shard again without --resume"
	}
	return "Resume with " + with + " of the interrupted run, or start over with --allow-non-empty"
}

// ofJob is " of --job "NAME"" after what belongs to a named job ("" for a
// job not named).
func ofJob(job string) string {
	if job == "" {
		return ""
	}
	return " of " + s3out.JobName(job)
}

func entityNamed(p *mapping.Plan, name string) *mapping.Entity {
	for _, e := range p.Entities {
		if e.Name == name {
			return e
		}
	}
	return nil
}

func short(digest string) string {
	if len(digest) > 12 {
		return digest[:12]
	}
	if digest == "" {
		return "none"
	}
	return digest
}

// errCheckpointDamaged is a checkpoint whose checksum does not match.
var errCheckpointDamaged = errors.New("damaged or was edited: its checksum does not match its contents")

// readCheckpoint reads a checkpoint file and checks its format version and
// its checksum (an error wrapping errCheckpointDamaged when it does not
// match; fs.ErrNotExist when there is no file).
func readCheckpoint(path string) (*checkpointFile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading checkpoint %s: %w", path, err)
	}
	var ck checkpointFile
	if err := json.Unmarshal(b, &ck); err != nil {
		return nil, fmt.Errorf("checkpoint %s is not a remodel checkpoint: %w", path, err)
	}
	if ck.Version != checkpointVersion {
		return nil, fmt.Errorf("checkpoint %s has format version %d; this remodel reads version %d", path, ck.Version, checkpointVersion)
	}
	if sum, err := ck.checksum(); err != nil || sum != ck.Checksum {
		return nil, fmt.Errorf("checkpoint %s is %w", path, errCheckpointDamaged)
	}
	return &ck, nil
}

// checksum is the SHA-256 of the file as save writes it, with Checksum
// empty.
func (f checkpointFile) checksum() (string, error) {
	f.Checksum = ""
	b, err := f.encode()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// encode is the file's text.
func (f checkpointFile) encode() ([]byte, error) {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("migrate: encoding the checkpoint: %w", err)
	}
	return append(b, '\n'), nil
}

// sane checks what a checkpoint claims against what a run can write: the
// table it names, counts that are not negative and add up (every settled
// row is an item or a rejection), and an entity that is done has no key
// to resume after.
func (f *checkpointFile) sane() error {
	if f.S3 == nil && (f.TableARN == "" || f.TableCreated.IsZero()) {
		return fmt.Errorf("it does not name the table its items were written into")
	}
	if f.ItemsBefore < 0 {
		return fmt.Errorf("items_before is %d", f.ItemsBefore)
	}
	if len(f.Entities) == 0 && f.Shard == "" { // a shard may own no range at all
		return fmt.Errorf("it has no entity")
	}
	counts := func(what string, rows, items, rejected int64) error {
		if rows < 0 || items < 0 || rejected < 0 || rows != items+rejected {
			return fmt.Errorf("entity %s: %d rows settled as %d items and %d rejected", what, rows, items, rejected)
		}
		return nil
	}
	for _, e := range f.Entities {
		if err := counts(e.Name, e.Rows, e.Items, e.Rejected); err != nil {
			return err
		}
		for _, a := range e.Also {
			if err := counts(a.Name, a.Rows, a.Items, a.Rejected); err != nil {
				return err
			}
		}
		if e.Done && e.After != nil {
			return fmt.Errorf("entity %s is done but names a key to resume after", e.Name)
		}
		if !e.Done && e.After == nil && e.Rows > 0 {
			return fmt.Errorf("entity %s has %d rows settled but no key they end at", e.Name, e.Rows)
		}
	}
	return nil
}

// mark records a row read (row is the reader's, valid during the call)
// and returns its mark; nil when t is nil.
func (t *entityTrack) mark(row []any) *rowMark {
	if t == nil {
		return nil
	}
	m := &rowMark{t: t, key: t.bound(row), left: 1, matched: 1}
	t.mu.Lock()
	t.holdFirst()
	t.seqs++
	m.seq = t.seqs
	t.q = append(t.q, m)
	t.mu.Unlock()
	return m
}

// markShared records a row of a shared read whose item of each entity in
// matched (bit i: the track's ents[i]) is to be written, and returns its
// mark, whose item marks are item(i); nil when t is nil.
func (t *entityTrack) markShared(row []any, matched uint64) *rowMark {
	if t == nil {
		return nil
	}
	m := &rowMark{t: t, key: t.bound(row), left: bits.OnesCount64(matched), matched: matched}
	t.mu.Lock()
	t.holdFirst()
	t.seqs++
	m.seq = t.seqs
	t.q = append(t.q, m)
	t.mu.Unlock()
	return m
}

// item is the mark of a shared row's item of the track's entity i; nil
// when m is.
func (m *rowMark) item(i int) *rowMark {
	if m == nil {
		return nil
	}
	return &rowMark{parent: m, idx: i}
}

// bound is the row's key as a range bound (its values copied), or nil
// when it cannot be one: a value the engine does not compare as it sorts
// (source.BoundValueOK). An entity with embeds advances by its own key too:
// its child rows are read in its key order, and a resumed run reads those
// of the parents after the checkpoint key.
func (t *entityTrack) bound(row []any) source.KeyBound {
	key := make(source.KeyBound, len(t.keyIdx))
	for i, idx := range t.keyIdx {
		v := row[idx]
		if !source.BoundValueOK(t.engine, t.keyCol[i], v) {
			return nil
		}
		if b, ok := v.([]byte); ok {
			v = append([]byte(nil), b...)
		}
		key[i] = v
	}
	return key
}

// named records how the row is named in the checkpoint (its source key,
// built only when a checkpoint is saved naming it) and returns p.
func (m *rowMark) named(p pending) pending {
	if m != nil {
		if m.parent != nil {
			m = m.parent
		}
		m.ent, m.keyVals = p.ent, p.key
	}
	return p
}

// rejected records the name of a rejected row (its source key text) and
// returns it.
func (m *rowMark) rejectedAs(s string) string {
	if m != nil {
		if m.parent != nil {
			m = m.parent
		}
		m.row = s
	}
	return s
}

// name is the row's source key text.
func (m *rowMark) name() string {
	if m.row == "" && m.ent != nil {
		m.row = m.ent.SourceKeyOf(m.keyVals)
	}
	return m.row
}

// settle records that the row's item is settled: written, or the row
// rejected (for the item's entity); the row is settled when all its items
// are. nil is a row nobody tracks.
func (m *rowMark) settle(written bool) {
	if m == nil {
		return
	}
	i := m.idx
	if m.parent != nil {
		m = m.parent
	}
	t := m.t
	t.mu.Lock()
	defer t.mu.Unlock()
	if !written {
		m.rejected |= 1 << i
	}
	if m.left--; m.left > 0 {
		return
	}
	m.settled = true
	n := 0
	for _, r := range t.q {
		if !r.settled {
			break
		}
		n++
		for i := range t.tail {
			bit := uint64(1) << i
			if r.matched&bit == 0 {
				continue
			}
			t.tail[i].rows++
			if r.rejected&bit != 0 {
				t.tail[i].rejected++
			} else {
				t.tail[i].items++
			}
		}
		if r.key != nil {
			t.after, t.afterMark, t.afterSeq = r.key, r, r.seq
			for i := range t.tail {
				t.n[i].add(t.tail[i])
				t.tail[i] = tally{}
			}
		}
	}
	if n > 0 {
		clear(t.q[:n])
		t.q = t.q[n:]
	}
}

// finished records that every row of the entity has been read.
func (t *entityTrack) finished() {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.readAll = true
	t.mu.Unlock()
}

// afterName names the last row of the settled prefix (t.mu held).
func (t *entityTrack) afterName() string {
	if t.afterMark != nil {
		return t.afterMark.name()
	}
	return t.afterRow
}

// state is the entity's part of the checkpoint: the track's state now,
// or for a gated track (--to) the latest whose objects are all uploaded.
func (t *entityTrack) state() (checkpointEntity, error) {
	if t.gate == nil {
		t.mu.Lock()
		defer t.mu.Unlock()
		st, err := t.now()
		t.savedSeq = st.seq
		return st.ce, err
	}
	st, err := t.stored()
	if err != nil {
		return checkpointEntity{}, err
	}
	return st.ce, nil
}

// holdFirst records, before a gated track's first row of this run is
// marked, its state then as held: the earlier runs' alone (t.mu held).
// The state cannot fail to encode: its key came from the checkpoint.
func (t *entityTrack) holdFirst() {
	if t.gate == nil || t.held != nil || t.seqs > 0 {
		return
	}
	if st, err := t.now(); err == nil {
		st.fresh = true
		t.held = &st
	}
}

// stored is a gated track's latest state whose objects are all uploaded
// (what the checkpoint saves; savedSeq is set to it). It takes the state
// now, then the last object begun (every row the state counts written is
// in an object begun before), and keeps it until those objects are
// uploaded; the latest kept state that is, replaces held.
func (t *entityTrack) stored() (trackState, error) {
	t.mu.Lock()
	st, err := t.now()
	st.fresh = t.seqs == 0
	t.mu.Unlock()
	if err != nil {
		return st, err
	}
	st.upTo = t.gate.begun()
	t.mu.Lock()
	defer t.mu.Unlock()
	if n := len(t.pending); n > 0 && t.pending[n-1].upTo == st.upTo {
		t.pending[n-1] = st // the same objects to wait for: the later state
	} else {
		t.pending = append(t.pending, st)
	}
	for i := len(t.pending) - 1; i >= 0; i-- {
		if p := t.pending[i]; p.fresh || t.gate.storedThrough(p.upTo) {
			t.held = &p
			t.pending = slices.Delete(t.pending, 0, i+1)
			break
		}
	}
	if t.held == nil {
		return st, fmt.Errorf("migrate: entity %s: no state of it to save", t.e.Name)
	}
	t.savedSeq = t.held.seq
	return *t.held, nil
}

// now is the track's state now (t.mu held).
func (t *entityTrack) now() (trackState, error) {
	done := t.done || t.readAll && len(t.q) == 0
	st := trackState{seq: t.afterSeq, some: t.done || t.readAll || t.after != nil || slices.ContainsFunc(t.tail, func(c tally) bool { return c.rows > 0 })}
	if done {
		st.seq = math.MaxUint64
	}
	var err error
	st.ce, err = t.encode(done)
	return st, err
}

// encode is the track's part of the checkpoint now (t.mu held).
func (t *entityTrack) encode(done bool) (checkpointEntity, error) {
	counts := slices.Clone(t.n)
	if done {
		for i := range counts {
			counts[i].add(t.tail[i])
		}
	}
	ce := checkpointEntity{Name: t.e.Name, Rows: counts[0].rows, Items: counts[0].items, Rejected: counts[0].rejected, AfterRow: t.afterName()}
	for i, e := range t.ents[1:] {
		c := counts[i+1]
		ce.Also = append(ce.Also, sharedEntity{Name: e.Name, Rows: c.rows, Items: c.items, Rejected: c.rejected})
	}
	var err error
	if t.lo != nil {
		if ce.RangeAfter, err = encodeKey(t.lo); err != nil {
			return ce, fmt.Errorf("migrate: entity %s: %w", t.e.Name, err)
		}
	}
	if t.hi != nil {
		if ce.RangeUpTo, err = encodeKey(t.hi); err != nil {
			return ce, fmt.Errorf("migrate: entity %s: %w", t.e.Name, err)
		}
	}
	if done {
		ce.Done = true
		ce.AfterRow = ""
		return ce, nil
	}
	if t.after != nil {
		kv, err := encodeKey(t.after)
		if err != nil {
			return ce, fmt.Errorf("migrate: entity %s: %w", t.e.Name, err)
		}
		ce.After = kv
	}
	return ce, nil
}

// save writes the checkpoint atomically: the rejects file is synced
// first (the checkpoint counts rows as rejected only once their line is
// stored), then a temporary file is written, synced and renamed over the
// checkpoint, and the directory synced.
func (tr *tracker) save() error {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if err := tr.rej.sync(); err != nil {
		return err
	}
	f := tr.file
	if f.Follow != nil {
		fs := *f.Follow
		f.Follow = &fs
	}
	f.Saved = time.Now().UTC()
	f.Entities = nil
	for _, et := range tr.ents {
		ce, err := et.state()
		if err != nil {
			return err
		}
		f.Entities = append(f.Entities, ce)
	}
	f.S3 = tr.s3State()
	var err error
	if f.Checksum, err = f.checksum(); err != nil {
		return err
	}
	b, err := f.encode()
	if err != nil {
		return err
	}
	dir := filepath.Dir(tr.path)
	tmp, err := os.CreateTemp(dir, filepath.Base(tr.path)+".tmp*")
	if err != nil {
		return fmt.Errorf("migrate: saving the checkpoint: %w", err)
	}
	defer os.Remove(tmp.Name()) // after the rename there is nothing to remove
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("migrate: saving the checkpoint: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("migrate: saving the checkpoint: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("migrate: saving the checkpoint: %w", err)
	}
	if err := os.Rename(tmp.Name(), tr.path); err != nil {
		return fmt.Errorf("migrate: saving the checkpoint: %w", err)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// removeFinished deletes the checkpoint of a job that finished (or that
// settled nothing to resume from), once the run has released its lock.
func (tr *tracker) removeFinished() error {
	if tr == nil || !tr.removed {
		return nil
	}
	return tr.remove()
}

// remove deletes the checkpoint of a job that finished.
func (tr *tracker) remove() error {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if err := os.Remove(tr.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("migrate: removing the checkpoint of the finished job: %w", err)
	}
	return nil
}

// keepSaving saves the checkpoint every interval until stop is closed.
// A save that fails ends the run: a run whose checkpoint falls behind
// would, once killed, be resumed from a stale point without a word.
func (tr *tracker) keepSaving(every time.Duration, stop <-chan struct{}, fail func(error)) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			if err := tr.save(); err != nil {
				fail(err)
				return
			}
		}
	}
}

// EarlierRuns is what the interrupted runs of a resumed job settled: the
// rows up to each entity's checkpoint key, included in the report's counts.
type EarlierRuns struct {
	Checkpoint string `json:"checkpoint"`
	Rows       int64  `json:"rows"`
	Items      int64  `json:"items"`
	Rejected   int64  `json:"rejected"`
}

// addEarlier adds what the earlier runs settled to the report of a resumed
// run, per entity and in total, so that the report counts the whole job.
func (tr *tracker) addEarlier(r *Report) {
	e := &EarlierRuns{Checkpoint: tr.path}
	for i := range r.Entities {
		name := r.Entities[i].Name
		for _, et := range tr.byName[name] {
			c := et.earlierOf(name)
			r.Entities[i].Rows += c.rows
			r.Entities[i].Items += c.items
			r.Entities[i].Rejected += c.rejected
			e.Rows += c.rows
			e.Items += c.items
			e.Rejected += c.rejected
		}
	}
	r.RowsRead += e.Rows
	r.ItemsWritten += e.Items
	r.Rejected += e.Rejected
	r.Earlier = e
}

// settledOf is the rows of entity name the earlier runs of a resumed job
// settled (written or rejected); 0 without a checkpoint.
func (tr *tracker) settledOf(name string) int64 {
	if tr == nil {
		return 0
	}
	var n int64
	for _, et := range tr.byName[name] {
		n += et.earlierOf(name).rows
	}
	return n
}

// earlierOf is what the earlier runs settled of the track's entity name.
func (t *entityTrack) earlierOf(name string) tally {
	for i, e := range t.ents {
		if e.Name == name {
			return t.earlier[i]
		}
	}
	return tally{}
}

// startCheckpoint sets up the run's checkpoint: none without a path; for
// --resume, the interrupted run's, checked to be of this job (the same
// mapping, source database and table: the very table its settled items were
// written into, not one created since under its name), whose lock this run
// takes over and whose rejects file it appends to.
func startCheckpoint(ctx context.Context, o *Options, rep *Report, rej *rejects) (*tracker, error) {
	if o.CheckpointPath == "" {
		if o.Resume {
			return nil, errors.New("migrate: --resume needs the checkpoint file of the interrupted run")
		}
		return nil, nil
	}
	tr, err := newTracker(o.CheckpointPath, *o, rej)
	if err != nil {
		return nil, err
	}
	if tr.file.SourceServer, err = source.ServerID(ctx, o.Source); err != nil {
		return nil, fmt.Errorf("migrate: naming the source database for the checkpoint: %w", err)
	}
	if !o.Resume {
		return tr, nil
	}
	ck, warning, err := loadCheckpoint(o.CheckpointPath, tr)
	if err != nil {
		return nil, err
	}
	if warning != "" {
		rep.Warnings = append(rep.Warnings, warning)
	}
	if o.To == nil { // --to writes into no table
		if err := tr.sameTable(ctx, *o); err != nil {
			return nil, err
		}
		if o.Shard.Sharded() { // before the checkpoint is saved again: a refused shard leaves it as it was
			if err := checkResumedSplit(ctx, *o, rep, tr.file.SplitDigest, tr.file.SplitRanges); err != nil {
				return nil, err
			}
		}
	}
	o.RejectsPath, rej.path, tr.file.RejectsFile = ck.RejectsFile, ck.RejectsFile, ck.RejectsFile
	if err := rej.loadEarlier(); err != nil {
		return nil, err
	}
	for _, et := range tr.ents { // --max-rejects counts the whole job's
		for _, c := range et.earlier {
			rej.n += c.rejected
		}
	}
	tr.resumed = true
	// The lock may be taken over from the runs the checkpoint names; this
	// run is named too before it takes the lock, so that a run killed
	// between taking the lock and its next save can be resumed as well.
	o.resumeOwners = ck.Owners
	o.lockOwner = newOwner()
	tr.file.Owners = append(slices.Clone(ck.Owners), o.lockOwner)
	if err := tr.save(); err != nil {
		return nil, err
	}
	return tr, nil
}

// sameTable checks that the table a resumed run writes into is the one
// whose items the checkpoint settled: a table deleted (or an in-memory
// emulator restarted) and created again under its name holds none of them,
// and resuming into it would report rows as written that are not.
func (tr *tracker) sameTable(ctx context.Context, o Options) error {
	was := tableID{ARN: tr.file.TableARN, Created: tr.file.TableCreated}
	var settled int64
	for _, et := range tr.ents {
		for _, c := range et.earlier {
			settled += c.items
		}
	}
	now, err := describeTableID(ctx, o.DB, o.Table, dynamo.AttemptTimeout(o.RequestTimeout))
	if errors.Is(err, errNoTable) {
		return fmt.Errorf("migrate: --resume: table %s does not exist any more: the %d items checkpoint %s counts as written were in the table created at %s, and went with it; --resume cannot bring them back: start over without --resume (with --create-table)",
			o.Table, settled, tr.path, was.Created.Format(time.RFC3339Nano))
	}
	if err != nil {
		return err
	}
	if now != was {
		return fmt.Errorf("migrate: --resume: table %s is not the table the interrupted run wrote into: that one (%s) was created at %s, this one (%s) at %s, so the %d items checkpoint %s counts as written are not in it; start over without --resume (with --allow-non-empty)",
			o.Table, was.ARN, was.Created.Format(time.RFC3339Nano), now.ARN, now.Created.Format(time.RFC3339Nano), settled, tr.path)
	}
	return nil
}

// wroteInto records the table the run writes into (a new job's).
func (tr *tracker) wroteInto(id tableID) {
	if tr != nil {
		tr.file.TableARN, tr.file.TableCreated = id.ARN, id.Created
	}
}

// saving saves the checkpoint every o.CheckpointEvery while the pipeline
// runs; a save that fails stops the run. The returned stop ends that and
// removes the checkpoint when the job is finished (ok), or saves it one
// last time, when every request in flight has had its answer. It returns
// the error of a save that failed.
func (tr *tracker) saving(o Options, stopRun context.CancelCauseFunc) (stop func(ok bool) error) {
	if tr == nil {
		return func(bool) error { return nil }
	}
	every := o.CheckpointEvery
	if every <= 0 {
		every = DefaultCheckpointEvery
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	var failed error
	wg.Add(1)
	go func() {
		defer wg.Done()
		tr.keepSaving(every, done, func(err error) {
			failed = err
			stopRun(err)
		})
	}()
	return func(ok bool) error {
		close(done)
		wg.Wait()
		if failed != nil {
			return failed
		}
		if tr.file.Follow != nil {
			// A followed migration keeps its checkpoint, which names its
			// slot, until follow-cleanup ends it.
			return tr.save()
		}
		if ok || !tr.resumed && tr.nothingSettled() { // nothing to resume from
			// Removed only after the lock is released (run's deferred
			// removeFinished): a run killed in between leaves a
			// checkpoint to resume from, not a lock without one.
			tr.removed = true
			if ok {
				return tr.save()
			}
			return nil
		}
		return tr.save()
	}
}

// nothingSettled says whether no row of any entity is settled yet.
func (tr *tracker) nothingSettled() bool {
	for _, et := range tr.ents {
		if et.gate != nil {
			st, err := et.stored()
			if err != nil || st.some {
				return false
			}
			continue
		}
		et.mu.Lock()
		st, err := et.now()
		et.mu.Unlock()
		if err != nil || st.some {
			return false
		}
	}
	return true
}

// gateOn gates every track, and those made later (--to: s3sink.go).
func (tr *tracker) gateOn(g objectGate) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.gate = g
	for _, et := range tr.ents {
		et.mu.Lock()
		et.gate = g
		et.mu.Unlock()
	}
}

// report adds the checkpoint to the report: the file to resume from when
// the job is not finished, and in a resumed run what the earlier runs did.
func (tr *tracker) report(r *Report) {
	if tr == nil {
		return
	}
	if !tr.removed {
		r.Checkpoint = tr.path
	}
	if tr.resumed {
		tr.addEarlier(r)
	}
}
