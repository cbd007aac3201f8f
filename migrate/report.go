package migrate

import (
	"time"

	"github.com/remodel-dev/remodel/mapping"
)

// ReportVersion is the version of the Report's JSON shape; it changes only
// when a field changes meaning or goes (new fields are added freely).
const ReportVersion = 1

// Report is the outcome of a migration.
type Report struct {
	Version int    `json:"version"` // ReportVersion
	Table   string `json:"table"`
	Engine  string `json:"engine"`
	// Shard is "i/n" for one shard of a sharded job (--shard), and
	// SplitDigest the digest of the job's split plan the shard read by
	// (splitplan.go): the shards of one job name the same.
	Shard       string `json:"shard,omitempty"`
	SplitDigest string `json:"split_digest,omitempty"`
	// Job is the shard's --job, when given.
	Job string `json:"job,omitempty"`
	// OK is true when every row was written or rejected within
	// --max-rejects; Error says why the run stopped otherwise, Interrupted
	// that it was canceled (SIGINT, SIGTERM), and Partial that it stopped
	// after it began writing: the table holds only part of the rows.
	OK           bool          `json:"ok"`
	Error        string        `json:"error,omitempty"`
	Interrupted  bool          `json:"interrupted"`
	Partial      bool          `json:"partial"`
	CreatedTable bool          `json:"created_table"`
	Started      time.Time     `json:"started"`
	Duration     time.Duration `json:"duration_ns"`
	Seconds      float64       `json:"seconds"`
	RowsRead     int64         `json:"rows_read"`
	ItemsWritten int64         `json:"items_written"`
	// ItemsUnknown counts the items of a run that stopped whose requests
	// got no answer, or one that does not say whether DynamoDB acted on
	// them: written or not, the run cannot know (ItemsWritten counts only
	// what DynamoDB acknowledged). A resumed run writes them again.
	ItemsUnknown int64 `json:"items_unknown"`
	// TableGone is true when DynamoDB answered, while the run wrote, that
	// the table does not exist: the items it had acknowledged went with it.
	TableGone       bool           `json:"table_gone,omitempty"`
	Rejected        int64          `json:"rejected"`
	Retries         int64          `json:"retries"`
	Throttled       int64          `json:"throttled"`
	WriteUnits      float64        `json:"write_units"`
	ItemsPerSecond  float64        `json:"items_per_second"`
	Entities        []EntityReport `json:"entities"`
	Rejections      []Rejection    `json:"rejections,omitempty"` // the first 20
	RejectsFile     string         `json:"rejects_file,omitempty"`
	SnapshotWarning string         `json:"snapshot_warning,omitempty"`
	// ItemsBefore counts the items the table held before the run (with
	// --allow-non-empty; without it the table was empty). StrayItems are
	// the items of a table that held some, found after a successful run,
	// that this run did not write (StrayKeys names the first 20);
	// StrayDeleted how many of them --delete-stale deleted. ItemsInTable
	// is how many items the stray scan found in the table (the lock item
	// aside), before any was deleted: a run that counts more items written
	// than that fails (ErrItemsMissing).
	ItemsInTable int64    `json:"items_in_table,omitempty"`
	ItemsBefore  int64    `json:"items_before"`
	StrayItems   int64    `json:"stray_items"`
	StrayDeleted int64    `json:"stray_deleted"`
	StrayKeys    []string `json:"stray_keys,omitempty"`
	// KeysDistinct is true when the mapping proves that no two rows render
	// the same table key, so the key collision check was skipped; KeyProof
	// says why, or what the proof could not show (collide.go).
	KeysDistinct bool     `json:"keys_distinct"`
	KeyProof     []string `json:"key_proof,omitempty"`
	// KeysOnData is true when KeysDistinct rests on the data of the run's
	// snapshot: the columns its first KeyProof line names hold no
	// separator (collide.go, keyCheck).
	KeysOnData bool `json:"keys_on_data,omitempty"`
	// KeyCheckForced is true when the check ran without asking for the
	// proof (--key-check always).
	KeyCheckForced bool `json:"key_check_forced,omitempty"`
	// KeyCheck is what the key collision check held, when it ran.
	KeyCheck *KeyCheckStats `json:"key_check,omitempty"`
	// Warnings: a stale lock taken over, a lock that could not be removed.
	Warnings []string `json:"warnings,omitempty"`
	// Checkpoint is the file a run that did not finish left to resume
	// from (migrate --resume); Earlier, in a resumed run, what the earlier
	// runs of the job settled, included in the counts above.
	Checkpoint string       `json:"checkpoint,omitempty"`
	Earlier    *EarlierRuns `json:"earlier,omitempty"`
	// AlreadyFinished, in the report of a --resume that found no
	// checkpoint but the finished record of the job (a run finished, and
	// may have been killed before it said so), names that record: nothing
	// was done, and the rest of the report is the finished run's.
	AlreadyFinished string `json:"already_finished,omitempty"`
	// TableFlag is the --table the run was given ("": the mapping's
	// table.name), which the resume hint repeats: without it, migrate
	// --resume would write into the mapping's table.
	TableFlag string `json:"-"`
	// Concurrency is what the writers' adaptive concurrency did (nil: it
	// did not adapt: --fixed-writers, or not into a table).
	Concurrency *ConcurrencyReport `json:"concurrency,omitempty"`
	// Follow is what the follower (--follow) did after the copy.
	Follow *FollowReport `json:"follow,omitempty"`
	// FollowSlot names what keeps the changes of a followed migration
	// (--follow) from its snapshot on, also when the run ended before the
	// follower started: the replication slot (PostgreSQL: FollowKeeps),
	// or remodel's own name of the stream (MySQL's binlog keeps nothing).
	FollowSlot  string `json:"follow_slot,omitempty"`
	FollowKeeps bool   `json:"follow_slot_keeps_changes,omitempty"`
	// NullSink is true for a migration into the null sink (--to null:):
	// ItemsWritten are the items it acknowledged, which went nowhere.
	NullSink bool `json:"null_sink,omitempty"`
	// S3 is what a migration into S3 (--to) wrote, and imported.
	S3 *S3Report `json:"s3,omitempty"`
	// Phases are how long each phase of the run took, in the order they
	// ran (a phase the run did not reach, or skipped, is not there):
	// TimedSchema (added by the caller that read the schema), TimedTable,
	// TimedSnapshot, TimedKeyCheck, TimedCopy, TimedStrayScan.
	Phases []Phase `json:"phases,omitempty"`

	writing bool // the pipeline started: a run stopping now leaves a partial table
}

