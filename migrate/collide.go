package migrate

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"os"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
	"github.com/remodel-dev/remodel/source"
)

// The key collision check: a row whose item has the table key of an earlier
// row's item is rejected (naming the key), instead of its put silently
// replacing the earlier item; the first row wins.
//
// When the mapping proves that no two rows can render the same key
// (mapping.Plan.ProveKeysDistinct), or the snapshot's data completes the
// proof (keyCheck), the check is skipped: it costs nothing.
// Otherwise its memory is bounded by a few bytes a key, not the keys
// themselves:
//
//   - every key accepted is appended, exactly (attribute types, lengths and
//     bytes), to a temporary file, with a 64-bit hash of it;
//   - in memory, a set of 32-bit fingerprints of those hashes (4096 shards
//     of open addressing, 5 to 11 bytes a key) says whether a key may have
//     been seen: a miss proves it new, so almost every key passes at once;
//   - a hit (the same key, or rarely another with the same fingerprint) is
//     settled exactly: against the last keys accepted (kept in memory, so
//     a collision within a batch names the earlier row), or else the item
//     is held back, and the held items are compared with every key in the
//     file in one read of it, when maxHeld are waiting and at the end.
//     Only a key found equal is a collision: never a false one, never a
//     missed one.
//
// keyCheck decides whether the run needs the collision check and says so
// in the report. Where the static proof leaves only conditions on the data
// (a text column that may hold the separator after it: mapping.DataCheck),
// it asks the source through readers of the run's snapshot (idle then),
// before any row is read: when no row holds the separator, the keys of
// every row this run reads are distinct and the check is skipped ("proven on the data of
// this snapshot"). A resumed run has a new snapshot and asks again. A
// statement the source refuses leaves the check on, with the reason, and
// so does a snapshot whose readers do not share one cut (apart, its
// warning: MySQL without the global read lock): the rows are read by
// other readers than the one asked, in snapshots of their own.
func keyCheck(ctx context.Context, o *Options, rep *Report, readers []source.Reader, apart string) error {
	proof := o.Plan.ProveKeysDistinct()
	if len(proof.Checks) > 0 && len(readers) > 1 && apart != "" {
		proof.Reasons = append(proof.Reasons, "the data is not checked: the readers do not share one snapshot ("+apart+")")
		readers = nil
	}
	if len(proof.Checks) > 0 && len(readers) > 0 {
		type query struct {
			t          *introspect.Table
			where, col string
			sep        byte
		}
		// The distinct questions (entities of one table share a column),
		// asked in parallel, one reader each at a time: each is a scan of
		// the entity's rows when no value holds the separator.
		var qs []query
		found := map[query]int{}
		for _, d := range proof.Checks {
			q := query{d.Entity.Table, d.Entity.Where, d.Column, d.Sep}
			if _, ok := found[q]; !ok {
				found[q] = len(qs)
				qs = append(qs, q)
			}
		}
		holds := make([]bool, len(qs))
		next := make(chan int, len(qs))
		for i := range qs {
			next <- i
		}
		close(next)
		// Not an errgroup: a failed statement must not cancel another
		// reader's, whose rollback to its savepoint needs a live context
		// (the readers read the rows next).
		used := readers[:min(len(readers), len(qs))]
		errs := make([]error, len(used))
		var wg sync.WaitGroup
		for j, r := range used {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					err := r.Guard(ctx, func() error {
						var err error
						holds[i], err = r.HoldsByte(ctx, qs[i].t, qs[i].where, qs[i].col, qs[i].sep)
						return err
					})
					if err != nil && errs[j] == nil {
						errs[j] = err
					}
				}
			}()
		}
		wg.Wait()
		err := errors.Join(errs...)
		var checked mapping.KeyProof
		if err == nil {
			checked, err = proof.CheckData("of this snapshot", func(d mapping.DataCheck) (bool, error) {
				return holds[found[query{d.Entity.Table, d.Entity.Where, d.Column, d.Sep}]], nil
			})
		}
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case err != nil:
			proof.Reasons = append(proof.Reasons, fmt.Sprintf("the data could not be checked: %v", err))
		default:
			proof = checked
		}
	}
	o.keysDistinct = proof.Proven
	rep.KeysDistinct, rep.KeyProof, rep.KeysOnData = proof.Proven, proof.Reasons, proof.OnData
	return nil
}

