package migrate

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/remodel-dev/remodel/internal/domain/embedread"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
)

// Following the source (--follow): after the copy, the changes committed
// since the copy's snapshot are applied, in commit order, until the run is
// stopped. The technique (docs/cli.md, "migrate --follow"):
//
//   - The copy and the stream start at one point: the replication slot is
//     created with an exported snapshot, which the copy's readers import.
//     The changes wait in the slot until the copy is done.
//   - Changes are applied a batch of whole transactions at a time, one
//     batch after the other. For a batch, every source row a change touched
//     (before and after it; for a child row of an embed, its parent) is read
//     again by its key, in one snapshot of the source as it is now, and
//     rendered as the copy renders rows; the items are put. The item keys
//     the touched rows rendered before (from the change's row before, or
//     from the row's key when the key templates read only the primary key)
//     that no row renders now are deleted. So an item is always written from
//     the row as the source holds it at least as late as the change: an
//     older state never overwrites a newer one, also when a crash replays
//     changes already applied. A batch never holds two writes for one key.
//   - The slot's position moves past a batch only once DynamoDB
//     acknowledged every write of it (source.Stream.Ack).

// DefaultFollowBatch is how many changes a batch of the follower gathers at
// most (whole transactions: one larger transaction is one batch, or a batch
// per part when it is larger than source.MaxTxnPart).
const DefaultFollowBatch = 2000

// followGather is how long the follower waits for more transactions to
// fill a batch once one came.
const followGather = 20 * time.Millisecond

// FollowReport is what the follower did: the cutover report.
type FollowReport struct {
	Slot        string `json:"slot"`
	Publication string `json:"publication"`
	// Start is where the copy's snapshot is in the source's history;
	// Applied the last position whose changes are all in the table.
	Start        string `json:"start"`
	Applied      string `json:"applied"`
	Transactions int64  `json:"transactions"`
	// Parts counts the parts of transactions larger than the stream
	// holds at once (source.MaxTxnPart), each applied as a batch.
	Parts    int64 `json:"parts,omitempty"`
	Changes  int64 `json:"changes"`
	Puts     int64 `json:"puts"`
	Deletes  int64 `json:"deletes"`
	Rejected int64 `json:"rejected"`
	// Entities are the changes per entity: rows changed, items put and
	// deleted, rows rejected.
	Entities []FollowEntity `json:"entities"`
	// Diffed is what the diff pass did, when the follower stopped, for
	// each entity read from a view or a query.
	Diffed []FollowDiff `json:"diffed,omitempty"`
	// CaughtUp: the stop came when everything the source committed before
	// it was applied (the cutover condition); false after a stop that was
	// not drained, or with an error.
	CaughtUp bool `json:"caught_up"`
	// Redone counts the rows of copy requests in doubt written again at
	// the stop (followdoubt.go).
	Redone int `json:"redone,omitempty"`
	// Stopped is true when a signal stopped the follower, as it should:
	// the position is saved and --follow --resume goes on from it.
	Stopped bool `json:"stopped"`
}

// FollowEntity is what the follower did for one entity.
type FollowEntity struct {
	Name     string `json:"name"`
	Changes  int64  `json:"changes"`
	Puts     int64  `json:"puts"`
	Deletes  int64  `json:"deletes"`
	Rejected int64  `json:"rejected"`
}

// followPlan is how the changes of each followed table reach the entities.
type followPlan struct {
	opts source.FollowOptions
	// direct: the entities read from a table; embedded: the entities whose
	// embed reads a table as its child rows.
	direct   map[*introspect.Table][]*mapping.Entity
	embedded map[*introspect.Table][]embedRef
	ents     []*mapping.Entity
	// diffed are the entities read from a view or a query: a change cannot
	// be traced to their items, so the diff pass (followdiff.go)
	// synchronises them when the follower stops.
	diffed []*mapping.Entity
}

type embedRef struct {
	e *mapping.Entity
	m *mapping.Embed
}

