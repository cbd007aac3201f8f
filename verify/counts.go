package verify

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/av"
	"github.com/remodel-dev/remodel/internal/domain/dynamo"
	"github.com/remodel-dev/remodel/internal/domain/keyset"
	"github.com/remodel-dev/remodel/internal/domain/progress"
)

// sourceCounts counts the source rows of every entity (less its accepted
// rejects) into rep.Counts; a count whose SQL fails fails that entity's
// count check (and leaves its items uncompared), and the run goes on. The
// items of the table are counted by scanTable, and the two compared by
// compareCounts.
func (v *verifier) sourceCounts(ctx context.Context, rep *Report) error {
	counted := v.countPhase()
	defer func() { counted.End(ctx.Err() == nil) }()
	for _, e := range v.o.Plan.Entities {
		cc := CountCheck{Entity: e.Name, Problems: v.problems()}
		if v.o.Rejects != nil {
			cc.Rejected = v.o.Rejects.count(e.Name)
		}
		var n int64
		err := v.r.Guard(ctx, func() error {
			var err error
			n, err = v.r.Count(ctx, e.Table, e.Where)
			return err
		})
		switch {
		case err != nil && ctx.Err() != nil:
			return ctx.Err()
		case err != nil:
			v.countFailed[e.Name] = true
			cc.Problems.Add(Problem{Kind: KindCheckError, Entity: e.Name, Message: fmt.Sprintf("counting the rows of entity %s: %v", e.Name, err)})
		default:
			cc.Source = n
		}
		rep.Counts = append(rep.Counts, cc)
		counted.Counter(0).Add(1)
	}
	return nil
}

// scanTable reads the key of every item of the table: it counts the items
// of each entity (into v.items), names the items that belong to no entity
// (rep.Stray), and adds every key to v.keys for the stray check. It runs
// beside the item check, which touches neither rep.Stray nor v.items.
func (v *verifier) scanTable(ctx context.Context, rep *Report, scanned *progress.Phase) error {
	idx := map[string]int{}
	for i, e := range v.o.Plan.Entities {
		idx[e.Name] = i
	}
	per := make([]int64, len(v.o.Plan.Entities))
	var mu sync.Mutex
	err := v.scan(ctx, func(it map[string]types.AttributeValue) {
		scanned.Counter(0).Add(1)
		if v.t.IsLock(it) { // a migrate run's lock item (mapping.LockKeyText), a sharded job's split plan item: no item of the data
			mu.Lock()
			v.ownItems = append(v.ownItems, v.t.KeyString(it))
			mu.Unlock()
			return
		}
		name := entityOf(it, v.t.EntityAttr)
		i, known := idx[name]
		if !known {
			key := v.t.KeyString(it)
			mu.Lock()
			defer mu.Unlock()
			rep.Stray.Add(Problem{Kind: KindStray, Key: key,
				Message: fmt.Sprintf("item %s belongs to no entity of the mapping (%s %s)", key, v.t.EntityAttr, quoteEntity(it, v.t.EntityAttr))})
			return
		}
		if v.keys != nil {
			v.keys.add(v.t.KeyString(it), i)
		}
		mu.Lock()
		per[i]++
		mu.Unlock()
	})
	scanned.End(err == nil)
	if err == nil {
		v.itemCounts = per
	}
	return err
}

// ownItemsWarning says what remodel's own items the scan met in the table
// mean ("" for none): a split plan item, a sharded job not finished; lock
// items, runs that write into the table now, or were killed.
func (v *verifier) ownItemsWarning() string {
	plan := v.t.KeyString(v.t.SplitPlanKey())
	var locks []string
	var warnings []string
	for _, k := range v.ownItems {
		if k == plan {
			warnings = append(warnings, fmt.Sprintf("the table holds a sharded migrate job's split plan item (key %s): a shard of that job has not finished, or a finished one was run again; while it is there, a shard of another --job, --ranges, mapping or n is refused (delete it once no shard of its job is left to run)", k))
		} else {
			locks = append(locks, k)
		}
	}
	if len(locks) > 0 {
		slices.Sort(locks)
		warnings = append(warnings, fmt.Sprintf("the table holds %d lock items of migrate runs (key %s): a run may be writing into the table now, so that its items differ from what verify read, or one was killed", len(locks), strings.Join(locks, ", ")))
	}
	return strings.Join(warnings, "; ")
}

// compareCounts compares each entity's source rows, less its accepted
// rejects, with the items scanTable counted.
func (v *verifier) compareCounts(rep *Report) {
	for i := range rep.Counts {
		cc := &rep.Counts[i]
		cc.Items = v.itemCounts[i]
		if want := cc.Source - cc.Rejected; !v.countFailed[cc.Entity] && want != cc.Items {
			msg := fmt.Sprintf("entity %s: %d source rows, the table holds %d items", cc.Entity, cc.Source, cc.Items)
			if cc.Rejected > 0 {
				msg = fmt.Sprintf("entity %s: %d source rows - %d accepted rejects = %d, the table holds %d items", cc.Entity, cc.Source, cc.Rejected, want, cc.Items)
			}
			cc.Problems.Add(Problem{Kind: KindCount, Entity: cc.Entity, Want: fmt.Sprint(want), Got: fmt.Sprint(cc.Items), Message: msg})
		}
		cc.OK = cc.Problems.OK()
	}
}

