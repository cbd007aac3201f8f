package followback

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/remodel-dev/remodel/internal/domain/progress"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/mapping"
)

// Options are follow-back's.
type Options struct {
	Plan    *mapping.Plan
	Source  source.Source // the database written back into
	DB      TableAPI
	Streams StreamsAPI
	Table   string
	// CheckpointPath is the checkpoint; Resume goes on from it (a first
	// run starts at the stream's end and writes it).
	CheckpointPath string
	Resume         bool
	// EnableStream turns the table's stream on (NEW_AND_OLD_IMAGES) when it
	// is off, and accepts a stream enabled after the table was created:
	// the user says that the application has not written to it yet.
	EnableStream   bool
	DeadLetterPath string
	MaxDeadLetters int64
	// DeferFor is how long a change the source refuses for now (a foreign
	// key) is retried before it is a dead letter.
	DeferFor time.Duration
	// Poll is how long to wait before reading a stream read to its end
	// again.
	Poll      time.Duration
	LockStale time.Duration
	Progress  *progress.Tracker
	// Ready is called once the start is recorded in the checkpoint: from
	// then on every change written to the table is applied back.
	Ready func()
	// Watch is called with the status after every round of reads.
	Watch func(Status)
	// Done, when set, is called with the keys of each record of the
	// table's items once it is done (applied, found applied, or a dead
	// letter), in stream order for each item: a caller's own measure of
	// the lag per change.
	Done func(keys mapping.Item)
}

// Status is where a run stands.
type Status struct {
	Records, Applied, DeadLetters, Deferred int64
	CaughtUp                                bool
	Behind                                  time.Duration
}

// Defaults of Options.
const (
	DefaultDeferFor = time.Minute
	DefaultPoll     = 250 * time.Millisecond
)

// follower is one run.
type follower struct {
	o   Options
	ck  *checkpoint
	wb  source.Writeback
	dl  *deadLetters
	rep *Report

	mu        sync.Mutex // rep's and per's counts, the lag, read by the progress
	per       map[string]*EntityCount
	lags      []time.Duration
	behind    time.Duration
	caughtUp  bool
	shards    map[string]*shardRun
	waiting   map[string]*waiting
	waitOrder []string
}

// shardRun is a shard being read.
type shardRun struct {
	id       string
	st       *shardState
	iter     *string
	ended    bool // its last record is read (the shard is closed)
	inflight []*inflight
	idle     bool // the last read found nothing new
}

// inflight is a record read and not yet done.
type inflight struct {
	r    *record
	done bool
}

// Run follows the table's stream back into the source until ctx is done
// (a clean stop: nil) or an error stops it. The report says what it did.
func Run(ctx context.Context, o Options) (*Report, error) {
	if o.DeferFor <= 0 {
		o.DeferFor = DefaultDeferFor
	}
	if o.Poll <= 0 {
		o.Poll = DefaultPoll
	}
	if o.LockStale <= 0 {
		o.LockStale = DefaultLockStale
	}
	rep := &Report{Version: ReportVersion, Table: o.Table, Checkpoint: o.CheckpointPath, DeadLetterFile: o.DeadLetterPath, Resumed: o.Resume, Started: time.Now().UTC()}
	f := &follower{o: o, rep: rep, per: map[string]*EntityCount{}, shards: map[string]*shardRun{}, waiting: map[string]*waiting{}}
	err := f.run(ctx)
	if err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		err = nil // stopped by a signal while it waited: a clean stop
	}
	rep.finish(f, err)
	return rep, err
}

