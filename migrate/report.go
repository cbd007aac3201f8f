package migrate

import (
	"fmt"
	"io"
	"time"

	"github.com/remodel-dev/remodel/mapping"
)

// Report is the outcome of a migration.
type Report struct {
	Table  string `json:"table"`
	Engine string `json:"engine"`
	// Shard is "i/n" for one shard of a sharded job (--shard).
	Shard string `json:"shard,omitempty"`
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
	// StrayDeleted how many of them --delete-stale deleted.
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
	// TableFlag is the --table the run was given ("": the mapping's
	// table.name), which the resume hint repeats: without it, migrate
	// --resume would write into the mapping's table.
	TableFlag string `json:"-"`
	// Follow is what the follower (--follow) did after the copy.
	Follow *FollowReport `json:"follow,omitempty"`
	// S3 is what a migration into S3 (--to) wrote, and imported.
	S3 *S3Report `json:"s3,omitempty"`

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

// EntityReport is one entity's share of the migration.
type EntityReport struct {
	Name     string `json:"name"`
	Rows     int64  `json:"rows"`
	Items    int64  `json:"items"`
	Rejected int64  `json:"rejected"`
}

func (r *Report) finish(p *mapping.Plan, c *counters, rej *rejects) {
	r.Duration = time.Since(r.Started)
	r.Seconds = r.Duration.Seconds()
	r.RowsRead = c.read.Load()
	r.ItemsWritten = c.written.Load()
	r.ItemsUnknown = c.unknown.Load()
	r.Rejected = c.rejected.Load()
	r.Retries = c.retries.Load()
	r.Throttled = c.throttled.Load()
	r.StrayDeleted = c.deleted.Load()
	c.mu.Lock()
	r.WriteUnits = c.units
	c.mu.Unlock()
	if r.Seconds > 0 {
		r.ItemsPerSecond = float64(r.ItemsWritten) / r.Seconds
	}
	for _, e := range p.Entities {
		ec := c.perEntity[e.Name]
		r.Entities = append(r.Entities, EntityReport{Name: e.Name, Rows: ec.read.Load(), Items: ec.written.Load(), Rejected: ec.rejected.Load()})
	}
	rej.mu.Lock()
	r.Rejections = append([]Rejection(nil), rej.first...)
	rej.mu.Unlock()
}

// WriteText prints the report for people. Only a run that succeeded is
// headed "migrated".
func (r *Report) WriteText(w io.Writer) {
	switch {
	case r.S3 != nil:
		r.writeS3Heading(w) // s3text.go
	case r.OK:
		fmt.Fprintf(w, "migrated %s into DynamoDB table %s", r.Engine, r.Table)
	case r.Interrupted:
		fmt.Fprintf(w, "migration of %s into DynamoDB table %s INTERRUPTED", r.Engine, r.Table)
	default:
		fmt.Fprintf(w, "migration of %s into DynamoDB table %s FAILED", r.Engine, r.Table)
	}
	if r.CreatedTable {
		fmt.Fprint(w, " (created)")
	}
	if r.Shard != "" {
		fmt.Fprintf(w, ", shard %s", r.Shard)
	}
	fmt.Fprintln(w)
	if r.Error != "" && !r.Interrupted {
		fmt.Fprintf(w, "  error: %s\n", r.Error)
	}
	switch {
	case r.S3 != nil:
		r.writeS3Lines(w)
	case r.TableGone:
		fmt.Fprintf(w, "  the table is gone: DynamoDB answered that table %s does not exist while the run wrote into it (deleted, or an emulator restarted): the %d items it had acknowledged went with it; a checkpoint cannot bring them back: migrate again without --resume\n", r.Table, r.ItemsWritten)
	case r.Partial && r.Checkpoint != "":
		fmt.Fprintf(w, "  the table is partial: %d items are written; the checkpoint %s records how far: migrate --resume --checkpoint %s%s continues from there (the same mapping, source and table)\n", r.ItemsWritten, r.Checkpoint, r.Checkpoint, r.tableArg())
	case r.Partial && r.ItemsWritten == 0 && r.ItemsBefore == 0:
		// --allow-non-empty would not be needed: the table is as empty
		// as the run found it.
		fmt.Fprintf(w, "  nothing was written: the table holds no item of this run; migrate again once the cause is removed\n")
	case r.Partial:
		fmt.Fprintf(w, "  the table is partial: %d items were written before the run stopped; migrate again with --allow-non-empty to write every row again (items with the same key are replaced)\n", r.ItemsWritten)
	}
	if r.ItemsUnknown > 0 {
		fmt.Fprintf(w, "  %d more items written or not: their requests got no answer, or one that does not say whether DynamoDB wrote them, before the run stopped (the table holds between %d and %d items of this job; --resume writes them again)\n",
			r.ItemsUnknown, r.ItemsWritten, r.ItemsWritten+r.ItemsUnknown)
	}
	if f := r.Follow; f != nil {
		how := "stopped"
		if f.Stopped {
			how = "stopped by a signal, as it should"
		}
		from := "its binlog"
		if f.Publication != "" {
			from = fmt.Sprintf("slot %s (publication %s)", f.Slot, f.Publication)
		}
		fmt.Fprintf(w, "  followed the source's changes from %s since %s, %s: applied up to %s\n", from, f.Start, how, f.Applied)
		fmt.Fprintf(w, "  %d transactions, %d changed rows: %d items put, %d deleted, %d rows rejected\n", f.Transactions, f.Changes, f.Puts, f.Deletes, f.Rejected)
		fmt.Fprintf(w, "  %-24s %10s %10s %10s %10s\n", "entity", "changes", "puts", "deletes", "rejected")
		for _, e := range f.Entities {
			fmt.Fprintf(w, "  %-24s %10d %10d %10d %10d\n", e.Name, e.Changes, e.Puts, e.Deletes, e.Rejected)
		}
		if len(f.Diffed) > 0 {
			fmt.Fprintf(w, "  the diff pass at the stop (entities read from a view or a query): the source's rows now against the table's items\n")
			fmt.Fprintf(w, "  %-24s %10s %10s %10s %10s %10s %10s\n", "entity", "rows", "items", "unchanged", "puts", "deletes", "rejected")
			for _, d := range f.Diffed {
				fmt.Fprintf(w, "  %-24s %10d %10d %10d %10d %10d %10d\n", d.Entity, d.Rows, d.Items, d.Unchanged, d.Puts, d.Deletes, d.Rejected)
			}
		}
		if r.Checkpoint != "" {
			fmt.Fprintf(w, "  migrate --follow --resume --checkpoint %s%s goes on from there; remodel follow-cleanup --checkpoint %s drops the slot when the migration is over\n", r.Checkpoint, r.tableArg(), r.Checkpoint)
		}
	}
	if r.Earlier != nil {
		fmt.Fprintf(w, "  resumed from %s: the counts include %d rows (%d items, %d rejected) the earlier runs settled\n", r.Earlier.Checkpoint, r.Earlier.Rows, r.Earlier.Items, r.Earlier.Rejected)
	}
	fmt.Fprintf(w, "  %-24s %10s %10s %10s\n", "entity", "rows", "items", "rejected")
	for _, e := range r.Entities {
		fmt.Fprintf(w, "  %-24s %10d %10d %10d\n", e.Name, e.Rows, e.Items, e.Rejected)
	}
	fmt.Fprintf(w, "  %-24s %10d %10d %10d\n", "total", r.RowsRead, r.ItemsWritten, r.Rejected)
	fmt.Fprintf(w, "  duration %.2fs, %.0f items/s, %d retries (%d throttled), %.1f write units\n",
		r.Seconds, r.ItemsPerSecond, r.Retries, r.Throttled, r.WriteUnits)
	for _, rj := range r.Rejections {
		fmt.Fprintf(w, "  rejected: entity %s, row %s: %s\n", rj.Entity, rj.Row, rj.Reason)
	}
	if int(r.Rejected) > len(r.Rejections) {
		fmt.Fprintf(w, "  ... and %d more rejected rows\n", int(r.Rejected)-len(r.Rejections))
	}
	if r.RejectsFile != "" {
		fmt.Fprintf(w, "  every rejected row is in %s\n", r.RejectsFile)
	}
	if r.ItemsBefore > 0 {
		fmt.Fprintf(w, "  the table held %d items before the run\n", r.ItemsBefore)
	}
	if r.StrayItems > 0 {
		if r.StrayDeleted > 0 {
			fmt.Fprintf(w, "  %d items matched no source row (not written by this run); --delete-stale deleted %d of them\n", r.StrayItems, r.StrayDeleted)
		} else {
			fmt.Fprintf(w, "  %d items match no source row (not written by this run; --delete-stale deletes them)\n", r.StrayItems)
		}
		for _, k := range r.StrayKeys {
			fmt.Fprintf(w, "  stray: %s\n", k)
		}
		if int(r.StrayItems) > len(r.StrayKeys) {
			fmt.Fprintf(w, "  ... and %d more stray items\n", int(r.StrayItems)-len(r.StrayKeys))
		}
	}
	r.writeKeyCheck(w)
	if r.SnapshotWarning != "" {
		fmt.Fprintf(w, "  warning: %s\n", r.SnapshotWarning)
	}
	for _, warning := range r.Warnings {
		fmt.Fprintf(w, "  warning: %s\n", warning)
	}
}

// tableArg is " --table T" when the run was given --table T, for the
// resume hints; "" otherwise.
func (r *Report) tableArg() string {
	if r.TableFlag == "" {
		return ""
	}
	return " --table " + r.TableFlag
}