// scan reads the key and entity attribute of every item of the table with
// parallel segments (consistent reads); fn is called from several
// goroutines.
func (v *verifier) scan(ctx context.Context, fn func(map[string]types.AttributeValue)) error {
	proj := expression.NamesList(expression.Name(v.t.EntityAttr), expression.Name(v.t.PK.Name))
	if v.t.SK != nil {
		proj = proj.AddNames(expression.Name(v.t.SK.Name))
	}
	expr, err := expression.NewBuilder().WithProjection(proj).Build()
	if err != nil {
		return fmt.Errorf("verify: building the scan projection: %w", err)
	}
	in := dynamodb.ScanInput{
		TableName:                aws.String(v.o.Table),
		ProjectionExpression:     expr.Projection(),
		ExpressionAttributeNames: expr.Names(),
	}
	err = dynamo.ScanAll(ctx, v.o.DB, in, v.tableItems, func(page *dynamodb.ScanOutput) error {
		for _, it := range page.Items {
			fn(it)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("verify: scanning %s: %w", v.o.Table, err)
	}
	return nil
}

func entityOf(it map[string]types.AttributeValue, attr string) string {
	if s, ok := it[attr].(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}

func quoteEntity(it map[string]types.AttributeValue, attr string) string {
	if v, ok := it[attr]; ok {
		return av.Text(v)
	}
	return "missing"
}

// strays names the items of checked entities that no source row claimed:
// the item check claimed every key it found, so what is left came from no
// row. They are named by a second scan, and only when there are some.
func (v *verifier) strays(ctx context.Context, rep *Report) error {
	if v.keys == nil || len(v.keys.unclaimed) == 0 {
		return nil
	}
	var mu sync.Mutex
	return v.scan(ctx, func(it map[string]types.AttributeValue) {
		key := v.t.KeyString(it)
		i, ok := v.keys.unclaimedEntity(key)
		if !ok {
			return
		}
		e := v.o.Plan.Entities[i]
		mu.Lock()
		defer mu.Unlock()
		rep.Stray.Add(Problem{Kind: KindStray, Entity: e.Name, Key: key,
			Message: fmt.Sprintf("item %s (entity %s) comes from no source row", key, e.Name)})
	})
}

// skipStray is true for an entity whose items were not compared: its
// unclaimed keys prove nothing.
func (v *verifier) skipStray(entity int) bool {
	return v.countFailed[v.o.Plan.Entities[entity].Name]
}

// claim marks the item with this key as one a source row renders. The item
// check calls it for every item it finds; it is safe for concurrent use.
func (v *verifier) claim(key string) {
	if v.keys != nil {
		v.keys.claim(key)
	}
}

// keySet holds a digest of every item key of the table with its entity
// (the scan's side) and of every key a source row claimed (the item
// check's side), on disk (keyset.Spill), not on the heap. The scan and the
// item check run side by side, so either may meet a key first; once both
// are over, settle compares the two sides one bucket at a time and keeps
// in memory only the keys the scan met and no row claimed: the strays,
// few in a table that passes.
type keySet struct {
	scanned, claimed *keyset.Spill
	probeLimit       int64              // claimed digests held at once settling (0: keyset.DefaultProbeLimit)
	unclaimed        map[[16]byte]int32 // after settle: key digest → entity
}

func newKeySet() *keySet {
	return &keySet{scanned: keyset.NewSpill("the keys of the table's items"), claimed: keyset.NewSpill("the keys of the items found")}
}

func digest(key string) [16]byte {
	sum := sha256.Sum256([]byte(key))
	return [16]byte(sum[:16])
}

// add records an item the scan met.
func (s *keySet) add(key string, entity int) {
	var e [4]byte
	binary.LittleEndian.PutUint32(e[:], uint32(entity))
	_ = s.scanned.Add(digest(key), e[:]) // kept: settle returns it
}

// claim marks key as one a source row renders.
func (s *keySet) claim(key string) {
	_ = s.claimed.Add(digest(key), nil)
}

// settle finds the keys the scan met that no row claimed, of entities skip
// does not leave out, and closes the files. It compares the two sides one
// bucket at a time (keyset.Probe), with at most keyset.DefaultProbeLimit
// claimed digests in memory (probeLimit).
func (s *keySet) settle(skip func(int) bool) error {
	defer s.close()
	s.unclaimed = map[[16]byte]int32{}
	var rec [20]byte // the record read last: digest and entity
	read := func(r *bufio.Reader) (d [16]byte, rest []byte, err error) {
		if _, err := io.ReadFull(r, rec[:]); err != nil {
			return d, nil, err // io.EOF only at the end of the records
		}
		return [16]byte(rec[:16]), rec[16:], nil
	}
	_, err := keyset.Probe(s.claimed, s.scanned, read, s.probeLimit, func(d [16]byte, rest []byte, found bool) error {
		if entity := int32(binary.LittleEndian.Uint32(rest)); !found && !skip(int(entity)) {
			s.unclaimed[d] = entity
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("verify: comparing the table's keys with the keys found: %w", err)
	}
	return nil
}

// close frees the files.
func (s *keySet) close() {
	s.scanned.Close()
	s.claimed.Close()
}

// claimLate claims key after settle and says whether the scan met it and
// no row had claimed it.
func (s *keySet) claimLate(key string) bool {
	d := digest(key)
	_, ok := s.unclaimed[d]
	delete(s.unclaimed, d)
	return ok
}

// unclaimedEntity says whether the scan met key and no row claimed it
// (after settle), and its entity.
func (s *keySet) unclaimedEntity(key string) (int, bool) {
	e, ok := s.unclaimed[digest(key)]
	return int(e), ok
}