// newFollowPlan says which entities are followed row by row and which are
// diffed, which tables are followed and which need their rows whole.
func newFollowPlan(p *mapping.Plan, slot, publication string, txnPart int) (*followPlan, error) {
	fp := &followPlan{
		opts:     source.FollowOptions{Slot: slot, Publication: publication, TxnPart: txnPart},
		direct:   map[*introspect.Table][]*mapping.Entity{},
		embedded: map[*introspect.Table][]embedRef{},
		ents:     p.Entities,
	}
	if p.Schema == nil {
		return nil, errors.New("migrate: --follow needs the source's schema")
	}
	base := func(t *introspect.Table) (*introspect.Table, error) {
		bt, err := p.Schema.Table(t.Schema + "." + t.Name)
		if err != nil {
			return nil, fmt.Errorf("migrate: --follow: %w", err)
		}
		if !slices.Contains(fp.opts.Tables, bt) {
			fp.opts.Tables = append(fp.opts.Tables, bt)
		}
		return bt, nil
	}
	full := func(t *introspect.Table) {
		if !slices.Contains(fp.opts.FullRows, t) {
			fp.opts.FullRows = append(fp.opts.FullRows, t)
		}
	}
	for _, e := range p.Entities {
		if e.Table.Query != "" || e.Table.View {
			fp.diffed = append(fp.diffed, e)
			continue
		}
		bt, err := base(e.Table)
		if err != nil {
			return nil, err
		}
		fp.direct[bt] = append(fp.direct[bt], e)
		for _, c := range e.KeyColumns() {
			if !slices.Contains(bt.PrimaryKey, c) {
				full(bt) // the item key of the row before needs this column
			}
		}
		for _, m := range e.Embeds() {
			ct, err := base(m.Child)
			if err != nil {
				return nil, err
			}
			fp.embedded[ct] = append(fp.embedded[ct], embedRef{e, m})
			for _, l := range m.Link {
				if !slices.Contains(ct.PrimaryKey, l) {
					full(ct) // the parent of a deleted child row
				}
			}
		}
	}
	return fp, nil
}

// FollowSupport says, for people, how migrate --follow would follow the
// plan's entities: which are followed row by row, which are diffed when
// the follower stops, and which tables need REPLICA IDENTITY FULL
// (validate prints it).
func FollowSupport(p *mapping.Plan) string {
	fp, err := newFollowPlan(p, "", "", 0)
	if fp == nil {
		return "migrate --follow: " + err.Error()
	}
	var followed, diffed []string
	for _, e := range p.Entities {
		switch {
		case !slices.Contains(fp.diffed, e):
			followed = append(followed, e.Name)
		case e.Table.View:
			diffed = append(diffed, e.Name+" (a view)")
		default:
			diffed = append(diffed, e.Name+" (a query)")
		}
	}
	s := "migrate --follow: "
	switch {
	case len(diffed) == 0:
		s += "every entity is followed row by row (" + strings.Join(followed, ", ") + ")"
	case len(followed) == 0:
		s += "no entity is followed row by row; every one is diffed when the follower stops (a change cannot be traced to their items): " + strings.Join(diffed, ", ")
	default:
		s += "followed row by row: " + strings.Join(followed, ", ") + "; diffed when the follower stops (a change cannot be traced to their items): " + strings.Join(diffed, ", ")
	}
	if len(fp.opts.FullRows) > 0 && !p.Schema.Engine.Dialect().StreamHasWholeRows() { // a MySQL row binlog holds whole rows (binlog_row_image=FULL)
		var names []string
		for _, t := range fp.opts.FullRows {
			names = append(names, t.QualifiedName())
		}
		s += "; needs REPLICA IDENTITY FULL on " + strings.Join(names, ", ")
	}
	return s
}

// follower applies the change stream to the table.
type follower struct {
	o    Options
	fp   *followPlan
	w    *writer
	rej  *rejects
	tr   *tracker
	rep  *FollowReport
	mu   sync.Mutex // rep's counts, read by the status ticker
	per  map[string]*FollowEntity
	done int64 // changes applied
	// items is about how many items the table holds (what the copy
	// wrote), for the diff pass's scan.
	items int64
	acked string // the last position given to the stream's Ack
	// unrecorded is a position applied and not yet recorded (checkpoint,
	// Ack); recorded is when the last one was.
	unrecorded source.Position
	recorded   time.Time
	// The batch being applied (f.mu): its transactions (0: none), since
	// when, and the writer's retries then (followwatch.go).
	busyTxns    int
	busySince   time.Time
	busyRetries int64
	// kept is the last batch's snapshot, its transactions ended, whose
	// connections the next batch's renews (snapshot).
	kept source.Snapshot
}

