package migrate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"golang.org/x/sync/errgroup"

	"github.com/remodel-dev/remodel/internal/dynamo"
	"github.com/remodel-dev/remodel/mapping"
	"github.com/remodel-dev/remodel/source"
)

// Options configure one migration.
type Options struct {
	Plan   *mapping.Plan
	Source source.Source
	DB     *dynamodb.Client
	// Table is the DynamoDB table name; empty means the mapping's.
	Table         string
	CreateTable   bool
	AllowNonEmpty bool
	Readers       int // source connections reading entities in parallel
	Writers       int // concurrent BatchWriteItem callers
	MaxRejects    int64
	RejectsPath   string // JSON-lines file of rejected rows; "" keeps them in the report only
	Backoff       Backoff
	// Progress receives a line every ProgressEvery; nil for none.
	Progress      io.Writer
	ProgressEvery time.Duration

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

	keysDistinct bool // the mapping proves the table keys distinct: no collision check (collide.go)
}

func (o *Options) defaults() {
	if o.Table == "" {
		o.Table = o.Plan.Table.Name
	}
	if o.Readers < 1 {
		o.Readers = 4
	}
	o.Readers = min(o.Readers, max(1, len(o.Plan.Entities)))
	if o.Writers < 1 {
		o.Writers = 8
	}
	if o.Backoff == (Backoff{}) {
		o.Backoff = DefaultBackoff
	}
	if o.ProgressEvery <= 0 {
		o.ProgressEvery = 5 * time.Second
	}
	o.runDefaults()
}

// Run migrates every entity of the plan into the table. It returns the
// report even when it fails, with what was done up to the failure; the
// report says whether the run succeeded, failed or was interrupted (ctx
// canceled).
func Run(ctx context.Context, o Options) (*Report, error) {
	o.defaults()
	rep := &Report{Table: o.Table, Engine: string(o.Source.Engine()), Started: time.Now()}
	err := run(ctx, o, rep)
	rep.OK = err == nil
	if err != nil {
		rep.Error = err.Error()
		rep.Partial = rep.writing
	}
	rep.Interrupted = ctx.Err() != nil
	return rep, err
}

func run(ctx context.Context, o Options, rep *Report) (err error) {
	call := dynamo.AttemptTimeout(o.RequestTimeout)
	if o.CreateTable {
		if err := createTable(ctx, o.DB, &o.Plan.Table, o.Table, o.TableTimeout, o.RequestTimeout); err != nil {
			return err
		}
		rep.CreatedTable = true
	} else if err := CheckTable(ctx, o.DB, &o.Plan.Table, o.Table, call); err != nil {
		return err
	}

	// The lock: one run at a time writes into the table. The heartbeat
	// stops the run if the lock is lost; the lock is removed however the
	// run ends.
	lk, err := acquireLock(ctx, o, rep)
	if err != nil {
		return err
	}
	ctx, stopRun := context.WithCancelCause(ctx)
	stopHeartbeat := lk.keepAlive(ctx, stopRun)
	defer func() {
		stopHeartbeat()
		stopRun(nil)
		if warning := lk.release(ctx); warning != "" {
			rep.Warnings = append(rep.Warnings, warning)
		}
	}()
	defer func() { // the heartbeat's reason, when it stopped the run
		if err != nil && ctx.Err() != nil {
			if cause := context.Cause(ctx); errors.Is(cause, errLockLost) {
				err = cause
			}
		}
	}()

	if !o.AllowNonEmpty {
		empty, err := IsEmpty(ctx, o.DB, &o.Plan.Table, o.Table, call)
		if err != nil {
			return err
		}
		if !empty {
			return fmt.Errorf("migrate: table %s already holds items: refusing to write into it (--allow-non-empty writes anyway; items with the same key are replaced)", o.Table)
		}
	} else if rep.ItemsBefore, err = countItems(ctx, o, call); err != nil {
		return err
	}

	snap, err := o.Source.Snapshot(ctx, o.Readers)
	if err != nil {
		return err
	}
	defer snap.Close()
	rep.SnapshotWarning = snap.Warning()

	c := &counters{perEntity: map[string]*entityCounters{}}
	for _, e := range o.Plan.Entities {
		c.perEntity[e.Name] = &entityCounters{}
	}
	rej := &rejects{path: o.RejectsPath, max: o.MaxRejects}
	if o.RejectsPath != "" { // a file left by an earlier run would tell of rows this run did not reject
		if err := os.Remove(o.RejectsPath); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("migrate: removing the old rejected-rows file: %w", err)
		}
	}
	w := newWriter(o, c, rej)
	if rep.ItemsBefore > 0 { // to find the items this run did not write
		w.written = newKeySet()
	}

	keyCheck(&o, rep) // before the goroutines that read o
	stop := make(chan struct{})
	progressDone := make(chan struct{})
	go func() {
		defer close(progressDone)
		progress(o, c, rep.Started, stop)
	}()

	rep.writing = true
	err = pipeline(ctx, o, snap.Readers(), w, rej, c)
	if err == nil {
		rep.writing = false // every row is written or rejected: what follows cannot leave the table partial
		if w.written != nil {
			err = strays(ctx, o, w, rep, call)
		}
	}
	close(stop)
	<-progressDone
	if cerr := rej.close(); err == nil {
		err = cerr
	}
	rep.finish(o.Plan, c, rej)
	if rej.n > 0 && o.RejectsPath != "" {
		rep.RejectsFile = o.RejectsPath
	}
	return err
}

