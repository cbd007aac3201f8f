package migrate

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"time"

	"github.com/remodel-dev/remodel/mapping"
)

// The render stage: the readers hand their rows, chunkRows at a time, to
// a pool of render workers (Options.RenderWorkers). Each worker renders a
// chunk's rows, passes the items through the key collision check (shared
// by the workers, sharded by key: collide.go), fills batches of its own
// and sends the full ones to the writers; at the end of the rows it sends
// its last, partial batch. No goroutine sees every item, and a channel
// operation moves a chunk of rows or a batch of items, not one item.
//
// Of two rows of one read with the same key, the first in key order is
// written and the second rejected, as when one goroutine checked every
// item: while the check is on, a chunk's items pass it only after the
// items of the read's chunk before it have (rowChunk.after). Rows of
// different reads (entities, key ranges) meet the check in any order, as
// they always did.

// chunkRows is how many rows a reader hands the render workers at once.
const chunkRows = 64

// chunkRow is one row read, for a render worker: a row of entity e (with
// its child rows and, when several rows share its key, the error saying
// so), or of the shared read sh, with an item for each entity of matched.
type chunkRow struct {
	e       *mapping.Entity
	sh      *sharedRead
	matched uint64
	row     []any
	kids    [][][]any
	dup     *mapping.RowError
	mark    *rowMark
}

// rowChunk is rows of one read, in key order. With the collision check on,
// its items pass the check after the read's chunk before it has closed
// after (nil: it is the read's first), and it closes done when its own have.
type rowChunk struct {
	rows  []chunkRow
	after <-chan struct{}
	done  chan struct{}
}

// chunker is a read's side of the render stage: it copies the rows the
// reader gives (valid only during the call) into chunks and sends each full
// chunk to the workers; flush sends the last one.
type chunker struct {
	out     chan<- *rowChunk
	ordered bool // the collision check is on: the chunks pass it in order
	cur     *rowChunk
	vals    []any // holds the copies of cur's rows
	prev    chan struct{}
}

func newChunker(out chan<- *rowChunk, coll *collisions) *chunker {
	return &chunker{out: out, ordered: !coll.off}
}

// add takes one row (r.row is copied).
func (k *chunker) add(ctx context.Context, r chunkRow) error {
	if k.cur == nil {
		k.cur = &rowChunk{rows: make([]chunkRow, 0, chunkRows)}
		k.vals = make([]any, 0, chunkRows*len(r.row))
	}
	n := len(k.vals)
	k.vals = append(k.vals, r.row...)
	r.row = k.vals[n:len(k.vals):len(k.vals)]
	k.cur.rows = append(k.cur.rows, r)
	if len(k.cur.rows) == chunkRows {
		return k.flush(ctx)
	}
	return nil
}

