package migrate

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/process"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
)

// tally counts an entity's settled rows: its items acknowledged, its rows
// rejected.
type tally struct{ rows, items, rejected int64 }

func (t *tally) add(u tally) {
	t.rows += u.rows
	t.items += u.items
	t.rejected += u.rejected
}

// tracker follows, per entity, which rows are settled, and saves the
// checkpoint. Rows are read in key order; their items finish in any order
// (batches, writers, retries): an entity's checkpoint key is the key of the
// last row of the contiguous settled prefix.
type tracker struct {
	path   string
	plan   *mapping.Plan
	engine introspect.Engine
	mu     sync.Mutex // serialises saves
	file   checkpointFile
	ents   []*entityTrack
	byName map[string][]*entityTrack // an entity's tracks, one per key range; a shared read's are each of its entities'
	shared map[string]*sharedRead    // the shared reads of a resumed job, by their entities' names
	rej    *rejects
	// resumed: the job's earlier runs left this checkpoint; removed: the
	// checkpoint is to go once the lock is released; finished: because
	// the job finished (else it settled nothing to resume from).
	resumed, removed, finished bool
	s3                         *objectLedger // --to: the objects uploaded, for the checkpoint
	gate                       objectGate
	doubted                    map[string]bool // the rows of Follow.Doubtful (followdoubt.go)
}

// entityTrack is the rows in flight and the settled prefix of one entity,
// or of one key range of it (lo, hi; nil: open). A shared read's track
// (sh) follows the rows of all its entities (ents; e is the first): a row
// is settled when its item of every entity whose where it matches is.
type entityTrack struct {
	lo, hi source.KeyBound
	e      *mapping.Entity
	ents   []*mapping.Entity
	sh     *sharedRead // nil: e's own read
	engine introspect.Engine
	keyIdx []int
	keyCol []*introspect.Column

	mu      sync.Mutex
	q       []*rowMark // read and not yet part of the settled prefix, in key order
	readAll bool       // every row of the entity has been read (and marked)
	done    bool       // an earlier run settled every row
	// The settled prefix: up to after (the last row whose key can bound a
	// range), with its counts per entity (of ents) over every run; tail
	// counts the settled rows after it, whose key cannot (they are read
	// again on resume).
	after     source.KeyBound
	afterRow  string   // of an earlier run's checkpoint
	afterMark *rowMark // this run's: named when the checkpoint is saved
	n, tail   []tally
	// What the earlier runs settled per entity, for the report; resumeFrom
	// is where this run starts reading (nil: from the first row).
	earlier    []tally
	resumeFrom source.KeyBound
	// The rows' sequence numbers in this run (rowMark.seq): the last given,
	// the last row of the settled prefix's, and that one's when the
	// checkpoint was last saved (every row when the track is done): an S3
	// object is covered by the checkpoint when all its rows are (s3ledger.go).
	seqs, afterSeq, savedSeq uint64
	// gate, for --to: a row is settled once its item's line is in an open
	// object (the objects ledger settles it when the sink places it, so that no row stays in memory
	// until its object is uploaded), and the checkpoint saves instead the
	// track's state at a moment when every object begun by then is
	// uploaded: held, the latest such state; pending, later states waiting
	// for their objects (see heldState).
	gate    objectGate
	held    *trackState
	pending []trackState
}

// objectGate is the objects sink as a gated track sees it
// (objects.Sink): objects are numbered from 1 as they are begun.
type objectGate interface {
	// Begun is the number of the last object begun.
	Begun() uint64
	// StoredThrough says whether every object numbered up to n is uploaded.
	StoredThrough(n uint64) bool
}

// trackState is a track's part of the checkpoint at one moment: the
// entity's state, the sequence number of the last row it counts settled
// (savedSeq's value when it is saved), whether it counts any row settled,
// and the last object begun at that moment (upTo; every row it counts
// written is in one of the objects up to it).
type trackState struct {
	ce   checkpointEntity
	seq  uint64
	some bool
	upTo uint64
	// fresh: taken before this run marked a row of the track (true of the
	// earlier runs' state alone, whatever is uploaded).
	fresh bool
}

