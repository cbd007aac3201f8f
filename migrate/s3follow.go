package migrate

import (
	"context"
	"errors"
	"fmt"

	"github.com/remodel-dev/remodel/internal/domain/dynamo"
	"github.com/remodel-dev/remodel/internal/domain/source"
)

// Large and live: migrate --to s3://… --import --follow. The copy's
// snapshot is taken where the change stream starts (source.Follower's
// StartFollow: the slot created at the snapshot on PostgreSQL, the binlog
// position of the snapshot on MySQL), and the checkpoint names that start
// at once; the objects are written from that snapshot and ImportTable
// creates the table from them; then the follower applies every change
// since the snapshot into the imported table, as --follow does after a
// BatchWriteItem copy. A stop in any phase is resumed by --follow
// --resume: the objects written are kept, the import is asked for again
// with its client token (the same import, not a second one), and once the
// copy is marked done only the changes are left.

// followSetup is what a followed run needs, on either route: the plan of
// what is followed and the source that follows.
type followSetup struct {
	fp  *followPlan
	fol source.Follower
}

// startFollowing checks that the source can follow the plan's tables,
// before anything is created; nil when the run does not follow.
func startFollowing(ctx context.Context, o Options, rep *Report, tr *tracker) (*followSetup, error) {
	if !o.Follow {
		return nil, nil
	}
	if tr == nil {
		return nil, errors.New("migrate: --follow needs a checkpoint file: it records the replication slot and how far the changes are applied")
	}
	if o.Publication != "" && !o.Source.Engine().Dialect().NeedsPublication() {
		return nil, errors.New("migrate: --publication names a PostgreSQL publication; a MySQL binlog has none")
	}
	fp, err := newFollowPlan(o.Plan, o.Slot, o.Publication, o.FollowTxnPart)
	if err != nil {
		return nil, err
	}
	fol, err := source.AsFollower(o.Source)
	if err != nil {
		return nil, err
	}
	if why := tr.file.Follow.Refused; o.Resume && why != "" {
		return nil, fmt.Errorf("migrate: --follow --resume: refused: the follower stopped on a change it cannot follow (%s); going on cannot make the table exact: run remodel follow-cleanup and migrate again", why)
	}
	fp.opts.Slot, fp.opts.Publication = tr.file.Follow.Slot, tr.file.Follow.Publication
	rep.FollowSlot, rep.FollowKeeps = fp.opts.Slot, o.Source.Engine().Dialect().KeepsStreamPosition()
	if err := fol.CheckFollow(ctx, fp.opts); err != nil {
		return nil, err
	}
	return &followSetup{fp: fp, fol: fol}, nil
}

// copyDone says that the followed copy and its import are done: a resumed
// run only follows.
func (sf *followSetup) copyDone(o Options, tr *tracker) bool {
	return sf != nil && o.Resume && tr.file.Follow.CopyDone
}

// snapshot opens the copy's readers: at the stream's start for a new
// followed run (the checkpoint names the start at once, so that no slot is
// left unknown), else a snapshot of its own (a resumed copy: the changes
// since the first run's start are applied from the stream anyway).
func (sf *followSetup) snapshot(ctx context.Context, o Options, tr *tracker, n int) (source.Snapshot, error) {
	if sf == nil || o.Resume {
		return o.Source.Snapshot(ctx, n)
	}
	begin := sf.fol.StartFollow
	if o.Shard.Sharded() { // the slot is the job's: the first shard creates it (s3shardfollow.go)
		begin = sf.fol.StartShared
	}
	start, err := begin(ctx, sf.fp.opts, n)
	if err != nil {
		return nil, err
	}
	tr.file.Follow.Start, tr.file.Follow.PublicationCreated = string(start.Position), start.PublicationCreated
	if err := tr.save(); err != nil {
		start.Snapshot.Close()
		return nil, err
	}
	return start.Snapshot, nil
}

// follow applies the changes since the snapshot into the imported table:
// it records the table in the checkpoint (a resumed run checks it is the
// job's), takes the table's lock as a run writing into it does, and
// follows until ctx is done.
func (sf *followSetup) follow(ctx context.Context, o Options, rep *Report, w *writer, rej *rejects, tr *tracker) (err error) {
	id, err := describeTableID(ctx, o.DB, o.Table, dynamo.AttemptTimeout(o.RequestTimeout))
	if err != nil {
		return fmt.Errorf("migrate: --follow after the import: %w", err)
	}
	lk, err := acquireLock(ctx, o, rep)
	if err != nil {
		return err
	}
	ctx, stopRun := context.WithCancelCause(ctx)
	stopHeartbeat := lk.keepAlive(context.WithoutCancel(ctx), stopRun)
	defer func() {
		if err != nil && errors.Is(context.Cause(ctx), errLockLost) { // the heartbeat's reason
			err = context.Cause(ctx)
		}
		stopHeartbeat()
		stopRun(nil)
		if warning := lk.release(ctx); warning != "" {
			rep.Warnings = append(rep.Warnings, warning)
		}
	}()
	tr.followsInto(id, lk.held.owner)
	return runFollow(ctx, o, rep, sf.fol, sf.fp, w, rej, tr)
}

// followsInto records, while the checkpoint is saved concurrently, the
// imported table and the lock of the run that follows into it.
func (tr *tracker) followsInto(id tableID, owner string) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.wroteInto(id)
	tr.file.Owners = []string{owner}
}
