package migrate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/backoff"
	"github.com/remodel-dev/remodel/internal/domain/dynamo"
	"github.com/remodel-dev/remodel/internal/domain/sink"
	"github.com/remodel-dev/remodel/internal/domain/sink/batchwrite"
	"github.com/remodel-dev/remodel/mapping"
)

// MaxBatch is BatchWriteItem's limit on items per request.
const MaxBatch = batchwrite.MaxBatch

// Backoff is the retry policy for one batch: capped exponential backoff with
// full jitter, until Deadline has passed since the batch's first attempt.
type Backoff = backoff.Policy

// DefaultBackoff retries for up to two minutes, waiting at most 5 s at a time.
var DefaultBackoff = backoff.Default

// pending is one rendered item on its way to DynamoDB, or (del) the key of
// an item to delete.
type pending struct {
	item   mapping.Item
	entity string
	source string // the row's source key; "" for a row named by ent and key
	del    bool
	mark   *rowMark // the row's place in the checkpoint; nil: not tracked
	seen   bool     // the key of a row an earlier run settled: not written
	ent    *mapping.Entity
	key    []any // the row's source key values (ent.KeyValues)
	units  int   // the item's write units (mapping.WriteUnits); 0: not known yet
	size   int   // the item's bytes (mapping.ItemSize); 0: not known yet
}

// sourceKey names the item's row by its source key. It is built only when
// needed (a rejection), not for every row.
func (p *pending) sourceKey() string {
	if p.source == "" && p.ent != nil {
		return p.ent.SourceKeyOf(p.key)
	}
	return p.source
}

// counters are the pipeline's running totals, updated concurrently; sent
// are the table sink's own (retries, throttled answers, and the items
// whose fate is not known: the run stopped after a request for them got
// no answer, or an answer that does not say whether DynamoDB acted on it).
type counters struct {
	read, written, rejected, deleted atomic.Int64
	sent                             batchwrite.Stats
	mu                               sync.Mutex
	units                            float64
	perEntity                        map[string]*entityCounters
}

type entityCounters struct {
	read, written, rejected atomic.Int64
	bytes                   atomic.Int64 // of the items written
	// first and last are when its first row was read and its last item
	// acknowledged (Unix nanoseconds; 0: not yet).
	first, last atomic.Int64
}

// reading marks the entity's first row read, at the first call.
func (ec *entityCounters) reading(now time.Time) {
	if ec.first.Load() == 0 {
		ec.first.CompareAndSwap(0, now.UnixNano())
	}
}

// stored counts n items of the entity, of so many bytes, stored at now.
func (ec *entityCounters) stored(n, bytes int64, now time.Time) {
	ec.written.Add(n)
	ec.bytes.Add(bytes)
	ec.wrote(now)
}

// wrote marks an item of the entity acknowledged at now.
func (ec *entityCounters) wrote(now time.Time) {
	t := now.UnixNano()
	for {
		last := ec.last.Load()
		if last >= t || ec.last.CompareAndSwap(last, t) {
			return
		}
	}
}

// writer is the pipeline's side of the table sink (package batchwrite):
// it makes the sink of the run's options, hands it batches of pending
// items (their rows of the lock item's key rejected first: reserved), and
// is told back what was stored and refused (writerAcks), which it counts,
// records and settles in the checkpoint. The S3 and null sinks acknowledge
// through it too.
type writer struct {
	table   *mapping.Table
	c       *counters
	rej     *rejects
	written *keySet     // digests of the keys written; nil: not kept
	coll    *collisions // told of the keys of items DynamoDB refuses; nil: none
	// doubted records the items of a request that may be carried out
	// after the sink gave up on it (followdoubt.go); nil: not recorded.
	doubted func([]pending) error
	cfg     batchwrite.Config // the table sink's parts
	snk     *batchwrite.Sink  // the table sink, made of cfg
}