func pipeline(ctx context.Context, o Options, readers []source.Reader, w *writer, rej *rejects, c *counters) error {
	g, ctx := errgroup.WithContext(ctx)
	jobs := make(chan *mapping.Entity)
	items := make(chan pending, 4*MaxBatch*o.Writers)
	batches := make(chan []pending, o.Writers)

	g.Go(func() error {
		defer close(jobs)
		for _, e := range o.Plan.Entities {
			select {
			case jobs <- e:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	})
	g.Go(func() error {
		defer close(items)
		rg, rctx := errgroup.WithContext(ctx)
		for _, r := range readers {
			rg.Go(func() error {
				for e := range jobs {
					if err := readEntity(rctx, r, e, items, rej, c); err != nil {
						return err
					}
				}
				return nil
			})
		}
		return rg.Wait()
	})
	g.Go(func() error {
		defer close(batches)
		return batcher(ctx, &o.Plan.Table, o.keysDistinct, items, batches, rej, c)
	})
	for range o.Writers {
		g.Go(func() error {
			for b := range batches {
				if err := w.write(ctx, b); err != nil {
					return err
				}
			}
			return nil
		})
	}
	return g.Wait()
}

// readRows streams the rows of one entity (its table, view or query) from
// r, each with the reason it cannot become an item when its key names
// several rows (mapping.Entity.Stream).
func readRows(ctx context.Context, r source.Reader, e *mapping.Entity, fn func(row []any, dup *mapping.RowError) error) error {
	return e.Stream(func(each func([]any) error) error {
		return r.ScanTable(ctx, e.Table, e.Where, 0, each)
	}, fn)
}

// readEntity streams one entity's rows, renders them, and sends the items on.
func readEntity(ctx context.Context, r source.Reader, e *mapping.Entity, items chan<- pending, rej *rejects, c *counters) error {
	ec := c.perEntity[e.Name]
	return readRows(ctx, r, e, func(row []any, dup *mapping.RowError) error {
		c.read.Add(1)
		ec.read.Add(1)
		var item mapping.Item
		var size int
		var err error
		if dup != nil {
			err = dup // the key names several rows: none becomes an item
		} else {
			item, size, err = e.RenderSized(row)
		}
		if err != nil {
			var re *mapping.RowError
			if !errors.As(err, &re) {
				return err
			}
			c.rejected.Add(1)
			ec.rejected.Add(1)
			return rej.add(Rejection{Entity: re.Entity, Row: re.Key, Reason: re.Reason})
		}
		select {
		case items <- pending{item: item, entity: e.Name, ent: e, key: e.KeyValues(row), units: itemUnits(size)}:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
}

// batcher groups items into batches of MaxBatch. Two items with the same key
// cannot share a batch (DynamoDB refuses it) and would replace one another:
// the later row is rejected as a key collision, naming the key and, when it
// is one of the last keys, the earlier row. The check is skipped when the
// mapping proves the keys distinct (distinct), and otherwise holds a few
// bytes a key in memory (collide.go).
func batcher(ctx context.Context, t *mapping.Table, distinct bool, items <-chan pending, batches chan<- []pending, rej *rejects, c *counters) error {
	batch := make([]pending, 0, MaxBatch)
	coll := newCollider(t, distinct)
	defer coll.close()
	send := func() error {
		if len(batch) == 0 {
			return nil
		}
		select {
		case batches <- batch:
		case <-ctx.Done():
			return ctx.Err()
		}
		batch = make([]pending, 0, MaxBatch)
		return nil
	}
	emit := func(p pending) error {
		batch = append(batch, p)
		if len(batch) == MaxBatch {
			return send()
		}
		return nil
	}
	collide := func(p pending, earlier string) error {
		if earlier == "" {
			earlier = "an earlier row"
		}
		c.rejected.Add(1)
		c.perEntity[p.entity].rejected.Add(1)
		return rej.add(Rejection{Entity: p.entity, Row: p.sourceKey(), Reason: fmt.Sprintf("key collision: renders the same key %s as %s", t.KeyString(p.item), earlier)})
	}
	for p := range items {
		if err := coll.add(p, emit, collide); err != nil {
			return err
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err := coll.flush(emit, collide); err != nil {
		return err
	}
	return send()
}

func progress(o Options, c *counters, start time.Time, stop <-chan struct{}) {
	if o.Progress == nil {
		return
	}
	t := time.NewTicker(o.ProgressEvery)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			el := time.Since(start)
			fmt.Fprintf(o.Progress, "migrate: %s: %d rows read, %d items written (%.0f items/s), %d rejected, %d retries\n",
				el.Round(time.Second), c.read.Load(), c.written.Load(), float64(c.written.Load())/el.Seconds(), c.rejected.Load(), c.retries.Load())
		}
	}
}