func (f *follower) run(ctx context.Context) error {
	o := f.o
	if o.EnableStream {
		if err := EnableStream(ctx, o.DB, o.Table); err != nil {
			return err
		}
	}
	si, err := describeStream(ctx, o.DB, o.Table)
	if err != nil {
		return err
	}
	if o.Resume {
		if f.ck, err = loadCheckpoint(o.CheckpointPath, o.Table); err != nil {
			return err
		}
		if age := time.Since(f.ck.Saved); age > Retention {
			return fmt.Errorf("followback: --resume: the checkpoint was saved %s ago, longer than the stream keeps records (24 hours): changes since are lost; bring the source up to date another way (migrate the other way is not remodel's), then start again without --resume", age.Round(time.Minute))
		}
	}
	if err := checkStream(si, o.Table, o.EnableStream, f.ck); err != nil {
		return err
	}
	f.rep.Stream = si.ARN
	note, err := checkForward(ctx, o.DB, &o.Plan.Table, o.Table, o.LockStale)
	if err != nil {
		return err
	}
	f.note(note)
	prev := ""
	if f.ck != nil {
		prev = f.ck.Owner
	}
	l, note, err := acquire(ctx, o.DB, &o.Plan.Table, o.Table, prev, o.LockStale)
	if err != nil {
		return err
	}
	defer l.release(ctx)
	f.note(note)
	if f.wb, err = source.OpenWriteback(ctx, o.Source); err != nil {
		return err
	}
	defer f.wb.Close()
	if f.dl, err = openDeadLetters(o.DeadLetterPath); err != nil {
		return err
	}
	defer f.dl.close()
	defer func() {
		if f.ck != nil {
			f.ck.close()
		}
	}()
	if f.ck == nil {
		if err := f.start(ctx, si, l.me.owner); err != nil {
			return err
		}
	} else {
		f.ck.Owner = l.me.owner
		if err := f.ck.save(time.Now()); err != nil {
			return err
		}
	}
	if o.Ready != nil {
		o.Ready()
	}
	ph := o.Progress.LagPhase("follow-back", "changes", []progress.Task{{Name: o.Table, Total: progress.Unknown}}, f.lag)
	err = f.follow(ctx, l, ph)
	ph.End(false)
	if serr := f.ck.save(time.Now()); serr != nil && err == nil {
		err = serr
	}
	return err
}

// start is a first run's start point: every shard closed now is done, and
// every open one is read to its end without applying anything; that point
// is recorded before the run says it is ready. So nothing written to the
// table before it started (the copy, the forward follower) comes back.
func (f *follower) start(ctx context.Context, si streamInfo, owner string) error {
	ck := &checkpoint{Version: checkpointVersion, Table: f.o.Table, StreamARN: si.ARN, StreamLabel: si.Label, Owner: owner,
		Started: time.Now().UTC(), Shards: map[string]*shardState{}, path: f.o.CheckpointPath}
	shards, err := listShards(ctx, f.o.Streams, si.ARN)
	if err != nil {
		return err
	}
	for _, s := range shards {
		st := &shardState{Parent: aws.ToString(s.ParentShardId)}
		ck.Shards[aws.ToString(s.ShardId)] = st
		if s.SequenceNumberRange != nil && s.SequenceNumberRange.EndingSequenceNumber != nil {
			st.Done = true
			continue
		}
		it, err := f.iterator(ctx, si.ARN, aws.ToString(s.ShardId), "")
		if err != nil {
			return err
		}
		for it != nil {
			out, err := f.o.Streams.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: it, Limit: aws.Int32(1000)})
			if err != nil {
				return fmt.Errorf("followback: reading shard %s to its end: %w", aws.ToString(s.ShardId), err)
			}
			for _, r := range out.Records {
				st.After = aws.ToString(r.Dynamodb.SequenceNumber)
			}
			it = out.NextShardIterator
			if len(out.Records) == 0 {
				break
			}
		}
		if it == nil {
			st.Done = true
		}
	}
	f.ck = ck
	return ck.save(time.Now())
}

// iterator opens a shard after the sequence number after ("": from its
// first record kept).
func (f *follower) iterator(ctx context.Context, arn, shard, after string) (*string, error) {
	in := &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: aws.String(shard), ShardIteratorType: stypes.ShardIteratorTypeTrimHorizon}
	if after != "" {
		in.ShardIteratorType, in.SequenceNumber = stypes.ShardIteratorTypeAfterSequenceNumber, aws.String(after)
	}
	out, err := f.o.Streams.GetShardIterator(ctx, in)
	if err != nil {
		var trimmed *stypes.TrimmedDataAccessException
		var gone *stypes.ResourceNotFoundException
		if errors.As(err, &trimmed) || errors.As(err, &gone) {
			return nil, fmt.Errorf("followback: shard %s after %s: %w; bring the source up to date another way, then start again without --resume", shard, orStart(after), errLost)
		}
		return nil, fmt.Errorf("followback: opening shard %s: %w", shard, err)
	}
	return out.ShardIterator, nil
}

func orStart(s string) string {
	if s == "" {
		return "its start"
	}
	return "record " + s
}

