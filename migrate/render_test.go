package migrate

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
	"github.com/remodel-dev/remodel/mapping/keyproof"
)

// These tests need no service: they pin the render workers and the
// collision check they share, which the integration tests only see from
// outside.

var testTable = &mapping.Table{
	Name: "t", PK: mapping.KeyAttr{Name: "PK", Type: "S"}, SK: &mapping.KeyAttr{Name: "SK", Type: "S"}, EntityAttr: "_type",
}

func item(pk string) pending {
	return pending{entity: "e", source: "id=" + pk, item: mapping.Item{
		"PK": &types.AttributeValueMemberS{Value: pk}, "SK": &types.AttributeValueMemberS{Value: "X"},
		"_type": &types.AttributeValueMemberS{Value: "e"},
	}}
}

// keyedEntity is an entity whose rows (id, k) render the key PK=k SK=X: a
// key the mapping cannot prove distinct, so the collision check is on.
func keyedEntity(t *testing.T) *mapping.Entity {
	t.Helper()
	schema := &introspect.Schema{Engine: introspect.Postgres, Database: "test", Tables: []*introspect.Table{{
		Schema: "public", Name: "t", PrimaryKey: []string{"id"},
		Columns: []*introspect.Column{{Name: "id", Type: "bigint", Kind: introspect.KindInt}, {Name: "k", Type: "text", Kind: introspect.KindString}},
	}}}
	f, err := mapping.Parse("m.yaml", []byte("version: 1\ntable:\n  name: tbl\n  key: {pk: PK, sk: SK}\nentities:\n  e:\n    from: t\n    pk: \"{k}\"\n    sk: X\n"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := mapping.Compile(f, schema)
	if err != nil {
		t.Fatal(err)
	}
	if keyproof.Prove(p).Proven {
		t.Fatal("the test mapping's keys are proven distinct: the check would be off")
	}
	return p.Entities[0]
}

// renderRun is what the render workers made of some reads: the batches,
// the rejections and the counters.
type renderRun struct {
	batches [][]pending
	rej     *rejects
	c       *counters
}

// runRender feeds reads (each a list of keys, read in order; a row's id is
// its read and place, "r.i") to workers render workers at once, through
// the collision check (weak: a hash of 14 bits, so that the check looks
// almost every key up in its file and tells distinct keys of one hash
// apart).
func runRender(t *testing.T, reads [][]string, workers int, weak bool) renderRun {
	t.Helper()
	e := keyedEntity(t)
	ctx := context.Background()
	run := renderRun{c: &counters{perEntity: map[string]*entityCounters{"e": {}}}, rej: &rejects{max: 1 << 40}}
	coll := newCollisions(testTable, false, 0)
	defer coll.close()
	if weak {
		h := newKeyHash()
		coll.hash = func(b []byte) uint64 { return h(b) & (0xf<<32 | 0x3ff) } // 16 shards of 1 024 hashes
	}
	chunks := make(chan *rowChunk, 2)
	batches := make(chan []pending, 4)
	o := Options{Plan: &mapping.Plan{Table: *testTable}, RenderWorkers: workers}
	errc := make(chan error, 2)
	go func() {
		defer close(batches)
		errc <- renderAll(ctx, o, chunks, coll, batches, run.rej, run.c)
	}()
	go func() {
		defer close(chunks)
		var wg sync.WaitGroup
		errs := make([]error, len(reads))
		for r, keys := range reads {
			wg.Add(1)
			go func() {
				defer wg.Done()
				k := newChunker(chunks, coll)
				for i, key := range keys {
					if errs[r] = k.add(ctx, chunkRow{e: e, row: []any{int64(r*1_000_000 + i), key}}); errs[r] != nil {
						return
					}
				}
				errs[r] = k.flush(ctx)
			}()
		}
		wg.Wait()
		errc <- errors.Join(errs...)
	}()
	for b := range batches {
		run.batches = append(run.batches, b)
	}
	for range 2 {
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}
	return run
}

// pk is an item's key text.
func pk(p pending) string { return p.item["PK"].(*types.AttributeValueMemberS).Value }

// TestRenderBatches: every item is in one batch of at most MaxBatch; only
// each worker's last batch and the check's last one may be partial; with
// one worker and one read the items keep the read's order.
func TestRenderBatches(t *testing.T) {
	for _, workers := range []int{1, 4} {
		for _, n := range []int{0, 1, 24, 25, 26, 50, 51, 1000} {
			keys := make([]string, n)
			for i := range keys {
				keys[i] = fmt.Sprint(i)
			}
			run := runRender(t, [][]string{keys}, workers, false)
			var got []string
			partial := 0
			for _, b := range run.batches {
				if len(b) == 0 || len(b) > MaxBatch {
					t.Errorf("%d workers, %d items: a batch of %d items", workers, n, len(b))
				}
				if len(b) < MaxBatch {
					partial++
				}
				for _, p := range b {
					got = append(got, pk(p))
				}
			}
			if partial > workers+1 {
				t.Errorf("%d workers, %d items: %d partial batches, want at most %d", workers, n, partial, workers+1)
			}
			if workers > 1 {
				slices.SortFunc(got, func(a, b string) int { return len(a)*1e6 + strings.Compare(a, b) - len(b)*1e6 })
			}
			if !slices.Equal(got, keys) || run.rej.n != 0 {
				t.Errorf("%d workers, %d items: batched %v…, %d rejected; want every key once, in order", workers, n, head(got), run.rej.n)
			}
			if r := run.c.read.Load(); r != int64(n) || run.c.perEntity["e"].read.Load() != int64(n) {
				t.Errorf("%d workers, %d items: %d rows counted read", workers, n, r)
			}
		}
	}
}

// TestRenderCollisions: a key seen before is rejected, in the same batch
// or in a later one (naming the earlier row when it is one of its shard's
// last keys, else "an earlier row"); the first row wins.
func TestRenderCollisions(t *testing.T) {
	const n = 2000 // far more than the recent keys of all shards
	var keys []string
	for i := range n {
		keys = append(keys, fmt.Sprint(i))
	}
	// 3 is far behind; n-10 is a few items behind; n-1 is in the current batch
	keys = append(keys, "3", fmt.Sprint(n-10), fmt.Sprint(n-1), fmt.Sprint(n-1))
	run := runRender(t, [][]string{keys}, 1, false)
	seen := map[string]bool{}
	total := 0
	for _, b := range run.batches {
		for _, p := range b {
			k := testTable.KeyString(p.item)
			if seen[k] {
				t.Errorf("key %s sent twice", k)
			}
			seen[k] = true
		}
		total += len(b)
	}
	if total != n || run.rej.n != 4 || run.c.rejected.Load() != 4 || run.c.perEntity["e"].rejected.Load() != 4 {
		t.Fatalf("%d items batched, %d rejected (counters %d, %d); want %d and 4", total, run.rej.n, run.c.rejected.Load(), run.c.perEntity["e"].rejected.Load(), n)
	}
	want := []Rejection{
		{Row: "id=2000", Reason: "key collision: renders the same key PK=3 SK=X as an earlier row"},
		{Row: "id=2001", Reason: fmt.Sprintf("key collision: renders the same key PK=%d SK=X as entity e row id=%d", n-10, n-10)},
		{Row: "id=2002", Reason: fmt.Sprintf("key collision: renders the same key PK=%d SK=X as entity e row id=%d", n-1, n-1)},
		{Row: "id=2003", Reason: fmt.Sprintf("key collision: renders the same key PK=%d SK=X as entity e row id=%d", n-1, n-1)},
	}
	got := slices.Clone(run.rej.first) // a held item is settled later than the ones after it in other shards
	slices.SortFunc(got, func(a, b Rejection) int { return strings.Compare(a.Row, b.Row) })
	for i, r := range got {
		if r.Reason != want[i].Reason || r.Row != want[i].Row || r.Entity != "e" {
			t.Errorf("rejection %d: %+v, want %+v", i, r, want[i])
		}
	}
}

// TestRenderCollisionsConcurrent: several reads with keys repeated within
// and across them, rendered by several workers at once (with the real hash,
// and with a weak one that sends every key through the lookups in its
// file): every key is written exactly once and every repeat rejected,
// never a false or missed collision; within one read, the first row with
// a key the other reads do not have is the one written.
func TestRenderCollisionsConcurrent(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, weak := range []bool{false, true} {
		const nreads, perRead = 6, 3000
		reads := make([][]string, nreads)
		for r := range reads {
			for i := range perRead {
				switch x := rng.Float64(); {
				case x < 0.02: // a key of every read's
					reads[r] = append(reads[r], fmt.Sprintf("all%d", rng.IntN(50)))
				case x < 0.05 && i > 0: // a repeat within the read
					reads[r] = append(reads[r], reads[r][rng.IntN(i)])
				default:
					reads[r] = append(reads[r], fmt.Sprintf("r%dk%d", r, i))
				}
			}
		}
		run := runRender(t, reads, 4, weak)
		distinct := map[string]bool{}
		for _, keys := range reads {
			for _, k := range keys {
				distinct[k] = true
			}
		}
		written := map[string]string{} // key: its row's id
		for _, b := range run.batches {
			inBatch := map[string]bool{}
			for _, p := range b {
				k := pk(p)
				if _, ok := written[k]; ok {
					t.Fatalf("weak %v: key %s written twice", weak, k)
				}
				if inBatch[k] {
					t.Fatalf("weak %v: key %s twice in one batch", weak, k)
				}
				inBatch[k] = true
				written[k] = p.sourceKey()
			}
		}
		total := nreads * perRead
		if len(written) != len(distinct) || run.rej.n != int64(total-len(distinct)) || run.c.rejected.Load() != run.rej.n {
			t.Fatalf("weak %v: %d keys written of %d, %d rejected (counter %d), want %d", weak, len(written), len(distinct), run.rej.n, run.c.rejected.Load(), total-len(distinct))
		}
		for r, keys := range reads {
			first := map[string]int{}
			for i, k := range keys {
				if _, ok := first[k]; !ok && !strings.HasPrefix(k, "all") {
					first[k] = i
				}
			}
			for k, i := range first {
				if want := fmt.Sprintf("id=%d", r*1_000_000+i); written[k] != want {
					t.Fatalf("weak %v: key %s written from row %s, want its first row %s", weak, k, written[k], want)
				}
			}
		}
	}
}

// TestRenderStopsOnCancel: a worker waiting to send a full batch nobody
// takes returns when the run stops. The test runs in a synctest bubble:
// synctest.Wait returns once the worker is durably blocked, which is the
// send (nothing else can block it), and the wait for its end runs on the
// bubble's clock, so a worker deaf to the context fails it at once.
func TestRenderStopsOnCancel(t *testing.T) {
	e := keyedEntity(t)
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		c := &counters{perEntity: map[string]*entityCounters{"e": {}}}
		coll := newCollisions(testTable, true, 0)
		chunks := make(chan *rowChunk, 1)
		k := newChunker(chunks, coll)
		for i := range MaxBatch {
			if err := k.add(ctx, chunkRow{e: e, row: []any{int64(i), fmt.Sprint(i)}}); err != nil {
				t.Fatal(err)
			}
		}
		if err := k.flush(ctx); err != nil {
			t.Fatal(err)
		}
		errc := make(chan error, 1)
		go func() {
			errc <- newRenderer(testTable, coll, &rejects{}, c, make(chan []pending)).run(ctx, chunks)
		}()
		synctest.Wait() // the worker waits to send a full batch nobody takes
		if len(chunks) != 0 {
			t.Fatal("the worker is blocked before it took the chunk")
		}
		cancel()
		select {
		case err := <-errc:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("err = %v, want context.Canceled", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("the render worker does not watch the context while sending")
		}
	})
}

func TestTooManyRejects(t *testing.T) {
	r := &rejects{max: 2}
	for i := range 3 {
		err := r.add(Rejection{Entity: "e", Row: fmt.Sprintf("id=%d", i), Reason: "bad"})
		if (err != nil) != (i == 2) {
			t.Fatalf("rejection %d: err = %v", i, err)
		}
		if err != nil && (!errors.Is(err, errTooManyRejects) || !strings.Contains(err.Error(), "exceeded --max-rejects 2 (3 rejected; the last: entity e, row id=2: bad)")) {
			t.Errorf("err = %v", err)
		}
	}
}
