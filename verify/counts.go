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
	"golang.org/x/sync/errgroup"
)

// scanSegments is how many parallel Scan segments read the table.
const scanSegments = 4

// counts compares source row counts (less accepted rejects) with item counts
// per entity, and finds items that belong to no entity. A count whose SQL
// fails fails that entity's count check; the run goes on.
func (v *verifier) counts(ctx context.Context, rep *Report) error {
	idx := map[string]int{}
	for i, e := range v.o.Plan.Entities {
		idx[e.Name] = i
	}
	per := map[string]int64{}
	var mu sync.Mutex
	scanned := v.scanPhase()
	err := v.scan(ctx, func(it map[string]types.AttributeValue) {
		scanned.Counter(0).Add(1)
		if v.t.IsLock(it) { // a migrate run's lock item (mapping.LockKeyText) is no item of the data
			return
		}
		name := entityOf(it, v.t.EntityAttr)
		i, known := idx[name]
		mu.Lock()
		defer mu.Unlock()
		if !known {
			key := v.t.KeyString(it)
			rep.Stray.Add(Problem{Kind: KindStray, Key: key,
				Message: fmt.Sprintf("item %s belongs to no entity of the mapping (%s %s)", key, v.t.EntityAttr, quoteEntity(it, v.t.EntityAttr))})
			return
		}
		per[name]++
		if v.keys != nil {
			v.keys.add(v.t.KeyString(it), i)
		}
	})
	scanned.End(err == nil)
	if err != nil {
		return err
	}
	counted := v.countPhase()
	defer func() { counted.End(ctx.Err() == nil) }()
	for _, e := range v.o.Plan.Entities {
		cc := CountCheck{Entity: e.Name, Items: per[e.Name], Problems: v.problems()}
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
			if want := n - cc.Rejected; want != cc.Items {
				msg := fmt.Sprintf("entity %s: %d source rows, the table holds %d items", e.Name, n, cc.Items)
				if cc.Rejected > 0 {
					msg = fmt.Sprintf("entity %s: %d source rows - %d accepted rejects = %d, the table holds %d items", e.Name, n, cc.Rejected, want, cc.Items)
				}
				cc.Problems.Add(Problem{Kind: KindCount, Entity: e.Name, Want: fmt.Sprint(want), Got: fmt.Sprint(cc.Items), Message: msg})
			}
		}
		cc.OK = cc.Problems.OK()
		rep.Counts = append(rep.Counts, cc)
		counted.Counter(0).Add(1)
	}
	return nil
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
	g, gctx := errgroup.WithContext(ctx)
	for seg := range scanSegments {
		g.Go(func() error {
			p := dynamodb.NewScanPaginator(v.o.DB, &dynamodb.ScanInput{
				TableName:                aws.String(v.o.Table),
				ProjectionExpression:     expr.Projection(),
				ExpressionAttributeNames: expr.Names(),
				Segment:                  aws.Int32(int32(seg)),
				TotalSegments:            aws.Int32(scanSegments),
				ConsistentRead:           aws.Bool(true),
			})
			for p.HasMorePages() {
				page, err := p.NextPage(gctx)
				if err != nil {
					return fmt.Errorf("verify: scanning %s: %w", v.o.Table, err)
				}
				for _, it := range page.Items {
					fn(it)
				}
			}
			return nil
		})
	}
	return g.Wait()
}

func entityOf(it map[string]types.AttributeValue, attr string) string {
	if s, ok := it[attr].(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}

func quoteEntity(it map[string]types.AttributeValue, attr string) string {
	if av, ok := it[attr]; ok {
		return Text(av)
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
// item), with the item's entity and whether a source row claimed it.
type keySet struct {
	mu sync.Mutex
	m  map[[16]byte]keyState
}

type keyState struct {
	entity  int32
	claimed bool
}

func newKeySet() *keySet { return &keySet{m: map[[16]byte]keyState{}} }

func digest(key string) [16]byte {
	sum := sha256.Sum256([]byte(key))
	return [16]byte(sum[:16])
}

func (s *keySet) add(key string, entity int) {
	d := digest(key)
	s.mu.Lock()
	s.m[d] = keyState{entity: int32(entity)}
	s.mu.Unlock()
}

// claim marks key claimed and says whether the table holds it and it was
// not claimed before.
func (s *keySet) claim(key string) bool {
	d := digest(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.m[d]
	if !ok || st.claimed {
		return false
	}
	st.claimed = true
	s.m[d] = st
	return true
}

func (s *keySet) unclaimed(skip func(int) bool) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, st := range s.m {
		if !st.claimed && !skip(int(st.entity)) {
			n++
		}
	}
	return n
}

func (s *keySet) unclaimedEntity(key string) (int, bool) {
	d := digest(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.m[d]
	return int(st.entity), ok && !st.claimed
}
