package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/remodel-dev/remodel/migrate"
)

// migrateText prints migrate's report for people, in parts: the heading
// and the run's state, the follower's part, the counts, the rejected rows
// and stray items, the key check and the warnings. Only a run that
// succeeded is headed "migrated".
func migrateText(w *errWriter, r *migrate.Report) {
	migrateHeading(w, r)
	migrateState(w, r)
	if r.Follow != nil {
		migrateFollow(w, r)
	}
	migrateCounts(w, r)
	migrateRejectsAndStrays(w, r)
	migrateKeyCheck(w, r)
	if r.SnapshotWarning != "" {
		w.printf("  warning: %s\n", r.SnapshotWarning)
	}
	for _, warning := range r.Warnings {
		w.printf("  warning: %s\n", warning)
	}
}

// migrateHeading is the report's first line: the route, how the run
// ended, and a shard's job.
func migrateHeading(w *errWriter, r *migrate.Report) {
	switch {
	case r.S3 != nil:
		migrateS3Heading(w, r)
	case r.NullSink:
		w.printf("%s", nullHeading(r))
	case r.OK:
		w.printf("migrated %s into DynamoDB table %s", r.Engine, r.Table)
	case r.Interrupted:
		w.printf("migration of %s into DynamoDB table %s INTERRUPTED", r.Engine, r.Table)
	default:
		w.printf("migration of %s into DynamoDB table %s FAILED", r.Engine, r.Table)
	}
	if r.CreatedTable {
		w.printf(" (created)")
	}
	if r.Shard != "" {
		w.printf(", shard %s", r.Shard)
		if r.Job != "" {
			w.printf(" of job %q", r.Job)
		}
		if r.SplitDigest != "" {
			w.printf(" (split plan %s)", shortDigest(r.SplitDigest))
		}
	}
	w.printf("\n")
}

// migrateState says what the table (or the objects) hold after the run,
// and what to do next when it stopped.
func migrateState(w *errWriter, r *migrate.Report) {
	if r.AlreadyFinished != "" {
		w.printf("  --resume: the job had already finished at %s (its finished record %s; no checkpoint is left): nothing was done, and what follows is that run's report\n", r.Started.Add(r.Duration).Format(time.RFC3339), r.AlreadyFinished)
	}
	if r.Error != "" && !r.Interrupted {
		w.printf("  error: %s\n", r.Error)
	}
	switch {
	case r.S3 != nil:
		migrateS3Lines(w, r)
	case r.TableGone:
		w.printf("  the table is gone: DynamoDB answered that table %s does not exist while the run wrote into it (deleted, or an emulator restarted): the %d items it had acknowledged went with it%s; a checkpoint cannot bring them back: migrate again without --resume\n", r.Table, r.ItemsWritten, unanswered(r))
	case r.Partial && r.Checkpoint != "" && r.FollowSlot != "" && r.Follow == nil:
		w.printf("  the table is partial: %d items are written; the checkpoint %s records how far: migrate --follow --resume --checkpoint %s%s finishes the copy and then applies every change since its snapshot (the same mapping, source and table)\n", r.ItemsWritten, r.Checkpoint, r.Checkpoint, resumeArgs(r))
		w.printf("  %s\n", keptChanges(r))
	case r.Partial && r.Checkpoint != "":
		w.printf("  the table is partial: %d items are written; the checkpoint %s records how far: migrate --resume --checkpoint %s%s continues from there (the same mapping, source and table)\n", r.ItemsWritten, r.Checkpoint, r.Checkpoint, resumeArgs(r))
	case r.Partial && r.ItemsWritten == 0 && r.ItemsBefore == 0:
		// --allow-non-empty would not be needed: the table is as empty
		// as the run found it.
		w.printf("  nothing was written: the table holds no item of this run; migrate again once the cause is removed\n")
	case r.Partial:
		w.printf("  the table is partial: %d items were written before the run stopped; migrate again with --allow-non-empty to write every row again (items with the same key are replaced)\n", r.ItemsWritten)
	}
	if r.ItemsUnknown > 0 && !r.TableGone { // with the table gone, no item of the run is in it (above)
		w.printf("  %d more items written or not: their requests got no answer, or one that does not say whether DynamoDB wrote them, before the run stopped (the table holds between %d and %d items of this job; --resume writes them again)\n",
			r.ItemsUnknown, r.ItemsWritten, r.ItemsWritten+r.ItemsUnknown)
	}
}

