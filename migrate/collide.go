package migrate

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/keyset"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
	"github.com/remodel-dev/remodel/mapping/keyproof"
)

// The key collision check: a row whose item has the table key of an earlier
// row's item is rejected (naming the key), instead of its put silently
// replacing the earlier item; the first row wins.
//
// When the mapping proves that no two rows can render the same key
// (keyproof.Prove), or the snapshot's data completes the
// proof (keyCheck), the check is skipped: it costs nothing.
// Otherwise its keys go into a keyset.Set (internal/keyset), exact and in
// memory bounded whatever their number (Options.KeyCheckMemory, 64 MiB by
// default, split between 16 shards): every key is appended, exactly
// (attribute types, lengths and bytes, appendKey), to a temporary file;
// in memory a Bloom filter clears almost every new key at once, and a key
// it cannot clear is looked up by its 64-bit hash in a table of the last
// keys and in sorted runs on disk, then compared byte for byte with the
// file. Only a key found equal is a collision: never a false one, never a
// missed one, and no item waits for the answer. The cost of more keys
// than the memory suits is time (more keys looked up on disk), never
// memory; the report's key_check says how many.
//
// keyCheck decides whether the run needs the collision check and says so
// in the report. Where the static proof leaves only conditions on the data
// (a text column that may hold the separator after it: keyproof.DataCheck),
// it asks the source through readers of the run's snapshot (idle then),
// before any row is read: when no row holds the separator, the keys of
// every row this run reads are distinct and the check is skipped ("proven on the data of
// this snapshot"). A resumed run has a new snapshot and asks again. A
// statement the source refuses leaves the check on, with the reason, and
// so does a snapshot whose readers do not share one cut (apart, its
// warning: MySQL without the global read lock): the rows are read by
// other readers than the one asked, in snapshots of their own.
func keyCheck(ctx context.Context, o *Options, rep *Report, readers []source.Reader, apart string) error {
	if o.KeyCheckAlways {
		o.keysDistinct = false
		rep.KeysDistinct, rep.KeyCheckForced = false, true
		return nil
	}
	proof := keyproof.Prove(o.Plan)
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
		var checked keyproof.Proof
		if err == nil {
			checked, err = proof.CheckData("of this snapshot", func(d keyproof.DataCheck) (bool, error) {
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

// A collider is one shard of the check (collisions): used by one goroutine
// at a time, under its shard's lock. Its keys are in a keyset.Set: exact,
// in memory bounded whatever the number of keys (what grows is on disk),
// made when the first key comes.
type collider struct {
	t      *mapping.Table
	off    bool                // proven unnecessary
	hash   func([]byte) uint64 // of an encoded key (tests put a weak one in)
	memory int64               // the set's Options.Memory (its files go to $TMPDIR)

	set *keyset.Set
	// refused holds the keys (encoded) of items DynamoDB refused: in the
	// set, but no item has them; the next item with one is written.
	refused map[string]bool

	recent     []recentKey // the last keys accepted, a ring, to name the earlier row
	recentNext int

	key []byte // scratch for encoding a key
}

type recentKey struct {
	hash uint64
	p    pending
	ok   bool
}

const recentKeys = 256 // keys remembered to name the earlier row of a collision (all shards together)

// newCollider returns the collision check of one goroutine (tests); off
// skips it (the keys are proven distinct).
func newCollider(t *mapping.Table, off bool) *collider {
	return &collider{t: t, off: off, hash: newKeyHash(), memory: keyset.DefaultMemory, recent: make([]recentKey, recentKeys)}
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

// add takes the next item. It calls emit when the item may be written (no
// earlier item has its key), or collide, with the earlier row's name when
// it is one of the last keys accepted ("" when not). Every item is decided
// at once: none is held back.
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
	if c.set == nil {
		set, err := keyset.New(keyset.Options{Memory: c.memory})
		if err != nil {
			return fmt.Errorf("migrate: the key collision check: %w", err)
		}
		c.set = set
	}
	if p.seen {
		if err := c.set.Insert(h, key); err != nil {
			return fmt.Errorf("migrate: the key collision check: %w", err)
		}
		c.remember(h, p)
		return nil
	}
	seen, err := c.set.Add(h, key)
	if err != nil {
		return fmt.Errorf("migrate: the key collision check: %w", err)
	}
	if seen && c.refused[string(key)] {
		delete(c.refused, string(key))
		c.remember(h, p)
		return emit(p)
	}
	if seen {
		earlier := ""
		if prev, ok := c.recentMatch(h, key); ok {
			earlier = rowName(prev)
		}
		return collide(p, earlier)
	}
	c.remember(h, p)
	return emit(p)
}

func rowName(p pending) string { return "entity " + p.entity + " row " + p.sourceKey() }

// remember puts an accepted item among the recent ones.
func (c *collider) remember(h uint64, p pending) {
	c.recent[c.recentNext] = recentKey{hash: h, p: p, ok: true}
	c.recentNext = (c.recentNext + 1) % len(c.recent)
}

// recentMatch finds the recent item with this key (looked for only on a
// collision: rarely).
func (c *collider) recentMatch(h uint64, key []byte) (pending, bool) {
	for _, r := range c.recent {
		if r.ok && r.hash == h && bytes.Equal(appendKey(nil, c.t, r.p.item), key) {
			return r.p, true
		}
	}
	return pending{}, false
}

// stats returns the figures of the collider's set (zero before its first
// key).
func (c *collider) stats() keyset.Stats {
	if c.set == nil {
		return keyset.Stats{}
	}
	return c.set.Stats()
}

// close gives back the set's memory and closes its files (removed when
// made), freeing their space.
func (c *collider) close() error {
	if c.set == nil {
		return nil
	}
	err := c.set.Close()
	c.set = nil
	return err
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

// collisions is the key collision check of a run, safe for the render
// workers to use at once: collShards colliders, each with its lock, an
// item going to the one its key's hash names. Two items with one key
// always meet in one shard, so each shard's exact check is the whole
// check; the shards split the memory (Options.KeyCheckMemory) and the
// recent keys between them.
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

// newCollisions returns the check for a run, in memory bytes (0:
// keyset.DefaultMemory); off skips it (the keys are proven distinct).
func newCollisions(t *mapping.Table, off bool, memory int64) *collisions {
	s := &collisions{t: t, off: off, hash: newKeyHash()}
	if off {
		return s
	}
	if memory == 0 {
		memory = keyset.DefaultMemory
	}
	s.shards = make([]collShard, collShards)
	for i := range s.shards {
		s.shards[i].c = &collider{t: t, memory: memory / collShards, recent: make([]recentKey, recentKeys/collShards)}
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
	sh := s.shard(h)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return sh.c.addHashed(p, h, *scratch, emit, collide)
}

// shard is the shard of a key's hash, from bits the set's table leaves
// alone (it starts at the low ones; its filter mixes all 64).
func (s *collisions) shard(h uint64) *collShard {
	return &s.shards[(h>>32)&(collShards-1)]
}

// refused tells the check that DynamoDB refused the item (its row is
// rejected): no item has its key, so the next item with that key is not a
// collision. An item checked before the refusal comes back was already
// rejected as one (both rows are reported: the refused one with DynamoDB's
// message, the other as a collision with it).
func (s *collisions) refused(item mapping.Item) {
	if s.off {
		return
	}
	key := appendKey(nil, s.t, item)
	sh := s.shard(s.hash(key))
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.c.refused == nil {
		sh.c.refused = map[string]bool{}
	}
	sh.c.refused[string(key)] = true
}

// stats sums the shards' figures.
func (s *collisions) stats() keyset.Stats {
	var t keyset.Stats
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		st := sh.c.stats()
		sh.mu.Unlock()
		t.Keys += st.Keys
		t.MemoryBytes += st.MemoryBytes
		t.DiskBytes += st.DiskBytes
		t.Lookups += st.Lookups
		t.Runs += st.Runs
	}
	return t
}

// close closes the shards' sets.
func (s *collisions) close() error {
	var errs []error
	for i := range s.shards {
		errs = append(errs, s.shards[i].c.close())
	}
	return errors.Join(errs...)
}
