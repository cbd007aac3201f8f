package migrate

import (
	"context"
	"crypto/sha256"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/av"
	"github.com/remodel-dev/remodel/internal/domain/backoff"
	"github.com/remodel-dev/remodel/internal/domain/s3out"
	"github.com/remodel-dev/remodel/internal/domain/sink"
	"github.com/remodel-dev/remodel/mapping"
)

// The S3 sink writes the items as ImportTable's DYNAMODB_JSON lines into
// compressed objects under the import prefix (--to).
//
// It keeps one open object per writer (a slot). The items of each batch
// are dealt round-robin over the slots, item by item, so that the items of
// one item collection, read one after the other, are spread over as many
// objects, interleaved with the other reads' items, instead of lying in
// one long run of one object: AWS's import best practice ("Randomize
// sorted data": an object holding one partition key's items in sequence
// makes a rolling hot partition). An object is cut when its next line would
// take it past the size bound (bytes of DynamoDB JSON before compression,
// --object-size) or it holds --object-items items, compressed into a temporary file as it fills, and
// uploaded by the transfer manager (multipart above 16 MiB) while the slot
// fills a new one.
//
// Acknowledgement: an item is counted written only once the object holding
// it is uploaded. Its row's mark is settled as soon as its line is in an
// open object, so that the rows do not stay in memory until their objects
// are uploaded (an open object holds no more than its compressed bytes and
// counts): the tracks are gated (checkpoint_track.go, objectGate), and the
// checkpoint saves each track's state of a moment when every object begun
// by then was uploaded, so its settled prefix never passes an item that is
// not stored. An object is covered by the checkpoint when every row it
// holds an item of is in the prefix the checkpoint saved (each object
// records, per track, the highest sequence number of its rows:
// rowMark.seq); the checkpoint lists the covered objects. A resumed run keeps them as they are and reads their rows no
// more. An object uploaded but not covered (its rows are read again) is
// kept too, never rewritten: the resumed run reads it back (resumeS3), and
// an item it renders again that such an object holds, line for line, is
// acknowledged without being written again. An item whose row renders
// another line now (the row changed since) stops the run: ImportTable
// would keep either of the two.

// DefaultObjectSize is the bytes of DynamoDB JSON an object holds at most
// before compression, unless --object-size says otherwise.
const DefaultObjectSize = 64 << 20

// DefaultObjectItems is how many items an object holds at most, whatever
// its size, unless --object-items says otherwise; the 50 000 objects of
// one import then hold 2.5 billion items.
const DefaultObjectItems = 50_000

// MinObjectSize is the smallest --object-size.
const MinObjectSize = 1 << 20

// MaxImportObjects is how many S3 objects one ImportTable reads at most
// (DynamoDB developer guide, "Import format quotas and validation": "Each
// import job can take up to 50,000 Amazon S3 objects in all regions").
const MaxImportObjects = 50_000

// s3Object is one uploaded object, in the checkpoint and the manifest:
// its items, its size (stored, compressed) and the bytes of DynamoDB JSON
// it holds, the SHA-256 of the stored bytes, and the ETag S3 gave it.
type s3Object struct {
	Key          string `json:"key"`
	Items        int64  `json:"items"`
	Bytes        int64  `json:"bytes"`
	Uncompressed int64  `json:"uncompressed_bytes"`
	SHA256       string `json:"sha256"`
	ETag         string `json:"etag,omitempty"`
}

// s3Checkpoint is the S3 part of a checkpoint: where the objects go, how
// they are compressed, and the objects the checkpoint covers.
type s3Checkpoint struct {
	URL         string     `json:"url"`
	Compression string     `json:"compression"`
	Objects     []s3Object `json:"objects"`
	// Bulk is the job's bulk put (--bulk-put, s3bulk.go), once it is
	// being started.
	Bulk *bulkState `json:"bulk_put,omitempty"`
}

// s3Done is an object stored: uploaded by this run, or one an interrupted
// run uploaded that the checkpoint did not cover (read back: left counts
// its items not rendered again yet). cover is, per track, the highest
// sequence number of the rows whose items it holds (this run's rows).
type s3Done struct {
	obj     s3Object
	cover   map[*entityTrack]uint64
	left    int64
	covered bool
}

