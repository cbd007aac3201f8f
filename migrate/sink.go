package migrate

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/remodel-dev/remodel/internal/domain/sink"
	"github.com/remodel-dev/remodel/internal/domain/sink/null"
	"github.com/remodel-dev/remodel/internal/domain/sink/objects"
)

// The sinks (internal/domain/sink: the contract): the DynamoDB table
// (internal/domain/sink/batchwrite, made by the writer, writer.go),
// ImportTable's objects in S3 or a local directory
// (internal/domain/sink/objects, acknowledged through an objectLedger,
// s3ledger.go), or the null sink (--to null:, internal/domain/sink/null).
// newSink chooses one for the run.

// sinkFor is what a run's sink is made for, beside its options: the
// writer, and for --to the objects' ledger, the name of the run's
// objects, how many of an earlier run's stay, and whether the run follows
// the source after the load.
type sinkFor struct {
	w        *writer
	ledger   *objectLedger
	run      string
	kept     int
	followed bool
}

// newSink is the sink a run's pipeline writes into, chosen by its options:
// the null sink (o.Null), which acknowledges through the writer (its
// counters, rejects and checkpoint marks); the objects of o.To (one open
// object per writer), which acknowledge through the ledger, counted into
// the writer's counters once uploaded; or the table, through the writer
// itself. The pipeline has rejected the rows whose item has the lock
// item's key before a sink sees them (sinkWriter).
func newSink(o Options, f sinkFor) sink.Sink {
	switch {
	case o.Null:
		return null.New(writerAcks{f.w})
	case o.To != nil:
		return objects.New(objects.Config{
			Store: o.S3, Loc: *o.To, Comp: o.Compression, Table: &o.Plan.Table, Run: f.run,
			Size: o.ObjectSize, Items: o.ObjectItems, Slots: o.Writers, Kept: f.kept,
			Timeout: o.RequestTimeout, Grace: o.StopGrace, Followed: f.followed,
		}, f.ledger)
	default:
		return f.w.snk
	}
}

// pendingBatch is the pipeline's batch as a sink sees it (sink.Batch): the
// items, with their rows and checkpoint marks beside them.
type pendingBatch []pending

// Len is the batch's number of items.
func (b pendingBatch) Len() int { return len(b) }

// Item is item i of the batch; its size is computed once and kept.
func (b pendingBatch) Item(i int) sink.Item {
	p := &b[i]
	if p.size == 0 && !p.del {
		p.size = itemSize(p)
	}
	return sink.Item{Value: p.item, Entity: p.entity, Delete: p.del, Size: p.size}
}

// Row names item i's row by its source key (sink.Rows).
func (b pendingBatch) Row(i int) string { return b[i].sourceKey() }

// errForeignBatch is a sink of this package given a batch the pipeline
// did not make.
var errForeignBatch = errors.New("migrate: a sink was given a batch the pipeline did not make")

// pendingOf is the pipeline's batch b.
func pendingOf(b sink.Batch) ([]pending, error) {
	pb, ok := b.(pendingBatch)
	if !ok {
		return nil, errForeignBatch
	}
	return pb, nil
}

// writerAcks acknowledges a sink's items as the writer does its own:
// counted written (their bytes and write units too), their rows settled,
// and a refused item's row rejected.
type writerAcks struct{ w *writer }

// Stored acknowledges items from to to-1 of b.
func (a writerAcks) Stored(b sink.Batch, from, to int) {
	if items, err := pendingOf(b); err == nil {
		a.w.acknowledged(items[from:to])
	}
}

// Rejected records item i of b as a rejected row.
func (a writerAcks) Rejected(b sink.Batch, i int, reason string) error {
	items, err := pendingOf(b)
	if err != nil {
		return err
	}
	return a.w.refused(items[i], reason)
}

// sinkWriter is one of the pipeline's writers: it takes the batches the
// render workers fill and sends them into snk, having rejected the rows
// whose item has the lock item's key (every route does: a run into S3 or
// the null sink counts what a run into the table would).
func sinkWriter(ctx context.Context, w *writer, snk sink.Sink, batches <-chan []pending) error {
	for b := range batches {
		b, err := w.reserved(b)
		if err != nil {
			return err
		}
		if len(b) == 0 {
			continue
		}
		if err := snk.Write(ctx, pendingBatch(b)); err != nil {
			return err
		}
	}
	return nil
}

// refuseNull refuses, for the null sink, the options that need a store:
// nothing is written, so there is nothing to resume, follow into or load.
func refuseNull(o Options) error {
	if !o.Null {
		return nil
	}
	var bad []string
	for _, opt := range []struct {
		set  bool
		name string
	}{
		{o.Follow, "--follow (the changes are applied to a table)"},
		{o.Resume || o.CheckpointPath != "", "--resume or a checkpoint (nothing is stored: a stopped run has nothing to go on from)"},
		{o.CreateTable || o.AllowNonEmpty || o.DeleteStale, "--create-table, --allow-non-empty or --delete-stale (there is no table)"},
		{o.Shard.Sharded() || o.ShardsDone > 0, "--shard or --shards-done"},
		{o.To != nil || o.Import, "--to a location or --import"},
		{o.RateLimit > 0, "--rate-limit (nothing is written)"},
	} {
		if opt.set {
			bad = append(bad, opt.name)
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("migrate: --to null: reads, renders and checks the keys of every row and writes nothing: it does not go with %s", strings.Join(bad, ", "))
	}
	return nil
}
