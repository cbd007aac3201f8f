package migrate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/process"
	"github.com/remodel-dev/remodel/internal/domain/s3out"
)

// The claim of a run into S3 (--to). Two copies of one shard (or of one
// unsharded job) into one prefix would each write their objects and
// replace each other's manifest; the prefix check (prepareS3) sees the
// first copy's objects only once it stored one. So a run claims its shard
// before it looks at the prefix: it creates the claim object beside the
// prefix (s3out.Location.ClaimKey: orders.shard-2-of-3.remodel-claim.json)
// with a conditional create (If-None-Match: * on S3, a hard link in a
// local directory), which only one of two runs at once can do. The claim
// names the run, its process and its options (--job, --ranges, the
// mapping, and once read the split plan's digest); a heartbeat rewrites it
// every LockStale/4, and the run deletes it when it ends. A claim is taken
// over, with a warning, when it is of a run the resumed checkpoint names,
// when its process is gone from this host, or when its heartbeat is older
// than LockStale (a run killed elsewhere); any other refuses the run.
//
// A shard reads its siblings' claims and manifests at its start: one given
// another --job, --ranges or mapping, or (once the split is read) one of
// another split plan, refuses it before it writes an object: the shards
// would cut the reads differently, and rows would be read by two shards or
// by none (which --import --shards-done would find only at the end).

// claimFormat is the claim object's "format".
const claimFormat = "remodel-claim"

// errClaimLost stops a run whose claim another run took over.
var errClaimLost = errors.New("migrate: another run took this run's claim over (its heartbeat was late): two runs would write the same objects; stopping")

// s3Claim is the claim object.
type s3Claim struct {
	Format      string    `json:"format"`
	URL         string    `json:"url"`
	Shard       string    `json:"shard,omitempty"`
	Job         string    `json:"job,omitempty"`
	Ranges      int       `json:"ranges"`
	Mapping     string    `json:"mapping_digest"`
	SplitDigest string    `json:"split_digest,omitempty"`
	Run         string    `json:"run"`
	Host        string    `json:"host"`
	PID         int64     `json:"pid"`
	PIDStart    string    `json:"pid_start,omitempty"`
	Since       time.Time `json:"since"`
	Heartbeat   time.Time `json:"heartbeat"`
}

func (c *s3Claim) String() string {
	return fmt.Sprintf("run %s (pid %d on host %s, since %s, last heartbeat %s)", short(c.Run), c.PID, c.Host, c.Since.Format(time.RFC3339), c.Heartbeat.Format(time.RFC3339))
}

// what is what the claim is of, for messages: "shard 2/3 of s3://b/p/".
func claimWhat(o Options) string {
	if o.Shard.Sharded() {
		return "shard " + o.Shard.String() + " of " + o.To.String()
	}
	return o.To.String()
}

// claimKey is the key of the run's claim.
func claimKey(o Options) string {
	if o.Shard.Sharded() {
		return o.To.ClaimKey(o.Shard.FileSuffix())
	}
	return o.To.ClaimKey("")
}

// claimHold is the claim a run holds: its heartbeat, and its release.
type claimHold struct {
	o    Options
	key  string
	what string // for messages: claimWhat
	mu   sync.Mutex
	c    s3Claim
	stop func()
}

// claimS3 claims the run's shard (the comment above); run is the run's
// owner id, which its checkpoint names. ranges is the job's --ranges.
func claimS3(ctx context.Context, o Options, rep *Report, run string, ranges int) (*claimHold, error) {
	return claimAt(ctx, o, rep, run, ranges, claimKey(o), claimWhat(o))
}

