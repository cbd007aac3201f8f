package migrate

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/sink/batchwrite"
	"github.com/remodel-dev/remodel/internal/testsupport/faultproxy"
	"github.com/remodel-dev/remodel/mapping"
)

// sized is an item of exactly size bytes as DynamoDB counts them.
func sized(t *testing.T, pk string, size int) pending {
	t.Helper()
	p := item(pk)
	base := mapping.ItemSize(p.item) + len("v")
	p.item["v"] = &types.AttributeValueMemberS{Value: strings.Repeat("x", size-base)}
	if got := mapping.ItemSize(p.item); got != size {
		t.Fatalf("item of %d bytes, want %d", got, size)
	}
	return p
}

// TestWriterAsksUnits: the writer asks the rate limit for the units of
// every item of every attempt, the items DynamoDB left unprocessed again
// when they are sent again.
func TestWriterAsksUnits(t *testing.T) {
	_, db, name, proxy := refusedSetup(t, faultproxy.Rule{Fault: faultproxy.Unprocessed, Prob: 0.7, Keep: 0.5, Random: true})
	w, cnt := refusedWriter(db, name, &rejects{})
	w.cfg.Limit = batchwrite.NewRateLimit(1<<40, time.Now())
	w.remake()
	var batch []pending
	for i := range MaxBatch {
		p := sized(t, string(rune('A'+i)), 1500) // 2 units each
		p.entity = "a"
		batch = append(batch, p)
	}
	if err := w.write(context.Background(), batch); err != nil {
		t.Fatal(err)
	}
	s := proxy.Stats()
	if s.UnprocessedItems == 0 {
		t.Fatal("the proxy left nothing unprocessed: the test does not exercise retries")
	}
	if want := int64(2 * (MaxBatch + s.UnprocessedItems)); w.cfg.Limit.Requested() != want {
		t.Errorf("the writer asked for %d units; the %d items sent (%d of them again) are %d", w.cfg.Limit.Requested(), MaxBatch+s.UnprocessedItems, s.UnprocessedItems, want)
	}
	if cnt.written.Load() != MaxBatch {
		t.Errorf("%d items written, want %d", cnt.written.Load(), MaxBatch)
	}
}
