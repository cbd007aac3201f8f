package migrate

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/aws/smithy-go"
	"golang.org/x/sync/errgroup"

	"github.com/remodel-dev/remodel/internal/domain/dynamo"
	"github.com/remodel-dev/remodel/internal/domain/embedread"
	"github.com/remodel-dev/remodel/internal/domain/progress"
	"github.com/remodel-dev/remodel/internal/domain/s3out"
	"github.com/remodel-dev/remodel/internal/domain/sink"
	"github.com/remodel-dev/remodel/internal/domain/sink/batchwrite"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/mapping"
)

// Options configure one migration.
type Options struct {
	Plan   *mapping.Plan
	Source source.Source
	// DB is the DynamoDB client: a *dynamo.Client that dynamo.Connect made
	// writes on its direct path, any other through its own BatchWriteItem.
	DB dynamo.API
	// Table is the DynamoDB table name; empty means the mapping's.
	Table       string
	CreateTable bool
	// WarmThroughput, with CreateTable, is the new table's warm throughput
	// (warm.go); nil: none asked for.
	WarmThroughput *WarmThroughput
	// Stream, with CreateTable, enables the table's stream with
	// NEW_AND_OLD_IMAGES (what follow-back reads) as it is created.
	Stream        bool
	AllowNonEmpty bool
	Readers       int // source connections reading entities in parallel
	// Writers is the most BatchWriteItem requests in flight at once: the
	// writers adapt how many they send at once to throttling (batchwrite.Adaptive),
	// from 4 up to Writers. FixedWriters keeps Writers requests in flight
	// whatever DynamoDB answers (the behaviour before; for comparisons).
	Writers      int
	FixedWriters bool
	// RenderWorkers render the rows the readers read into items, check
	// their keys and fill the writers' batches (render.go); 0: GOMAXPROCS.
	RenderWorkers int
	// KeyCheckMemory is the memory the key collision check may hold, in
	// bytes, whatever the number of keys (collide.go; 0:
	// keyset.DefaultMemory): what outgrows it goes to temporary files.
	KeyCheckMemory int64
	// KeyCheckAlways runs the key collision check without asking whether
	// the mapping proves the keys distinct.
	KeyCheckAlways bool
	MaxRejects     int64
	RejectsPath    string // JSON-lines file of rejected rows; "" keeps them in the report only
	Backoff        Backoff
	// Progress receives the copy's counts per entity (progress.go); nil
	// for none. ExactCounts counts every entity's rows in the snapshot
	// first, for exact totals instead of the source's estimates.
	Progress    *progress.Tracker
	ExactCounts bool

	// RequestTimeout is the deadline of every attempt of every DynamoDB
	// request (0: DefaultRequestTimeout); an attempt without an answer by
	// then is retried like any other failure. TableTimeout bounds the wait
	// for a created table to become ACTIVE (0: DefaultTableTimeout).
	RequestTimeout time.Duration
	TableTimeout   time.Duration
	// StopGrace is how long a writer whose request is in flight when the
	// run stops (an error, a canceled context) still waits for its answer,
	// so that what DynamoDB acknowledged is counted (0: DefaultStopGrace).
	StopGrace time.Duration
	// RateLimit caps the writes at this many write units per second (one
	// unit per started KB of each item); 0 means no limit.
	RateLimit int64
	// LockStale is the age of a lock item's heartbeat past which another
	// run takes the lock over (0: DefaultLockStale); the heartbeat is
	// refreshed every LockStale/4.
	LockStale time.Duration
	// DeleteStale deletes, after a successful run into a table that held
	// items before (AllowNonEmpty), the items this run did not write.
	DeleteStale bool

	// CheckpointPath is the file where the run keeps its checkpoint
	// (checkpoint.go); "" keeps none. A run that succeeds leaves its report
	// as the finished record (finished.go) and then removes the
	// checkpoint. Resume continues the job whose checkpoint it is; when
	// the checkpoint is gone and the finished record is there (a run
	// finished, and was perhaps killed before it could say so), Run
	// returns that record's report (AlreadyFinished) and does nothing. MappingDigest and SourceID name the mapping file and
	// the source (without password) in it; CheckpointEvery is how often it
	// is saved (0: DefaultCheckpointEvery).
	CheckpointPath string
	Resume         bool
	// Before are the phases the caller timed before Run (reading the
	// schema): the report's, and the finished record's, first.
	Before []Phase
	// Ranges splits each entity into this many key ranges of about equal
	// rows (read.go), read in parallel by the readers (Readers: each reads
	// one entity or range at a time); 0 or 1: one.
	Ranges int
	// Shard makes the run one shard of a sharded job (shard.go): it reads
	// only its own key ranges of every entity, holds its own lock item,
	// neither refuses a table holding items (its sibling shards' items
	// among them) nor looks for stray items (verify checks the whole job);
	// the zero Shard: the whole job.
	Shard Shard
	// Job names the sharded job the shard is of (--job; "": not named). It
	// is recorded in the split plan item, and a shard never adopts the plan
	// of another job: a plan of another job that is in use refuses it, one
	// that is not is replaced (splitplan.go).
	Job string
	// ShardsDone (with To and Import) copies nothing: it imports the
	// objects the n shards of a sharded job wrote under To, once their n
	// manifests are there and agree (s3shard.go).
	ShardsDone      int
	MappingDigest   string
	SourceID        string
	CheckpointEvery time.Duration
	// Follow applies, after the copy, the changes committed since its
	// snapshot, until ctx is done (follow.go); Slot and Publication name
	// the replication slot and the publication (PostgreSQL) that keep them.
	// FollowBatch is how many changes a batch gathers at most (0:
	// DefaultFollowBatch). The follower's lag goes to Progress (a
	// "follow" phase, progress.go).
	Follow      bool
	Slot        string
	Publication string
	FollowBatch int
	// FollowTxnPart is how many changes of one transaction the stream
	// hands over at a time (0: source.MaxTxnPart; tests set it low).
	FollowTxnPart int
	resumeOwners  []string // --resume: the lock owners the checkpoint names, whose lock is taken over
	lockOwner     string   // this run's lock owner id; "": a new one
	keysDistinct  bool     // the mapping proves the table keys distinct: no collision check (collide.go)

	// Null sends the items into the null sink (--to null:): every row is
	// read and rendered and its key checked as for a table, and nothing is
	// written anywhere (no table, lock, checkpoint or follower; Run
	// refuses the options that need one).
	Null bool

	// To, when set, writes the items as ImportTable's source objects under
	// this S3 prefix (or local directory, To.Dir) instead of into the
	// table, through S3 (s3out.S3, or s3out.Dir for a directory; s3run.go):
	// objects of at most ObjectSize bytes of DynamoDB JSON before
	// compression (0: DefaultObjectSize) and ObjectItems items (0:
	// DefaultObjectItems), compressed with Compression
	// (default gzip). Import then has DynamoDB create the table from them
	// (ImportTable, s3import.go) and waits for it, at most ImportTimeout
	// (0: DefaultImportTimeout).
	To            *s3out.Location
	S3            s3out.Store
	ObjectSize    int64
	ObjectItems   int64
	Compression   s3out.Compression
	Import        bool
	ImportTimeout time.Duration
}

