package migrate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/remodel-dev/remodel/internal/domain/s3out"
	"github.com/remodel-dev/remodel/internal/domain/source"
)

// Large and live, sharded: migrate --shard i/n --to s3://… --follow. The
// shards are separate processes, started at different moments, each
// reading its share in a snapshot of its own; no snapshot can be shared
// between them (an exported PostgreSQL snapshot lives only while the
// session that exported it does). So each shard keeps the source's changes
// from before its own snapshot and records where that snapshot is
// (source.Follower's StartShared: on PostgreSQL the shards share the job's
// slot, the first creates it, a later one takes its snapshot after the
// slot's start; on MySQL each reads its binlog position), in its
// checkpoint and then in its manifest ("follow"). Once every shard is
// done, one run imports the objects and follows from the earliest of the
// shards' positions: the changes between it and a later shard's snapshot
// are applied again over rows that hold them already, which leaves them as
// they are (the follower writes each item from the row as the source holds
// it now, read again by its key); no change after any shard's snapshot is
// missed. That run is the last shard to finish when the shards are given
// --import (it finds the n manifests there after writing its own), or
// migrate --to URL --import --shards-done n --follow. It takes the job's
// importer claim (orders.importer.remodel-claim.json beside the prefix)
// first, so that two shards finishing at once do not both import and
// follow; a resumed run takes its own claim over.
//
// The shards of a job share one slot, named from the job (--to and --job:
// jobSlot) unless --slot names it: every shard, and the run that follows,
// must be given the same --slot.

// manifestFollow is a followed shard's part of its manifest: the slot and
// publication that keep the changes, whether the shard created the
// publication, and where its snapshot is in the source's history.
type manifestFollow struct {
	Slot               string `json:"slot"`
	Publication        string `json:"publication,omitempty"`
	PublicationCreated bool   `json:"publication_created,omitempty"`
	Start              string `json:"start"`
}

// importerClaim is the name of the claim of the run that imports and
// follows a sharded job (s3out.Location.ClaimKey).
const importerClaim = "importer"

// jobSlot is the replication slot of a followed sharded job into S3: one
// for all its shards and its follower, named from --to and --job.
func jobSlot(o Options) string {
	h := fnv.New32a()
	h.Write([]byte(o.To.String() + "\x00" + o.Job))
	return DefaultSlot(o.Table, hex.EncodeToString(h.Sum(nil)))
}

// sharedFollow says whether the run is part of a sharded followed job
// into S3: a shard, or the run that follows the shards.
func sharedFollow(o Options) bool {
	return o.Follow && o.To != nil && (o.Shard.Sharded() || o.ShardsDone > 0)
}