// claimAt creates the claim at key, of what (claimWhat), as claimS3 does.
func claimAt(ctx context.Context, o Options, rep *Report, run string, ranges int, key, what string) (*claimHold, error) {
	self := process.Self()
	now := time.Now().UTC()
	h := &claimHold{o: o, key: key, what: what, stop: func() {}, c: s3Claim{
		Format: claimFormat, URL: o.To.String(), Shard: o.Shard.String(), Job: o.Job, Ranges: ranges, Mapping: o.MappingDigest,
		Run: run, Host: self.Host, PID: self.PID, PIDStart: self.Start, Since: now, Heartbeat: now,
	}}
	url := o.To.URL(h.key)
	body, err := h.encode()
	if err != nil {
		return nil, err
	}
	var last error
	for range 3 {
		err := o.S3.Create(ctx, o.To.Bucket, h.key, body, "application/json")
		if err == nil {
			return h, nil
		}
		if !errors.Is(err, s3out.ErrExists) {
			return nil, fmt.Errorf("migrate: claiming %s (%s): %w", what, url, err)
		}
		prev, err := readClaim(ctx, o, h.key)
		if err != nil { // deleted in between, or being written: again
			last = err
			continue
		}
		why := takeOver(o, prev)
		if why == "" {
			return nil, &claimedError{fmt.Sprintf("migrate: %s is claimed by %s (%s): a second copy of it is running, or a run of it was killed less than %s ago; two copies would write the same objects and replace each other's manifest. --resume that run with its checkpoint, or wait for its claim to go stale, or delete %s if no copy runs",
				what, prev, url, o.LockStale, url)}
		}
		if err := h.put(ctx); err != nil {
			return nil, err
		}
		if got, err := readClaim(ctx, o, h.key); err != nil || got.Run != run {
			return nil, fmt.Errorf("migrate: %s: another run took its claim (%s) over at the same moment as this one: two copies of it are starting; run one", what, url)
		}
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("took over the claim %s of %s: %s", url, prev, why))
		return h, nil
	}
	return nil, fmt.Errorf("migrate: claiming %s (%s): it keeps changing: %w", what, url, last)
}

// claimedError is a claim held by another run that may not be taken over.
type claimedError struct{ msg string }

func (e *claimedError) Error() string { return e.msg }

// takeOver says why the claim prev may be taken over ("": it may not).
func takeOver(o Options, prev *s3Claim) string {
	p := process.ID{Host: prev.Host, PID: prev.PID, Start: prev.PIDStart}
	switch {
	case o.Resume && slices.Contains(o.resumeOwners, prev.Run):
		return "it is of a run of the job this run resumes (its checkpoint names it)"
	case !p.Self() && p.Host == process.Self().Host && !p.Running():
		return "its process is gone from this host"
	case time.Since(prev.Heartbeat) > o.LockStale:
		return fmt.Sprintf("its heartbeat is %s old, more than %s", time.Since(prev.Heartbeat).Round(time.Second), o.LockStale)
	}
	return ""
}

// readClaim reads the claim object at key.
func readClaim(ctx context.Context, o Options, key string) (*s3Claim, error) {
	raw, err := o.S3.Get(ctx, o.To.Bucket, key)
	if err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	var c s3Claim
	if err := json.Unmarshal(raw, &c); err != nil || c.Format != claimFormat {
		return nil, fmt.Errorf("migrate: %s is not a claim of migrate --to (%v)", o.To.URL(key), err)
	}
	return &c, nil
}

func (h *claimHold) encode() ([]byte, error) {
	b, err := json.MarshalIndent(h.c, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("migrate: encoding the claim: %w", err)
	}
	return append(b, '\n'), nil
}

// put writes the claim as it is now (h.mu not held).
func (h *claimHold) put(ctx context.Context) error {
	h.mu.Lock()
	body, err := h.encode()
	h.mu.Unlock()
	if err != nil {
		return err
	}
	if err := h.o.S3.Put(ctx, h.o.To.Bucket, h.key, body, "application/json"); err != nil {
		return fmt.Errorf("migrate: writing the claim of %s: %w", h.what, err)
	}
	return nil
}

// named records the split plan's digest in the claim, for the shards
// that start later.
func (h *claimHold) named(ctx context.Context, digest string) error {
	h.mu.Lock()
	h.c.SplitDigest = digest
	h.mu.Unlock()
	return h.put(ctx)
}

// keepAlive rewrites the claim every LockStale/4, after checking it is
// still this run's; a claim taken over stops the run (errClaimLost).
func (h *claimHold) keepAlive(ctx context.Context, stopRun context.CancelCauseFunc) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(max(h.o.LockStale/4, time.Millisecond))
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if got, err := readClaim(ctx, h.o, h.key); err == nil && got.Run != h.c.Run {
				stopRun(errClaimLost)
				return
			}
			h.mu.Lock()
			h.c.Heartbeat = time.Now().UTC()
			h.mu.Unlock()
			_ = h.put(ctx) // a beat lost: the next one
		}
	}()
	h.stop = func() { cancel(); <-done }
}