func (o *Options) defaults() {
	if o.Table == "" {
		o.Table = o.Plan.Table.Name
	}
	if o.Readers < 1 {
		o.Readers = 4
	}
	o.Readers = min(o.Readers, max(1, len(o.Plan.Entities)*max(1, o.Ranges)))
	if o.Writers < 1 {
		o.Writers = 8
	}
	if o.RenderWorkers < 1 {
		o.RenderWorkers = runtime.GOMAXPROCS(0)
	}
	if o.Backoff == (Backoff{}) {
		o.Backoff = DefaultBackoff
	}
	if o.FollowBatch <= 0 {
		o.FollowBatch = DefaultFollowBatch
	}
	if o.Follow && o.Slot == "" && sharedFollow(*o) {
		o.Slot = jobSlot(*o) // one for the shards of a job and its follower (s3shardfollow.go)
	} else if o.Follow && o.Slot == "" {
		o.Slot = DefaultSlot(o.Table, newSlotID()) // a resumed run's is its checkpoint's
	}
	if o.Follow && o.Publication == "" && o.Source.Engine().Dialect().NeedsPublication() {
		o.Publication = o.Slot // MySQL has no publication: its binlog holds every table
	}
	o.runDefaults()
}

// Run migrates every entity of the plan into the table. It returns the
// report even when it fails, with what was done up to the failure; the
// report says whether the run succeeded, failed or was interrupted (ctx
// canceled).
func Run(ctx context.Context, o Options) (*Report, error) {
	given := o.Table // --table, which the resume hint repeats
	o.defaults()
	if rep := finishedBefore(o); rep != nil {
		return rep, nil
	}
	rep := &Report{Version: ReportVersion, Table: o.Table, TableFlag: given, Engine: string(o.Source.Engine()), Shard: o.Shard.String(), Job: o.Job, Started: time.Now(),
		Phases: slices.Clone(o.Before)}
	err := refuseNull(o)
	switch {
	case err != nil:
	case o.To != nil:
		err = runS3(ctx, o, rep)
	default:
		err = runRoute(ctx, o, rep, &tableRoute{})
	}
	rep.NullSink = o.Null
	rep.OK = err == nil
	if err != nil {
		rep.Error = dynamo.Explain(err).Error() // an endpoint that refuses connections: one line, not the SDK's chain
		rep.Partial = rep.writing && !o.Null    // the null sink leaves nothing partial
		var api smithy.APIError
		rep.TableGone = rep.writing && errors.As(err, &api) && api.ErrorCode() == "ResourceNotFoundException"
	}
	rep.Interrupted = ctx.Err() != nil
	return rep, err
}

