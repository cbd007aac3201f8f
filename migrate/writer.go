package migrate

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/backoff"
	"github.com/remodel-dev/remodel/mapping"
)

// MaxBatch is BatchWriteItem's limit on items per request.
const MaxBatch = 25

// Backoff is the retry policy for one batch: capped exponential backoff with
// full jitter, until Deadline has passed since the batch's first attempt.
type Backoff = backoff.Policy

// DefaultBackoff retries for up to two minutes, waiting at most 5 s at a time.
var DefaultBackoff = backoff.Default

// pending is one rendered item on its way to DynamoDB.
type pending struct {
	item   mapping.Item
	entity string
	source string // the row's source key
}

// counters are the pipeline's running totals, updated concurrently.
type counters struct {
	read, written, rejected, retries, throttled atomic.Int64
	mu                                          sync.Mutex
	units                                       float64
	perEntity                                   map[string]*entityCounters
}

type entityCounters struct {
	read, written, rejected atomic.Int64
}

var (
	retryables = retry.IsErrorRetryables(retry.DefaultRetryables)
	throttles  = retry.IsErrorThrottles(retry.DefaultThrottles)
)

// writer sends batches with BatchWriteItem and retries what DynamoDB leaves
// unprocessed.
type writer struct {
	db      *dynamodb.Client
	table   *mapping.Table
	name    string
	backoff Backoff
	c       *counters
}

func (w *writer) write(ctx context.Context, batch []pending) error {
	reqs := make([]types.WriteRequest, len(batch))
	for i, p := range batch {
		reqs[i] = types.WriteRequest{PutRequest: &types.PutRequest{Item: p.item}}
	}
	first := time.Now()
	for attempt := 1; ; attempt++ {
		out, err := w.db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{
			RequestItems:           map[string][]types.WriteRequest{w.name: reqs},
			ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
		}, func(o *dynamodb.Options) { o.Retryer = aws.NopRetryer{} }) // retries are ours, below
		switch {
		case err == nil:
			w.account(out.ConsumedCapacity)
			left := out.UnprocessedItems[w.name]
			done := len(reqs) - len(left)
			w.c.written.Add(int64(done))
			w.countEntities(reqs, left)
			if len(left) == 0 {
				return nil
			}
			reqs = left
		case ctx.Err() != nil:
			return ctx.Err()
		case retryables.IsErrorRetryable(err) == aws.TrueTernary || throttles.IsErrorThrottle(err) == aws.TrueTernary:
			if throttles.IsErrorThrottle(err) == aws.TrueTernary {
				w.c.throttled.Add(1)
			}
		default:
			return fmt.Errorf("migrate: writing %d items (%s): %w", len(reqs), w.keys(reqs), err)
		}
		if time.Since(first) > w.backoff.Deadline {
			reason := "left unprocessed"
			if err != nil {
				reason = err.Error()
			}
			return fmt.Errorf("migrate: %d items still not written after retrying for %s (%s): %s", len(reqs), w.backoff.Deadline, w.keys(reqs), reason)
		}
		w.c.retries.Add(1)
		t := time.NewTimer(w.backoff.Delay(attempt))
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// countEntities credits the written items (reqs minus left) to their entities.
func (w *writer) countEntities(reqs, left []types.WriteRequest) {
	if w.c.perEntity == nil {
		return
	}
	// left is a subset of reqs: what each entity got written is its share of
	// reqs minus its share of left.
	for _, r := range reqs {
		if ec := w.entityOf(r); ec != nil {
			ec.written.Add(1)
		}
	}
	for _, r := range left {
		if ec := w.entityOf(r); ec != nil {
			ec.written.Add(-1)
		}
	}
}

func (w *writer) entityOf(r types.WriteRequest) *entityCounters {
	if s, ok := r.PutRequest.Item[w.table.EntityAttr].(*types.AttributeValueMemberS); ok {
		return w.c.perEntity[s.Value]
	}
	return nil
}

func (w *writer) account(cc []types.ConsumedCapacity) {
	w.c.mu.Lock()
	defer w.c.mu.Unlock()
	for _, c := range cc {
		w.c.units += aws.ToFloat64(c.CapacityUnits)
	}
}

// keys names up to five items by their key, for error messages.
func (w *writer) keys(reqs []types.WriteRequest) string {
	var out []string
	for i, r := range reqs {
		if i == 5 {
			out = append(out, fmt.Sprintf("and %d more", len(reqs)-5))
			break
		}
		out = append(out, w.table.KeyString(r.PutRequest.Item))
	}
	return strings.Join(out, "; ")
}

var errTooManyRejects = errors.New("too many rejected rows")