// writeKeyCheck prints the key collision check's lines of the report: the
// verdict, then its reasons one a line (the first few; the JSON report and
// remodel validate list them all).
func (r *Report) writeKeyCheck(w io.Writer) {
	if r.KeyProof == nil && !r.KeysDistinct {
		return // the run stopped before
	}
	switch {
	case r.KeysOnData:
		fmt.Fprintln(w, "  key collision check: skipped, proven unnecessary on the data of this snapshot:")
	case r.KeysDistinct:
		fmt.Fprintln(w, "  key collision check: skipped, proven unnecessary:")
	default:
		fmt.Fprintln(w, "  key collision check: on (the keys are not proven distinct):")
	}
	const shown = 3
	for i, reason := range r.KeyProof {
		if i == shown {
			fmt.Fprintf(w, "    … and %d more (remodel validate --source lists them)\n", len(r.KeyProof)-shown)
			break
		}
		fmt.Fprintf(w, "    %s\n", reason)
	}
}

// A collider is one shard of the check (collisions): used by one goroutine
// at a time, under its shard's lock.
type collider struct {
	t    *mapping.Table
	off  bool                // proven unnecessary
	hash func([]byte) uint64 // of an encoded key (tests put a weak one in)

	fps    *fingerprints
	file   *os.File
	w      *bufio.Writer
	length int64 // bytes written to the file

	recent     []recentKey // the last keys accepted, a ring
	recentNext int

	held []heldItem
	key  []byte // scratch for encoding a key

	// Sizes: items held back before the file is read, keys remembered,
	// the file's write buffer.
	maxHeld, recentKeys, bufSize int
}

type recentKey struct {
	hash uint64
	p    pending
	ok   bool
}

type heldItem struct {
	p       pending
	hash    uint64
	key     []byte
	suspect bool // its fingerprint was in the set: settle looks for its key
}

const (
	maxHeld    = 1024 // items held back before the file is read to settle them (all shards together)
	recentKeys = 256  // keys remembered to name the earlier row of a collision (per shard)
)

// newCollider returns the collision check of one goroutine (tests); off
// skips it (the keys are proven distinct).
func newCollider(t *mapping.Table, off bool) *collider {
	return &collider{t: t, off: off, hash: newKeyHash(), maxHeld: maxHeld, recentKeys: recentKeys, bufSize: 1 << 20}
}

// newKeyHash returns the 64-bit hash of encoded keys the check uses, with
// a seed of its own.
func newKeyHash() func([]byte) uint64 {
	seed := maphash.MakeSeed()
	return func(b []byte) uint64 { return maphash.Bytes(seed, b) }
}

// unchecked passes an item on when the check is off (the keys proven
// distinct): the key of a row an earlier run settled is not needed.
func unchecked(p pending, emit func(pending) error) error {
	if p.seen {
		return nil
	}
	return emit(p)
}

// add takes the next item. It calls emit for every item that may be
// written (this one, or items held before and now settled) and collide for
// every item whose key an earlier item has, with the earlier row's name
// when it is known ("" when not). Items keep their order: once one is held
// back, the ones after it wait with it.
//
// An item marked seen (the key of a row an earlier run of a resumed job
// settled; they all come first) is only recorded, never emitted.
func (c *collider) add(p pending, emit func(pending) error, collide func(p pending, earlier string) error) error {
	if c.off {
		return unchecked(p, emit)
	}
	c.key = appendKey(c.key[:0], c.t, p.item)
	return c.addHashed(p, c.hash(c.key), c.key, emit, collide)
}

// addHashed is add of an item whose key is encoded (key, not kept) and
// hashed (h).
func (c *collider) addHashed(p pending, h uint64, key []byte, emit func(pending) error, collide func(p pending, earlier string) error) error {
	hit := c.fingerprints().add(h)
	if p.seen {
		return c.accept(p, h, key)
	}
	if len(c.held) == 0 {
		if !hit { // certainly new
			if err := c.accept(p, h, key); err != nil {
				return err
			}
			return emit(p)
		}
		if prev, ok := c.recentMatch(h, key); ok {
			return collide(p, rowName(prev))
		}
	}
	c.held = append(c.held, heldItem{p: p, hash: h, key: bytes.Clone(key), suspect: hit})
	if len(c.held) < c.maxHeld {
		return nil
	}
	return c.settle(emit, collide)
}

func rowName(p pending) string { return "entity " + p.entity + " row " + p.sourceKey() }

// recentMatch finds the recent item with this key (looked for only when
// a fingerprint is seen again: rarely).
func (c *collider) recentMatch(h uint64, key []byte) (pending, bool) {
	for _, r := range c.recent {
		if r.ok && r.hash == h && bytes.Equal(appendKey(nil, c.t, r.p.item), key) {
			return r.p, true
		}
	}
	return pending{}, false
}

// flush settles the items held back; the run's last items follow.
func (c *collider) flush(emit func(pending) error, collide func(pending, string) error) error {
	if c.off || len(c.held) == 0 {
		return nil
	}
	return c.settle(emit, collide)
}

// close closes the file (unlinked when it was created), freeing its space.
func (c *collider) close() {
	if c.file != nil {
		c.file.Close()
		c.file = nil
	}
}

func (c *collider) fingerprints() *fingerprints {
	if c.fps == nil {
		c.fps = newFingerprints()
	}
	return c.fps
}