// follow reads the shards round after round until ctx is done.
func (f *follower) follow(ctx context.Context, l *lock, ph *progress.Phase) error {
	arn := f.ck.StreamARN
	var listed time.Time
	lastBeat := time.Now()
	for {
		if ctx.Err() != nil {
			return nil
		}
		if time.Since(listed) > 10*time.Second || f.anyEnded() {
			if err := f.refreshShards(ctx, arn); err != nil {
				return err
			}
			listed = time.Now()
		}
		if time.Since(lastBeat) > f.o.LockStale/4 {
			if err := l.refresh(ctx); err != nil {
				return err
			}
			lastBeat = time.Now()
		}
		idle := true
		for _, id := range f.readable() {
			s := f.shards[id]
			n, err := f.read(ctx, arn, s, ph)
			if err != nil {
				return err
			}
			if n > 0 {
				idle = false
			}
		}
		if err := f.retry(ctx); err != nil {
			f.advance()
			return err
		}
		if err := f.ck.record(time.Now(), f.advance()); err != nil {
			return err
		}
		st := f.status(idle)
		if f.o.Watch != nil {
			f.o.Watch(st)
		}
		if idle {
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(f.o.Poll):
			}
		}
	}
}

// refreshShards adds the stream's new shards, and refuses a shard of the
// checkpoint not read to its end that the stream no longer has.
func (f *follower) refreshShards(ctx context.Context, arn string) error {
	shards, err := listShards(ctx, f.o.Streams, arn)
	if err != nil {
		return err
	}
	listed := map[string]bool{}
	for _, s := range shards {
		id := aws.ToString(s.ShardId)
		listed[id] = true
		st := f.ck.Shards[id]
		if st == nil {
			st = &shardState{Parent: aws.ToString(s.ParentShardId)}
			f.ck.Shards[id] = st
		}
		if f.shards[id] == nil && !st.Done {
			f.shards[id] = &shardRun{id: id, st: st}
		}
	}
	for id, st := range f.ck.Shards {
		if !st.Done && !listed[id] {
			return fmt.Errorf("followback: shard %s of the checkpoint, not read to its end, is gone from the stream: %w; bring the source up to date another way, then start again without --resume", id, errLost)
		}
	}
	return nil
}

// readable lists the shards to read now: not done, their parent done (or
// gone before the start), in id order.
func (f *follower) readable() []string {
	var out []string
	for id, s := range f.shards {
		if s.st.Done {
			continue
		}
		if p := f.ck.Shards[s.st.Parent]; p != nil && !p.Done {
			continue
		}
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

func (f *follower) anyEnded() bool {
	for _, s := range f.shards {
		if s.ended && s.st.Done {
			return true
		}
	}
	return false
}

// read reads one page of a shard and handles its records, in order.
func (f *follower) read(ctx context.Context, arn string, s *shardRun, ph *progress.Phase) (int, error) {
	if s.ended {
		return 0, nil
	}
	if s.iter == nil {
		it, err := f.iterator(ctx, arn, s.id, s.lastRead())
		if err != nil {
			return 0, err
		}
		s.iter = it
	}
	out, err := f.o.Streams.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: s.iter, Limit: aws.Int32(1000)})
	if err != nil {
		var expired *stypes.ExpiredIteratorException
		if errors.As(err, &expired) {
			s.iter = nil
			return 0, nil
		}
		if ctx.Err() != nil {
			return 0, nil
		}
		var trimmed *stypes.TrimmedDataAccessException
		if errors.As(err, &trimmed) {
			return 0, fmt.Errorf("followback: reading shard %s: %w", s.id, errLost)
		}
		return 0, fmt.Errorf("followback: reading shard %s: %w", s.id, err)
	}
	s.iter = out.NextShardIterator
	if s.iter == nil {
		s.ended = true
	}
	s.idle = len(out.Records) == 0
	for _, sr := range out.Records {
		if slices.Contains(s.st.DoneAfter, aws.ToString(sr.Dynamodb.SequenceNumber)) {
			continue // done before a stop, past a record that waited
		}
		r := &record{shard: s.id, seq: aws.ToString(sr.Dynamodb.SequenceNumber), event: string(sr.EventName),
			created: aws.ToTime(sr.Dynamodb.ApproximateCreationDateTime), keys: item(sr.Dynamodb.Keys), old: item(sr.Dynamodb.OldImage), new: item(sr.Dynamodb.NewImage)}
		in := &inflight{r: r}
		s.inflight = append(s.inflight, in)
		err := f.handle(ctx, in, ph)
		// Recorded after every record: a stop, however abrupt, applies a
		// record again only when it came between its write and this
		// (and that one is then found applied).
		if serr := f.ck.record(time.Now(), f.advance()); serr != nil && err == nil {
			err = serr
		}
		if err != nil {
			return 0, err
		}
	}
	return len(out.Records), nil
}