// migrateFollow is the follower's part: from where to where it applied,
// its counts per entity, the diff pass, and how the migration goes on.
func migrateFollow(w *errWriter, r *migrate.Report) {
	f := r.Follow
	how := "stopped"
	switch {
	case f.Stopped && f.CaughtUp:
		how = "stopped by a signal once every change committed before the stop was applied"
	case f.Stopped:
		how = "stopped by a signal before every change committed before the stop was applied (the error says why)"
	}
	from := "its binlog"
	if f.Publication != "" {
		from = fmt.Sprintf("slot %s (publication %s)", f.Slot, f.Publication)
	}
	w.printf("  followed the source's changes from %s since %s, %s: applied up to %s\n", from, f.Start, how, f.Applied)
	w.printf("  %d transactions, %d changed rows: %d items put, %d deleted, %d rows rejected\n", f.Transactions, f.Changes, f.Puts, f.Deletes, f.Rejected)
	w.printf("  %-24s %10s %10s %10s %10s\n", "entity", "changes", "puts", "deletes", "rejected")
	for _, e := range f.Entities {
		w.printf("  %-24s %10d %10d %10d %10d\n", e.Name, e.Changes, e.Puts, e.Deletes, e.Rejected)
	}
	if len(f.Diffed) > 0 {
		w.printf("  the diff pass at the stop (entities read from a view or a query): the source's rows now against the table's items\n")
		w.printf("  %-24s %10s %10s %10s %10s %10s %10s\n", "entity", "rows", "items", "unchanged", "puts", "deletes", "rejected")
		for _, d := range f.Diffed {
			w.printf("  %-24s %10d %10d %10d %10d %10d %10d\n", d.Entity, d.Rows, d.Items, d.Unchanged, d.Puts, d.Deletes, d.Rejected)
		}
	}
	if f.Redone > 0 {
		w.printf("  %d rows of requests in doubt (no answer, or one that does not say whether DynamoDB wrote them) written again from the source at the stop\n", f.Redone)
	}
	switch {
	case r.Checkpoint == "":
	case r.TableGone:
		w.printf("  remodel follow-cleanup --checkpoint %s ends the followed migration (%s)\n", r.Checkpoint, cleanupDoes(r))
	default:
		w.printf("  migrate --follow --resume --checkpoint %s%s goes on from there; remodel follow-cleanup --checkpoint %s %s when the migration is over\n", r.Checkpoint, resumeArgs(r), r.Checkpoint, cleanupDoes(r))
		if f.Publication != "" {
			w.printf("  %s\n", keptChanges(r))
		}
	}
}

// migrateCounts is the rows, items, rejected rows, bytes and seconds per
// entity and in all, the run's pace, its phases and adaptive concurrency.
func migrateCounts(w *errWriter, r *migrate.Report) {
	if r.Earlier != nil {
		w.printf("  resumed from %s: the counts include %d rows (%d items, %d rejected) the earlier runs settled\n", r.Earlier.Checkpoint, r.Earlier.Rows, r.Earlier.Items, r.Earlier.Rejected)
	}
	w.printf("  %-24s %10s %10s %10s %10s %9s\n", "entity", "rows", "items", "rejected", "bytes", "seconds")
	var bytes int64
	for _, e := range r.Entities {
		w.printf("  %-24s %10d %10d %10d %10s %9.2f\n", e.Name, e.Rows, e.Items, e.Rejected, byteSize(e.Bytes), e.Seconds)
		bytes += e.Bytes
	}
	w.printf("  %-24s %10d %10d %10d %10s %9.2f\n", "total", r.RowsRead, r.ItemsWritten, r.Rejected, byteSize(bytes), r.Seconds)
	w.printf("  duration %.2fs, %.0f items/s, %d retries (%d throttled), %.1f write units\n",
		r.Seconds, r.ItemsPerSecond, r.Retries, r.Throttled, r.WriteUnits)
	if len(r.Phases) > 0 {
		var ps []string
		for _, p := range r.Phases {
			ps = append(ps, fmt.Sprintf("%s %.2fs", p.Name, p.Seconds))
		}
		w.printf("  phases: %s\n", strings.Join(ps, ", "))
	}
	if cc := r.Concurrency; cc != nil {
		w.printf("  adaptive concurrency: up to %d of %d requests in flight; throttling cut it %d times and paused every writer %d times, %.1fs in all\n",
			cc.Peak, cc.Writers, cc.Cuts, cc.Pauses, cc.Paused)
	}
}