// follow applies the stream's transactions until ctx is done or an error
// stops it. A signal (ctx canceled, not a lost lock) is a cutover: the
// follower drains (drain) and returns nil only once everything the
// source committed before the stop is in the table.
func (f *follower) follow(ctx context.Context, stream source.Stream) error {
	txns := make(chan *source.Txn, 64)
	// The receiver runs on through a drain after the signal; it is
	// stopped, and waited for, however follow ends.
	recv, stopRecv := context.WithCancel(context.WithoutCancel(ctx))
	var recvErr error
	var wg sync.WaitGroup
	defer func() {
		stopRecv()
		wg.Wait()
	}()
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(txns)
		if err := receive(recv, stream, txns); err != nil && recv.Err() == nil {
			recvErr = err
		}
	}()
	for {
		batch, ok := f.gather(ctx, txns, followIdle)
		if !ok {
			if ctx.Err() != nil {
				break
			}
			return recvErr
		}
		if err := f.applyBatch(ctx, stream, batch, false); err != nil {
			if ctx.Err() != nil {
				// Not acknowledged: the drain applies it again.
				return f.stop(ctx, stream, txns, batch, &recvErr)
			}
			return err
		}
	}
	return f.stop(ctx, stream, txns, nil, &recvErr)
}

// receive reads the stream as fast as it comes and hands its transactions
// over; while the applier is busy it keeps the stream alive.
func receive(ctx context.Context, stream source.Stream, txns chan<- *source.Txn) error {
	ka, _ := stream.(source.KeepAliver)
	tick := time.NewTicker(2 * time.Second)
	defer tick.Stop()
	for {
		t, err := stream.Next(ctx)
		if err != nil {
			return err
		}
		for sent := false; !sent; {
			select {
			case txns <- t:
				sent = true
			case <-ctx.Done():
				return ctx.Err()
			case <-tick.C: // the source must not take the stream for dead
				if ka != nil {
					if err := ka.KeepAlive(ctx); err != nil {
						return err
					}
				}
			}
		}
	}
}

// followIdle is how long the follower waits for a transaction before it
// records what waits to be recorded, or what the stream says is applied
// without one (a transaction of no followed table).
const followIdle = 250 * time.Millisecond

// followSaveEvery is how often at most the follower records how far the
// changes are applied (the checkpoint saved, then the source told), but
// at its stop, which records at once.
const followSaveEvery = 250 * time.Millisecond

// followDrain is how long a stopped follower waits for what the source
// committed before the stop (a variable for the tests).
var followDrain = 30 * time.Second

// applyBatch applies a batch (empty: none came) and records how far the
// changes are applied, at most every followSaveEvery unless force: in the
// checkpoint first, then in the stream, which tells the source (so the
// source never keeps less than the checkpoint needs).
func (f *follower) applyBatch(ctx context.Context, stream source.Stream, batch []*source.Txn, force bool) error {
	if len(batch) > 0 {
		f.busy(len(batch))
		err := f.apply(ctx, batch)
		f.busy(0)
		if err != nil {
			return err
		}
		// The end of the last whole transaction: a part of a larger one
		// (source.MaxTxnPart) has none, and its transaction is applied
		// whole again after a stop before its last part.
		for _, t := range batch {
			if t.End != "" {
				f.unrecorded = t.End
			}
		}
	}
	if f.unrecorded == "" {
		// Nothing applied waits: what the stream says is applied (past
		// the transactions of no followed table), when it moved.
		if a := stream.Status().Applied; a != "" && string(a) != f.acked {
			f.unrecorded = a
		}
	}
	if f.unrecorded == "" || !force && time.Since(f.recorded) < followSaveEvery {
		return nil
	}
	end := f.unrecorded
	f.mu.Lock()
	f.rep.Applied = string(end)
	f.mu.Unlock()
	if f.tr != nil {
		f.tr.followApplied(end)
		if err := f.tr.save(); err != nil {
			return err
		}
	}
	stream.Ack(end)
	f.acked, f.unrecorded, f.recorded = string(end), "", time.Now()
	return nil
}

// busy records that a batch of n transactions is being applied (0: none),
// for the watch's word on a stall.
func (f *follower) busy(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.busyTxns = n
	if n > 0 {
		f.busySince = time.Now()
		f.busyRetries = f.w.c.sent.Retries.Load()
	}
}

