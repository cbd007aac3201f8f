package migrate

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/remodel-dev/remodel/internal/domain/dynamo"
	"github.com/remodel-dev/remodel/mapping"
)

// The parts of the route into a DynamoDB table or the null sink
// (tableRoute; route.go runs it), in the order they are called.

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

// openTable opens the table for the run (none for the null sink): it
// creates or checks it (prepareTable), takes its lock, whose heartbeat
// stops the run with stopRun when the lock is lost, and refuses a table
// that holds items unless told (checkItemsBefore). owner is the lock's
// owner, for the checkpoint. The run defers closeTable, which stops the
// heartbeat, releases the lock (a lock it cannot remove is a warning),
// removes a finished run's checkpoint, and names the lost lock as the
// cause of a run it stopped.
func openTable(ctx context.Context, o Options, rep *Report, tr *tracker, stopRun context.CancelCauseFunc, call func(*dynamodb.Options)) (owner string, closeTable func(context.Context, *error), err error) {
	if o.Null {
		return "", func(context.Context, *error) {}, nil
	}
	if err := prepareTable(ctx, o, rep, tr, call); err != nil {
		return "", nil, err
	}
	lk, err := acquireLock(ctx, o, rep)
	if err != nil {
		return "", nil, err
	}
	// The heartbeat goes on after a signal, until the run has unwound:
	// a followed run's stop (drain, rows in doubt, diff pass) writes after
	// the signal.
	stopHeartbeat := lk.keepAlive(context.WithoutCancel(ctx), stopRun)
	closeTable = func(ctx context.Context, err *error) {
		if *err != nil && ctx.Err() != nil { // the heartbeat's reason, when it stopped the run
			if cause := context.Cause(ctx); errors.Is(cause, errLockLost) {
				*err = cause
			}
		}
		stopHeartbeat()
		stopRun(nil)
		if warning := lk.release(ctx); warning != "" {
			rep.Warnings = append(rep.Warnings, warning)
		}
		if rerr := tr.removeFinished(rep, *err); rerr != nil && *err == nil {
			*err = rerr
		}
	}
	if err := checkItemsBefore(ctx, o, rep, tr, call); err != nil {
		closeTable(ctx, &err)
		return "", nil, err
	}
	return lk.held.owner, closeTable, nil
}

// prepareTable creates the table (--create-table; one shard of a job does,
// the others wait for it) or checks the one there, and records a new
// job's table in its checkpoint.
func prepareTable(ctx context.Context, o Options, rep *Report, tr *tracker, call func(*dynamodb.Options)) (err error) {
	defer rep.timed(TimedTable, time.Now())
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

// tableRoute is the route into a DynamoDB table (the writer is its sink)
// or into the null sink: the table is created or checked and locked
// before the copy, the items the run did not write are looked for after
// it, and the follower writes into it under the run's lock.
type tableRoute struct {
	closeWriter func()
}

// open creates or checks the table and takes its lock (openTable), and
// makes the run's counters and writer; the run's lock is named in the
// checkpoint from now on.
func (t *tableRoute) open(ctx context.Context, rs *runState) (func(context.Context, *error), error) {
	o := rs.o
	owner, closeTable, err := openTable(ctx, o, rs.rep, rs.tr, rs.stopRun, dynamo.AttemptTimeout(o.RequestTimeout))
	if err != nil {
		return nil, err
	}
	if rs.tr != nil {
		rs.tr.file.Owners = []string{owner} // before the slot's first save
	}
	rs.c = newCounters(o.Plan)
	rs.w, t.closeWriter = newRunWriter(o, rs.rep, rs.sf, rs.tr, rs.c, rs.rej)
	rs.snk, rs.phaseW = newSink(o, sinkFor{w: rs.w}), rs.w
	return func(ctx context.Context, err *error) {
		t.closeWriter()
		closeTable(ctx, err)
	}, nil
}

// split is a shard's split plan, agreed with the job's other shards
// through the table (splitplan.go).
func (t *tableRoute) split(ctx context.Context, rs *runState, reads []plannedRead) (string, error) {
	digest, err := shardSplit(ctx, rs.o, rs.rep, reads, rs.tr)
	rs.rep.SplitDigest = digest
	return digest, err
}

// copied looks for the items the run did not write, in a table that held
// items or a resumed job's; a followed run follows next.
func (t *tableRoute) copied(ctx context.Context, rs *runState, _ string) (bool, error) {
	rs.rep.writing = false // every row is written or rejected: what follows cannot leave the table partial
	if rs.w.written != nil {
		began := time.Now()
		err := strays(ctx, rs.o, rs.w, rs.rep, rs.tr, dynamo.AttemptTimeout(rs.o.RequestTimeout))
		rs.rep.timed(TimedStrayScan, began)
		if err != nil {
			return false, err
		}
	}
	return rs.sf != nil, nil
}

// followOnly: the table and its lock are the run's already.
func (t *tableRoute) followOnly(context.Context, *runState) error { return nil }

// follow applies the changes into the table under the run's lock.
func (t *tableRoute) follow(ctx context.Context, rs *runState) error {
	return runFollow(ctx, rs.o, rs.rep, rs.sf.fol, rs.sf.fp, rs.w, rs.rej, rs.tr)
}

// finish marks a shard's split plan done and reports the writers'
// adaptive concurrency.
func (t *tableRoute) finish(ctx context.Context, rs *runState, splitDigest string, err error) error {
	if err == nil && splitDigest != "" {
		if warning := splitDone(ctx, rs.o, splitDigest); warning != "" {
			rs.rep.Warnings = append(rs.rep.Warnings, warning)
		}
	}
	rs.rep.Concurrency = rs.w.concurrency()
	return err
}