// migrateRejectsAndStrays lists the first rejected rows and stray items,
// and says where the rest are.
func migrateRejectsAndStrays(w *errWriter, r *migrate.Report) {
	for _, rj := range r.Rejections {
		w.printf("  rejected: entity %s, row %s: %s\n", rj.Entity, rj.Row, rj.Reason)
	}
	if int(r.Rejected) > len(r.Rejections) {
		w.printf("  ... and %d more rejected rows\n", int(r.Rejected)-len(r.Rejections))
	}
	if r.RejectsFile != "" {
		w.printf("  every rejected row is in %s\n", r.RejectsFile)
	}
	if r.ItemsBefore > 0 {
		w.printf("  the table held %d items before the run\n", r.ItemsBefore)
	}
	if r.StrayItems > 0 {
		if r.StrayDeleted > 0 {
			w.printf("  %d items matched no source row (not written by this run); --delete-stale deleted %d of them\n", r.StrayItems, r.StrayDeleted)
		} else {
			w.printf("  %d items match no source row (not written by this run; --delete-stale deletes them)\n", r.StrayItems)
		}
		for _, k := range r.StrayKeys {
			w.printf("  stray: %s\n", k)
		}
		if int(r.StrayItems) > len(r.StrayKeys) {
			w.printf("  ... and %d more stray items\n", int(r.StrayItems)-len(r.StrayKeys))
		}
	}
}

// resumeArgs is what the resume hints add to the checkpoint: " --table T"
// when the run was given --table T, and a shard's --shard and --job.
// keptChanges says what keeps a followed migration's changes until it goes
// on, and what that costs the source.
func keptChanges(r *migrate.Report) string {
	if r.FollowKeeps {
		return fmt.Sprintf("replication slot %s keeps the changes since the copy's snapshot, and holds the source's WAL from there until the migration goes on or remodel follow-cleanup drops it", r.FollowSlot)
	}
	return "the source's binlog keeps the changes since the copy's snapshot only until it is purged (binlog_expire_logs_seconds): go on before that"
}

// cleanupDoes says what follow-cleanup does for the run's engine.
func cleanupDoes(r *migrate.Report) string {
	if r.FollowKeeps {
		return "drops the slot " + r.FollowSlot
	}
	return "removes the checkpoint (the binlog keeps nothing for remodel)"
}

func resumeArgs(r *migrate.Report) string {
	if r.TableFlag == "" {
		return shardArgs(r)
	}
	return " --table " + r.TableFlag + shardArgs(r)
}

// shardArgs is a shard's --shard and --job for a command that resumes it
// (its checkpoint refuses the run without them).
func shardArgs(r *migrate.Report) string {
	if r.Shard == "" {
		return ""
	}
	args := " --shard " + r.Shard
	if r.Job != "" {
		args += " --job " + shellWord(r.Job)
	}
	return args
}