// lastRead is the sequence number of the last record read from the shard
// (to read on after it when its iterator expired).
func (s *shardRun) lastRead() string {
	if n := len(s.inflight); n > 0 {
		return s.inflight[n-1].r.seq
	}
	return s.st.After
}

// handle applies one record, or defers it (behind the item's deferred
// records, if any).
func (f *follower) handle(ctx context.Context, in *inflight, ph *progress.Phase) error {
	r := in.r
	f.mu.Lock()
	f.rep.Records++
	f.mu.Unlock()
	t := &f.o.Plan.Table
	if isOwnLock(t, r.keys) {
		f.mu.Lock()
		f.rep.Own++
		f.mu.Unlock()
		in.done = true
		return nil
	}
	if t.IsLock(r.keys) {
		return errLoop
	}
	key := t.KeyString(r.keys)
	if w := f.waiting[key]; w != nil {
		w.recs = append(w.recs, in)
		return nil
	}
	out, why, err := f.apply(ctx, r)
	if err != nil {
		var tm *TooManyError
		if errors.As(err, &tm) {
			in.done = true
			f.done(r)
		}
		return err
	}
	if out == deferred {
		f.waiting[key] = &waiting{recs: []*inflight{in}, since: time.Now(), reason: why}
		f.waitOrder = append(f.waitOrder, key)
		return nil
	}
	in.done = true
	f.done(r)
	f.mu.Lock()
	f.lags = append(f.lags, time.Since(r.created))
	if len(f.lags) > 200_000 {
		f.lags = f.lags[100_000:]
	}
	f.mu.Unlock()
	ph.Counter(0).Add(1)
	return nil
}

// done tells Options.Done of a record done.
func (f *follower) done(r *record) {
	if f.o.Done != nil {
		f.o.Done(r.keys)
	}
}

// advance moves each shard's checkpoint past its records done, up to the
// first that is not, and returns the shards whose place it changed.
func (f *follower) advance() []string {
	var changed []string
	for id, s := range f.shards {
		after, doneAfter, done := s.st.After, len(s.st.DoneAfter), s.st.Done
		for len(s.inflight) > 0 && s.inflight[0].done {
			s.st.After = s.inflight[0].r.seq
			s.inflight = s.inflight[1:]
		}
		s.st.DoneAfter = s.st.DoneAfter[:0]
		for _, in := range s.inflight {
			if in.done {
				s.st.DoneAfter = append(s.st.DoneAfter, in.r.seq)
			}
		}
		if s.ended && len(s.inflight) == 0 {
			s.st.Done = true
		}
		// DoneAfter only grows while After stays: its length tells.
		if s.st.After != after || len(s.st.DoneAfter) != doneAfter || s.st.Done != done {
			changed = append(changed, id)
		}
	}
	return changed
}

// status is the run's status after a round; idle says whether it read
// nothing new.
func (f *follower) status(idle bool) Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	var oldest time.Time
	var deferredN int64
	for _, w := range f.waiting {
		for _, in := range w.recs {
			deferredN++
			if oldest.IsZero() || in.r.created.Before(oldest) {
				oldest = in.r.created
			}
		}
	}
	f.caughtUp = idle && deferredN == 0
	f.behind = 0
	if !oldest.IsZero() {
		f.behind = time.Since(oldest)
	}
	f.rep.Deferred = deferredN
	return Status{Records: f.rep.Records, Applied: f.applied(), DeadLetters: f.rep.DeadLetters, Deferred: deferredN, CaughtUp: f.caughtUp, Behind: f.behind}
}

// applied is the item changes applied (f.mu held).
func (f *follower) applied() int64 {
	var n int64
	for _, c := range f.per {
		n += c.Applied
	}
	return n
}

// lag is the progress's view of the run.
func (f *follower) lag() progress.Lag {
	f.mu.Lock()
	defer f.mu.Unlock()
	l := progress.Lag{Behind: f.behind, State: progress.LagBehind, Applied: fmt.Sprint(f.applied())}
	if f.caughtUp {
		l.State = progress.LagCaughtUp
	}
	return l
}

func (f *follower) note(s string) {
	if s != "" {
		f.rep.Notes = append(f.rep.Notes, s)
	}
}

// lagPercentile is the p-th percentile of the lags of the changes applied.
func lagPercentile(lags []time.Duration, p float64) time.Duration {
	if len(lags) == 0 {
		return 0
	}
	s := slices.Clone(lags)
	slices.Sort(s)
	return s[min(len(s)-1, int(float64(len(s))*p))]
}