func newWriter(o Options, c *counters, rej *rejects) *writer {
	w := &writer{table: &o.Plan.Table, c: c, rej: rej}
	w.cfg = batchwrite.Config{
		Client: dynamo.New(o.DB), Table: w.table, Name: o.Table, Backoff: o.Backoff,
		Timeout: o.RequestTimeout, Grace: o.StopGrace,
		Gate: batchwrite.NewGate(o.Backoff), Limit: batchwrite.NewRateLimit(o.RateLimit, time.Now()),
		Stats: &c.sent, Doubted: w.doubtedItems,
	}
	if !o.FixedWriters && !o.Null { // the null sink sends no request
		w.cfg.Conc = batchwrite.NewAdaptive(o.Writers)
	}
	w.remake()
	return w
}

// remake makes w's table sink of w.cfg again, after a change to it.
func (w *writer) remake() { w.snk = batchwrite.New(w.cfg, writerAcks{w}) }

// shareLimits makes w's sink wait at other's gate and rate limit: a
// follower's writer shares the copy's.
func (w *writer) shareLimits(other *writer) {
	w.cfg.Gate, w.cfg.Limit = other.cfg.Gate, other.cfg.Limit
	w.remake()
}

// doubtedItems tells w.doubted of items idx of the pipeline's batch b.
func (w *writer) doubtedItems(b sink.Batch, idx []int) error {
	if w.doubted == nil {
		return nil
	}
	items, err := pendingOf(b)
	if err != nil {
		return err
	}
	sel := make([]pending, len(idx))
	for n, i := range idx {
		sel[n] = items[i]
	}
	return w.doubted(sel)
}

// write writes one batch into the table: every item is acknowledged by
// DynamoDB, rejected, or the error says why not.
func (w *writer) write(ctx context.Context, batch []pending) error {
	batch, err := w.reserved(batch)
	if err != nil || len(batch) == 0 {
		return err
	}
	return w.snk.Write(ctx, pendingBatch(batch))
}

// reserved rejects the rows whose item has the lock item's key and returns
// the others.
func (w *writer) reserved(batch []pending) ([]pending, error) {
	for i, p := range batch {
		if p.del || !w.table.IsLock(p.item) {
			continue
		}
		rest := append(slices.Clone(batch[:i]), batch[i+1:]...)
		w.c.rejected.Add(1)
		if ec := w.c.perEntity[p.entity]; ec != nil {
			ec.rejected.Add(1)
		}
		err := w.rej.add(Rejection{Entity: p.entity, Row: p.sourceKey(), Reason: fmt.Sprintf("the key %s is reserved for remodel's lock item", w.table.KeyString(p.item))})
		if err != nil {
			return nil, err
		}
		p.mark.settle(false)
		return w.reserved(rest)
	}
	return batch, nil
}

// refused records an item a sink refuses on its own, for reason, as a
// rejected row.
func (w *writer) refused(p pending, reason string) error {
	w.c.rejected.Add(1)
	if ec := w.c.perEntity[p.entity]; ec != nil {
		ec.rejected.Add(1)
	}
	if err := w.rej.add(Rejection{Entity: p.entity, Row: p.sourceKey(), Reason: reason}); err != nil {
		return err
	}
	if w.coll != nil {
		w.coll.refused(p.item)
	}
	p.mark.settle(false)
	return nil
}

// itemSize is p's item's bytes as DynamoDB counts them.
func itemSize(p *pending) int {
	if p.size == 0 {
		return mapping.ItemSize(p.item)
	}
	return p.size
}

// acknowledged counts the items DynamoDB acknowledged, in total and per
// entity, and remembers their keys when the run keeps them.
func (w *writer) acknowledged(done []pending) {
	w.account(done)
	now := time.Now()
	for _, p := range done {
		if p.del {
			w.c.deleted.Add(1)
			continue
		}
		w.c.written.Add(1)
		if ec := w.c.perEntity[p.entity]; ec != nil {
			ec.stored(1, int64(itemSize(&p)), now)
		}
		if w.written != nil {
			w.written.add(w.table, p.item)
		}
		p.mark.settle(true)
	}
}

var errTooManyRejects = errors.New("too many rejected rows")
