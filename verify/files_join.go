package verify

import (
	"bufio"
	"cmp"
	"container/heap"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"slices"

	"github.com/remodel-dev/remodel/internal/domain/av"
	"github.com/remodel-dev/remodel/internal/domain/keyset"
	"github.com/remodel-dev/remodel/mapping"
)

// The check of files holds neither the objects' items nor the source's
// rows in memory: each side is written to disk as it is read
// (keyset.Spill, by the first byte of the item key's digest, compressed:
// its records hold keys), and the two
// are joined one bucket at a time (joinFiles), with one bucket of the
// objects' items in memory: 1/keyset.SpillBuckets of them, about 100
// bytes an item with its key. What else stays in memory is bounded by
// Options.MaxProblems: the problems each check lists, and the items that
// differ, held until the objects that hold them are read again to name
// the attributes (at most MaxProblems of each entity; with MaxProblems 0,
// every one of them, as every problem is listed).
//
// A record of the objects' items: the key's digest, then the item's
// digest (itemDigest), the object's index, the entity's (-1: none) and
// the key. A record of the rows: the key's digest, then the digest of the
// item the row renders, its entity, the key, the row's source key and the
// oracle's findings on the item (JSON, empty when none): they count only
// if the objects hold that very item.

// appendItemRecord encodes an item of the objects (after its key digest).
func appendItemRecord(b []byte, sum [16]byte, obj, entity int32, key string) []byte {
	b = append(b, sum[:]...)
	b = binary.LittleEndian.AppendUint32(b, uint32(obj))
	b = binary.LittleEndian.AppendUint32(b, uint32(entity))
	return appendString(b, key)
}

// appendRowRecord encodes a row compared (after its item key's digest).
func appendRowRecord(b []byte, sum [16]byte, entity int, key, srcKey string, findings []byte) []byte {
	b = append(b, sum[:]...)
	b = binary.LittleEndian.AppendUint32(b, uint32(entity))
	b = appendString(b, key)
	b = appendString(b, srcKey)
	return appendString(b, string(findings))
}

// itemRecord is a record of an item of the objects, as appendItemRecord
// encodes it (after its key digest).
type itemRecord struct {
	sum         [16]byte
	obj, entity int32
	key         string
}

// rowRecord is a record of a row compared, as appendRowRecord encodes it
// (after its item key's digest).
type rowRecord struct {
	sum         [16]byte
	entity      int
	key, srcKey string
	findings    []byte
}

// item reads the rest of a record of an item of the objects (rr.err on a
// failure).
func (rr *recordReader) item() itemRecord {
	r := itemRecord{sum: rr.digest(), obj: int32(rr.uint32()), entity: int32(rr.uint32())}
	r.key = string(rr.bytes())
	return r
}

// row reads the rest of a record of a row compared (rr.err on a failure).
func (rr *recordReader) row() rowRecord {
	r := rowRecord{sum: rr.digest(), entity: int(rr.uint32())}
	r.key, r.srcKey, r.findings = string(rr.bytes()), string(rr.bytes()), rr.bytes()
	return r
}

// items ranges over the bucket's records of items of the objects, each
// with its key digest, up to its end or a failure (fail says which).
func (rr *recordReader) items() iter.Seq2[[16]byte, itemRecord] {
	return records(rr, rr.item)
}

// rows ranges over the bucket's records of rows compared, as items does.
func (rr *recordReader) rows() iter.Seq2[[16]byte, rowRecord] {
	return records(rr, rr.row)
}

