package migrate

import (
	"context"
	"errors"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/s3out"
	"github.com/remodel-dev/remodel/internal/domain/sink/objects"
)

// runS3 is the S3 route (--to): the shards' import and follow, or a
// finished run's objects loaded, each a path of its own; else a run along
// the s3Route: the copy into objects, then their manifest, the import or
// bulk put, and the follower.
func runS3(ctx context.Context, o Options, rep *Report) (err error) {
	bulk := bulkPutOf(ctx) // --bulk-put (s3bulk.go)
	if err := refuseS3(o, bulk); err != nil {
		return err
	}
	if o.S3 == nil {
		return errors.New("migrate: --to needs a store (s3out.S3, or s3out.Dir for a local directory)")
	}
	if o.ShardsDone > 0 && o.Follow {
		return followShards(ctx, o, rep) // s3shardfollow.go
	}
	if o.ShardsDone > 0 {
		rep.S3 = &S3Report{URL: o.To.String(), Compression: string(o.Compression)}
		err := importShards(ctx, o, rep, nil, nil)
		reportShards(ctx, o, rep) // s3finished.go: the rows and items imported, and the time
		return err
	}
	if done, err := loadFinished(ctx, o, rep, bulk); done { // s3finished.go: a finished run's objects, loaded
		return err
	}
	s3Defaults(&o)
	rep.S3 = &S3Report{URL: o.To.String(), Compression: string(o.Compression)}
	return runRoute(ctx, o, rep, &s3Route{bulk: bulk})
}

// s3Defaults fills the S3 route's options left unset; its key check
// always runs (ImportTable keeps one of two items with one key, silently).
func s3Defaults(o *Options) {
	if o.ObjectSize <= 0 {
		o.ObjectSize = DefaultObjectSize
	}
	if o.ObjectItems <= 0 {
		o.ObjectItems = DefaultObjectItems
	}
	if o.Compression == "" {
		o.Compression = s3out.Gzip
	}
	o.KeyCheckAlways = true
}

// s3Route is the route into S3 objects (route.go): there is no table
// while the copy writes (ImportTable creates it; --bulk-put loads one that
// exists), the prefix is claimed instead of a table locked, and once every
// item is in an object the manifest is written and the objects loaded.
type s3Route struct {
	bulk    *BulkPut // --bulk-put; nil: none
	s       *objects.Sink
	l       *objectLedger // the pipeline's side of s
	owner   string
	kept    []s3Object // a resumed run's objects
	ranges  int
	claims  []*claimHold // released when the run ends, whatever its end
	tallied bool         // the objects are counted in the report
}

// open checks the table (none for --import, one for --bulk-put), makes
// the run's counters, writer and S3 sink, and claims the prefix (claim).
func (r *s3Route) open(ctx context.Context, rs *runState) (func(context.Context, *error), error) {
	o, tr := &rs.o, rs.tr
	if o.Import && !rs.sf.copyDone(*o, tr) { // before anything is written: the table must not exist
		if err := checkNoTable(ctx, *o); err != nil {
			return nil, err
		}
	}
	if r.bulk != nil { // --bulk-put (s3bulk.go): before anything is written, the table must be there
		if err := checkBulkTable(ctx, *o); err != nil {
			return nil, err
		}
		r.bulk.units, o.RateLimit = o.RateLimit, 0 // MaxWriteRequestUnits, not the copy's
	}
	rs.c = newCounters(o.Plan)
	rs.w = newWriter(*o, rs.c, rs.rej)
	r.owner = o.lockOwner // a resumed run's, which its checkpoint names already
	if r.owner == "" {
		r.owner = newOwner()
		tr.namesOwner(r.owner) // a resumed run takes this run's claim over
	}
	r.ranges = max(o.Ranges, 1)
	if tr != nil && tr.resumed {
		r.kept = tr.file.S3.Objects
		if tr.file.SplitRanges > 0 {
			r.ranges = tr.file.SplitRanges
		}
	}
	r.l = newObjectLedger(rs.w)
	r.s = newSink(*o, sinkFor{w: rs.w, ledger: r.l, run: runName(*o, r.owner[:8]), kept: len(r.kept), followed: rs.sf != nil}).(*objects.Sink) // the route's prefix, checkpoint and report read its objects
	rs.snk = r.s
	if tr != nil {
		tr.s3 = r.l
		tr.gateOn(r.s)
	}
	if err := r.claim(ctx, rs); err != nil {
		r.releaseAll(ctx, rs.rep)
		return nil, err
	}
	return func(ctx context.Context, err *error) {
		if *err != nil && errors.Is(context.Cause(ctx), errClaimLost) {
			*err = errClaimLost
		}
		r.releaseAll(ctx, rs.rep)
		if rerr := rs.tr.removeFinished(rs.rep, *err); rerr != nil && *err == nil {
			*err = rerr
		}
	}, nil
}

// claim takes the prefix's claim (one copy of the shard at a time) before
// the prefix is looked at, checks the siblings' objects and prepares the
// prefix.
func (r *s3Route) claim(ctx context.Context, rs *runState) error {
	cl, err := claimS3(ctx, rs.o, rs.rep, r.owner, r.ranges)
	if err != nil {
		return err
	}
	r.hold(cl)
	cl.keepAlive(ctx, rs.stopRun)
	if err := checkSiblings(ctx, rs.o, r.ranges, ""); err != nil {
		return err
	}
	if err := prepareS3(ctx, rs.o, r.s, r.l, r.kept); err != nil {
		return err
	}
	rs.rep.S3.ObjectsKept = r.s.Stats().Kept
	return nil
}

