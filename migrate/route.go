package migrate

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/embedread"
	"github.com/remodel-dev/remodel/internal/domain/sink"
	"github.com/remodel-dev/remodel/internal/domain/source"
)

// A run goes one way whatever its route (runRoute): its own files checked,
// the checkpoint and the follower's start, the target opened (a table and
// its lock, or a prefix and its claim), the rejects file started, the
// snapshot, the copy through the route's sink, what the route does once
// every row is copied (the stray check; the objects' manifest and their
// load), the follower, then the checkpoint's end, the rejects file closed
// and the report completed. A route supplies only what differs: the
// table's (tableRoute: DynamoDB or the null sink) and the objects'
// (s3Route, s3runparts.go).
type route interface {
	// open readies the target once the checkpoint and the follower's
	// start are set: it makes the run's counters, writer and sink. Its
	// close, deferred to the run's end, releases what open took and
	// removes a finished job's checkpoint (tracker.removeFinished).
	open(ctx context.Context, rs *runState) (close func(context.Context, *error), err error)
	// split is a shard's split plan's digest, agreed before any item is
	// written: the shards of a job read one split.
	split(ctx context.Context, rs *runState, reads []plannedRead) (string, error)
	// copied ends the copy once every row is written or rejected, the
	// snapshot closed; following says whether the follower runs next.
	copied(ctx context.Context, rs *runState, splitDigest string) (following bool, err error)
	// followOnly readies a run whose copy an earlier run finished, before
	// it follows.
	followOnly(ctx context.Context, rs *runState) error
	// follow applies the changes since the snapshot until ctx is done.
	follow(ctx context.Context, rs *runState) error
	// finish completes the route's part of the report once the rest is
	// done (the checkpoint's saver stopped, the rejects file closed, the
	// counts in); it returns err or what it could not do.
	finish(ctx context.Context, rs *runState, splitDigest string, err error) error
}

// runState is what a run's steps share, whatever its route.
type runState struct {
	o       Options
	rep     *Report
	stopRun context.CancelCauseFunc
	rej     *rejects
	tr      *tracker
	sf      *followSetup
	c       *counters
	w       *writer
	snk     sink.Sink
	// phaseW is the writer whose concurrency the copy's progress shows
	// (nil: none adapts).
	phaseW *writer
	// copying: the copy began (the pipeline may have written).
	copying bool
}

// runRoute runs one migration along rt.
func runRoute(ctx context.Context, o Options, rep *Report, rt route) (err error) {
	if err := checkOwnFiles(o); err != nil {
		return err
	}
	ctx, stopRun := context.WithCancelCause(ctx)
	defer stopRun(nil)
	rs := &runState{o: o, rep: rep, stopRun: stopRun, rej: &rejects{path: o.RejectsPath, max: o.MaxRejects}}
	if rs.tr, err = startCheckpoint(ctx, &rs.o, rep, rs.rej); err != nil { // --resume: refused before anything is done if it is another job's or its table is gone
		return err
	}
	if rs.sf, err = startFollowing(ctx, rs.o, rep, rs.tr); err != nil { // before anything is created: the source must be able to keep the changes
		return err
	}
	closeTarget, err := rt.open(ctx, rs)
	if err != nil {
		return err
	}
	defer closeTarget(ctx, &err)
	if err := rs.rej.start(rs.o.Resume); err != nil { // empty until a row is rejected; an earlier run's file is replaced
		return err
	}
	// The readers wait while a batch is retried.
	source.AllowStall(rs.o.Source, rs.o.Backoff.Deadline+rs.o.RequestTimeout)
	if rs.sf.copyDone(rs.o, rs.tr) { // only the changes are left to apply
		if err := rt.followOnly(ctx, rs); err != nil {
			return err
		}
		stopSaving := rs.tr.saving(rs.o, stopRun)
		return rs.finish(ctx, rt, stopSaving, "", rt.follow(ctx, rs))
	}
	began := time.Now()
	snap, err := rs.sf.snapshot(ctx, rs.o, rs.tr, rs.o.Readers+embedread.Readers(rs.o.Plan, rs.o.Readers))
	if err != nil {
		return err
	}
	rep.timed(TimedSnapshot, began)
	var once sync.Once
	closeSnap := func() { once.Do(func() { snap.Close() }) }
	defer closeSnap()
	rep.SnapshotWarning = snap.Warning()
	if rs.tr != nil { // the snapshot's position and the run's lock named
		if err := rs.tr.save(); err != nil {
			return err
		}
	}
	stopSaving := rs.tr.saving(rs.o, stopRun)
	// A failure from here on goes on to finish: the checkpoint's saver
	// stops with the run.
	splitDigest, err := rs.copy(ctx, rt, snap)
	closeSnap() // the copy's transactions end: the follower reads the source as it is
	following := false
	if err == nil {
		following, err = rt.copied(ctx, rs, splitDigest)
	}
	if err == nil && following {
		err = rt.follow(ctx, rs)
	}
	return rs.finish(ctx, rt, stopSaving, splitDigest, err)
}

// copy copies the snapshot's rows through the route's sink: the key
// collision check, the split into reads (a shard's the job's, whose
// digest it returns) and the pipeline.
func (rs *runState) copy(ctx context.Context, rt route, snap source.Snapshot) (splitDigest string, err error) {
	began := time.Now()
	if err := keyCheck(ctx, &rs.o, rs.rep, snap.Readers()[:rs.o.Readers], snap.Warning()); err != nil { // it may change rs.o: read o after it
		return "", err
	}
	rs.rep.timed(TimedKeyCheck, began)
	o := rs.o
	reads, err := splitReads(ctx, o, snap.Readers()[0], rs.tr)
	if err != nil {
		return "", err
	}
	if o.Shard.Sharded() { // before any item is written
		if splitDigest, err = rt.split(ctx, rs, reads); err != nil {
			return splitDigest, err
		}
	}
	phase, err := copyPhase(ctx, o, snap.Readers(), rs.c, rs.tr, rs.phaseW)
	if err != nil {
		return splitDigest, err
	}
	rs.rep.writing, rs.copying = true, true
	began = time.Now()
	err = rejectsAlone(pipeline(ctx, o, rs.rep, reads, snap.Readers(), rs.w, rs.snk, rs.rej, rs.c, rs.tr))
	rs.rep.timed(TimedCopy, began)
	phase.End(err == nil)
	return splitDigest, err
}

// finish ends a run that got as far as its checkpoint's saver: the saver
// stops (the checkpoint is to go when the job is finished), the rejects
// file is closed, and the report completed, by the route too. It returns
// err, or the first error of these.
func (rs *runState) finish(ctx context.Context, rt route, stopSaving func(bool) error, splitDigest string, err error) error {
	if cerr := stopSaving(err == nil); cerr != nil {
		if err == nil || errors.Is(err, context.Canceled) {
			err = cerr
		} else {
			err = fmt.Errorf("%w; and %w", err, cerr)
		}
	}
	if cerr := rs.rej.close(); err == nil {
		err = cerr
	}
	rs.rep.finish(rs.o.Plan, rs.c, rs.rej)
	rs.tr.report(rs.rep)
	if rs.rej.n > 0 && rs.o.RejectsPath != "" {
		rs.rep.RejectsFile = rs.o.RejectsPath
	}
	return rt.finish(ctx, rs, splitDigest, err)
}
