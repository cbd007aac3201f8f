package migrate

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/mapping"
)

// These tests need no service: they pin the batcher, which the integration
// tests only see from outside.

var testTable = &mapping.Table{
	Name: "t", PK: mapping.KeyAttr{Name: "PK", Type: "S"}, SK: &mapping.KeyAttr{Name: "SK", Type: "S"}, EntityAttr: "_type",
}

func item(pk string) pending {
	return pending{entity: "e", source: "id=" + pk, item: mapping.Item{
		"PK": &types.AttributeValueMemberS{Value: pk}, "SK": &types.AttributeValueMemberS{Value: "X"},
		"_type": &types.AttributeValueMemberS{Value: "e"},
	}}
}

// runBatcher feeds keys through the batcher and returns the batches and the
// rejections.
func runBatcher(t *testing.T, keys []string) ([][]pending, *rejects, *counters) {
	t.Helper()
	c := &counters{perEntity: map[string]*entityCounters{"e": {}}}
	rej := &rejects{max: 1000}
	items := make(chan pending)
	batches := make(chan []pending)
	errc := make(chan error, 1)
	go func() {
		defer close(batches)
		errc <- batcher(context.Background(), testTable, false, items, batches, rej, c)
	}()
	go func() {
		defer close(items)
		for _, k := range keys {
			items <- item(k)
		}
	}()
	var out [][]pending
	for b := range batches {
		out = append(out, b)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	return out, rej, c
}

func TestBatcherSizes(t *testing.T) {
	for _, n := range []int{0, 1, 24, 25, 26, 50, 51, 1000} {
		keys := make([]string, n)
		for i := range keys {
			keys[i] = fmt.Sprint(i)
		}
		batches, rej, _ := runBatcher(t, keys)
		total := 0
		for i, b := range batches {
			if len(b) == 0 || len(b) > MaxBatch || (i < len(batches)-1 && len(b) != MaxBatch) {
				t.Errorf("%d items: batch %d has %d items", n, i, len(b))
			}
			for j, p := range b {
				if want := fmt.Sprint(total + j); p.source != "id="+want {
					t.Errorf("%d items: batch %d item %d is %s, want id=%s (in order)", n, i, j, p.source, want)
				}
			}
			total += len(b)
		}
		if total != n || rej.n != 0 {
			t.Errorf("%d items: %d batched, %d rejected", n, total, rej.n)
		}
	}
}

// TestBatcherCollisions: a key seen before is rejected, in the same batch
// or in a later one (naming the earlier row when it is one of the last
// recentKeys, else "an earlier row"); the first row wins.
func TestBatcherCollisions(t *testing.T) {
	var keys []string
	for i := range recentKeys + 60 {
		keys = append(keys, fmt.Sprint(i))
	}
	// 3 is further back than the recent keys; 300 is batches behind; 315 is in the current batch
	keys = append(keys, "3", "300", "315", "315")
	batches, rej, c := runBatcher(t, keys)
	seen := map[string]bool{}
	total := 0
	for _, b := range batches {
		for _, p := range b {
			k := testTable.KeyString(p.item)
			if seen[k] {
				t.Errorf("key %s sent twice", k)
			}
			seen[k] = true
		}
		total += len(b)
	}
	if total != recentKeys+60 || rej.n != 4 || c.rejected.Load() != 4 || c.perEntity["e"].rejected.Load() != 4 {
		t.Fatalf("%d items batched, %d rejected (counters %d, %d); want %d and 4", total, rej.n, c.rejected.Load(), c.perEntity["e"].rejected.Load(), recentKeys+60)
	}
	want := []string{
		"key collision: renders the same key PK=3 SK=X as an earlier row",
		"key collision: renders the same key PK=300 SK=X as entity e row id=300",
		"key collision: renders the same key PK=315 SK=X as entity e row id=315",
		"key collision: renders the same key PK=315 SK=X as entity e row id=315",
	}
	for i, r := range rej.first {
		if r.Reason != want[i] || r.Entity != "e" {
			t.Errorf("rejection %d: %+v, want reason %q", i, r, want[i])
		}
	}
}

func TestBatcherStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	c := &counters{perEntity: map[string]*entityCounters{"e": {}}}
	items := make(chan pending, MaxBatch)
	for i := range MaxBatch {
		items <- item(fmt.Sprint(i))
	}
	errc := make(chan error, 1)
	go func() { errc <- batcher(ctx, testTable, false, items, make(chan []pending), &rejects{}, c) }()
	time.Sleep(20 * time.Millisecond) // the batcher now waits to send a full batch nobody takes
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the batcher does not watch the context while sending")
	}
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
