package migrate

import (
	"context"
	"crypto/sha256"
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

	snap, err := o.Source.Snapshot(ctx, o.Readers+embedReaders(o.Plan, o.Readers))
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
	readers, pool := readers[:o.Readers], newReaderPool(readers[o.Readers:])
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
					if err := readEntity(rctx, r, pool, e, items, rej, c); err != nil {
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
		return batcher(ctx, &o.Plan.Table, items, batches, rej, c)
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

// readEntity streams one entity's rows, renders them, and sends the items on.
func readEntity(ctx context.Context, r source.Reader, pool readerPool, e *mapping.Entity, items chan<- pending, rej *rejects, c *counters) error {
	ec := c.perEntity[e.Name]
	return streamRows(ctx, r, pool, e, func(row []any, kids [][][]any, dup *mapping.RowError) error {
		c.read.Add(1)
		ec.read.Add(1)
		var item mapping.Item
		var err error
		if dup != nil {
			err = dup // the key names several rows: none becomes an item
		} else {
			item, err = e.Render(e.WithChildren(row, kids))
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
		case items <- pending{item: item, entity: e.Name, source: e.SourceKey(row)}:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
}

// batcher groups items into batches of MaxBatch. Two items with the same key
// cannot share a batch (DynamoDB refuses it) and would replace one another:
// the later row is rejected as a collision, naming both rows. Every key
// accepted is also remembered as a 16-byte digest (about 40 bytes of memory
// per item), so a row colliding with one in an earlier batch is rejected too,
// instead of its put silently replacing the earlier item.
func batcher(ctx context.Context, t *mapping.Table, items <-chan pending, batches chan<- []pending, rej *rejects, c *counters) error {
	batch := make([]pending, 0, MaxBatch)
	keys := make(map[string]string, MaxBatch)
	sent := make(map[[16]byte]struct{})
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
		clear(keys)
		return nil
	}
	for p := range items {
		k := t.KeyString(p.item)
		sum := sha256.Sum256([]byte(k))
		digest := [16]byte(sum[:16])
		prev, dup := keys[k]
		if _, ok := sent[digest]; ok && !dup {
			prev, dup = "an earlier row", true
		}
		if dup {
			c.rejected.Add(1)
			c.perEntity[p.entity].rejected.Add(1)
			if err := rej.add(Rejection{Entity: p.entity, Row: p.source, Reason: fmt.Sprintf("key collision: renders the same key %s as %s", k, prev)}); err != nil {
				return err
			}
			continue
		}
		keys[k] = "entity " + p.entity + " row " + p.source
		sent[digest] = struct{}{}
		batch = append(batch, p)
		if len(batch) == MaxBatch {
			if err := send(); err != nil {
				return err
			}
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
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
