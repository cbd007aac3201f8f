package verify

import (
	"context"
	"crypto/sha256"
	"fmt"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/av"
	"github.com/remodel-dev/remodel/internal/dynamo"
	"github.com/remodel-dev/remodel/internal/progress"
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
		if v.t.IsLock(it) { // a migrate run's lock item (mapping.LockKeyText) is no item of the data
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
	if v.keys == nil || v.keys.unclaimed(v.skipStray) == 0 {
		return nil
	}
	var mu sync.Mutex
	return v.scan(ctx, func(it map[string]types.AttributeValue) {
		key := v.t.KeyString(it)
		i, ok := v.keys.unclaimedEntity(key)
		if !ok || v.skipStray(i) {
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

// keySet holds a digest of every item key of the table (about 40 bytes an
// item), with the item's entity, whether the scan met it, and whether a
// source row claimed it. The scan and the item check run side by side, so
// either may meet a key first; the item check claims only keys of items it
// read from the table, so the set holds no more keys than the table.
type keySet struct {
	mu sync.Mutex
	m  map[[16]byte]keyState
}

type keyState struct {
	entity  int32
	scanned bool // the scan met the item
	claimed bool
}

func newKeySet() *keySet { return &keySet{m: map[[16]byte]keyState{}} }

func digest(key string) [16]byte {
	sum := sha256.Sum256([]byte(key))
	return [16]byte(sum[:16])
}

// add records an item the scan met.
func (s *keySet) add(key string, entity int) {
	d := digest(key)
	s.mu.Lock()
	st := s.m[d]
	st.entity, st.scanned = int32(entity), true
	s.m[d] = st
	s.mu.Unlock()
}

// claim marks key claimed and says whether the scan met it and it was not
// claimed before (meaningful once the scan is over).
func (s *keySet) claim(key string) bool {
	d := digest(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.m[d]
	was := st.claimed
	st.claimed = true
	s.m[d] = st
	return st.scanned && !was
}

// unclaimed counts the keys the scan met that no row claimed, of entities
// skip does not leave out.
func (s *keySet) unclaimed(skip func(int) bool) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, st := range s.m {
		if st.scanned && !st.claimed && !skip(int(st.entity)) {
			n++
		}
	}
	return n
}

// unclaimedEntity says whether the scan met key and no row claimed it, and
// its entity.
func (s *keySet) unclaimedEntity(key string) (int, bool) {
	d := digest(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.m[d]
	return int(st.entity), ok && st.scanned && !st.claimed
}