// rowMark is one row on its way: settled when its item is acknowledged or
// the row is rejected. A row of a shared read has an item for each entity
// whose where it matches (the bits of matched), each with a mark of its
// own (item) whose parent is the row's: the row is settled when all are.
type rowMark struct {
	t       *entityTrack
	key     source.KeyBound // nil: the key cannot bound a range
	row     string          // the row's source key text (name); set when it is rejected
	ent     *mapping.Entity // with keyVals: how to name it otherwise (named)
	keyVals []any
	parent  *rowMark // an item's mark of a shared row: the row's
	idx     int      // that item's entity, in the track's ents
	left    int      // the row's items not settled yet (t.mu)
	settled bool
	seq     uint64 // the row's place in its track, from 1
	// The entities of the track whose item the row has (bit i: ents[i]),
	// and those whose item was rejected.
	matched, rejected uint64
}

func newTracker(path string, o Options, rej *rejects) (*tracker, error) {
	tr := &tracker{path: path, plan: o.Plan, engine: o.Source.Engine(), byName: map[string][]*entityTrack{}, shared: map[string]*sharedRead{}, rej: rej}
	self := process.Self()
	tr.file = checkpointFile{
		Version: checkpointVersion, Mapping: o.MappingDigest, Table: o.Table, Source: o.SourceID,
		Engine: string(o.Source.Engine()), Host: self.Host, PID: self.PID, PIDStart: self.Start, RejectsFile: o.RejectsPath,
		Shard: o.Shard.String(), Job: o.Job,
	}
	if o.Follow {
		tr.file.Follow = &followState{Slot: o.Slot, Publication: o.Publication}
	}
	tr.file.S3 = newS3Checkpoint(o)
	for _, e := range o.Plan.Entities {
		et, err := tr.newTrack([]*mapping.Entity{e}, nil, nil, nil)
		if err != nil {
			return nil, err
		}
		tr.ents = append(tr.ents, et)
		tr.byName[e.Name] = []*entityTrack{et}
	}
	return tr, nil
}

// newTrack is a track of the rows after lo up to hi of an entity (ents
// has one), or of a shared read (sh, of ents). A shared read's rows have
// the table's columns first, as each of its entities' rows.
func (tr *tracker) newTrack(ents []*mapping.Entity, sh *sharedRead, lo, hi source.KeyBound) (*entityTrack, error) {
	e := ents[0]
	n := len(ents)
	et := &entityTrack{e: e, ents: ents, sh: sh, engine: tr.engine, lo: lo, hi: hi, n: make([]tally, n), tail: make([]tally, n), earlier: make([]tally, n), gate: tr.gate}
	for _, name := range e.Table.PrimaryKey {
		idx := -1
		for i, c := range e.Columns {
			if c.Name == name {
				idx = i
			}
		}
		if idx < 0 {
			return nil, fmt.Errorf("migrate: entity %s: key column %s is not read", e.Name, name)
		}
		et.keyIdx = append(et.keyIdx, idx)
		et.keyCol = append(et.keyCol, e.Columns[idx])
	}
	return et, nil
}