// stop is the follower's end after ctx is done. A lost lock stops it at
// once. A signal drains it: the source's head is read, and the follower
// goes on applying (for at most followDrain) until it has received and
// applied everything up to that head; held is a batch the signal cut.
// It returns nil only when it did, so a stop never says "done" with a
// change committed before it left out.
func (f *follower) stop(ctx context.Context, stream source.Stream, txns <-chan *source.Txn, held []*source.Txn, recvErr *error) error {
	if cause := context.Cause(ctx); !errors.Is(cause, context.Canceled) {
		return cause // the run's own end (a lost lock): no clean stop
	}
	f.mu.Lock()
	f.rep.Stopped = true // by a signal
	f.mu.Unlock()
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), followDrain)
	defer cancel()
	head, err := stream.Head(dctx)
	if err != nil {
		return &StoppedBehindError{Applied: string(stream.Status().Applied), Cause: fmt.Sprintf("the source's position could not be read at the stop (%v)", err)}
	}
	if err := f.applyBatch(dctx, stream, held, true); err != nil {
		return f.stopFailed(dctx, stream, head, err)
	}
	defer func() {
		f.mu.Lock()
		f.rep.CaughtUp = stream.Status().CaughtUp
		f.mu.Unlock()
	}()
	for !stream.Status().CaughtUp {
		batch, ok := f.gather(dctx, txns, 100*time.Millisecond)
		if !ok {
			if dctx.Err() == nil && *recvErr != nil { // the stream ended (txns closed after recvErr was set)
				return fmt.Errorf("migrate: --follow: stopping: %w", *recvErr)
			}
			return f.stopFailed(dctx, stream, head, dctx.Err())
		}
		if err := f.applyBatch(dctx, stream, batch, true); err != nil {
			return f.stopFailed(dctx, stream, head, err)
		}
	}
	return nil
}

// stopFailed is the error of a drain that did not reach head.
func (f *follower) stopFailed(ctx context.Context, stream source.Stream, head source.Position, err error) error {
	st := stream.Status()
	cause := fmt.Sprintf("the changes committed before the stop were not all received and applied within %s", followDrain)
	if ctx.Err() == nil && err != nil {
		cause = err.Error()
	}
	return &StoppedBehindError{Source: string(head), Applied: string(st.Applied), Behind: st.Behind, Cause: cause}
}

// StoppedBehindError is a follower stopped (by a signal) before the table
// held every change the source committed before the stop: the cutover
// condition does not hold. The slot (or the checkpoint's binlog position)
// keeps the changes: migrate --follow --resume applies them.
type StoppedBehindError struct {
	Source, Applied string
	Behind          time.Duration
	Cause           string
}

func (e *StoppedBehindError) Error() string {
	s := "migrate: --follow stopped before every change committed before the stop was applied"
	if e.Source != "" {
		s += fmt.Sprintf(": the source is at %s, applied %s (%.1fs behind)", e.Source, e.Applied, e.Behind.Seconds())
	} else if e.Applied != "" {
		s += ": applied " + e.Applied
	}
	return s + "; " + e.Cause + ". The table is not the source: do not switch; migrate --follow --resume applies the rest"
}

// gather waits up to wait for a transaction, then takes the ones that
// come within followGather, up to the batch size. The batch is empty when
// none came within wait; false when the stream ended or ctx is done.
func (f *follower) gather(ctx context.Context, txns <-chan *source.Txn, wait time.Duration) ([]*source.Txn, bool) {
	var batch []*source.Txn
	idle := time.NewTimer(wait)
	defer idle.Stop()
	select {
	case t, ok := <-txns:
		if !ok {
			return nil, false
		}
		batch = append(batch, t)
	case <-idle.C:
		return nil, true
	case <-ctx.Done():
		return nil, false
	}
	n := len(batch[0].Changes)
	timer := time.NewTimer(followGather)
	defer timer.Stop()
	for n < f.o.FollowBatch {
		select {
		case t, ok := <-txns:
			if !ok {
				return batch, true
			}
			batch = append(batch, t)
			n += len(t.Changes)
		case <-timer.C:
			return batch, true
		case <-ctx.Done():
			return batch, true
		}
	}
	return batch, true
}