// s3Line is an item of a read-back object: the SHA-256 of its line (the
// first 16 bytes) and its object.
type s3Line struct {
	sum [16]byte
	obj *s3Done
}

type s3Sink struct {
	table   *mapping.Table
	c       *counters // where the items stored are counted
	store   s3out.Store
	loc     s3out.Location
	comp    s3out.Compression
	limit   int64
	items   int64  // items an object holds at most
	run     string // this run's id, in its objects' names
	grace   time.Duration
	timeout time.Duration // of one request

	slots     []*s3Slot
	next      atomic.Uint64 // the round-robin of items over the slots
	objectIDs               // the objects begun and those not uploaded yet: the tracks' objectGate
	named     atomic.Int64  // objects this run named
	kept      int           // objects of earlier runs under the prefix
	sem       chan struct{} // uploads in flight
	wg        sync.WaitGroup

	mu       sync.Mutex
	failed   error
	uploaded []*s3Done // this run's objects, in upload order
	readBack []*s3Done // the earlier runs' objects the checkpoint did not cover
	stored   map[[16]byte]s3Line
	skipped  atomic.Int64 // items found in a read-back object, not written again
	// followed: the run follows the source after the load, from the first
	// run's snapshot, which the read-back objects were rendered from; an
	// item of theirs whose row changed since is kept (older counts them):
	// the follower applies the row's changes, re-reading it by its key.
	followed bool
	older    atomic.Int64
}

// s3Slot is one open object (numbered id), the items it holds per entity
// (counted written once it is uploaded) and the rows it holds items of.
type s3Slot struct {
	mu    sync.Mutex
	obj   *s3out.Object
	id    uint64
	items map[*entityCounters]*objTally
	cover map[*entityTrack]uint64
	line  []byte
}

// objTally is what an object holds of one entity: its items, and their
// bytes as DynamoDB counts them.
type objTally struct{ items, bytes int64 }

type s3Ack struct {
	mark *rowMark
	ec   *entityCounters
	size int // the item's bytes as DynamoDB counts them
}

// objectIDs numbers the objects begun, from 1, and knows which of them are
// not uploaded yet: the objectGate a gated track sees. Safe for concurrent
// use.
type objectIDs struct {
	mu       sync.Mutex
	last     uint64
	unstored map[uint64]struct{}
}

// begin numbers a new object.
func (g *objectIDs) begin() uint64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.unstored == nil {
		g.unstored = map[uint64]struct{}{}
	}
	g.last++
	g.unstored[g.last] = struct{}{}
	return g.last
}

// markUploaded records that object id is uploaded.
func (g *objectIDs) markUploaded(id uint64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.unstored, id)
}

func (g *objectIDs) begun() uint64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.last
}

func (g *objectIDs) storedThrough(n uint64) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	for id := range g.unstored {
		if id <= n {
			return false
		}
	}
	return true
}

func newS3Sink(o Options, c *counters, run string, slots int) *s3Sink {
	s := &s3Sink{
		table: &o.Plan.Table, c: c, store: o.S3, loc: *o.To, comp: o.Compression, limit: o.ObjectSize, items: o.ObjectItems, run: run,
		grace: o.StopGrace, timeout: o.RequestTimeout, sem: make(chan struct{}, slots),
	}
	for range slots {
		s.slots = append(s.slots, &s3Slot{})
	}
	return s
}

func (s *s3Sink) err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.failed
}

func (s *s3Sink) fail(err error) {
	s.mu.Lock()
	if s.failed == nil {
		s.failed = err
	}
	s.mu.Unlock()
}

// Write deals the batch's items over the open objects (the items of
// read-back objects aside: acknowledged at once).
func (s *s3Sink) Write(ctx context.Context, b sink.Batch) error {
	if err := s.err(); err != nil {
		return err
	}
	batch, err := pendingOf(b)
	if err != nil || len(batch) == 0 {
		return err
	}
	s.mu.Lock()
	readBack := len(s.stored) > 0 // the items of read-back objects not met yet
	s.mu.Unlock()
	if readBack {
		if batch, err = s.already(batch); err != nil || len(batch) == 0 {
			return err
		}
	}
	n := uint64(len(s.slots))
	base := s.next.Add(uint64(len(batch))) - uint64(len(batch))
	for j := range min(uint64(len(batch)), n) {
		if err := s.fill(ctx, s.slots[(base+j)%n], batch, int(j), int(n)); err != nil {
			return err
		}
	}
	return nil
}