// hold keeps a claim for releaseAll.
func (r *s3Route) hold(cl *claimHold) { r.claims = append(r.claims, cl) }

// releaseAll releases the run's claims, last taken first; a claim that
// cannot be released is a warning.
func (r *s3Route) releaseAll(ctx context.Context, rep *Report) {
	for i := len(r.claims) - 1; i >= 0; i-- {
		if rerr := r.claims[i].release(ctx); rerr != nil {
			rep.Warnings = append(rep.Warnings, rerr.Error())
		}
	}
	r.claims = nil
}

// followOnly: a sharded job's run takes the importer's claim, as the
// shard that imported the job's shards does (s3shardfollow.go).
func (r *s3Route) followOnly(ctx context.Context, rs *runState) error {
	if !rs.o.Shard.Sharded() {
		return nil
	}
	icl, err := claimImporter(ctx, rs.o, rs.rep, r.owner, rs.stopRun)
	if err != nil {
		return err
	}
	r.hold(icl)
	return nil
}

// follow applies the changes into the loaded table, taking its lock.
func (r *s3Route) follow(ctx context.Context, rs *runState) error {
	return rs.sf.follow(ctx, rs.o, rs.rep, rs.w, rs.rej, rs.tr)
}

// split is a shard's split plan's digest, for its manifest.
func (r *s3Route) split(ctx context.Context, rs *runState, reads []plannedRead) (string, error) {
	return r.shardSplit(ctx, rs, reads)
}

// copied counts the objects and loads them (load).
func (r *s3Route) copied(ctx context.Context, rs *runState, splitDigest string) (bool, error) {
	r.tallyObjects(rs.rep)
	return r.load(ctx, rs, splitDigest)
}

// shardSplit is a shard's split plan's digest, for its manifest: adopted
// from the job's first shard when the shards copy under writes
// (s3shardfollow.go), and named in the shard's claim before any object is
// written, so that the shards of the job read one split.
func (r *s3Route) shardSplit(ctx context.Context, rs *runState, reads []plannedRead) (string, error) {
	var digest string
	var err error
	if sharedFollow(rs.o) {
		digest, err = agreeS3Split(ctx, rs.o, reads, rs.tr)
	} else {
		digest, err = s3SplitDigest(rs.o, reads, rs.tr)
	}
	rs.rep.SplitDigest = digest
	if err != nil {
		return digest, err
	}
	if err := r.claims[0].named(ctx, digest); err != nil {
		return digest, err
	}
	return digest, checkSiblings(ctx, rs.o, r.ranges, digest)
}

// tallyObjects counts the objects written and kept in the report.
func (r *s3Route) tallyObjects(rep *Report) {
	if r.tallied {
		return
	}
	r.tallied = true
	s3 := rep.S3
	st := r.s.Stats()
	s3.ItemsFound, s3.ItemsOlder = st.Found, st.Older
	s3.objects = r.l.objects(r.kept)
	for _, ob := range s3.objects {
		s3.Objects++
		s3.Bytes += ob.Bytes
		s3.Uncompressed += ob.Uncompressed
	}
}

// load writes the objects' manifest and loads them: ImportTable (the
// last shard of a sharded job imports every shard's) or bulk put.
// following says whether this run follows the changes next (a shard
// follows when it imported the job's shards).
func (r *s3Route) load(ctx context.Context, rs *runState, splitDigest string) (following bool, err error) {
	o, rep := rs.o, rs.rep
	rep.writing = false
	began := time.Now()
	if err := dropLateObjects(ctx, o, rep); err != nil {
		return false, err
	}
	if err := writeManifest(ctx, o, rep, rs.c, rs.rej, splitDigest, rs.sf.manifestFollow(o, rs.tr)); err != nil {
		return false, err
	}
	rep.timed(TimedManifest, began)
	if o.Import || r.bulk != nil {
		defer func(began time.Time) {
			if err == nil {
				rep.timed(TimedLoad, began)
			}
		}(time.Now())
	}
	following = rs.sf != nil && !o.Shard.Sharded()
	switch {
	case o.Import && o.Shard.Sharded(): // s3shardfollow.go
		var icl *claimHold
		following, icl, err = importLastShard(ctx, o, rep, rs.sf, rs.tr, r.owner, rs.stopRun)
		r.hold(icl)
	case o.Import:
		if err = rs.tr.followLoading(PhaseImport); err == nil {
			err = importTable(ctx, o, rep)
		}
	}
	if err == nil && r.bulk != nil { // --bulk-put (s3bulk.go)
		if err = rs.tr.followLoading(PhaseBulkPut); err == nil {
			err = bulkPut(ctx, o, rep, rs.tr, rs.c, rs.rej, r.bulk)
		}
	}
	return following, err
}

// finish counts the objects of a copy that stopped, and no write
// capacity: ImportTable consumes none.
func (r *s3Route) finish(_ context.Context, rs *runState, _ string, err error) error {
	if rs.copying {
		r.tallyObjects(rs.rep)
	}
	rs.rep.WriteUnits = 0
	return err
}