// touched is what a batch of changes asks to redo: per entity, the source
// rows to read again (by key) and the item keys their rows rendered before.
type touched struct {
	rows map[*mapping.Entity]map[string]source.KeyBound
	dels map[string]pending // by the item's key text
	n    map[string]int64   // changes per entity
	// txns are the transactions that touched them: the snapshot the rows
	// are read in must show them (source.VisibilityWaiter).
	txns []*source.Txn
}

// newTouched is an empty touched set.
func newTouched() touched {
	return touched{rows: map[*mapping.Entity]map[string]source.KeyBound{}, dels: map[string]pending{}, n: map[string]int64{}}
}

// apply applies one batch of transactions.
func (f *follower) apply(ctx context.Context, batch []*source.Txn) error {
	tc := newTouched()
	tc.txns = batch
	changes := 0
	for _, txn := range batch {
		for _, c := range txn.Changes {
			changes++
			f.touch(&tc, c)
		}
	}
	if _, err := f.redo(ctx, &tc); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, t := range batch {
		if t.Part {
			f.rep.Parts++
		} else {
			f.rep.Transactions++
		}
	}
	f.rep.Changes += int64(changes)
	f.done += int64(changes)
	for name, n := range tc.n {
		f.entity(name).Changes += n
	}
	return nil
}

// redo reads the touched rows again, puts their items and deletes the
// item keys no row renders now; it counts them in the report.
func (f *follower) redo(ctx context.Context, tc *touched) ([]pending, error) {
	puts, err := f.reread(ctx, tc)
	if err != nil {
		return nil, err
	}
	var items []pending
	for k, d := range tc.dels {
		if _, put := puts[k]; !put {
			items = append(items, d)
		}
	}
	deletes := len(items)
	for _, p := range puts {
		items = append(items, p)
	}
	if err := f.write(ctx, items); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rep.Puts += int64(len(puts))
	f.rep.Deletes += int64(deletes)
	for _, p := range items {
		if p.del {
			f.entity(p.entity).Deletes++
		} else {
			f.entity(p.entity).Puts++
		}
	}
	return items, nil
}

// entity is the report's line of the entity (f.mu held).
func (f *follower) entity(name string) *FollowEntity {
	if e := f.per[name]; e != nil {
		return e
	}
	e := &FollowEntity{Name: name}
	f.per[name] = e
	return e
}

// touch records what one change asks to redo.
func (f *follower) touch(tc *touched, c source.Change) {
	for _, e := range f.fp.direct[c.Table] {
		tc.n[e.Name]++
		for _, row := range [][]any{c.Old, c.New} {
			if row == nil {
				continue
			}
			r := project(row, c.Table, e.Table)
			if k := keyOf(e.Table, r); k != nil {
				addRow(tc, e, k)
			}
			// The item the row rendered: deleted unless a row renders it now.
			if item, err := e.RenderKey(r); err == nil {
				tc.dels[f.w.table.KeyString(item)] = pending{item: item, entity: e.Name, del: true, ent: e, key: e.KeyValues(r)}
			}
		}
	}
	for _, ref := range f.fp.embedded[c.Table] {
		tc.n[ref.e.Name]++
		for _, row := range [][]any{c.Old, c.New} {
			if row == nil {
				continue
			}
			k := make(source.KeyBound, len(ref.m.Link))
			ok := true
			for i, l := range ref.m.Link {
				if j := storedColumn(c.Table, l); j >= 0 {
					k[i] = row[j]
				}
				ok = ok && k[i] != nil
			}
			if ok {
				addRow(tc, ref.e, k)
			}
		}
	}
}

func addRow(tc *touched, e *mapping.Entity, k source.KeyBound) {
	m := tc.rows[e]
	if m == nil {
		m = map[string]source.KeyBound{}
		tc.rows[e] = m
	}
	m[rowID(k)] = k
}

// rowID is a key's text, the touched rows' set is keyed by: the values as
// fmt's %#v writes them (a number as its digits, a string quoted), the
// common types written directly, as fmt would for every change otherwise.
func rowID(k source.KeyBound) string {
	b := make([]byte, 0, 16*len(k))
	for i, v := range k {
		if i > 0 {
			b = append(b, ", "...)
		}
		switch x := v.(type) {
		case int64:
			b = strconv.AppendInt(b, x, 10)
		case string:
			b = strconv.AppendQuote(b, x)
		default:
			b = fmt.Appendf(b, "%#v", v)
		}
	}
	return string(b)
}