// split replaces the one track of a read (an entity, or the entities of
// a shared read sh) by one per key range, cut at the boundaries, before any
// of its rows is read; share replaces the entities' own tracks by the
// shared read's one, before any of its rows is read.
func (tr *tracker) split(rd readSpec, bounds []source.KeyBound) ([]*entityTrack, error) {
	ents := rd.entities()
	var tracks []*entityTrack
	var lo source.KeyBound
	for i := 0; i <= len(bounds); i++ {
		var hi source.KeyBound
		if i < len(bounds) {
			hi = bounds[i]
		}
		et, err := tr.newTrack(ents, rd.sh, lo, hi)
		if err != nil {
			return nil, err
		}
		tracks = append(tracks, et)
		lo = hi
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	var kept []*entityTrack
	for _, et := range tr.ents {
		if !slices.Contains(ents, et.e) {
			kept = append(kept, et)
		}
	}
	tr.ents = append(kept, tracks...)
	for _, e := range ents {
		tr.byName[e.Name] = tracks
	}
	return tracks, nil
}

func (tr *tracker) share(sh *sharedRead) error {
	_, err := tr.split(readSpec{e: sh.ents[0], sh: sh}, nil)
	return err
}

// mark records a row read (row is the reader's, valid during the call)
// and returns its mark; nil when t is nil.
func (t *entityTrack) mark(row []any) *rowMark {
	if t == nil {
		return nil
	}
	m := &rowMark{t: t, key: t.bound(row), left: 1, matched: 1}
	t.mu.Lock()
	t.holdFirst()
	t.seqs++
	m.seq = t.seqs
	t.q = append(t.q, m)
	t.mu.Unlock()
	return m
}

// markShared records a row of a shared read whose item of each entity in
// matched (bit i: the track's ents[i]) is to be written, and returns its
// mark, whose item marks are item(i); nil when t is nil.
func (t *entityTrack) markShared(row []any, matched uint64) *rowMark {
	if t == nil {
		return nil
	}
	m := &rowMark{t: t, key: t.bound(row), left: bits.OnesCount64(matched), matched: matched}
	t.mu.Lock()
	t.holdFirst()
	t.seqs++
	m.seq = t.seqs
	t.q = append(t.q, m)
	t.mu.Unlock()
	return m
}

// item is the mark of a shared row's item of the track's entity i; nil
// when m is.
func (m *rowMark) item(i int) *rowMark {
	if m == nil {
		return nil
	}
	return &rowMark{parent: m, idx: i}
}

// bound is the row's key as a range bound (its values copied), or nil
// when it cannot be one: a value the engine does not compare as it sorts
// (source.BoundValueOK). An entity with embeds advances by its own key too:
// its child rows are read in its key order, and a resumed run reads those
// of the parents after the checkpoint key.
func (t *entityTrack) bound(row []any) source.KeyBound {
	key := make(source.KeyBound, len(t.keyIdx))
	for i, idx := range t.keyIdx {
		v := row[idx]
		if !source.BoundValueOK(t.engine, t.keyCol[i], v) {
			return nil
		}
		if b, ok := v.([]byte); ok {
			v = append([]byte(nil), b...)
		}
		key[i] = v
	}
	return key
}

// named records how the row is named in the checkpoint (its source key,
// built only when a checkpoint is saved naming it) and returns p.
func (m *rowMark) named(p pending) pending {
	if m != nil {
		if m.parent != nil {
			m = m.parent
		}
		m.ent, m.keyVals = p.ent, p.key
	}
	return p
}

// rejected records the name of a rejected row (its source key text) and
// returns it.
func (m *rowMark) rejectedAs(s string) string {
	if m != nil {
		if m.parent != nil {
			m = m.parent
		}
		m.row = s
	}
	return s
}

// name is the row's source key text.
func (m *rowMark) name() string {
	if m.row == "" && m.ent != nil {
		m.row = m.ent.SourceKeyOf(m.keyVals)
	}
	return m.row
}

// settle records that the row's item is settled: written, or the row
// rejected (for the item's entity); the row is settled when all its items
// are. nil is a row nobody tracks.
func (m *rowMark) settle(written bool) {
	if m == nil {
		return
	}
	i := m.idx
	if m.parent != nil {
		m = m.parent
	}
	t := m.t
	t.mu.Lock()
	defer t.mu.Unlock()
	if !written {
		m.rejected |= 1 << i
	}
	if m.left--; m.left > 0 {
		return
	}
	m.settled = true
	n := 0
	for _, r := range t.q {
		if !r.settled {
			break
		}
		n++
		for i := range t.tail {
			bit := uint64(1) << i
			if r.matched&bit == 0 {
				continue
			}
			t.tail[i].rows++
			if r.rejected&bit != 0 {
				t.tail[i].rejected++
			} else {
				t.tail[i].items++
			}
		}
		if r.key != nil {
			t.after, t.afterMark, t.afterSeq = r.key, r, r.seq
			for i := range t.tail {
				t.n[i].add(t.tail[i])
				t.tail[i] = tally{}
			}
		}
	}
	if n > 0 {
		clear(t.q[:n])
		t.q = t.q[n:]
	}
}

// finished records that every row of the entity has been read.
func (t *entityTrack) finished() {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.readAll = true
	t.mu.Unlock()
}

// afterName names the last row of the settled prefix (t.mu held).
func (t *entityTrack) afterName() string {
	if t.afterMark != nil {
		return t.afterMark.name()
	}
	return t.afterRow
}

// state is the entity's part of the checkpoint: the track's state now,
// or for a gated track (--to) the latest whose objects are all uploaded.
func (t *entityTrack) state() (checkpointEntity, error) {
	if t.gate == nil {
		t.mu.Lock()
		defer t.mu.Unlock()
		st, err := t.now()
		t.savedSeq = st.seq
		return st.ce, err
	}
	st, err := t.stored()
	if err != nil {
		return checkpointEntity{}, err
	}
	return st.ce, nil
}

// holdFirst records, before a gated track's first row of this run is
// marked, its state then as held: the earlier runs' alone (t.mu held).
// The state cannot fail to encode: its key came from the checkpoint.
func (t *entityTrack) holdFirst() {
	if t.gate == nil || t.held != nil || t.seqs > 0 {
		return
	}
	if st, err := t.now(); err == nil {
		st.fresh = true
		t.held = &st
	}
}

// stored is a gated track's latest state whose objects are all uploaded
// (what the checkpoint saves; savedSeq is set to it). It takes the state
// now, then the last object begun (every row the state counts written is
// in an object begun before), and keeps it until those objects are
// uploaded; the latest kept state that is, replaces held.
func (t *entityTrack) stored() (trackState, error) {
	t.mu.Lock()
	st, err := t.now()
	st.fresh = t.seqs == 0
	t.mu.Unlock()
	if err != nil {
		return st, err
	}
	st.upTo = t.gate.Begun()
	t.mu.Lock()
	defer t.mu.Unlock()
	if n := len(t.pending); n > 0 && t.pending[n-1].upTo == st.upTo {
		t.pending[n-1] = st // the same objects to wait for: the later state
	} else {
		t.pending = append(t.pending, st)
	}
	for i := len(t.pending) - 1; i >= 0; i-- {
		if p := t.pending[i]; p.fresh || t.gate.StoredThrough(p.upTo) {
			t.held = &p
			t.pending = slices.Delete(t.pending, 0, i+1)
			break
		}
	}
	if t.held == nil {
		return st, fmt.Errorf("migrate: entity %s: no state of it to save", t.e.Name)
	}
	t.savedSeq = t.held.seq
	return *t.held, nil
}

// now is the track's state now (t.mu held).
func (t *entityTrack) now() (trackState, error) {
	done := t.done || t.readAll && len(t.q) == 0
	st := trackState{seq: t.afterSeq, some: t.done || t.readAll || t.after != nil || slices.ContainsFunc(t.tail, func(c tally) bool { return c.rows > 0 })}
	if done {
		st.seq = math.MaxUint64
	}
	var err error
	st.ce, err = t.encode(done)
	return st, err
}

// encode is the track's part of the checkpoint now (t.mu held).
func (t *entityTrack) encode(done bool) (checkpointEntity, error) {
	counts := slices.Clone(t.n)
	if done {
		for i := range counts {
			counts[i].add(t.tail[i])
		}
	}
	ce := checkpointEntity{Name: t.e.Name, Rows: counts[0].rows, Items: counts[0].items, Rejected: counts[0].rejected, AfterRow: t.afterName()}
	for i, e := range t.ents[1:] {
		c := counts[i+1]
		ce.Also = append(ce.Also, sharedEntity{Name: e.Name, Rows: c.rows, Items: c.items, Rejected: c.rejected})
	}
	var err error
	if t.lo != nil {
		if ce.RangeAfter, err = encodeKey(t.lo); err != nil {
			return ce, fmt.Errorf("migrate: entity %s: %w", t.e.Name, err)
		}
	}
	if t.hi != nil {
		if ce.RangeUpTo, err = encodeKey(t.hi); err != nil {
			return ce, fmt.Errorf("migrate: entity %s: %w", t.e.Name, err)
		}
	}
	if done {
		ce.Done = true
		ce.AfterRow = ""
		return ce, nil
	}
	if t.after != nil {
		kv, err := encodeKey(t.after)
		if err != nil {
			return ce, fmt.Errorf("migrate: entity %s: %w", t.e.Name, err)
		}
		ce.After = kv
	}
	return ce, nil
}

// save writes the checkpoint atomically: the rejects file is synced
// first (the checkpoint counts rows as rejected only once their line is
// stored), then a temporary file is written, synced and renamed over the
// checkpoint, and the directory synced.
func (tr *tracker) save() error {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if err := tr.rej.sync(); err != nil {
		return err
	}
	f := tr.file
	if f.Follow != nil {
		fs := *f.Follow
		f.Follow = &fs
	}
	f.Saved = time.Now().UTC()
	f.Entities = nil
	for _, et := range tr.ents {
		ce, err := et.state()
		if err != nil {
			return err
		}
		f.Entities = append(f.Entities, ce)
	}
	f.S3 = tr.s3State()
	var err error
	if f.Checksum, err = f.checksum(); err != nil {
		return err
	}
	b, err := f.encode()
	if err != nil {
		return err
	}
	dir := filepath.Dir(tr.path)
	tmp, err := os.CreateTemp(dir, filepath.Base(tr.path)+".tmp*")
	if err != nil {
		return fmt.Errorf("migrate: saving the checkpoint: %w", err)
	}
	defer os.Remove(tmp.Name()) // after the rename there is nothing to remove
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("migrate: saving the checkpoint: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("migrate: saving the checkpoint: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("migrate: saving the checkpoint: %w", err)
	}
	if err := os.Rename(tmp.Name(), tr.path); err != nil {
		return fmt.Errorf("migrate: saving the checkpoint: %w", err)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// removeFinished deletes the checkpoint of a job that finished (or that
// settled nothing to resume from), once the run has released its lock.
// The job's run that finished (runErr nil) first leaves rep as the
// finished record (finished.go): a run killed in between leaves the
// checkpoint, which a --resume finishes from, or the record, which it
// reports.
func (tr *tracker) removeFinished(rep *Report, runErr error) error {
	if tr == nil || !tr.removed || tr.finished && runErr != nil {
		return nil
	}
	if tr.finished {
		done := *rep
		done.OK = true // what Run says of it once it returns
		if err := WriteFinished(FinishedPath(tr.path), &done); err != nil {
			return err
		}
	}
	return tr.remove()
}

// remove deletes the checkpoint of a job that finished.
func (tr *tracker) remove() error {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if err := os.Remove(tr.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("migrate: removing the checkpoint of the finished job: %w", err)
	}
	return nil
}

// keepSaving saves the checkpoint every interval until stop is closed.
// A save that fails ends the run: a run whose checkpoint falls behind
// would, once killed, be resumed from a stale point without a word.
func (tr *tracker) keepSaving(every time.Duration, stop <-chan struct{}, fail func(error)) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			if err := tr.save(); err != nil {
				fail(err)
				return
			}
		}
	}
}