// KeyCheckStats describe the key collision check of a run: the keys it
// holds (every item written, and with --resume the keys of the rows earlier
// runs settled), its memory (bounded: --key-check-memory), its temporary
// files, and the keys its filter could not clear at once (Lookups: looked up
// in its table and on disk).
type KeyCheckStats struct {
	Keys        int64 `json:"keys"`
	MemoryBytes int64 `json:"memory_bytes"`
	DiskBytes   int64 `json:"disk_bytes"`
	Lookups     int64 `json:"lookups"`
}

// EntityReport is one entity's share of the migration: Bytes are the
// items' bytes DynamoDB acknowledged (as it counts an item's size), and
// Seconds the time from its first row read to its last item acknowledged
// (the entities of a run are copied at the same time: their seconds
// overlap).
type EntityReport struct {
	Name     string  `json:"name"`
	Rows     int64   `json:"rows"`
	Items    int64   `json:"items"`
	Rejected int64   `json:"rejected"`
	Bytes    int64   `json:"bytes"`
	Seconds  float64 `json:"seconds"`
}

// The phases of a run (Report.Phases).
const (
	TimedSchema    = "schema"     // reading the source's schema and compiling the mapping
	TimedTable     = "table"      // creating the table (--create-table), or checking the one there
	TimedSnapshot  = "snapshot"   // opening the source's snapshot
	TimedKeyCheck  = "key check"  // deciding whether the key collision check runs (its reading of the data)
	TimedCopy      = "copy"       // reading, rendering and writing every row
	TimedStrayScan = "stray scan" // finding the items of a table that held some that the run did not write
	TimedManifest  = "manifest"   // the S3 route: writing the objects' manifest
	TimedLoad      = "load"       // the S3 route: ImportTable or bulk put loading the objects, waited for
)

// Phase is how long one phase of a run took.
type Phase struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
}

// timed records the phase name, begun at start, as ended now.
func (r *Report) timed(name string, start time.Time) {
	r.Phases = append(r.Phases, Phase{Name: name, Seconds: time.Since(start).Seconds()})
}

func (r *Report) finish(p *mapping.Plan, c *counters, rej *rejects) {
	r.Duration = time.Since(r.Started)
	r.Seconds = r.Duration.Seconds()
	r.RowsRead = c.read.Load()
	r.ItemsWritten = c.written.Load()
	r.ItemsUnknown = c.sent.Unknown.Load()
	r.Rejected = c.rejected.Load()
	r.Retries = c.sent.Retries.Load()
	r.Throttled = c.sent.Throttled.Load()
	r.StrayDeleted = c.deleted.Load()
	c.mu.Lock()
	r.WriteUnits = c.units
	c.mu.Unlock()
	if r.Seconds > 0 {
		r.ItemsPerSecond = float64(r.ItemsWritten) / r.Seconds
	}
	for _, e := range p.Entities {
		ec := c.perEntity[e.Name]
		er := EntityReport{Name: e.Name, Rows: ec.read.Load(), Items: ec.written.Load(), Rejected: ec.rejected.Load(), Bytes: ec.bytes.Load()}
		if first, last := ec.first.Load(), ec.last.Load(); first > 0 && last > first {
			er.Seconds = time.Duration(last - first).Seconds()
		}
		r.Entities = append(r.Entities, er)
	}
	rej.mu.Lock()
	r.Rejections = append([]Rejection(nil), rej.first...)
	rej.mu.Unlock()
}

// ConcurrencyReport is what the writers' adaptive concurrency did: the
// most requests it let be in flight at once (of Writers), how often
// throttling cut that, and how often and how long a throttled answer
// paused every writer.
type ConcurrencyReport struct {
	Writers int     `json:"writers"`
	Peak    int64   `json:"peak_in_flight"`
	Cuts    int64   `json:"cuts"`
	Pauses  int64   `json:"pauses"`
	Paused  float64 `json:"paused_s"`
}

// concurrency is the writer's adaptive concurrency for the report; nil
// when it has none.
func (w *writer) concurrency() *ConcurrencyReport {
	if w == nil || w.cfg.Conc == nil {
		return nil
	}
	conc := w.cfg.Conc
	r := &ConcurrencyReport{Writers: conc.Max(), Peak: conc.Peak(), Cuts: conc.Cuts()}
	if g := w.cfg.Gate; g != nil {
		r.Pauses = g.Pauses()
		r.Paused = g.Paused().Seconds()
	}
	return r
}
