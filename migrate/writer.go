package migrate

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/remodel-dev/remodel/mapping"
)

// MaxBatch is BatchWriteItem's limit on items per request.
const MaxBatch = 25

// Backoff is the retry policy for one batch: capped exponential backoff with
// full jitter, until Deadline has passed since the batch's first attempt.
type Backoff struct {
	Base     time.Duration
	Cap      time.Duration
	Deadline time.Duration
}

// DefaultBackoff retries for up to two minutes, waiting at most 5 s at a time.
var DefaultBackoff = Backoff{Base: 50 * time.Millisecond, Cap: 5 * time.Second, Deadline: 2 * time.Minute}

// delay is the wait before retry number attempt (from 1): a uniform random
// duration in [0, min(Cap, Base·2^(attempt-1))).
func (b Backoff) delay(attempt int) time.Duration {
	d := b.Cap
	if attempt < 31 {
		d = min(b.Cap, b.Base<<(attempt-1))
	}
	if d <= 0 {
		return 0
	}
	return rand.N(d)
}

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
// unprocessed. A batch DynamoDB refuses as invalid (ValidationException:
// DynamoDB then writes none of it) is split in halves until each item it
// refuses is alone: those rows are rejected with DynamoDB's message, like
// the rows rendering rejects, and the rest are written.
type writer struct {
	db      *dynamodb.Client
	table   *mapping.Table
	name    string
	backoff Backoff
	c       *counters
	rej     *rejects
}

// refusedError is DynamoDB refusing a batch as invalid; items are the ones
// not written (the whole batch, or what was left unprocessed before).
type refusedError struct {
	items []pending
	err   error
}

func (e *refusedError) Error() string { return e.err.Error() }

func (w *writer) write(ctx context.Context, batch []pending) error {
	err := w.put(ctx, batch)
	var ref *refusedError
	if !errors.As(err, &ref) {
		return err
	}
	if len(ref.items) == 1 {
		return w.reject(ref.items[0], ref.err)
	}
	half := len(ref.items) / 2
	if err := w.write(ctx, ref.items[:half]); err != nil {
		return err
	}
	return w.write(ctx, ref.items[half:])
}

// reject records an item DynamoDB refuses on its own as a rejected row.
func (w *writer) reject(p pending, err error) error {
	reason := err.Error()
	var api smithy.APIError
	if errors.As(err, &api) {
		reason = api.ErrorCode() + ": " + api.ErrorMessage()
	}
	w.c.rejected.Add(1)
	if ec := w.c.perEntity[p.entity]; ec != nil {
		ec.rejected.Add(1)
	}
	return w.rej.add(Rejection{Entity: p.entity, Row: p.source, Reason: "DynamoDB refused the item: " + reason})
}

// put writes items with BatchWriteItem, retrying what is left unprocessed,
// throttled or failed with a 5xx until the deadline. A ValidationException
// comes back as a *refusedError holding the items not written.
func (w *writer) put(ctx context.Context, items []pending) error {
	reqs := requests(items)
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
			rest, err := w.unprocessed(items, left)
			if err != nil {
				return err
			}
			w.c.written.Add(int64(len(items) - len(rest)))
			w.countEntities(items, rest)
			if len(rest) == 0 {
				return nil
			}
			items, reqs = rest, left
		case ctx.Err() != nil:
			return ctx.Err()
		case isRefused(err):
			return &refusedError{items: items, err: err}
		case retryables.IsErrorRetryable(err) == aws.TrueTernary || throttles.IsErrorThrottle(err) == aws.TrueTernary:
			if throttles.IsErrorThrottle(err) == aws.TrueTernary {
				w.c.throttled.Add(1)
			}
		default:
			return fmt.Errorf("migrate: writing %d items (%s): %w", len(items), w.keys(items), err)
		}
		if time.Since(first) > w.backoff.Deadline {
			reason := "left unprocessed"
			if err != nil {
				reason = err.Error()
			}
			return fmt.Errorf("migrate: %d items still not written after retrying for %s (%s): %s", len(items), w.backoff.Deadline, w.keys(items), reason)
		}
		w.c.retries.Add(1)
		t := time.NewTimer(w.backoff.delay(attempt))
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

func requests(items []pending) []types.WriteRequest {
	reqs := make([]types.WriteRequest, len(items))
	for i, p := range items {
		reqs[i] = types.WriteRequest{PutRequest: &types.PutRequest{Item: p.item}}
	}
	return reqs
}

// isRefused says whether DynamoDB refused the request as invalid.
func isRefused(err error) bool {
	var api smithy.APIError
	return errors.As(err, &api) && api.ErrorCode() == "ValidationException"
}

// unprocessed finds the items DynamoDB left unprocessed, by their key (one
// batch never holds two items with the same key), in the batch's order.
func (w *writer) unprocessed(items []pending, left []types.WriteRequest) ([]pending, error) {
	if len(left) == 0 {
		return nil, nil
	}
	keys := make(map[string]bool, len(left))
	for _, r := range left {
		if r.PutRequest == nil {
			return nil, errors.New("migrate: DynamoDB left a request unprocessed that is not a put")
		}
		keys[w.table.KeyString(r.PutRequest.Item)] = true
	}
	rest := make([]pending, 0, len(left))
	for _, p := range items {
		if k := w.table.KeyString(p.item); keys[k] {
			delete(keys, k)
			rest = append(rest, p)
		}
	}
	if len(keys) > 0 {
		return nil, fmt.Errorf("migrate: DynamoDB left %d items unprocessed that were not in the batch", len(keys))
	}
	return rest, nil
}

// countEntities credits the written items (items minus rest) to their
// entities.
func (w *writer) countEntities(items, rest []pending) {
	if w.c.perEntity == nil {
		return
	}
	// rest is a subset of items: what each entity got written is its share
	// of items minus its share of rest.
	for _, p := range items {
		if ec := w.c.perEntity[p.entity]; ec != nil {
			ec.written.Add(1)
		}
	}
	for _, p := range rest {
		if ec := w.c.perEntity[p.entity]; ec != nil {
			ec.written.Add(-1)
		}
	}
}

func (w *writer) account(cc []types.ConsumedCapacity) {
	w.c.mu.Lock()
	defer w.c.mu.Unlock()
	for _, c := range cc {
		w.c.units += aws.ToFloat64(c.CapacityUnits)
	}
}

// keys names up to five items by their key, for error messages.
func (w *writer) keys(items []pending) string {
	var out []string
	for i, p := range items {
		if i == 5 {
			out = append(out, fmt.Sprintf("and %d more", len(items)-5))
			break
		}
		out = append(out, w.table.KeyString(p.item))
	}
	return strings.Join(out, "; ")
}

var errTooManyRejects = errors.New("too many rejected rows")
