package migrate

import (
	"sync"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/sink"
	"github.com/remodel-dev/remodel/internal/domain/sink/objects"
)

// A run into S3 (--to) writes its items through the objects sink
// (internal/domain/sink/objects), which tells the pipeline of each item in
// two steps (sink.ObjectAcks): placed, when its line is in an open object,
// and stored, when that object is uploaded. The objectLedger here is the
// pipeline's side of it.
//
// Acknowledgement: an item is counted written only once the object holding
// it is uploaded. Its row's mark is settled as soon as it is placed, so
// that the rows do not stay in memory until their objects are uploaded
// (an open object holds no more than its compressed bytes and counts): the
// tracks are gated (checkpoint_track.go, objectGate: the sink numbers the
// objects), and the checkpoint saves each track's state of a moment when
// every object begun by then was uploaded, so its settled prefix never
// passes an item that is not stored. An object is covered by the
// checkpoint when every row it holds an item of is in the prefix the
// checkpoint saved (the ledger records per object and track the highest
// sequence number of its rows: rowMark.seq); the checkpoint lists the
// covered objects. A resumed run keeps them as they are and reads their
// rows no more. An object uploaded but not covered (its rows are read
// again) is kept too, never rewritten: the resumed run reads it back
// (prepareS3, objects.Sink.ReadBack), and the sink places an item it holds
// line for line in it again without writing it.

// DefaultObjectSize is the bytes of DynamoDB JSON an object holds at most
// before compression, unless --object-size says otherwise.
const DefaultObjectSize = objects.DefaultSize

// DefaultObjectItems is how many items an object holds at most, whatever
// its size, unless --object-items says otherwise.
const DefaultObjectItems = objects.DefaultItems

// MinObjectSize is the smallest --object-size.
const MinObjectSize = objects.MinSize

// MaxImportObjects is how many S3 objects one ImportTable reads at most.
const MaxImportObjects = objects.MaxImportObjects

// s3Object is one uploaded object, in the checkpoint and the manifest.
type s3Object = sink.ObjectInfo

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

// s3Done is an object of the job this run knows of: one it is filling or
// uploaded, or one an interrupted run uploaded that the checkpoint did not
// cover (readBack). cover is, per track, the highest sequence number of
// the rows whose items it holds (this run's rows); tally counts what it
// holds per entity until it is stored.
type s3Done struct {
	obj      s3Object
	cover    map[*entityTrack]uint64
	tally    map[*entityCounters]*objTally
	placed   int64 // items placed in it by this run
	stored   bool  // uploaded, or read back
	readBack bool
	covered  bool
}

// objTally is what an object holds of one entity: its items, and their
// bytes as DynamoDB counts them.
type objTally struct{ items, bytes int64 }

// objectLedger acknowledges the objects sink's items (sink.ObjectAcks):
// it settles their rows when they are placed, counts them written when
// their object is stored, and knows which objects the checkpoint covers.
type objectLedger struct {
	writerAcks

	mu       sync.Mutex
	open     map[uint64]*s3Done // the objects not uploaded yet, and those read back
	uploaded []*s3Done          // this run's objects, in upload order
	readBack []*s3Done          // the earlier runs' objects the checkpoint did not cover
}

var _ sink.ObjectAcks = (*objectLedger)(nil)

func newObjectLedger(w *writer) *objectLedger {
	return &objectLedger{writerAcks: writerAcks{w}, open: map[uint64]*s3Done{}}
}

// object is object id's record (l.mu held).
func (l *objectLedger) object(id uint64) *s3Done {
	d := l.open[id]
	if d == nil {
		d = &s3Done{cover: map[*entityTrack]uint64{}, tally: map[*entityCounters]*objTally{}}
		l.open[id] = d
	}
	return d
}

// Placed records items idx of b in object id, and settles their rows; an
// item placed in a read-back object is stored already: counted at once.
func (l *objectLedger) Placed(b sink.Batch, idx []int, id uint64) {
	items, err := pendingOf(b)
	if err != nil {
		return
	}
	l.mu.Lock()
	d := l.object(id)
	for _, i := range idx {
		p := &items[i]
		d.placed++
		addCover(d.cover, p.mark)
		if !d.stored {
			d.count(l.w.c.perEntity[p.entity], p)
		}
	}
	stored := d.stored
	l.mu.Unlock()
	now := time.Now()
	for _, i := range idx {
		p := &items[i]
		if stored {
			l.w.c.written.Add(1)
			if ec := l.w.c.perEntity[p.entity]; ec != nil {
				ec.stored(1, int64(itemSize(p)), now)
			}
		}
		p.mark.settle(true) // placed: the checkpoint waits for its object (gated tracks)
	}
}

// count tallies item p, of the entity counted by ec, in object d.
func (d *s3Done) count(ec *entityCounters, p *pending) {
	t := d.tally[ec]
	if t == nil {
		t = &objTally{}
		d.tally[ec] = t
	}
	t.items++
	t.bytes += int64(itemSize(p))
}

// Uploaded records object id as stored and counts its items written.
func (l *objectLedger) Uploaded(id uint64, info sink.ObjectInfo) {
	l.mu.Lock()
	d := l.object(id)
	delete(l.open, id) // nothing more is placed in it
	d.obj, d.stored = info, true
	tally := d.tally
	d.tally = nil
	l.uploaded = append(l.uploaded, d) // listed before it counts stored: a checkpoint that covers its rows lists it
	l.mu.Unlock()
	now := time.Now()
	for ec, t := range tally {
		l.w.c.written.Add(t.items)
		if ec != nil {
			ec.stored(t.items, t.bytes, now)
		}
	}
}

// readBackObject records object id, of an interrupted run, read back.
func (l *objectLedger) readBackObject(id uint64, info sink.ObjectInfo) {
	l.mu.Lock()
	defer l.mu.Unlock()
	d := l.object(id)
	d.obj, d.stored, d.readBack = info, true, true
	l.readBack = append(l.readBack, d)
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

// covered lists the objects the checkpoint being saved covers, of this
// run's and the read-back ones (save holds tr.mu; the tracks' savedSeq
// are the ones it saves). A read-back object is covered once every item
// it holds was placed in it again.
func (l *objectLedger) covered() []s3Object {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []s3Object
	for _, d := range l.readBack {
		if !d.covered && d.placed == d.obj.Items {
			d.covered = covers(d.cover)
		}
		if d.covered {
			out = append(out, d.obj)
		}
	}
	for _, d := range l.uploaded {
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
func (l *objectLedger) objects(kept []s3Object) []s3Object {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := append([]s3Object(nil), kept...)
	for _, d := range l.readBack {
		out = append(out, d.obj)
	}
	for _, d := range l.uploaded {
		out = append(out, d.obj)
	}
	return out
}