// saving saves the checkpoint every o.CheckpointEvery while the pipeline
// runs; a save that fails stops the run. The returned stop ends that and
// removes the checkpoint when the job is finished (ok), or saves it one
// last time, when every request in flight has had its answer. It returns
// the error of a save that failed.
func (tr *tracker) saving(o Options, stopRun context.CancelCauseFunc) (stop func(ok bool) error) {
	if tr == nil {
		return func(bool) error { return nil }
	}
	every := o.CheckpointEvery
	if every <= 0 {
		every = DefaultCheckpointEvery
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	var failed error
	wg.Add(1)
	go func() {
		defer wg.Done()
		tr.keepSaving(every, done, func(err error) {
			failed = err
			stopRun(err)
		})
	}()
	return func(ok bool) error {
		close(done)
		wg.Wait()
		if failed != nil {
			return failed
		}
		if tr.file.Follow != nil {
			// A followed migration keeps its checkpoint, which names its
			// slot, until follow-cleanup ends it.
			return tr.save()
		}
		if ok || !tr.resumed && tr.nothingSettled() { // nothing to resume from
			// Removed only after the lock is released (run's deferred
			// removeFinished): a run killed in between leaves a
			// checkpoint to resume from, not a lock without one.
			tr.removed, tr.finished = true, ok
			if ok {
				return tr.save()
			}
			return nil
		}
		return tr.save()
	}
}

// nothingSettled says whether no row of any entity is settled yet.
func (tr *tracker) nothingSettled() bool {
	for _, et := range tr.ents {
		if et.gate != nil {
			st, err := et.stored()
			if err != nil || st.some {
				return false
			}
			continue
		}
		et.mu.Lock()
		st, err := et.now()
		et.mu.Unlock()
		if err != nil || st.some {
			return false
		}
	}
	return true
}

// gateOn gates every track, and those made later (--to: s3ledger.go).
func (tr *tracker) gateOn(g objectGate) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.gate = g
	for _, et := range tr.ents {
		et.mu.Lock()
		et.gate = g
		et.mu.Unlock()
	}
}
