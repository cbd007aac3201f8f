package objects

import (
	"context"
	"fmt"
	"regexp"
	"sync"
	"sync/atomic"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/av"
	"github.com/remodel-dev/remodel/internal/domain/backoff"
	"github.com/remodel-dev/remodel/internal/domain/s3out"
	"github.com/remodel-dev/remodel/internal/domain/sink"
	"github.com/remodel-dev/remodel/mapping"
)

// The sink keeps one open object per writer (a slot). The items of each
// batch are dealt round-robin over the slots, item by item, so that the
// items of one item collection, read one after the other, are spread over
// as many objects, interleaved with the other reads' items, instead of
// lying in one long run of one object: AWS's import best practice
// ("Randomize sorted data": an object holding one partition key's items in
// sequence makes a rolling hot partition). An object is cut when its next
// line would take it past the size bound (bytes of DynamoDB JSON before
// compression) or it holds the most items it may, compressed into a
// temporary file as it fills, and uploaded by the store (the transfer
// manager: multipart above 16 MiB) while the slot fills a new one.

// DefaultSize is the bytes of DynamoDB JSON an object holds at most before
// compression, unless Config.Size says otherwise.
const DefaultSize = 64 << 20

// DefaultItems is how many items an object holds at most, whatever its
// size, unless Config.Items says otherwise; the 50 000 objects of one
// import then hold 2.5 billion items.
const DefaultItems = 50_000

// MinSize is the smallest Config.Size.
const MinSize = 1 << 20

// MaxImportObjects is how many S3 objects one ImportTable reads at most
// (DynamoDB developer guide, "Import format quotas and validation": "Each
// import job can take up to 50,000 Amazon S3 objects in all regions").
const MaxImportObjects = 50_000