func records[R any](rr *recordReader, read func() R) iter.Seq2[[16]byte, R] {
	return func(yield func([16]byte, R) bool) {
		for {
			kd, ok := rr.next()
			if !ok {
				return
			}
			if r := read(); rr.err != nil || !yield(kd, r) {
				return
			}
		}
	}
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// recordReader reads the records of one bucket; the first failure is
// kept (err), and every read after it reads nothing.
type recordReader struct {
	r   *bufio.Reader
	err error
}

func (rr *recordReader) read(b []byte) {
	if rr.err == nil {
		if _, rr.err = io.ReadFull(rr.r, b); rr.err == io.EOF {
			rr.err = io.ErrUnexpectedEOF // within a record
		}
	}
}

func (rr *recordReader) digest() (d [16]byte) {
	rr.read(d[:])
	return d
}

func (rr *recordReader) uint32() uint32 {
	var b [4]byte
	rr.read(b[:])
	return binary.LittleEndian.Uint32(b[:])
}

func (rr *recordReader) bytes() []byte {
	if rr.err != nil {
		return nil
	}
	n, err := binary.ReadUvarint(rr.r)
	if err != nil {
		rr.err = io.ErrUnexpectedEOF
		return nil
	}
	b := make([]byte, n)
	rr.read(b)
	return b
}

// next reads the key digest that leads a record: false at the end of the
// bucket, or after a failure (fail returns it).
func (rr *recordReader) next() (d [16]byte, ok bool) {
	if rr.r == nil || rr.err != nil {
		return d, false
	}
	switch _, err := io.ReadFull(rr.r, d[:]); {
	case err == io.EOF:
		return d, false
	case err != nil:
		rr.err = err
		return d, false
	}
	return d, true
}

// fail is the reader's failure, if any.
func (rr *recordReader) fail(what string) error {
	if rr.err == nil {
		return nil
	}
	return fmt.Errorf("verify: reading %s: %w", what, rr.err)
}

// objEntry is one item of the objects while its bucket is joined.
type objEntry struct {
	sum     [16]byte
	obj     int32
	entity  int32
	claimed bool // a row or an accepted reject claimed it; items of no entity start claimed (they are strays already)
	key     string
}

// pendingItem is a row whose item in the objects differs from the one it
// renders: its row is read again (rereadRows) and then the object, to name
// the attributes.
type pendingItem struct {
	kd     [16]byte
	entity int
	obj    int32
	key    string
	srcKey string
	// found once the row is read again: the item it renders, the row.
	found bool
	q     *itemQuery
	item  mapping.Item
	src   srcRow
}

// pendingHeap holds an entity's differing items with the greatest key
// (then source key) on top, so that the first ones in Problem order are
// kept when there are too many.
type pendingHeap []*pendingItem

func (h pendingHeap) Len() int { return len(h) }
func (h pendingHeap) Less(i, j int) bool {
	return cmp.Or(cmp.Compare(h[i].key, h[j].key), cmp.Compare(h[i].srcKey, h[j].srcKey)) > 0
}
func (h pendingHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *pendingHeap) Push(x any)   { *h = append(*h, x.(*pendingItem)) }
func (h *pendingHeap) Pop() any {
	old := *h
	p := old[len(old)-1]
	*h = old[:len(old)-1]
	return p
}

// joinFiles joins the objects' items with the rows compared (f.rows; nil
// when the items were not compared), one bucket at a time: a key twice in
// the objects, a row's item missing, a row rendering the key another row
// claimed, an item equal to the row's (and the oracle's findings on it),
// an accepted reject whose item is there, and the items no row claimed
// (strays, when the check met every row). The items that differ are
// returned, at most MaxProblems of each entity (the first in Problem
// order; each one past them is counted as one problem), for resolveFiles.
func (v *verifier) joinFiles(rep *Report, f *files) ([]pendingHeap, error) {
	j := &join{rep: rep, f: f, complete: f.rows != nil && v.itemsComplete(), heaps: make([]pendingHeap, len(v.o.Plan.Entities))}
	rejects := v.rejectsByBucket(f)
	for _, s := range []*keyset.Spill{f.items, f.rows} {
		if s != nil {
			n, err := s.Size()
			if err != nil {
				return nil, fmt.Errorf("verify: %w", err)
			}
			f.fc.spilled += n
		}
	}
	for b := range keyset.SpillBuckets {
		p := joinPart{n: f.items.BucketLen(b), rejects: rejects[b]}
		var err error
		if p.items, err = f.items.Bucket(b); err != nil {
			return nil, fmt.Errorf("verify: %w", err)
		}
		if f.rows != nil {
			if p.rows, err = f.rows.Bucket(b); err != nil {
				return nil, fmt.Errorf("verify: %w", err)
			}
		}
		if err := v.joinPart(j, p); err != nil {
			return nil, err
		}
	}
	return j.heaps, nil
}

// DefaultJoinLimit is how many items of the objects joinFiles holds in
// memory at once, at most, unless Options.JoinLimit says otherwise: a
// bucket of the spills that holds more is split again (joinPart), so that
// what is held stays about the same from 2 million items up (a bucket
// holds 1/keyset.SpillBuckets of them): 16 384 items, about 3 MB with the
// map's own bytes.
const DefaultJoinLimit = 1 << 14

// joinLevels is how many digest bytes may pick a part: a bucket is split
// at most twice, each time into parts of half the limit on average (up to
// SpillBuckets of them). A part past the limit at the last level (one key
// many times over, whose duplicates are not held) is joined as it is.
const joinLevels = 3

// join is what joinFiles gathers over the parts it joins.
type join struct {
	rep      *Report
	f        *files
	complete bool // the check met every row: unclaimed items are strays
	heaps    []pendingHeap
}

// joinPart is a part of the spills whose key digests agree on their first
// level+1 bytes (modulo the buckets of the spill that made it): its
// records of the objects' items (n of them) and of the rows compared (nil
// when the items were not compared), in the order they were added, and
// the accepted rejects whose key falls in it, in the rejects file's order.
type joinPart struct {
	items, rows *bufio.Reader
	n           int64
	level       int
	rejects     []int
}

// joinPart joins one part: its items of the objects in memory, then its
// rows against them, then its rejects; a part of more items than the
// limit is split by the next digest byte first (splitPart). Records of one
// key stay in one part, in their order, so the result is the same either
// way.
func (v *verifier) joinPart(j *join, p joinPart) error {
	limit := int64(v.o.JoinLimit)
	if limit <= 0 {
		limit = DefaultJoinLimit
	}
	if p.n > limit && p.level+1 < joinLevels {
		return v.splitPart(j, p, limit)
	}
	f, fc, loc := j.f, j.f.fc, *v.o.Files
	idx := make(map[[16]byte]objEntry, min(p.n, limit)) // past the limit only at the last level: duplicates
	rr := &recordReader{r: p.items}
	for kd, r := range rr.items() {
		e := objEntry{sum: r.sum, obj: r.obj, entity: r.entity, key: r.key, claimed: r.entity < 0}
		if was, dup := idx[kd]; dup {
			fc.Problems.Add(Problem{Kind: KindFilesDuplicate, Key: e.key,
				Message: fmt.Sprintf("key %s is in %s and again in %s: ImportTable would keep one of the items", e.key, loc.URL(f.objects[was.obj]), loc.URL(f.objects[e.obj]))})
			continue
		}
		idx[kd] = e
	}
	if err := rr.fail("the items of the objects"); err != nil {
		return err
	}
	fc.held = max(fc.held, len(idx))
	if f.rows == nil {
		return nil
	}
	pending, err := v.joinRows(f, p.rows, idx)
	if err != nil {
		return err
	}
	for _, i := range p.rejects {
		v.rejectInFiles(f, i, idx)
	}
	if j.complete {
		for _, e := range idx {
			if !e.claimed && !v.skipStray(int(e.entity)) {
				name := v.o.Plan.Entities[e.entity].Name
				j.rep.Stray.Add(Problem{Kind: KindStray, Entity: name, Key: e.key,
					Message: fmt.Sprintf("item %s (entity %s) of %s comes from no source row", e.key, name, loc.URL(f.objects[e.obj]))})
			}
		}
	}
	for _, pi := range pending {
		v.holdPending(f, &j.heaps[pi.entity], pi)
	}
	return nil
}

// splitPart writes a part's records to two spills of their own by the
// next digest byte (compressed, on disk, as the part was), in as many
// buckets as make each hold half the limit, and joins their buckets one
// by one.
func (v *verifier) splitPart(j *join, p joinPart, limit int64) error {
	at, ways := p.level+1, int(min((2*p.n+limit-1)/limit, keyset.SpillBuckets))
	items := keyset.NewCompressedSpillBy("a part of the items of the objects", at, ways)
	defer items.Close()
	var buf []byte
	rr := &recordReader{r: p.items}
	for kd, r := range rr.items() {
		buf = appendItemRecord(buf[:0], r.sum, r.obj, r.entity, r.key)
		if err := items.Add(kd, buf); err != nil {
			return fmt.Errorf("verify: %w", err)
		}
	}
	if err := rr.fail("the items of the objects"); err != nil {
		return err
	}
	var rows *keyset.Spill
	if p.rows != nil {
		rows = keyset.NewCompressedSpillBy("a part of the rows compared", at, ways)
		defer rows.Close()
		rr := &recordReader{r: p.rows}
		for kd, r := range rr.rows() {
			buf = appendRowRecord(buf[:0], r.sum, r.entity, r.key, r.srcKey, r.findings)
			if err := rows.Add(kd, buf); err != nil {
				return fmt.Errorf("verify: %w", err)
			}
		}
		if err := rr.fail("the rows compared"); err != nil {
			return err
		}
	}
	rejects := make([][]int, ways)
	for _, i := range p.rejects {
		d := digest(v.rejKeys[i])
		b := int(d[at]) % ways
		rejects[b] = append(rejects[b], i)
	}
	for b := range ways {
		sub := joinPart{n: items.BucketLen(b), level: at, rejects: rejects[b]}
		var err error
		if sub.items, err = items.Bucket(b); err != nil {
			return fmt.Errorf("verify: %w", err)
		}
		if rows != nil {
			if sub.rows, err = rows.Bucket(b); err != nil {
				return fmt.Errorf("verify: %w", err)
			}
		}
		if err := v.joinPart(j, sub); err != nil {
			return err
		}
	}
	return nil
}

// joinRows joins the rows compared of a part (in the order they were
// read) with its items of the objects (idx), and returns the rows whose
// item differs (by key digest: a later row wins, as it claims an item of
// no entity after an earlier one).
func (v *verifier) joinRows(f *files, rows *bufio.Reader, idx map[[16]byte]objEntry) (map[[16]byte]*pendingItem, error) {
	pending := map[[16]byte]*pendingItem{}
	rr := &recordReader{r: rows}
	for kd, r := range rr.rows() {
		sum, i, k, srcKey, findings := r.sum, r.entity, r.key, r.srcKey, r.findings
		e, ic := v.o.Plan.Entities[i], &f.ics[i]
		ent, ok := idx[kd]
		switch {
		case !ok:
			ic.Missing++
			ic.Problems.Addf(Problem{Kind: KindMissing, Entity: e.Name, Key: k, SourceKey: srcKey},
				"missing item %s (entity %s, row %s): in no object", k, e.Name, srcKey)
			continue
		case ent.claimed && ent.entity >= 0:
			ic.Different++
			ic.Problems.Addf(Problem{Kind: KindDuplicateKey, Entity: e.Name, Key: k, SourceKey: srcKey},
				"row %s of entity %s renders the key %s of another row", srcKey, e.Name, k)
			continue
		}
		ent.claimed = true
		idx[kd] = ent
		if ent.sum != sum {
			ic.Different++
			pending[kd] = &pendingItem{kd: kd, entity: i, obj: ent.obj, key: k, srcKey: srcKey}
			continue
		}
		if len(findings) > 0 {
			var ps []Problem
			if err := json.Unmarshal(findings, &ps); err != nil {
				return nil, fmt.Errorf("verify: reading the rows compared: %w", err)
			}
			ic.Different++
			for _, p := range ps {
				ic.Problems.Add(p)
			}
		}
	}
	return pending, rr.fail("the rows compared")
}

// holdPending keeps a differing item for resolveFiles while it is among
// the first MaxProblems of its entity in Problem order; the one it pushes
// out (or itself) is counted as one problem, unnamed. Every differing item
// kept names at least one problem, with a key before those left out, so
// the problems listed are the ones naming every item would list.
func (v *verifier) holdPending(f *files, h *pendingHeap, p *pendingItem) {
	heap.Push(h, p)
	if v.o.MaxProblems > 0 && h.Len() > v.o.MaxProblems {
		out := heap.Pop(h).(*pendingItem)
		e := v.o.Plan.Entities[out.entity]
		f.ics[out.entity].Problems.Addf(Problem{Kind: KindDifferent, Entity: e.Name, Key: out.key, SourceKey: out.srcKey},
			"item %s (entity %s, row %s) in %s differs (its attributes are not named: past the first %d differing items of the entity)",
			out.key, e.Name, out.srcKey, v.o.Files.URL(f.objects[out.obj]), v.o.MaxProblems)
	}
}

// rejectsByBucket lists, by bucket, the accepted rejects whose row the
// item check met and renders an item, of entities whose items were
// compared, in the rejects file's order.
func (v *verifier) rejectsByBucket(f *files) map[int][]int {
	if v.o.Rejects == nil || f.rows == nil {
		return nil
	}
	checked := map[string]bool{}
	for i := range f.ics {
		checked[f.ics[i].Entity] = true
	}
	out := map[int][]int{}
	for i, rj := range v.o.Rejects.List {
		if k := v.rejKeys[i]; k != "" && checked[rj.Entity] && !v.countFailed[rj.Entity] {
			d := digest(k)
			b := int(d[0]) % keyset.SpillBuckets
			out[b] = append(out[b], i)
		}
	}
	return out
}

// rejectInFiles fails the item check of the entity of accepted reject i
// if its item is in the objects after all (no row claimed its key), and
// claims the key so that it is not named a stray too.
func (v *verifier) rejectInFiles(f *files, i int, idx map[[16]byte]objEntry) {
	rj, k := v.o.Rejects.List[i], v.rejKeys[i]
	kd := digest(k)
	ent, ok := idx[kd]
	if !ok || ent.claimed {
		return
	}
	ent.claimed = true
	idx[kd] = ent
	for j := range f.ics {
		if ic := &f.ics[j]; ic.Entity == rj.Entity {
			ic.Problems.Addf(Problem{Kind: KindRejectedPresent, Entity: rj.Entity, Key: k, SourceKey: rj.Row},
				"row %s of entity %s is accepted as rejected (%s:%d: %s), but the objects hold its item %s", rj.Row, rj.Entity, v.o.Rejects.File, rj.Line, rj.Reason, k)
			return
		}
	}
}

// resolveFiles names the attributes of the items that differ: the rows
// of the entities that have one are read again (the same snapshot) for
// the items they render, then the objects that hold the stored items.
func (v *verifier) resolveFiles(ctx context.Context, f *files, rs readerSet, heaps []pendingHeap) error {
	byKD := map[[16]byte]*pendingItem{}
	for i, h := range heaps {
		if len(h) == 0 {
			continue
		}
		for _, p := range h {
			byKD[p.kd] = p
		}
		if err := v.rereadRows(ctx, i, rs, byKD); err != nil {
			return err
		}
	}
	f.fc.pendingHeld = len(byKD)
	again := map[int32]bool{}
	for _, p := range byKD {
		again[p.obj] = true
	}
	objs := make([]int32, 0, len(again))
	for o := range again {
		objs = append(objs, o)
	}
	slices.Sort(objs)
	for _, o := range objs {
		url := v.o.Files.URL(f.objects[o])
		_, _, err := v.readObject(ctx, f.objects[o], f.comp, func(have mapping.Item) {
			k := v.t.KeyString(have)
			kd := digest(k)
			p := byKD[kd]
			if p == nil || p.obj != o || !p.found {
				return
			}
			delete(byKD, kd)
			e, ic := v.o.Plan.Entities[p.entity], &f.ics[p.entity]
			diffs := diffAttrs(p.item, have)
			flagged := make(map[string]bool, len(diffs))
			for _, d := range diffs {
				flagged[d.name] = true
				pr := Problem{Kind: KindDifferent, Entity: e.Name, Key: k, SourceKey: p.srcKey, Attribute: d.name}
				if d.want != nil {
					pr.Want = av.Text(d.want)
				}
				if d.have != nil {
					pr.Got = av.Text(d.have)
				}
				ic.Problems.Addf(pr, "item %s (entity %s, row %s) in %s differs: %s", k, e.Name, p.srcKey, url, d)
			}
			v.fileFindings(&ic.Problems, e, p.q, k, &p.src, have, flagged)
		})
		if err != nil {
			return err
		}
	}
	for _, p := range byKD { // changed between the two reads
		name := v.o.Plan.Entities[p.entity].Name
		f.ics[p.entity].Problems.Addf(Problem{Kind: KindDifferent, Entity: name, Key: p.key, SourceKey: p.srcKey},
			"item %s (entity %s, row %s) differs, and was not found again in its object", p.key, name, p.srcKey)
	}
	return nil
}

// rereadRows reads the rows of entity i again and keeps, for each
// differing item of byKD of that entity, the item its row renders and
// the row.
func (v *verifier) rereadRows(ctx context.Context, i int, rs readerSet, byKD map[[16]byte]*pendingItem) error {
	e := v.o.Plan.Entities[i]
	rate := v.sampleRate()
	q := newItemQuery(v.o.Source.Engine(), e)
	err := v.fileRows(ctx, e, q, rs, func(row []any, js any, ejs []any, dup *mapping.RowError) error {
		if dup != nil || v.o.Rejects.accepts(e, row) {
			return nil
		}
		key := e.SourceKey(row)
		if rate < 1 && !sampled(key, rate) {
			return nil
		}
		item, err := e.Render(row)
		if err != nil {
			return nil
		}
		p := byKD[digest(v.t.KeyString(item))]
		if p == nil || p.entity != i || p.found || p.srcKey != key {
			return nil
		}
		p.found, p.q, p.item = true, q, item
		p.src = srcRow{row: slices.Clone(row), js: js, ejs: slices.Clone(ejs), key: key}
		return nil
	})
	if err != nil {
		return fmt.Errorf("verify: reading again the rows of entity %s whose items differ: %w", e.Name, err)
	}
	return nil
}