// reread reads the touched rows as the source holds them now, in one
// snapshot, and renders their items; a row that cannot become one is
// rejected. It returns the items by their key text.
func (f *follower) reread(ctx context.Context, tc *touched) (map[string]pending, error) {
	puts := map[string]pending{}
	if len(tc.rows) == 0 {
		return puts, nil
	}
	n := 1
	for e := range tc.rows {
		n = max(n, 1+len(e.Embeds()))
	}
	if w, ok := f.o.Source.(source.VisibilityWaiter); ok {
		// The stream may hand a transaction out a moment before the
		// source shows it to new snapshots: read before, a row would be
		// written back as it was.
		if err := w.WaitVisible(ctx, tc.txns); err != nil {
			return nil, fmt.Errorf("migrate: --follow: %w", err)
		}
	}
	snap, err := f.snapshot(ctx, n)
	if err != nil {
		return nil, err
	}
	defer func() { f.release(ctx, snap, err) }()
	readers := snap.Readers()
	for _, e := range f.fp.ents {
		set := tc.rows[e]
		if len(set) == 0 {
			continue
		}
		keys := make([]source.KeyBound, 0, len(set))
		for _, k := range set {
			keys = append(keys, k)
		}
		err = embedread.StreamKeys(ctx, readers[0], readers[1:], e, keys, func(row []any, kids [][][]any, dup *mapping.RowError) error {
			item, _, err := e.RenderRead(row, kids, dup)
			var re *mapping.RowError
			if errors.As(err, &re) {
				return f.reject(e.Name, re.Key, re.Reason)
			}
			if err != nil {
				return err
			}
			k := f.w.table.KeyString(item)
			if prev, ok := puts[k]; ok {
				return f.reject(e.Name, e.SourceKey(row), fmt.Sprintf("key collision: renders the same key %s as entity %s row %s", k, prev.entity, prev.sourceKey()))
			}
			puts[k] = pending{item: item, entity: e.Name, ent: e, key: e.KeyValues(row)}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("migrate: --follow: reading the changed rows of entity %s: %w", e.Name, err)
		}
	}
	return puts, nil
}

// snapshot is a snapshot of the source as it is now with n readers for a
// batch's rows: the last batch's, renewed on its connections when it can
// be (source.Renewable), or a new one.
func (f *follower) snapshot(ctx context.Context, n int) (source.Snapshot, error) {
	if k := f.kept; k != nil {
		f.kept = nil
		if r, ok := k.(source.Renewable); ok && len(k.Readers()) >= n {
			if err := r.Renew(ctx); err == nil {
				return k, nil
			}
		}
		k.Close() // a new one, on new connections
	}
	return f.o.Source.Snapshot(ctx, n)
}

// release ends a batch's snapshot: its transactions end, and its
// connections are kept for the next batch's, unless the reads failed
// (err) or it cannot be renewed.
func (f *follower) release(ctx context.Context, snap source.Snapshot, err error) {
	if r, ok := snap.(source.Renewable); ok && err == nil && ctx.Err() == nil && r.Release(ctx) == nil {
		f.kept = snap
		return
	}
	snap.Close()
}

// closeKept closes the connections kept for the next batch's snapshot.
func (f *follower) closeKept() {
	if f.kept != nil {
		f.kept.Close()
		f.kept = nil
	}
}

// reject records a changed row that cannot become an item.
func (f *follower) reject(entity, row, reason string) error {
	f.mu.Lock()
	f.rep.Rejected++
	f.entity(entity).Rejected++
	f.mu.Unlock()
	rej := Rejection{Entity: entity, Row: row, Reason: reason}
	if f.tr != nil && !f.rej.namedBefore(rej) {
		f.tr.followRejected()
	}
	return f.rej.add(rej)
}

// write sends the batch's puts and deletes (distinct keys) from the pool of
// writers and returns once DynamoDB acknowledged all of them.
func (f *follower) write(ctx context.Context, items []pending) error {
	if len(items) == 0 {
		return nil
	}
	batches := make(chan []pending)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		defer close(batches)
		for len(items) > 0 {
			n := min(len(items), MaxBatch)
			select {
			case batches <- items[:n]:
			case <-gctx.Done():
				return gctx.Err()
			}
			items = items[n:]
		}
		return nil
	})
	for range f.o.Writers {
		g.Go(func() error {
			for b := range batches {
				if err := f.w.write(gctx, b); err != nil {
					return err
				}
			}
			return nil
		})
	}
	return g.Wait()
}

