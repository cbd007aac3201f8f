// Package followback owns the way back: remodel follow-back reads the
// DynamoDB Stream (NEW_AND_OLD_IMAGES) of the table a migration wrote and
// applies every item change to the source database through the inverse of
// the mapping (package mapping's inverse*.go), so that after a switch to
// DynamoDB the source stays a place to switch back to.
//
// What it owns:
//
//   - the stream (stream.go): the table's stream checked (enabled with
//     NEW_AND_OLD_IMAGES, not enabled later than the table was created,
//     the same stream as the checkpoint's), its shards read in their
//     parents' order, each from its checkpoint;
//   - the start (run.go): a first run reads every open shard to its end
//     and records that point before it says it is ready, so nothing
//     written before it started (the migration's and the forward
//     follower's writes) is applied back; it refuses to start while a
//     forward follower (migrate) holds the table's lock, and stops when
//     one takes it;
//   - applying (apply.go): an item change matched to one entity, read back
//     into row changes, written by source.Writeback in one transaction,
//     guarded by the old image; a conflict or an item it cannot read back
//     is a dead letter (deadletter.go), a change the source's foreign keys
//     refuse for now is deferred and retried, never dropped;
//   - the checkpoint (checkpoint.go, per shard: the last record done, the
//     parent, done; each record done appended to its journal, the whole
//     file rewritten at most once a second), its own lock item in the table (lock.go), the
//     progress and lag, and the report (report.go).
package followback
