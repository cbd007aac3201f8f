package migrate

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/remodel-dev/remodel/internal/domain/mapping"
	"github.com/remodel-dev/remodel/internal/domain/progress"
	"github.com/remodel-dev/remodel/internal/domain/source"
)

// The parts of run, the route into a DynamoDB table (pipeline.go), in the
// order it calls them.

// checkOwnFiles refuses a rejected-rows file or checkpoint that is not a
// file the run may replace.
func checkOwnFiles(o Options) error {
	for _, p := range []struct{ what, path string }{{"rejected-rows file", o.RejectsPath}, {"checkpoint file", o.CheckpointPath}} {
		if err := CheckReplaceable(p.path); err != nil {
			return fmt.Errorf("migrate: the %s: %w", p.what, err)
		}
	}
	return nil
}

// prepareTable creates the table (--create-table; one shard of a job does,
// the others wait for it) or checks the one there, and records a new
// job's table in its checkpoint.
func prepareTable(ctx context.Context, o Options, rep *Report, tr *tracker, call func(*dynamodb.Options)) (err error) {
	switch {
	case o.CreateTable && !o.Resume && o.Shard.Sharded():
		if rep.CreatedTable, err = createShared(ctx, o); err != nil {
			return err
		}
	case o.CreateTable && !o.Resume: // a resumed job's table exists: startCheckpoint checked it is the job's
		if err := createTable(ctx, o.DB, &o.Plan.Table, o.Table, o.WarmThroughput, o.Stream, o.TableTimeout, o.RequestTimeout); err != nil {
			return err
		}
		rep.CreatedTable = true
	default:
		if err := CheckTable(ctx, o.DB, &o.Plan.Table, o.Table, call); err != nil {
			return err
		}
	}
	if tr != nil && !o.Resume {
		id, err := describeTableID(ctx, o.DB, o.Table, call)
		if err != nil {
			return err
		}
		tr.wroteInto(id)
	}
	return nil
}

// checkItemsBefore refuses a table that holds items unless told
// (--allow-non-empty), and counts them when told.
func checkItemsBefore(ctx context.Context, o Options, rep *Report, tr *tracker, call func(*dynamodb.Options)) (err error) {
	switch {
	case o.Shard.Sharded():
		// The items the table holds may be the sibling shards': a shard
		// cannot tell them from others, and leaves the table's check to
		// verify (docs/cli.md, Sharded runs).
	case o.Resume:
		rep.ItemsBefore = tr.file.ItemsBefore
	case !o.AllowNonEmpty:
		empty, err := IsEmpty(ctx, o.DB, &o.Plan.Table, o.Table, call)
		if err != nil {
			return err
		}
		if !empty {
			return fmt.Errorf("migrate: table %s already holds items: refusing to write into it (--allow-non-empty writes anyway; items with the same key are replaced)", o.Table)
		}
	default:
		if rep.ItemsBefore, err = countItems(ctx, o, call); err != nil {
			return err
		}
		if tr != nil {
			tr.file.ItemsBefore = rep.ItemsBefore
		}
	}
	return nil
}

// newCounters are the run's counts, one line per entity of the plan.
func newCounters(p *mapping.Plan) *counters {
	c := &counters{perEntity: map[string]*entityCounters{}}
	for _, e := range p.Entities {
		c.perEntity[e.Name] = &entityCounters{}
	}
	return c
}

// newRunWriter is the copy's writer: a followed run's records its
// requests in doubt (followdoubt.go), and a run into a table that held
// items (or a resumed one) keeps the keys it wrote for the stray check.
// closeWriter removes what it kept.
func newRunWriter(o Options, rep *Report, sf *followSetup, tr *tracker, c *counters, rej *rejects) (w *writer, closeWriter func()) {
	w = newWriter(o, c, rej)
	if sf != nil && tr != nil {
		w.doubted = tr.followDoubted
	}
	if (rep.ItemsBefore > 0 || o.Resume) && !o.Shard.Sharded() { // a shard's job is all shards
		w.written = newKeySet()
		return w, func() { w.written.close() }
	}
	return w, func() {}
}

// copyRows copies the snapshot's rows: the key collision check, the split
// into reads (a shard's the job's, whose plan's digest it returns), the
// pipeline, and the stray check.
func copyRows(ctx context.Context, o Options, rep *Report, snap source.Snapshot, w *writer, rej *rejects, c *counters, tr *tracker, call func(*dynamodb.Options)) (splitDigest string, err error) {
	if err := keyCheck(ctx, &o, rep, snap.Readers()[:o.Readers], snap.Warning()); err != nil { // before the goroutines that read o
		return "", err
	}
	reads, err := splitReads(ctx, o, snap.Readers()[0], tr)
	if err != nil {
		return "", err
	}
	if o.Shard.Sharded() { // before any item is written: the shards of the job read one split
		splitDigest, err = shardSplit(ctx, o, rep, reads, tr)
		rep.SplitDigest = splitDigest
		if err != nil {
			return splitDigest, err
		}
	}
	var phase *progress.Phase
	if phase, err = copyPhase(ctx, o, snap.Readers(), c, tr, w); err != nil {
		return splitDigest, err
	}
	rep.writing = true
	err = rejectsAlone(pipeline(ctx, o, rep, reads, snap.Readers(), w, rej, c, tr))
	phase.End(err == nil)
	if err != nil {
		return splitDigest, err
	}
	rep.writing = false // every row is written or rejected: what follows cannot leave the table partial
	if w.written != nil {
		err = strays(ctx, o, w, rep, tr, call)
	}
	return splitDigest, err
}

// finishRun ends a run that got as far as its checkpoint's saver: the
// saver stops (the checkpoint removed when the job is finished), the
// rejected-rows file is closed, a shard's split plan marked done, and the
// report completed. It returns err, or the first error of these.
func finishRun(ctx context.Context, o Options, rep *Report, err error, stopSaving func(bool) error, rej *rejects, splitDigest string, c *counters, w *writer, tr *tracker) error {
	if cerr := stopSaving(err == nil); cerr != nil {
		if err == nil || errors.Is(err, context.Canceled) {
			err = cerr
		} else {
			err = fmt.Errorf("%w; and %w", err, cerr)
		}
	}
	if cerr := rej.close(); err == nil {
		err = cerr
	}
	if err == nil && splitDigest != "" {
		if warning := splitDone(ctx, o, splitDigest); warning != "" {
			rep.Warnings = append(rep.Warnings, warning)
		}
	}
	rep.finish(o.Plan, c, rej)
	rep.Concurrency = w.concurrency()
	tr.report(rep)
	if rej.n > 0 && o.RejectsPath != "" {
		rep.RejectsFile = o.RejectsPath
	}
	return err
}