// fill appends the batch's items from, from+step, ... to the slot's object.
func (s *s3Sink) fill(ctx context.Context, sl *s3Slot, batch []pending, from, step int) error {
	sl.mu.Lock()
	defer sl.mu.Unlock()
	for i := from; i < len(batch); i += step {
		p := &batch[i]
		line, ok := av.AppendImportLine(sl.line[:0], p.item)
		if !ok {
			return fmt.Errorf("migrate: the item with key %s has a value DynamoDB JSON cannot hold", s.table.KeyString(p.item))
		}
		sl.line = line
		if sl.obj != nil && sl.obj.Lines > 0 && (sl.obj.Raw+int64(len(line)) > s.limit || sl.obj.Lines >= s.items) {
			if err := s.cut(ctx, sl); err != nil {
				return err
			}
		}
		if sl.obj == nil {
			obj, err := s3out.NewObject("", s.comp)
			if err != nil {
				return fmt.Errorf("migrate: %w", err)
			}
			sl.obj, sl.id, sl.items, sl.cover = obj, s.begin(), map[*entityCounters]*objTally{}, map[*entityTrack]uint64{}
		}
		if err := sl.obj.Write(line, 1); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		s.tally(sl, p)
		addCover(sl.cover, p.mark)
		p.mark.settle(true) // in object sl.id: the checkpoint waits for it (gated tracks)
	}
	return nil
}

// tally counts item p in the object of slot sl.
func (s *s3Sink) tally(sl *s3Slot, p *pending) {
	ec := s.c.perEntity[p.entity]
	t := sl.items[ec]
	if t == nil {
		t = &objTally{}
		sl.items[ec] = t
	}
	t.items++
	t.bytes += int64(itemSize(p))
}

// addCover records the row of mark m in cover.
func addCover(cover map[*entityTrack]uint64, m *rowMark) {
	if m == nil {
		return
	}
	if m.parent != nil {
		m = m.parent
	}
	if m.seq > cover[m.t] {
		cover[m.t] = m.seq
	}
}

// cut finishes the slot's object and uploads it in the background; the
// slot starts a new one with its next item. At most as many uploads as
// slots are in flight: a cut waits for one to end.
func (s *s3Sink) cut(ctx context.Context, sl *s3Slot) error {
	obj, id, items, cover := sl.obj, sl.id, sl.items, sl.cover
	sl.obj, sl.items, sl.cover = nil, nil, nil
	if err := obj.Finish(); err != nil {
		obj.Close()
		return fmt.Errorf("migrate: %w", err)
	}
	n := s.named.Add(1)
	if s.kept+int(n) > MaxImportObjects {
		obj.Close()
		return fmt.Errorf("migrate: %s would hold more than %d objects, the most one ImportTable reads: give a larger --object-size (now %d bytes) or --object-items (now %d)", s.loc, MaxImportObjects, s.limit, s.items)
	}
	key := fmt.Sprintf("%s%s-%06d%s", s.loc.Prefix, s.run, n, s.comp.Ext())
	select {
	case s.sem <- struct{}{}:
	case <-ctx.Done():
		obj.Close()
		return ctx.Err()
	}
	s.wg.Add(1)
	inflight, done := backoff.AfterGrace(ctx, s.grace)
	go func() {
		defer s.wg.Done()
		defer func() { <-s.sem }()
		defer done()
		defer obj.Close()
		// The object's whole upload has a deadline too (each of its
		// requests has the request timeout): generous, at 256 KiB/s.
		uctx, cancel := context.WithTimeout(inflight, 3*s.timeout+time.Duration(obj.Size/(256<<10))*time.Second)
		defer cancel()
		etag, err := s.store.Upload(uctx, s.loc.Bucket, key, obj.Body(), obj.Size, "application/"+string(s.comp))
		if err != nil {
			if ctx.Err() == nil {
				s.fail(fmt.Errorf("migrate: %w", err))
			}
			return
		}
		d := &s3Done{obj: s3Object{Key: key, Items: obj.Lines, Bytes: obj.Size, Uncompressed: obj.Raw, SHA256: obj.SHA256, ETag: etag}, cover: cover}
		s.mu.Lock() // listed before it counts stored: a checkpoint that covers its rows lists it
		s.uploaded = append(s.uploaded, d)
		s.mu.Unlock()
		s.markUploaded(id)
		now := time.Now()
		for ec, t := range items {
			s.c.written.Add(t.items)
			if ec != nil {
				ec.stored(t.items, t.bytes, now)
			}
		}
	}()
	return nil
}