// release stops the heartbeat and deletes the claim, if it is still this
// run's: once the run ends, its objects (and its checkpoint) are what
// refuses a second copy.
func (h *claimHold) release(ctx context.Context) error {
	if h == nil {
		return nil
	}
	h.stop()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), h.o.RequestTimeout+5*time.Second)
	defer cancel()
	got, err := readClaim(ctx, h.o, h.key)
	if err != nil || got.Run != h.c.Run {
		return nil // taken over, or gone
	}
	if err := h.o.S3.Delete(ctx, h.o.To.Bucket, h.key); err != nil {
		return fmt.Errorf("migrate: removing the claim of %s: %w", h.what, err)
	}
	return nil
}

// checkSiblings refuses a shard whose sibling shards (their claims, and
// the manifests of those that finished) were given another --job,
// --ranges or mapping file, or read another split plan (digest: this
// shard's, "" before it is read).
func checkSiblings(ctx context.Context, o Options, ranges int, digest string) error {
	if !o.Shard.Sharded() {
		return nil
	}
	listed, err := o.S3.List(ctx, o.To.Bucket, o.To.ManifestsPrefix())
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	what := claimWhat(o)
	for _, l := range listed {
		i, n, ok := s3out.ShardOfClaim(strings.TrimPrefix(l.Key, o.To.ManifestsPrefix()))
		if !ok || n != o.Shard.Count || i == o.Shard.Index {
			continue
		}
		c, err := readClaim(ctx, o, l.Key)
		if err != nil {
			continue // released in between
		}
		var diffs []string
		if c.Job != o.Job {
			diffs = append(diffs, fmt.Sprintf("it is of %s, this shard of %s", s3out.JobName(c.Job), s3out.JobName(o.Job)))
		}
		if c.Ranges != ranges {
			diffs = append(diffs, fmt.Sprintf("it was given --ranges %d, this shard --ranges %d", c.Ranges, ranges))
		}
		if c.Mapping != o.MappingDigest {
			diffs = append(diffs, fmt.Sprintf("it was given another mapping file (digest %s, this shard's %s)", short(c.Mapping), short(o.MappingDigest)))
		}
		if len(diffs) == 0 && digest != "" && c.SplitDigest != "" && c.SplitDigest != digest {
			diffs = append(diffs, fmt.Sprintf("it read split plan %s, this shard split plan %s (the source changed between their snapshots)", short(c.SplitDigest), short(digest)))
		}
		if len(diffs) > 0 {
			return fmt.Errorf("migrate: %s: its sibling shard %s (%s, claim %s) does not go with it: %s. The shards would cut the reads differently: rows would be read by two shards or by none. Give every shard of a job the same --ranges, mapping file and --job",
				what, c.Shard, c, o.To.URL(l.Key), strings.Join(diffs, "; "))
		}
	}
	if digest == "" {
		return nil
	}
	set, err := readShardManifests(ctx, o.S3, *o.To, o.Shard.Count)
	if err != nil {
		return err
	}
	for _, m := range set.Manifests {
		if m.shard != o.Shard && m.SplitDigest != "" && m.SplitDigest != digest {
			return fmt.Errorf("migrate: %s read split plan %s, and its sibling shard %s, which finished, split plan %s (its manifest %s): the shards were given different --ranges or mapping files, or the source changed between their snapshots; rows would be read by two shards or by none. Run every shard of the job again from an empty prefix, with the same options",
				what, short(digest), m.shard, short(m.SplitDigest), o.To.ShardManifestURL(m.shard.FileSuffix()))
		}
	}
	return nil
}

// namesOwner names the run in a new job's checkpoint (into S3, which has
// no lock item to name it by), so that a resumed run may take its claim
// over.
func (tr *tracker) namesOwner(owner string) {
	if tr == nil {
		return
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.file.Owners = []string{owner}
}