// flush sends the rows taken since the last chunk was sent.
func (k *chunker) flush(ctx context.Context) error {
	ch := k.cur
	if ch == nil {
		return nil
	}
	k.cur, k.vals = nil, nil
	if k.ordered {
		if k.prev != nil {
			ch.after = k.prev
		}
		ch.done = make(chan struct{})
		k.prev = ch.done
	}
	select {
	case k.out <- ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// renderer is one render worker.
type renderer struct {
	t     *mapping.Table
	coll  *collisions
	rej   *rejects
	c     *counters
	out   chan<- []pending
	items []pending   // the chunk's items, rendered
	batch []pending   // filling
	full  [][]pending // to send
	key   []byte      // scratch for the collision check
	buf   [][]any     // a shared row laid out for each of its entities
}

func newRenderer(t *mapping.Table, coll *collisions, rej *rejects, c *counters, out chan<- []pending) *renderer {
	return &renderer{t: t, coll: coll, rej: rej, c: c, out: out, batch: make([]pending, 0, MaxBatch)}
}

// run renders the chunks until in is closed, then sends its last batch.
func (w *renderer) run(ctx context.Context, in <-chan *rowChunk) error {
	for {
		select {
		case ch, ok := <-in:
			if !ok {
				return w.sendRest(ctx)
			}
			if err := w.chunk(ctx, ch); err != nil {
				return err
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// chunk renders a chunk's rows, checks their items' keys, batches them
// and sends the batches filled.
func (w *renderer) chunk(ctx context.Context, ch *rowChunk) error {
	w.countRead(ch)
	for i := range ch.rows {
		if err := w.render(&ch.rows[i]); err != nil {
			return err
		}
	}
	if err := w.check(ctx, ch); err != nil {
		return err
	}
	clear(w.items)
	w.items = w.items[:0]
	return w.sendFull(ctx)
}

// countRead counts the chunk's rows as read, per entity, before any is
// rejected (the counters are never behind the rejections).
func (w *renderer) countRead(ch *rowChunk) {
	if len(ch.rows) == 0 {
		return
	}
	first, now := ch.rows[0], time.Now()
	if first.sh == nil {
		n := int64(len(ch.rows))
		w.c.read.Add(n)
		w.c.perEntity[first.e.Name].read.Add(n)
		w.c.perEntity[first.e.Name].reading(now)
		return
	}
	var total int64
	for i, e := range first.sh.ents {
		var n int64
		for _, r := range ch.rows {
			n += int64(r.matched >> i & 1)
		}
		if n > 0 {
			w.c.perEntity[e.Name].read.Add(n)
			w.c.perEntity[e.Name].reading(now)
		}
		total += n
	}
	w.c.read.Add(total)
}

// render renders one row into its items (w.items), or rejects it.
func (w *renderer) render(r *chunkRow) error {
	if r.sh == nil {
		return w.renderItem(r.e, r.row, r.kids, r.dup, r.mark)
	}
	if n := len(r.sh.ents); len(w.buf) < n {
		w.buf = make([][]any, n)
	}
	for m := r.matched; m != 0; m &= m - 1 {
		i := bits.TrailingZeros64(m)
		if err := w.renderItem(r.sh.ents[i], r.sh.entityRow(i, r.row, w.buf), nil, nil, r.mark.item(i)); err != nil {
			return err
		}
	}
	return nil
}

// renderItem renders one row of entity e (m: its mark, nil when untracked)
// into its item, or rejects the row.
func (w *renderer) renderItem(e *mapping.Entity, row []any, kids [][][]any, dup *mapping.RowError, m *rowMark) error {
	item, size, err := e.RenderRead(row, kids, dup)
	if err != nil {
		var re *mapping.RowError
		if !errors.As(err, &re) {
			return err
		}
		w.c.rejected.Add(1)
		w.c.perEntity[e.Name].rejected.Add(1)
		if err := w.rej.add(Rejection{Entity: re.Entity, Row: m.rejectedAs(re.Key), Reason: re.Reason}); err != nil {
			return err
		}
		m.settle(false)
		return nil
	}
	w.items = append(w.items, m.named(pending{item: item, entity: e.Name, ent: e, key: e.KeyValues(row), units: mapping.WriteUnits(size), size: size, mark: m}))
	return nil
}

// check passes the chunk's items through the key collision check, in
// turn after the read's chunk before (when the check is on), into the
// batches.
func (w *renderer) check(ctx context.Context, ch *rowChunk) error {
	if ch.after != nil {
		select {
		case <-ch.after:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	for _, p := range w.items {
		if err := w.coll.add(p, &w.key, w.emit, w.collide); err != nil {
			return err
		}
	}
	if ch.done != nil {
		close(ch.done)
	}
	return nil
}

// emit adds an item to the batch; a full batch waits in w.full to be sent
// (not sent here: emit runs under a lock of the collision check).
func (w *renderer) emit(p pending) error {
	w.batch = append(w.batch, p)
	if len(w.batch) == MaxBatch {
		w.full = append(w.full, w.batch)
		w.batch = make([]pending, 0, MaxBatch)
	}
	return nil
}

// collide rejects the row of an item whose key an earlier row's item has
// (earlier names that row, "" when it is not known): the item and the
// earlier one would replace each other, and cannot share a batch.
func (w *renderer) collide(p pending, earlier string) error {
	if earlier == "" {
		earlier = "an earlier row"
	}
	w.c.rejected.Add(1)
	w.c.perEntity[p.entity].rejected.Add(1)
	if err := w.rej.add(Rejection{Entity: p.entity, Row: p.sourceKey(), Reason: fmt.Sprintf("key collision: renders the same key %s as %s", w.t.KeyString(p.item), earlier)}); err != nil {
		return err
	}
	p.mark.settle(false)
	return nil
}

// sendFull sends the full batches to the writers.
func (w *renderer) sendFull(ctx context.Context) error {
	for i, b := range w.full {
		select {
		case w.out <- b:
			w.full[i] = nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	w.full = w.full[:0]
	return nil
}

// sendRest sends what is left: the full batches and the one filling.
func (w *renderer) sendRest(ctx context.Context) error {
	if len(w.batch) > 0 {
		w.full = append(w.full, w.batch)
		w.batch = make([]pending, 0, MaxBatch)
	}
	return w.sendFull(ctx)
}
