// Package migrate owns writing a mapping's items into DynamoDB. The entry
// point is Run: Options name the mapping.Plan, the Source (OpenSource opens
// one from a DSN), the DynamoDB client (an SDK *dynamodb.Client will do) and
// the table, and Run returns the Report (see the Example).
//
// What it owns: creating the
// table (keys, secondary indexes, billing, TTL) and waiting until it is
// ACTIVE, refusing a non-empty table unless told, and the pipeline that
// streams rows from a consistent source snapshot through rendering and
// batching into a fixed pool of BatchWriteItem writers, retrying
// UnprocessedItems, throttling, 5xx and requests left unanswered (every
// attempt has a deadline) with capped exponential backoff and jitter,
// recording rejected rows, and ending with a report. A batch DynamoDB
// refuses as invalid is split until the items it refuses are found alone;
// their rows are rejected with DynamoDB's message and the rest are written.
//
// The stages (render.go): the readers (Options.Readers, one entity or key
// range each at a time) copy their rows, in key order with each row's
// checkpoint mark, into chunks of 64 rows for a pool of render workers
// (Options.RenderWorkers, default GOMAXPROCS). A worker renders a chunk,
// passes its items through the key collision check and fills batches of
// its own (25 items: 25 items of at most 400 KB are within BatchWriteItem's
// 16 MB), sends each full batch to the writers and its last, partial one
// when the rows end. No goroutine sees every item, and a channel carries
// a chunk of rows or a batch, not an item.
//
// Routes (route.go): runRoute runs every migration one way: its own
// files checked, the checkpoint and the follower's start, the target
// opened, the snapshot, the copy through the route's sink, what the route
// does after the copy, the follower, and the end of the checkpoint, the
// rejects file and the report. A route supplies what differs: the table's
// (tableRoute, runparts.go: the table created or checked and locked, the
// stray items looked for) and the objects' (s3Route, s3runparts.go: the
// prefix claimed, the manifest written, the objects imported or bulk put).
//
// Sinks (sink.go; the contract is internal/domain/sink.Sink): the writers
// send the batches into the one sink newSink chose for the run, having
// rejected the rows whose item has the lock item's key: the table, through
// the BatchWriteItem sink (internal/domain/sink/batchwrite, of which the
// writer, writer.go, is the pipeline's side: it makes the sink, hands it
// batches and counts, records and settles what it acknowledges);
// ImportTable's objects in S3 or a local directory (--to: the objects sink,
// internal/domain/sink/objects, of which the objectLedger, s3ledger.go, is
// the pipeline's side: it settles an item's row once the item is placed in
// an open object, and counts it stored once that object is uploaded); or
// the null sink (--to null:, internal/domain/sink/null), which
// acknowledges every item and writes nothing, with no table, lock or
// checkpoint. A sink acknowledges an item only once it is stored; the
// checkpoint never passes an item that is not.
//
// Run control: a lock item in the table (mapping.LockKeyText, lock.go)
// keeps a second run out while one writes, with a heartbeat, a staleness
// limit past which it is taken over, and removal however the run ends. When
// the run stops (an error, a canceled context) the writers send nothing new
// but wait a grace period for the answers of their requests in flight, so
// that the report counts exactly what DynamoDB acknowledged
// (backoff.AfterGrace). An optional rate limit (a token bucket of write
// units) paces the writers, and a throttled answer pauses all of them
// together (batchwrite.RateLimit and Gate). Into a table
// that held items, the run counts them first and, at the end, finds (and on
// request deletes) the items it did not write (stray.go). Progress: the
// copy's rows per entity, read from the report's own counters, with totals
// from the source's estimates or counted in the snapshot; with --follow the
// follower's changes applied and its lag, read from the stream (progress.go).
//
// Resume (checkpoint.go the file, checkpoint_track.go the rows in flight,
// checkpoint_resume.go its checks, checkpoint_follow.go the follower's part;
// read.go): rows are read in key order, and each
// entity tracks its rows in flight; a row is settled when its item is
// acknowledged or the row rejected, and the key of the last row of the
// contiguous settled prefix is the entity's checkpoint, saved atomically at
// intervals and when the run stops. A resumed run checks that the
// checkpoint is this job's, takes the lock over from the run that wrote it,
// reads the settled rows' keys again (for the collision check and the
// stray items, writing nothing) and then the rows after each checkpoint
// key, appends to the rejects file without repeating a row, and reports
// the whole job (rejects_resume.go).
//
// Sharded jobs (shard.go, splitplan.go): migrate --shard i/n reads its share
// of every read's key ranges, under a lock item of its own; the shards of a
// job agree on one split plan (the ranges' boundaries), recorded in the
// table by the first shard and adopted by the others, or named by its
// digest in each shard's S3 manifest (s3shard.go).
//
// Shared reads (shared.go): entities built from one table are read by one
// statement (per key range) that selects, besides the table's columns and
// each entity's extra ones, each entity's where as a boolean; a row becomes
// an item of every entity whose where it matches. Such a read is one track
// of the checkpoint: a row is settled when all its items are. A statement
// the database refuses (tried first, reading no row) makes the entities
// read each alone.
//
// An entity with embeds has its child rows read beside its own rows, by
// readers taken from a pool of extra snapshot connections (internal/domain/embedread), and
// merged by mapping.Entity.StreamEmbedded. Its checkpoint advances by its
// own key, and a key range of it (--ranges, or a resumed run's rows after
// the checkpoint) reads the child rows of the parents in that range by the
// same bounds on the parent's key, which the child rows are ordered by
// first (source.KeyBound's prefix bounds).
//
// The key collision check (collide.go) rejects a row whose item has the key
// of an earlier row's. The render workers share it: it is sharded by the
// key's hash, with a lock each, so two items with one key meet in one
// shard; a read's chunks pass it in the read's order, so of two rows of one
// read the first in key order wins (of rows of different reads, whichever
// comes first, as before). It is skipped when the mapping proves the keys
// distinct (mapping/keyproof: keyproof.Prove), or when the proof's only gaps
// are text columns that may hold the separator after them and no row of
// the run's snapshot does (asked of the source in that snapshot:
// source.Reader.HoldsByte), and otherwise keeps the keys on disk and a
// filter of a fixed size in memory (internal/domain/keyset). The report's write units are
// counted from the items' sizes and indexes (units.go), not asked of
// DynamoDB.
package migrate