// shellWord is s as one word of a POSIX shell command line.
func shellWord(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.,:/=@%+", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// migrateS3Heading is the report's first line for a migration into S3
// (without its newline).
func migrateS3Heading(w *errWriter, r *migrate.Report) {
	s := r.S3
	switch {
	case r.OK && s.Import != nil:
		w.printf("migrated %s into S3 %s and imported it into DynamoDB table %s", r.Engine, s.URL, r.Table)
	case r.OK && s.Bulk != nil:
		w.printf("migrated %s into S3 %s and bulk put it into DynamoDB table %s", r.Engine, s.URL, r.Table)
	case r.OK:
		w.printf("migrated %s into S3 %s (ImportTable objects for table %s)", r.Engine, s.URL, r.Table)
	case r.Interrupted:
		w.printf("migration of %s into S3 %s INTERRUPTED", r.Engine, s.URL)
	default:
		w.printf("migration of %s into S3 %s FAILED", r.Engine, s.URL)
	}
}

// migrateS3Lines says what the objects hold, where the manifest is, what
// the import did, and how to go on from a run that stopped.
func migrateS3Lines(w *errWriter, r *migrate.Report) {
	s := r.S3
	w.printf("  %d objects (%s compressed), %d bytes stored, %d bytes of DynamoDB JSON\n", s.Objects, s.Compression, s.Bytes, s.Uncompressed)
	if s.ObjectsKept > 0 {
		w.printf("  %d objects of the interrupted runs kept as they were; %d items rendered again were found in them, not written again\n", s.ObjectsKept, s.ItemsFound)
	}
	if n := len(s.LateDeleted); n > 0 {
		w.printf("  %d objects an interrupted run's uploads stored after this run had listed the prefix were deleted (this run wrote their items again): %s\n", n, strings.Join(s.LateDeleted, ", "))
	}
	if s.Manifest != "" {
		w.printf("  manifest: %s (objects, items, sizes, SHA-256, the table definition)\n", s.Manifest)
	}
	if i := s.Import; i != nil {
		w.printf("  ImportTable %s: %s, %d items processed, %d imported, %d errors, %d bytes processed\n", i.ARN, i.Status, i.ProcessedItems, i.ImportedItems, i.Errors, i.ProcessedBytes)
		if i.Failure != "" {
			w.printf("  import failure: %s\n", i.Failure)
		}
		if i.LogGroup != "" && (i.Errors > 0 || i.Status != "COMPLETED") {
			w.printf("  the failed items are in CloudWatch Logs group %s\n", i.LogGroup)
		}
		if i.TTL != "" {
			w.printf("  TTL enabled on %s\n", i.TTL)
		}
	}
	if b := s.Bulk; b != nil {
		how := ""
		if b.Attached {
			how = " (started by an earlier run of the job, waited for again)"
		}
		limit := "no MaxWriteRequestUnits"
		if b.MaxWriteUnits > 0 {
			limit = fmt.Sprintf("at most %d write units/s", b.MaxWriteUnits)
		}
		w.printf("  bulk put %s%s: %s, tier %s, %s; %d items processed, %d failed, %d input bytes read\n", b.ARN, how, b.Status, b.Tier, limit, b.ProcessedItems, b.FailedItems, b.ProcessedBytes)
		if b.Failure != "" {
			w.printf("  bulk put failure: %s\n", b.Failure)
		}
		if b.FailedItems > 0 || b.Rejected > 0 {
			w.printf("  its error report %s named %d refused items, recorded as rejected rows\n", b.ErrorReport, b.Rejected)
		}
		if b.Cancelled {
			w.printf("  cancelled by the signal (what it wrote stays in the table): migrate --resume with the checkpoint starts another\n")
		}
	}
	switch {
	case r.Partial && r.Checkpoint != "":
		w.printf("  the objects are partial: %d items are uploaded; the checkpoint %s records how far: migrate --resume --checkpoint %s --to %s%s continues (objects already uploaded are kept, not written again)\n", r.ItemsWritten, r.Checkpoint, r.Checkpoint, s.URL, shardArgs(r))
	case r.Partial:
		w.printf("  the objects are partial: %d items were uploaded; remove the objects under %s and migrate again\n", r.ItemsWritten, s.URL)
	}
}

// migrateKeyCheck prints the key collision check's lines of the report: the
// verdict, then its reasons one a line (the first few; the JSON report and
// remodel validate list them all).
func migrateKeyCheck(w *errWriter, r *migrate.Report) {
	if r.KeyProof == nil && !r.KeysDistinct && !r.KeyCheckForced {
		return // the run stopped before
	}
	if r.OK {
		migrateKeyCheckLine(w, r)
		return
	}
	switch {
	case r.KeyCheckForced && r.S3 != nil:
		w.printf("  key collision check: on (always, into S3: ImportTable keeps one of two items with one key without a word):\n")
	case r.KeyCheckForced:
		w.printf("  key collision check: on (--key-check always):\n")
	case r.KeysOnData:
		w.printf("  key collision check: skipped, proven unnecessary on the data of this snapshot:\n")
	case r.KeysDistinct:
		w.printf("  key collision check: skipped, proven unnecessary:\n")
	default:
		w.printf("  key collision check: on (the keys are not proven distinct):\n")
	}
	const shown = 3
	for i, reason := range r.KeyProof {
		if i == shown {
			w.printf("    … and %d more (remodel validate --source lists them)\n", len(r.KeyProof)-shown)
			break
		}
		w.printf("    %s\n", reason)
	}
	if k := r.KeyCheck; k != nil {
		w.printf("    %d keys checked: %.1f MiB in memory, %.1f MiB in temporary files, %d past the filter (looked up)\n",
			k.Keys, float64(k.MemoryBytes)/(1<<20), float64(k.DiskBytes)/(1<<20), k.Lookups)
	}
}

// migrateKeyCheckLine is the key collision check of a run that succeeded,
// in one line: what was decided and, when it ran, what it held; its
// reasons are in the JSON report and remodel validate --source.
func migrateKeyCheckLine(w *errWriter, r *migrate.Report) {
	var verdict string
	switch {
	case r.KeyCheckForced && r.S3 != nil:
		verdict = "on (always, into S3)"
	case r.KeyCheckForced:
		verdict = "on (--key-check always)"
	case r.KeysOnData:
		verdict = "skipped, proven unnecessary on this snapshot's data"
	case r.KeysDistinct:
		verdict = "skipped, proven unnecessary"
	default:
		verdict = "on (the keys are not proven distinct)"
	}
	if k := r.KeyCheck; k != nil {
		verdict += fmt.Sprintf(": %d keys, %.1f MiB in memory, %.1f MiB on disk, %d looked up", k.Keys, float64(k.MemoryBytes)/(1<<20), float64(k.DiskBytes)/(1<<20), k.Lookups)
	}
	w.printf("  key collision check: %s (why: remodel validate --source, or the JSON report's key_proof)\n", verdict)
}

// migrateMarkdown writes migrate's report for a CI job summary: a headline
// with the outcome, the table of entities, and the text report whole in a
// collapsed block.
func migrateMarkdown(w *errWriter, r *migrate.Report) {
	icon, outcome := "✅", "OK"
	switch {
	case r.Interrupted:
		icon, outcome = "⏸️", "INTERRUPTED"
	case !r.OK:
		icon, outcome = "❌", "FAILED"
	}
	target := "DynamoDB table " + MarkdownCode(r.Table)
	if r.NullSink {
		target = "the null sink (table " + MarkdownCode(r.Table) + "'s items, written nowhere)"
	}
	if r.S3 != nil {
		target = "S3 " + MarkdownCode(r.S3.URL) + " (table " + MarkdownCode(r.Table) + ")"
	}
	if r.Shard != "" {
		target += ", shard " + r.Shard
		if r.Job != "" {
			target += " of job " + MarkdownCode(r.Job)
		}
	}
	w.printf("### %s remodel migrate: %s\n\n%s into %s, %.1f s, %.0f items/s.\n\n", icon, outcome, r.Engine, target, r.Seconds, r.ItemsPerSecond)
	if r.Error != "" && !r.Interrupted {
		w.printf("> **error:** %s\n\n", MarkdownCell(r.Error))
	}
	w.printf("| entity | rows | items | rejected | bytes | seconds |\n|---|---|---|---|---|---|\n")
	var bytes int64
	for _, e := range r.Entities {
		w.printf("| %s | %d | %d | %d | %s | %.2f |\n", MarkdownCell(e.Name), e.Rows, e.Items, e.Rejected, byteSize(e.Bytes), e.Seconds)
		bytes += e.Bytes
	}
	w.printf("| **total** | %d | %d | %d | %s | %.2f |\n\n", r.RowsRead, r.ItemsWritten, r.Rejected, byteSize(bytes), r.Seconds)
	if len(r.Phases) > 0 {
		w.printf("| phase | seconds |\n|---|---|\n")
		for _, p := range r.Phases {
			w.printf("| %s | %.2f |\n", MarkdownCell(p.Name), p.Seconds)
		}
		w.printf("\n")
	}
	var text strings.Builder
	migrateText(&errWriter{w: &text}, r)
	w.printf("<details><summary>the report</summary>\n\n")
	fenced(w.printf, strings.Split(strings.TrimRight(text.String(), "\n"), "\n"))
	w.printf("</details>\n")
}

// unanswered is what the table-gone line says of the items whose requests
// got no answer: with the table, they are gone whether written or not.
func unanswered(r *migrate.Report) string {
	if r.ItemsUnknown == 0 {
		return ""
	}
	return fmt.Sprintf(", and so did the %d whose requests got no answer, written or not", r.ItemsUnknown)
}

// nullHeading heads the report of a run into the null sink.
func nullHeading(r *migrate.Report) string {
	switch {
	case r.OK:
		return fmt.Sprintf("migrated %s into the null sink: every row read, rendered and its key checked, nothing written (the items of table %s)", r.Engine, r.Table)
	case r.Interrupted:
		return fmt.Sprintf("migration of %s into the null sink INTERRUPTED", r.Engine)
	}
	return fmt.Sprintf("migration of %s into the null sink FAILED", r.Engine)
}