// applied is how many changes the follower applied.
func (f *follower) applied() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.done
}

// rejected is how many changed rows the follower rejected.
func (f *follower) rejected() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.rep.Rejected
}

// report fills the report's per-entity lines in the plan's order.
func (f *follower) report() *FollowReport {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rep.Entities = nil
	for _, e := range f.fp.ents {
		if fe := f.per[e.Name]; fe != nil {
			f.rep.Entities = append(f.rep.Entities, *fe)
		} else {
			f.rep.Entities = append(f.rep.Entities, FollowEntity{Name: e.Name})
		}
	}
	return f.rep
}

// project is a row of table from (a change's) as a row of table to (an
// entity's): the columns by name; to's computed columns (Expr) are nil.
func project(row []any, from, to *introspect.Table) []any {
	if from == to {
		return row
	}
	out := make([]any, len(to.Columns))
	for i, c := range to.Columns {
		if c.Expr != "" {
			continue
		}
		if j := storedColumn(from, c.Name); j >= 0 {
			out[i] = row[j]
		}
	}
	return out
}

// keyOf is the row's primary key as a key bound; nil when a value is
// missing.
func keyOf(t *introspect.Table, row []any) source.KeyBound {
	k := make(source.KeyBound, len(t.PrimaryKey))
	for i, name := range t.PrimaryKey {
		j := storedColumn(t, name)
		if j < 0 || row[j] == nil {
			return nil
		}
		k[i] = row[j]
	}
	return k
}

// storedColumn is the index of the source column name in t (not a
// computed expression of a query's), or -1.
func storedColumn(t *introspect.Table, name string) int {
	for i, c := range t.Columns {
		if c.Name == name && c.Expr == "" {
			return i
		}
	}
	return -1
}

// DefaultSlot is the replication slot of a followed migration into table:
// remodel_<table>_<id>, lower case, with what a slot name cannot hold as
// _, and id the migration's own (newSlotID): two migrations into tables of
// one name (a rehearsal and the real one) never share a slot, whose
// changes would start at the other one's place.
func DefaultSlot(table, id string) string {
	var b strings.Builder
	b.WriteString("remodel_")
	for _, r := range strings.ToLower(table) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	s := b.String()
	if id != "" {
		s = s[:min(len(s), 63-len(id)-1)] + "_" + id
	}
	return s[:min(len(s), 63)]
}

// newSlotID is 8 random hex digits for DefaultSlot.
func newSlotID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// runFollow applies the changes after the copy: it opens the stream from
// the slot, marks the copy done in the checkpoint, and follows until ctx
// is done (nil: a clean stop) or an error. The report gets what it did.
func runFollow(ctx context.Context, o Options, rep *Report, fol source.Follower, fp *followPlan, w *writer, rej *rejects, tr *tracker) error {
	tr.followCopyDone()
	if err := tr.save(); err != nil {
		return err
	}
	st := tr.followState()
	// A writer of its own: the copy's counts are the copy's.
	fw := newWriter(o, &counters{perEntity: map[string]*entityCounters{}}, rej)
	fw.shareLimits(w)
	fw.doubted = tr.followDoubted // its own requests in doubt too: one may land after a newer batch's
	f := &follower{o: o, fp: fp, w: fw, rej: rej, tr: tr, per: map[string]*FollowEntity{}, items: heldItems(rep, w),
		rep: &FollowReport{Slot: st.Slot, Publication: st.Publication, Start: st.Start, Applied: st.Applied}}
	defer func() { rep.Follow = f.report() }()
	defer f.closeKept()
	fp.opts.From = source.Position(st.Start)
	if st.Applied != "" {
		fp.opts.From = source.Position(st.Applied)
	}
	stream, err := fol.OpenStream(ctx, fp.opts)
	if err != nil {
		if cause := context.Cause(ctx); ctx.Err() != nil && !errors.Is(cause, context.Canceled) {
			return cause // a lost lock
		}
		if ctx.Err() != nil { // a signal before the stream was open: whether changes wait is not known
			f.rep.Stopped = true
			return &StoppedBehindError{Applied: st.Applied, Cause: "stopped before the change stream was open: the changes since are not known to be applied"}
		}
		return err
	}
	defer stream.Close()
	f.acked = st.Applied
	watch := newFollowWatch(f, stream)
	stopWatch := watch.start(ctx)
	ph := followPhase(o, watch)
	err = f.follow(ctx, stream)
	stopWatch()
	ph.End(false) // a stream has no end: the phase stops
	// What the source was told last: past the last batch when nothing of
	// the followed tables came after it.
	applied := stream.Status().Applied
	f.mu.Lock()
	f.rep.Applied = string(applied)
	f.mu.Unlock()
	tr.followApplied(applied)
	var se *source.StopError
	if errors.As(err, &se) {
		tr.followRefused(se.Error())
	}
	var ex *rejectsExceeded
	if errors.As(err, &ex) {
		err = fmt.Errorf("%w; the change is not applied: the follower stopped after %s. Correct the row in the source (or give a larger --max-rejects) and run migrate --follow --resume, which goes on from there", ex, applied)
	}
	if err == nil && f.rep.Stopped && errors.Is(context.Cause(ctx), context.Canceled) {
		// The cutover: a signal stopped the follower (not a lost lock).
		// The passes are part of the clean stop, so they run on; a second
		// signal ends remodel at once.
		stop := context.WithoutCancel(ctx)
		if f.rep.Redone, err = f.settleDoubts(stop); err == nil && len(fp.diffed) > 0 {
			err = f.diffPass(stop)
		}
	}
	return err
}