func pipeline(ctx context.Context, o Options, rep *Report, reads []plannedRead, readers []source.Reader, w *writer, snk sink.Sink, rej *rejects, c *counters, tr *tracker) (err error) {
	parent := ctx
	g, ctx := errgroup.WithContext(ctx)
	readers, pool := readers[:o.Readers], embedread.NewPool(readers[o.Readers:])
	coll := newCollisions(&o.Plan.Table, o.keysDistinct, o.KeyCheckMemory)
	w.coll = coll
	defer func() {
		if !coll.off {
			st := coll.stats()
			rep.KeyCheck = &KeyCheckStats{Keys: st.Keys, MemoryBytes: st.MemoryBytes, DiskBytes: st.DiskBytes, Lookups: st.Lookups}
		}
		if cerr := coll.close(); cerr != nil && err == nil {
			err = fmt.Errorf("migrate: closing the key collision check: %w", cerr)
		}
	}()
	chunks := make(chan *rowChunk, o.RenderWorkers)
	batches := make(chan []pending, o.Writers)

	g.Go(func() error {
		return readAll(ctx, o, reads, readers, pool, chunks, coll, w, tr)
	})
	g.Go(func() error {
		defer close(batches)
		return renderAll(ctx, o, chunks, coll, batches, rej, c)
	})
	var lanes *batchwrite.Lanes
	if ts, ok := snk.(*batchwrite.Sink); ok && w.cfg.Conc != nil { // into the table: batches of one large item collection go on in lanes
		lanes = batchwrite.NewLanes(batchwrite.LaneItems) // the copy's only: --follow applies a key's changes in order
		snk = ts.WithLanes(lanes)
	}
	var writers sync.WaitGroup
	for range o.Writers {
		writers.Add(1)
		g.Go(func() error {
			defer writers.Done()
			return sinkWriter(ctx, w, snk, batches)
		})
	}
	if lanes != nil {
		g.Go(func() error { // within the group: its context lives until the lanes are done
			writers.Wait()
			return lanes.Wait()
		})
	}
	err = g.Wait()
	if cerr := snk.Close(parent, err == nil); err == nil { // stores what it holds (or, after a failure, drops it) and acknowledges
		err = cerr
	}
	return err
}

// renderAll runs the render workers (render.go) until the chunks end.
func renderAll(ctx context.Context, o Options, chunks <-chan *rowChunk, coll *collisions, batches chan<- []pending, rej *rejects, c *counters) error {
	g, gctx := errgroup.WithContext(ctx)
	for range o.RenderWorkers {
		g.Go(func() error {
			return newRenderer(&o.Plan.Table, coll, rej, c, batches).run(gctx, chunks)
		})
	}
	return g.Wait()
}

// readRows streams the rows of one entity (its table, view or query) from
// r, each with its embedded child rows (read by readers taken from pool)
// and with the reason it cannot become an item when its key names several
// rows (mapping.Entity.StreamEmbedded); kr restricts them to a key range
// (for an entity with embeds, a resumed run's rows after its checkpoint:
// the child rows of those parents are read by the same bounds). The zero
// pool reads no child rows (kids is nil): for the keys of settled rows.
func readRows(ctx context.Context, r source.Reader, pool embedread.Pool, e *mapping.Entity, kr source.KeyRange, fn func(row []any, kids [][][]any, dup *mapping.RowError) error) error {
	ranged := kr.After != nil || kr.UpTo != nil
	if pool.IsZero() || len(e.Embeds()) == 0 {
		return e.Stream(func(each func([]any) error) error {
			if ranged {
				return r.ScanRange(ctx, e.Table, e.Where, kr, each)
			}
			return r.ScanTable(ctx, e.Table, e.Where, 0, each)
		}, func(row []any, dup *mapping.RowError) error { return fn(row, nil, dup) })
	}
	if ranged {
		return embedread.StreamRange(ctx, r, pool, e, kr, fn)
	}
	return embedread.Stream(ctx, r, pool, e, fn)
}

// readEntity streams one entity's rows to the render workers.
func readEntity(ctx context.Context, r source.Reader, pool embedread.Pool, e *mapping.Entity, kr source.KeyRange, k *chunker, et *entityTrack) error {
	err := readRows(ctx, r, pool, e, kr, func(row []any, kids [][][]any, dup *mapping.RowError) error {
		return k.add(ctx, chunkRow{e: e, row: row, kids: kids, dup: dup, mark: et.mark(row)})
	})
	if err != nil {
		return err
	}
	return k.flush(ctx)
}

// readSharedEntities streams the rows of a shared read (shared.go) to the
// render workers, each to become an item of every entity whose where it
// matches; the row is settled when all of them are.
func readSharedEntities(ctx context.Context, r source.Reader, sh *sharedRead, kr source.KeyRange, k *chunker, et *entityTrack) error {
	err := readShared(ctx, r, sh, kr, func(row []any, matched uint64) error {
		return k.add(ctx, chunkRow{sh: sh, matched: matched, row: row, mark: et.markShared(row, matched)})
	})
	if err != nil {
		return err
	}
	return k.flush(ctx)
}