// nameRE is the name of an object the sink writes under the prefix: the
// run's id (8 hex digits), a dash, the object's number.
var nameRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9]{6,}\.json(\.gz|\.zst)?$`)

// IsName says whether name (a key without its prefix) is one a sink of an
// unsharded job gives its objects.
func IsName(name string) bool { return nameRE.MatchString(name) }

// Config is what a sink is made of.
type Config struct {
	Store s3out.Store
	Loc   s3out.Location // the prefix
	Comp  s3out.Compression
	// Table names the items by their key in errors, and reads back
	// objects by it.
	Table *mapping.Table
	// Run names this run's objects: "<Run>-<number>.json<ext>".
	Run string
	// Size and Items bound an object: its bytes of lines before
	// compression, and its items.
	Size, Items int64
	// Slots is the number of open objects: one per writer.
	Slots int
	// Kept is the number of objects of earlier runs under the prefix
	// that stay (a checkpoint lists them); with those read back, they
	// count towards MaxImportObjects.
	Kept int
	// Timeout bounds one request; Grace is how long an upload in flight
	// may go on once the run stops.
	Timeout, Grace time.Duration
	// Followed: the run follows the source after the load, from the
	// first run's snapshot, which the read-back objects were rendered
	// from; an item of theirs whose row changed since is kept (counted
	// Older) instead of stopping the run: the follower applies the row's
	// changes.
	Followed bool
}

// Sink writes items into objects. Its Write and Close follow sink.Sink; it
// is safe for concurrent use.
type Sink struct {
	cfg  Config
	acks sink.ObjectAcks

	slots []*slot
	next  atomic.Uint64 // the round-robin of items over the slots
	ids                 // the objects begun and those not uploaded yet
	named atomic.Int64  // objects this run named
	sem   chan struct{} // uploads in flight
	wg    sync.WaitGroup

	mu       sync.Mutex
	failed   error
	readBack int // objects read back
	lines    map[[16]byte]line
	found    atomic.Int64 // items found in a read-back object, not written again
	older    atomic.Int64 // of those, items whose row renders another line now (Followed)
}

var _ sink.Sink = (*Sink)(nil)

// slot is one open object (numbered id) and the line being encoded into
// it.
type slot struct {
	mu   sync.Mutex
	obj  *s3out.Object
	id   uint64
	line []byte
}

// New is a sink of cfg that tells acks of each item.
func New(cfg Config, acks sink.ObjectAcks) *Sink {
	s := &Sink{cfg: cfg, acks: acks, sem: make(chan struct{}, max(cfg.Slots, 1))}
	for range max(cfg.Slots, 1) {
		s.slots = append(s.slots, &slot{})
	}
	return s
}

// Stats are what a sink found of the objects it read back.
type Stats struct {
	// Found are the items a read-back object holds that were not written
	// again; Older, of those, the items whose row renders another line now.
	Found, Older int64
	// Kept are the objects of earlier runs: Config.Kept and those read back.
	Kept int
}

// Stats says what the sink found so far.
func (s *Sink) Stats() Stats {
	s.mu.Lock()
	kept := s.cfg.Kept + s.readBack
	s.mu.Unlock()
	return Stats{Found: s.found.Load(), Older: s.older.Load(), Kept: kept}
}

func (s *Sink) err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.failed
}

func (s *Sink) fail(err error) {
	s.mu.Lock()
	if s.failed == nil {
		s.failed = err
	}
	s.mu.Unlock()
}

// Write deals the batch's items over the open objects (the items a
// read-back object holds aside: placed in it at once).
func (s *Sink) Write(ctx context.Context, b sink.Batch) error {
	if err := s.err(); err != nil {
		return err
	}
	idx, err := s.fresh(b)
	if err != nil || len(idx) == 0 {
		return err
	}
	n := uint64(len(s.slots))
	base := s.next.Add(uint64(len(idx))) - uint64(len(idx))
	for j := range min(uint64(len(idx)), n) {
		if err := s.fill(ctx, s.slots[(base+j)%n], b, idx, int(j), int(n)); err != nil {
			return err
		}
	}
	return nil
}

// fill appends the items idx[from], idx[from+step], ... of b to the slot's
// object, and tells acks where each went.
func (s *Sink) fill(ctx context.Context, sl *slot, b sink.Batch, idx []int, from, step int) error {
	sl.mu.Lock()
	defer sl.mu.Unlock()
	var placed []int
	tell := func() {
		if len(placed) > 0 {
			s.acks.Placed(b, placed, sl.id)
			placed = placed[:0]
		}
	}
	defer tell()
	for k := from; k < len(idx); k += step {
		it := b.Item(idx[k])
		if err := s.lineOf(sl, it); err != nil {
			return err
		}
		if sl.obj != nil && sl.obj.Lines > 0 && (sl.obj.Raw+int64(len(sl.line)) > s.cfg.Size || sl.obj.Lines >= s.cfg.Items) {
			tell() // before its object can be uploaded
			if err := s.cut(ctx, sl); err != nil {
				return err
			}
		}
		if err := s.append(sl); err != nil {
			return err
		}
		placed = append(placed, idx[k])
	}
	return nil
}

// lineOf encodes the item into the slot's line.
func (s *Sink) lineOf(sl *slot, it sink.Item) error {
	if it.Delete {
		return fmt.Errorf("objects: the key %s is to be deleted: objects hold items, not deletes", s.cfg.Table.KeyString(it.Value))
	}
	line, ok := av.AppendImportLine(sl.line[:0], it.Value)
	if !ok {
		return fmt.Errorf("objects: the item with key %s has a value DynamoDB JSON cannot hold", s.cfg.Table.KeyString(it.Value))
	}
	sl.line = line
	return nil
}

// append writes the slot's line into its object, begun if there is none.
func (s *Sink) append(sl *slot) error {
	if sl.obj == nil {
		obj, err := s3out.NewObject("", s.cfg.Comp)
		if err != nil {
			return fmt.Errorf("objects: %w", err)
		}
		sl.obj, sl.id = obj, s.begin()
	}
	if err := sl.obj.Write(sl.line, 1); err != nil {
		return fmt.Errorf("objects: %w", err)
	}
	return nil
}

// cut finishes the slot's object and uploads it in the background; the
// slot starts a new one with its next item. At most as many uploads as
// slots are in flight: a cut waits for one to end.
func (s *Sink) cut(ctx context.Context, sl *slot) error {
	obj, id := sl.obj, sl.id
	sl.obj = nil
	if err := obj.Finish(); err != nil {
		obj.Close()
		return fmt.Errorf("objects: %w", err)
	}
	n := s.named.Add(1)
	if kept := s.Stats().Kept; kept+int(n) > MaxImportObjects {
		obj.Close()
		return fmt.Errorf("objects: %s would hold more than %d objects, the most one ImportTable reads: give a larger --object-size (now %d bytes) or --object-items (now %d)", s.cfg.Loc, MaxImportObjects, s.cfg.Size, s.cfg.Items)
	}
	key := fmt.Sprintf("%s%s-%06d%s", s.cfg.Loc.Prefix, s.cfg.Run, n, s.cfg.Comp.Ext())
	select {
	case s.sem <- struct{}{}:
	case <-ctx.Done():
		obj.Close()
		return ctx.Err()
	}
	s.wg.Add(1)
	go s.upload(ctx, obj, id, key)
	return nil
}

// upload stores object id under key and tells acks; a failure stops the
// run (its next Write or Close returns it).
func (s *Sink) upload(ctx context.Context, obj *s3out.Object, id uint64, key string) {
	defer s.wg.Done()
	defer func() { <-s.sem }()
	inflight, done := backoff.AfterGrace(ctx, s.cfg.Grace)
	defer done()
	defer obj.Close()
	// The object's whole upload has a deadline too (each of its requests
	// has the request timeout): generous, at 256 KiB/s.
	uctx, cancel := context.WithTimeout(inflight, 3*s.cfg.Timeout+time.Duration(obj.Size/(256<<10))*time.Second)
	defer cancel()
	etag, err := s.cfg.Store.Upload(uctx, s.cfg.Loc.Bucket, key, obj.Body(), obj.Size, "application/"+string(s.cfg.Comp))
	if err != nil {
		if ctx.Err() == nil {
			s.fail(fmt.Errorf("objects: %w", err))
		}
		return
	}
	s.acks.Uploaded(id, sink.ObjectInfo{Key: key, Items: obj.Lines, Bytes: obj.Size, Uncompressed: obj.Raw, SHA256: obj.SHA256, ETag: etag})
	s.markUploaded(id) // told first: a checkpoint that covers its rows lists it
}

// Close uploads the open objects (flush) or drops them, and waits for the
// uploads in flight.
func (s *Sink) Close(ctx context.Context, flush bool) error {
	var err error
	for _, sl := range s.slots {
		sl.mu.Lock()
		if sl.obj != nil {
			if flush && err == nil && s.err() == nil {
				err = s.cut(ctx, sl)
			} else {
				sl.obj.Close()
				sl.obj = nil
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