// acknowledge counts items stored already written and settles their rows.
func (s *s3Sink) acknowledge(acks []s3Ack) {
	s.c.written.Add(int64(len(acks)))
	now := time.Now()
	for _, a := range acks {
		if a.ec != nil {
			a.ec.stored(1, int64(a.size), now)
		}
		a.mark.settle(true)
	}
}

// already takes out of the batch the items a read-back object holds
// (acknowledged at once: they are stored), and stops the run at an item
// whose key such an object holds with another line, unless the run is
// followed (the object's line is kept; the follower brings it up to
// date).
func (s *s3Sink) already(batch []pending) ([]pending, error) {
	out := batch[:0]
	for _, p := range batch {
		d := keyDigest(s.table, p.item)
		s.mu.Lock()
		st, ok := s.stored[d]
		if ok {
			delete(s.stored, d)
		}
		s.mu.Unlock()
		if !ok {
			out = append(out, p)
			continue
		}
		line, _ := av.AppendImportLine(nil, p.item)
		if sum := sha256.Sum256(line); [16]byte(sum[:16]) != st.sum && s.followed {
			s.older.Add(1) // kept: the follower applies the row's changes since (followed)
		} else if [16]byte(sum[:16]) != st.sum {
			return nil, fmt.Errorf("migrate: --resume: the item with key %s in %s, which the interrupted run uploaded, is not what its row (entity %s, %s) renders now: the row changed since, and ImportTable would keep either version; start over: delete the objects under %s and migrate without --resume",
				s.table.KeyString(p.item), s.loc.URL(st.obj.obj.Key), p.entity, p.sourceKey(), s.loc)
		}
		s.mu.Lock()
		st.obj.left--
		addCover(st.obj.cover, p.mark)
		s.mu.Unlock()
		s.skipped.Add(1)
		s.acknowledge([]s3Ack{{mark: p.mark, ec: s.c.perEntity[p.entity], size: itemSize(&p)}})
	}
	return out, nil
}

// Close uploads the open objects (flush) or drops them, and waits for the
// uploads in flight.
func (s *s3Sink) Close(ctx context.Context, flush bool) error {
	var err error
	for _, sl := range s.slots {
		sl.mu.Lock()
		if sl.obj != nil {
			if flush && err == nil && s.err() == nil {
				err = s.cut(ctx, sl)
			} else {
				sl.obj.Close()
				sl.obj, sl.items, sl.cover = nil, nil, nil
			}
		}
		sl.mu.Unlock()
	}
	s.wg.Wait()
	if err != nil {
		return err
	}
	if err := s.err(); err != nil {
		return err
	}
	return ctx.Err()
}

// covered lists the objects the checkpoint being saved covers, of this
// run's and the read-back ones (save holds tr.mu; the tracks' savedSeq
// are the ones it saves).
func (s *s3Sink) covered() []s3Object {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []s3Object
	for _, d := range s.readBack {
		if !d.covered && d.left == 0 {
			d.covered = covers(d.cover)
		}
		if d.covered {
			out = append(out, d.obj)
		}
	}
	for _, d := range s.uploaded {
		if !d.covered {
			d.covered = covers(d.cover)
		}
		if d.covered {
			out = append(out, d.obj)
		}
	}
	return out
}

// covers says whether the saved prefix of every track holds the rows.
func covers(cover map[*entityTrack]uint64) bool {
	for t, seq := range cover {
		t.mu.Lock()
		ok := t.savedSeq >= seq
		t.mu.Unlock()
		if !ok {
			return false
		}
	}
	return true
}

// objects lists every object of the job: the checkpoint's, the read-back
// ones and this run's.
func (s *s3Sink) objects(kept []s3Object) []s3Object {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := append([]s3Object(nil), kept...)
	for _, d := range s.readBack {
		out = append(out, d.obj)
	}
	for _, d := range s.uploaded {
		out = append(out, d.obj)
	}
	return out
}