// manifestFollow is what the shard's manifest records of its start (nil
// for a run that does not follow, or an unsharded one).
func (sf *followSetup) manifestFollow(o Options, tr *tracker) *manifestFollow {
	if sf == nil || !o.Shard.Sharded() {
		return nil
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	fs := tr.file.Follow
	return &manifestFollow{Slot: fs.Slot, Publication: fs.Publication, PublicationCreated: fs.PublicationCreated, Start: fs.Start}
}

// shardsStart checks that every shard's manifest recorded its start in
// the job's slot, and records the earliest in the checkpoint, as the
// start of the follower (problems: what does not fit).
func (sf *followSetup) shardsStart(o Options, tr *tracker, ms []shardManifestRead) (problems []string, err error) {
	if sf == nil {
		return nil, nil
	}
	var starts []source.Position
	created := false
	for _, m := range ms {
		url := o.To.ShardManifestURL(m.shard.FileSuffix())
		switch f := m.Follow; {
		case f == nil || f.Start == "":
			problems = append(problems, fmt.Sprintf("%s was written by a shard that did not follow the source (no --follow): the changes during its copy were not kept", url))
		case f.Slot != sf.fp.opts.Slot || f.Publication != sf.fp.opts.Publication:
			problems = append(problems, fmt.Sprintf("%s kept the changes in slot %s (publication %q), this run follows slot %s (publication %q): give every shard and this run the same --slot and --publication", url, f.Slot, f.Publication, sf.fp.opts.Slot, sf.fp.opts.Publication))
		default:
			starts = append(starts, source.Position(f.Start))
			created = created || f.PublicationCreated
		}
	}
	if len(problems) > 0 || len(starts) == 0 {
		return problems, nil
	}
	start, err := sf.fol.Earliest(starts)
	if err != nil {
		return nil, fmt.Errorf("migrate: the shards' starts: %w", err)
	}
	tr.mu.Lock()
	tr.file.Follow.Start, tr.file.Follow.PublicationCreated = string(start), created
	tr.mu.Unlock()
	return nil, tr.save()
}

// claimImporter takes the job's importer claim for the run that imports
// and follows the shards (owner: the run's id), with its heartbeat.
func claimImporter(ctx context.Context, o Options, rep *Report, owner string, stopRun context.CancelCauseFunc) (*claimHold, error) {
	what := "the import and follower of the shards of " + o.To.String()
	cl, err := claimAt(ctx, o, rep, owner, 0, o.To.ClaimKey(importerClaim), what)
	if err != nil {
		return nil, err
	}
	cl.keepAlive(ctx, stopRun)
	return cl, nil
}

// importLastShard is the end of a shard given --import (and --follow):
// when the manifests of all n shards are there (this one's written just
// before), it takes the importer claim and imports them all; else the
// shards left are reported and the last of them imports. imported says
// whether this shard imported (and then follows); cl is the claim it
// holds until it ends.
func importLastShard(ctx context.Context, o Options, rep *Report, sf *followSetup, tr *tracker, owner string, stopRun context.CancelCauseFunc) (imported bool, cl *claimHold, err error) {
	set, err := readShardManifests(ctx, o.S3, *o.To, o.Shard.Count)
	if err != nil {
		return false, nil, err
	}
	if len(set.Missing) > 0 {
		for _, s := range set.Missing {
			rep.S3.ShardsLeft = append(rep.S3.ShardsLeft, s.String())
		}
		return false, nil, nil
	}
	if cl, err = claimImporter(ctx, o, rep, owner, stopRun); err != nil {
		if _, ok := errors.AsType[*claimedError](err); ok {
			// A sibling that finished at the same moment imports and
			// follows.
			rep.Warnings = append(rep.Warnings, err.Error())
			return false, nil, nil
		}
		return false, nil, err
	}
	all := o
	all.ShardsDone, all.Shard = o.Shard.Count, Shard{}
	own := rep.S3
	rep.S3 = &S3Report{URL: own.URL, Compression: own.Compression}
	err = importShards(ctx, all, rep, sf, tr)
	own.Import, own.ShardsImported = rep.S3.Import, rep.S3.ShardsImported
	rep.S3 = own
	return true, cl, err
}

// followShards is migrate --to URL --import --shards-done n --follow: it
// copies nothing, imports the shards' objects (importShards) and follows
// from the earliest of their starts into the imported table; --resume
// after the import only follows.
func followShards(ctx context.Context, o Options, rep *Report) (err error) {
	rep.S3 = &S3Report{URL: o.To.String(), Compression: string(o.Compression)}
	rej := &rejects{path: o.RejectsPath, max: o.MaxRejects}
	tr, err := startCheckpoint(ctx, &o, rep, rej)
	if err != nil {
		return err
	}
	sf, err := startFollowing(ctx, o, rep, tr)
	if err != nil {
		return err
	}
	ctx, stopRun := context.WithCancelCause(ctx)
	defer stopRun(nil)
	owner := o.lockOwner
	if owner == "" {
		owner = newOwner()
		tr.namesOwner(owner)
	}
	cl, err := claimImporter(ctx, o, rep, owner, stopRun)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil && errors.Is(context.Cause(ctx), errClaimLost) {
			err = errClaimLost
		}
		if rerr := cl.release(ctx); rerr != nil {
			rep.Warnings = append(rep.Warnings, rerr.Error())
		}
	}()
	if err := rej.start(o.Resume); err != nil {
		return err
	}
	if !sf.copyDone(o, tr) {
		err = importShards(ctx, o, rep, sf, tr)
	}
	if err == nil {
		c := &counters{perEntity: map[string]*entityCounters{}}
		err = sf.follow(ctx, o, rep, newWriter(o, c, rej), rej, tr)
	}
	if serr := tr.save(); err == nil {
		err = serr
	}
	if cerr := rej.close(); err == nil {
		err = cerr
	}
	reportShards(ctx, o, rep)
	tr.report(rep)
	return err
}

// splitObject is the key of a followed sharded job's split plan, beside
// the prefix (orders/ has orders.remodel-split.json).
func splitObject(o Options) string { return o.To.ManifestsPrefix() + "remodel-split.json" }

// agreeS3Split is the split plan of a shard of a followed job: the shards
// copy while the source is written, so each one's own key range
// boundaries (read in its own snapshot) would differ, and rows between
// them would be read by two shards or by none. The first shard records its
// plan in the split object (a conditional create); a later one adopts the
// recorded boundaries instead of its own (any boundaries cut the key space
// whole, so every row is read by exactly one shard), or is refused when
// the plan was made with another n, --ranges or mapping file. A resumed
// shard reads its checkpoint's. It returns the plan's digest.
func agreeS3Split(ctx context.Context, o Options, reads []plannedRead, tr *tracker) (string, error) {
	if tr != nil && tr.resumed {
		return tr.file.SplitDigest, nil
	}
	p, err := newSplitPlan(o, reads)
	if err != nil {
		return "", err
	}
	body, digest := p.encode()
	key := splitObject(o)
	err = o.S3.Create(ctx, o.To.Bucket, key, body, "application/json")
	if err != nil && !errors.Is(err, s3out.ErrExists) {
		return "", fmt.Errorf("migrate: recording the job's split plan %s: %w", o.To.URL(key), err)
	}
	if err != nil { // a sibling's
		raw, gerr := o.S3.Get(ctx, o.To.Bucket, key)
		if gerr != nil {
			return "", fmt.Errorf("migrate: reading the job's split plan %s: %w", o.To.URL(key), gerr)
		}
		var rec splitPlan
		if err := json.Unmarshal(raw, &rec); err != nil {
			return "", fmt.Errorf("migrate: %s is not a split plan of migrate --to: %w", o.To.URL(key), err)
		}
		diffs := rec.optionsDiffer(o.Shard.Count, max(o.Ranges, 1), o.MappingDigest)
		if len(diffs) == 0 {
			if err := adopt(reads, &rec); err != nil {
				diffs = append(diffs, err.Error())
			}
		}
		if len(diffs) > 0 {
			return "", fmt.Errorf("migrate: %s: the job's split plan %s does not go with it: %s. Give every shard of a job the same --ranges and mapping file; delete %s when it is of an earlier job", claimWhat(o), o.To.URL(key), strings.Join(diffs, "; "), o.To.URL(key))
		}
		sum := sha256.Sum256(raw)
		digest = hex.EncodeToString(sum[:])
	}
	tr.setSplitDigest(digest, max(o.Ranges, 1))
	return digest, nil
}