// accept records a key as written: in the file and among the recent ones.
// Its fingerprint is already in the set.
func (c *collider) accept(p pending, h uint64, key []byte) error {
	if c.file == nil {
		f, err := os.CreateTemp("", "remodel-keys-*")
		if err != nil {
			return fmt.Errorf("migrate: the key collision check's file: %w", err)
		}
		// Read and written through f only: unlinked at once, so that a
		// run killed with -9 leaves no file behind.
		if err := os.Remove(f.Name()); err != nil {
			f.Close()
			return fmt.Errorf("migrate: the key collision check's file: %w", err)
		}
		c.file, c.w = f, bufio.NewWriterSize(f, c.bufSize)
		c.recent = make([]recentKey, c.recentKeys)
	}
	var head [8 + binary.MaxVarintLen64]byte
	binary.LittleEndian.PutUint64(head[:8], h)
	n := 8 + binary.PutUvarint(head[8:], uint64(len(key)))
	if _, err := c.w.Write(head[:n]); err != nil {
		return fmt.Errorf("migrate: writing the key collision check's file: %w", err)
	}
	if _, err := c.w.Write(key); err != nil {
		return fmt.Errorf("migrate: writing the key collision check's file: %w", err)
	}
	c.length += int64(n + len(key))
	c.recent[c.recentNext] = recentKey{hash: h, p: p, ok: true}
	c.recentNext = (c.recentNext + 1) % len(c.recent)
	return nil
}

// settle compares the held suspects' keys with every key written so far,
// in one read of the file, then goes through the held items in order: a
// suspect whose key is in the file, or is an earlier held item's, is a
// collision; every other item is accepted and emitted.
func (c *collider) settle(emit func(pending) error, collide func(pending, string) error) error {
	held := c.held
	c.held = nil
	found := make([]bool, len(held))
	byHash := make(map[uint64][]int)
	for i, x := range held {
		if x.suspect {
			byHash[x.hash] = append(byHash[x.hash], i)
		}
	}
	if c.file != nil && len(byHash) > 0 {
		if err := c.w.Flush(); err != nil {
			return fmt.Errorf("migrate: writing the key collision check's file: %w", err)
		}
		if err := scanKeys(io.NewSectionReader(c.file, 0, c.length), func(h uint64, key []byte) {
			for _, i := range byHash[h] {
				if !found[i] && bytes.Equal(held[i].key, key) {
					found[i] = true
				}
			}
		}); err != nil {
			return fmt.Errorf("migrate: reading the key collision check's file: %w", err)
		}
	}
	round := map[string]pending{} // the held items accepted
	for i, x := range held {
		if x.suspect {
			if prev, ok := c.recentMatch(x.hash, x.key); ok {
				if err := collide(x.p, rowName(prev)); err != nil {
					return err
				}
				continue
			}
			if prev, ok := round[string(x.key)]; ok {
				if err := collide(x.p, rowName(prev)); err != nil {
					return err
				}
				continue
			}
			if found[i] {
				if err := collide(x.p, ""); err != nil {
					return err
				}
				continue
			}
		}
		round[string(x.key)] = x.p
		if err := c.accept(x.p, x.hash, x.key); err != nil {
			return err
		}
		if err := emit(x.p); err != nil {
			return err
		}
	}
	return nil
}

// scanKeys reads the records of the file: hash, length, key.
func scanKeys(r io.Reader, fn func(h uint64, key []byte)) error {
	br := bufio.NewReaderSize(r, 1<<20)
	var head [8]byte
	var key []byte
	for {
		if _, err := io.ReadFull(br, head[:]); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		n, err := binary.ReadUvarint(br)
		if err != nil {
			return err
		}
		if uint64(cap(key)) < n {
			key = make([]byte, n)
		}
		key = key[:n]
		if _, err := io.ReadFull(br, key); err != nil {
			return err
		}
		fn(binary.LittleEndian.Uint64(head[:]), key)
	}
}

// appendKey encodes an item's table key exactly: for each key attribute its
// type, length and bytes, so that two keys encode alike only when DynamoDB
// would take them for one (numbers are normalised when rendered).
func appendKey(b []byte, t *mapping.Table, item mapping.Item) []byte {
	b = appendKeyValue(b, item[t.PK.Name])
	if t.SK != nil {
		b = appendKeyValue(b, item[t.SK.Name])
	}
	return b
}

func appendKeyValue(b []byte, av types.AttributeValue) []byte {
	switch x := av.(type) {
	case *types.AttributeValueMemberS:
		b = binary.AppendUvarint(append(b, 'S'), uint64(len(x.Value)))
		return append(b, x.Value...)
	case *types.AttributeValueMemberN:
		b = binary.AppendUvarint(append(b, 'N'), uint64(len(x.Value)))
		return append(b, x.Value...)
	case *types.AttributeValueMemberB:
		b = binary.AppendUvarint(append(b, 'B'), uint64(len(x.Value)))
		return append(b, x.Value...)
	}
	return append(b, '?', 0)
}