// followCopyDone records that the copy of a followed migration is done.
func (tr *tracker) followCopyDone() {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.file.Follow.CopyDone = true
}

// followRefused records why the follower cannot go on (a change the
// stream cannot hand over exactly): --follow --resume is refused with it.
func (tr *tracker) followRefused(why string) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.file.Follow.Refused = why
}

// followRejected counts a changed row the follower rejected.
func (tr *tracker) followRejected() {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.file.Follow.Rejected++
}

// followApplied records the last position whose changes are applied.
func (tr *tracker) followApplied(p source.Position) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.file.Follow.Applied = string(p)
}

// followState is the checkpoint's follow state, copied.
func (tr *tracker) followState() followState {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return *tr.file.Follow
}

// FollowSource is the source a followed migration's checkpoint names,
// without its password (for follow-cleanup run without --source).
func FollowSource(checkpoint string) (string, error) {
	ck, err := readCheckpoint(checkpoint)
	if err != nil {
		return "", fmt.Errorf("migrate: follow-cleanup: %w", err)
	}
	if ck.Source == "" {
		return "", fmt.Errorf("migrate: follow-cleanup: checkpoint %s names no source: give --source", checkpoint)
	}
	return ck.Source, nil
}

// FollowCleanup ends a followed migration: it drops the replication slot
// its checkpoint names, and the publication if remodel created it, and
// (remove) deletes the checkpoint. It returns what it did, for people.
func FollowCleanup(ctx context.Context, src source.Source, checkpoint string, remove bool) (string, error) {
	ck, err := readCheckpoint(checkpoint)
	if err != nil {
		return "", fmt.Errorf("migrate: follow-cleanup: %w", err)
	}
	if ck.Follow == nil {
		return "", fmt.Errorf("migrate: follow-cleanup: checkpoint %s is of a migration that did not follow the source's changes: it has no slot", checkpoint)
	}
	fol, err := source.AsFollower(src)
	if err != nil {
		return "", err
	}
	o := source.FollowOptions{Slot: ck.Follow.Slot, Publication: ck.Follow.Publication}
	dropped, err := fol.DropFollow(ctx, o, ck.Follow.PublicationCreated)
	if err != nil {
		return "", err
	}
	var done string
	switch {
	case !introspect.Engine(ck.Engine).Dialect().KeepsStreamPosition():
		done = "nothing to drop on the source (its binlog keeps no position for remodel)"
	case dropped:
		done = "dropped replication slot " + o.Slot
	default:
		done = "replication slot " + o.Slot + " did not exist (dropped already)"
	}
	if ck.Follow.PublicationCreated {
		done += " and publication " + o.Publication
	}
	if remove {
		if err := os.Remove(checkpoint); err != nil {
			return "", fmt.Errorf("migrate: follow-cleanup: removing the checkpoint: %w", err)
		}
		done += "; removed checkpoint " + checkpoint
	}
	return done, nil
}