// fingerprints is a set of 32-bit fingerprints of 64-bit hashes, in 4096
// shards (by the hash's top 12 bits) of linear probing, each grown on its
// own: growing one never holds two copies of the whole set. A fingerprint
// is the hash's low 32 bits (0 is stored as 1: 0 marks a free slot); two
// hashes share shard and fingerprint with odds of 1 in 2^44.
type fingerprints struct {
	shards [fpShards]fpShard
}

const (
	fpShardBits = 12
	fpShards    = 1 << fpShardBits
	fpMinSlots  = 8
)

type fpShard struct {
	slots []uint32
	n     int
}

func newFingerprints() *fingerprints { return &fingerprints{} }

// add inserts h's fingerprint and reports whether it was there already.
func (f *fingerprints) add(h uint64) bool {
	s := &f.shards[h>>(64-fpShardBits)]
	fp := uint32(h)
	if fp == 0 {
		fp = 1
	}
	if s.slots == nil {
		s.slots = make([]uint32, fpMinSlots)
	}
	if s.has(fp) {
		return true
	}
	if (s.n+1)*4 > len(s.slots)*3 { // over 3/4 full: double
		old := s.slots
		s.slots, s.n = make([]uint32, 2*len(old)), 0
		for _, x := range old {
			if x != 0 {
				s.insert(x)
			}
		}
	}
	s.insert(fp)
	return false
}

// home is a fingerprint's first slot: its bits mixed, so that fingerprints
// that differ only in high bits spread.
func (s *fpShard) home(fp uint32) int {
	return int((fp * 0x9E3779B1) >> 7 & uint32(len(s.slots)-1))
}

func (s *fpShard) has(fp uint32) bool {
	mask := len(s.slots) - 1
	for i := s.home(fp); ; i = (i + 1) & mask {
		switch s.slots[i] {
		case fp:
			return true
		case 0:
			return false
		}
	}
}

func (s *fpShard) insert(fp uint32) {
	mask := len(s.slots) - 1
	i := s.home(fp)
	for s.slots[i] != 0 {
		i = (i + 1) & mask
	}
	s.slots[i] = fp
	s.n++
}

// bytes is the memory the set holds.
func (f *fingerprints) bytes() int {
	n := 0
	for i := range f.shards {
		n += 4 * len(f.shards[i].slots)
	}
	return n
}

// collisions is the key collision check of a run, safe for the render
// workers to use at once: collShards colliders, each with its lock, an
// item going to the one its key's hash names. Two items with one key
// always meet in one shard, so each shard's exact check is the whole
// check; the shards split the held items (maxHeld), the recent keys and
// the file between them, so memory stays what one collider's is, and a
// settle reads only its shard's part of the keys.
type collisions struct {
	t      *mapping.Table
	off    bool
	hash   func([]byte) uint64
	shards []collShard
}

type collShard struct {
	mu sync.Mutex
	c  *collider
}

const collShards = 16 // a power of 2

// newCollisions returns the check for a run; off skips it (the keys are
// proven distinct).
func newCollisions(t *mapping.Table, off bool) *collisions {
	s := &collisions{t: t, off: off, hash: newKeyHash()}
	if off {
		return s
	}
	s.shards = make([]collShard, collShards)
	for i := range s.shards {
		s.shards[i].c = &collider{t: t, maxHeld: maxHeld / collShards, recentKeys: recentKeys / 8, bufSize: 64 << 10}
	}
	return s
}

// add is collider.add across the shards; scratch is the caller's buffer
// for encoding the key. emit and collide are called with the shard's lock
// held: they must not call the check again.
func (s *collisions) add(p pending, scratch *[]byte, emit func(pending) error, collide func(p pending, earlier string) error) error {
	if s.off {
		return unchecked(p, emit)
	}
	*scratch = appendKey((*scratch)[:0], s.t, p.item)
	h := s.hash(*scratch)
	// The shard from bits the fingerprints leave alone: they use the top
	// 12 bits (their own shards) and the low 32 (the fingerprint).
	sh := &s.shards[(h>>32)&(collShards-1)]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return sh.c.addHashed(p, h, *scratch, emit, collide)
}

// flush settles the items every shard holds back, at the end of the run's
// items.
func (s *collisions) flush(emit func(pending) error, collide func(pending, string) error) error {
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		err := sh.c.flush(emit, collide)
		sh.mu.Unlock()
		if err != nil {
			return err
		}
	}
	return nil
}

// close closes the shards' files.
func (s *collisions) close() {
	for i := range s.shards {
		s.shards[i].c.close()
	}
}
