package migrate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/remodel-dev/remodel/internal/domain/backoff"
	"github.com/remodel-dev/remodel/internal/domain/dynamo"
	"github.com/remodel-dev/remodel/mapping"
)

// MaxBatch is BatchWriteItem's limit on items per request.
const MaxBatch = 25

// Backoff is the retry policy for one batch: capped exponential backoff with
// full jitter, until Deadline has passed since the batch's first attempt.
type Backoff = backoff.Policy

// DefaultBackoff retries for up to two minutes, waiting at most 5 s at a time.
var DefaultBackoff = backoff.Default

// pending is one rendered item on its way to DynamoDB, or (del) the key of
// an item to delete.
type pending struct {
	item   mapping.Item
	entity string
	source string // the row's source key; "" for a row named by ent and key
	del    bool
	mark   *rowMark // the row's place in the checkpoint; nil: not tracked
	seen   bool     // the key of a row an earlier run settled: not written
	ent    *mapping.Entity
	key    []any // the row's source key values (ent.KeyValues)
	units  int   // the item's write units (mapping.WriteUnits); 0: not known yet
	size   int   // the item's bytes (mapping.ItemSize); 0: not known yet
}

// sourceKey names the item's row by its source key. It is built only when
// needed (a rejection), not for every row.
func (p *pending) sourceKey() string {
	if p.source == "" && p.ent != nil {
		return p.ent.SourceKeyOf(p.key)
	}
	return p.source
}

// counters are the pipeline's running totals, updated concurrently.
// unknown counts the items whose fate is not known: the run stopped after
// a request for them got no answer, or an answer that does not say whether
// DynamoDB acted on it (a 5xx, a connection cut).
type counters struct {
	read, written, rejected, retries, throttled, deleted, unknown atomic.Int64
	mu                                                            sync.Mutex
	units                                                         float64
	perEntity                                                     map[string]*entityCounters
}

type entityCounters struct {
	read, written, rejected atomic.Int64
	bytes                   atomic.Int64 // of the items written
	// first and last are when its first row was read and its last item
	// acknowledged (Unix nanoseconds; 0: not yet).
	first, last atomic.Int64
}

// reading marks the entity's first row read, at the first call.
func (ec *entityCounters) reading(now time.Time) {
	if ec.first.Load() == 0 {
		ec.first.CompareAndSwap(0, now.UnixNano())
	}
}

// stored counts n items of the entity, of so many bytes, stored at now.
func (ec *entityCounters) stored(n, bytes int64, now time.Time) {
	ec.written.Add(n)
	ec.bytes.Add(bytes)
	ec.wrote(now)
}

// wrote marks an item of the entity acknowledged at now.
func (ec *entityCounters) wrote(now time.Time) {
	t := now.UnixNano()
	for {
		last := ec.last.Load()
		if last >= t || ec.last.CompareAndSwap(last, t) {
			return
		}
	}
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
//
// Every attempt has a deadline (timeout). When the run stops (ctx is done),
// a request in flight is still given grace to be answered, so that what
// DynamoDB acknowledged is counted; nothing new is sent.
type writer struct {
	db      *dynamo.Client
	table   *mapping.Table
	name    string
	backoff Backoff
	c       *counters
	rej     *rejects
	timeout time.Duration // of each attempt; 0: none
	grace   time.Duration
	gate    *gate       // pauses every writer after a throttled answer; nil: each backs off alone
	limit   *rateLimit  // nil: no rate limit
	conc    *adaptive   // the requests in flight, adapted to throttling (adapt.go); nil: as many as writers
	lanes   *lanes      // where throttled batches of one partition key go on (lanes.go); nil: none
	written *keySet     // digests of the keys written; nil: not kept
	coll    *collisions // told of the keys of items DynamoDB refuses; nil: none
	// doubted records the items of a request that may be carried out
	// after the writer gave up on it (followdoubt.go); nil: not recorded.
	doubted func([]pending) error
}

func newWriter(o Options, c *counters, rej *rejects) *writer {
	w := &writer{
		db: dynamo.New(o.DB), table: &o.Plan.Table, name: o.Table, backoff: o.Backoff, c: c, rej: rej,
		timeout: o.RequestTimeout, grace: o.StopGrace,
		gate: newGate(o.Backoff), limit: newRateLimit(o.RateLimit, time.Now()),
	}
	if !o.FixedWriters && !o.Null { // the null sink sends no request
		w.conc = newAdaptive(o.Writers)
	}
	return w
}

// refusedError is DynamoDB refusing a batch as invalid; items are the ones
// not written (the whole batch, or what was left unprocessed before).
type refusedError struct {
	items []pending
	err   error
}

func (e *refusedError) Error() string { return e.err.Error() }

// write writes one batch: every item is acknowledged by DynamoDB, rejected,
// or the error says why not.
func (w *writer) write(ctx context.Context, batch []pending) error {
	if err := w.lanes.failed(); err != nil {
		return err
	}
	batch, err := w.reserved(batch)
	if err != nil || len(batch) == 0 {
		return err
	}
	return w.send(ctx, batch)
}

// send writes a batch whose rows of the lock item's key are rejected
// already (write, or the pipeline's sinkWriter).
func (w *writer) send(ctx context.Context, batch []pending) error {
	if err := w.lanes.failed(); err != nil {
		return err
	}
	inflight, done := afterGrace(ctx, w.grace)
	defer done()
	return w.split(ctx, inflight, batch)
}

// handOff gives the items left of a batch of one partition key, just
// throttled, to a lane (lanes.go), which writes them as put would; false
// when there are no lanes, this is a lane's own write, or lanes are full.
func (w *writer) handOff(ctx context.Context, items []pending) bool {
	if w.lanes == nil || inLane(ctx) {
		return false
	}
	return w.lanes.take(items, func(items []pending) error {
		lctx := context.WithValue(ctx, laneKey{}, true)
		if err := backoff.Sleep(lctx, w.backoff.Delay(1)); err != nil {
			return err
		}
		inflight, done := afterGrace(lctx, w.grace)
		defer done()
		return w.split(lctx, inflight, items)
	})
}

// reserved rejects the rows whose item has the lock item's key and returns
// the others.
func (w *writer) reserved(batch []pending) ([]pending, error) {
	for i, p := range batch {
		if p.del || !w.table.IsLock(p.item) {
			continue
		}
		rest := append(slices.Clone(batch[:i]), batch[i+1:]...)
		w.c.rejected.Add(1)
		if ec := w.c.perEntity[p.entity]; ec != nil {
			ec.rejected.Add(1)
		}
		err := w.rej.add(Rejection{Entity: p.entity, Row: p.sourceKey(), Reason: fmt.Sprintf("the key %s is reserved for remodel's lock item", w.table.KeyString(p.item))})
		if err != nil {
			return nil, err
		}
		p.mark.settle(false)
		return w.reserved(rest)
	}
	return batch, nil
}

func (w *writer) split(ctx, inflight context.Context, batch []pending) error {
	err := w.put(ctx, inflight, batch)
	var ref *refusedError
	if !errors.As(err, &ref) {
		return err
	}
	if ref.items[0].del {
		return fmt.Errorf("migrate: deleting %d items (%s): %w", len(ref.items), w.keys(ref.items), ref.err)
	}
	if len(ref.items) == 1 {
		return w.reject(ref.items[0], ref.err)
	}
	half := len(ref.items) / 2
	if err := w.split(ctx, inflight, ref.items[:half]); err != nil {
		return err
	}
	return w.split(ctx, inflight, ref.items[half:])
}

// reject records an item DynamoDB refuses on its own as a rejected row.
func (w *writer) reject(p pending, err error) error {
	reason := err.Error()
	var api smithy.APIError
	if errors.As(err, &api) {
		reason = api.ErrorCode() + ": " + api.ErrorMessage()
	}
	return w.refused(p, "DynamoDB refused the item: "+reason)
}

// refused records an item a sink refuses on its own, for reason, as a
// rejected row.
func (w *writer) refused(p pending, reason string) error {
	w.c.rejected.Add(1)
	if ec := w.c.perEntity[p.entity]; ec != nil {
		ec.rejected.Add(1)
	}
	if err := w.rej.add(Rejection{Entity: p.entity, Row: p.sourceKey(), Reason: reason}); err != nil {
		return err
	}
	if w.coll != nil {
		w.coll.refused(p.item)
	}
	p.mark.settle(false)
	return nil
}

// put writes items with BatchWriteItem, retrying what is left unprocessed,
// throttled, failed with a 5xx or unanswered within the attempt's deadline,
// until the backoff's deadline has passed since the first attempt (time
// spent waiting for the rate limit does not count), and at least once. A ValidationException
// comes back as a *refusedError holding the items not written.
//
// Requests are sent with inflight, which outlives ctx by the grace period:
// once ctx is done no request is started, but the answer to one in flight
// is awaited and what it acknowledges is counted.
//
// An item whose request got no answer, or one that does not say whether
// DynamoDB acted (a 5xx, a connection cut, a request cut at the end of the
// grace period), may have been written although it was not acknowledged:
// when put gives up on it, it is counted as unknown, not as unwritten.
func (w *writer) put(ctx, inflight context.Context, items []pending) (err error) {
	b := &putBatch{w: w, items: items, reqs: requests(items)}
	defer func() {
		var ref *refusedError
		if err != nil && b.doubt && !errors.As(err, &ref) && !b.items[0].del {
			w.c.unknown.Add(int64(len(b.items)))
		}
	}()
	err = w.backoff.Loop(ctx, func(a *backoff.Attempt) (bool, error) {
		return b.attempt(ctx, inflight, a)
	})
	var gaveUp *backoff.GaveUp
	if errors.As(err, &gaveUp) {
		reason := "left unprocessed"
		if gaveUp.Last != nil {
			reason = w.reason(gaveUp.Last)
		}
		what := "written"
		if b.items[0].del {
			what = "deleted"
		}
		return fmt.Errorf("migrate: %d items still not %s after retrying for %s (%s): %s", len(b.items), what, w.backoff.Deadline, w.keys(b.items), reason)
	}
	return err
}

// putBatch is one batch put is writing: the items (and their requests)
// not yet acknowledged, and what its attempts found so far.
type putBatch struct {
	w          *writer
	items      []pending
	reqs       []types.WriteRequest
	doubt      bool          // an attempt for the items left ended without saying whether it wrote them
	handingOff bool          // the last attempt was throttled by one partition key's limit
	handOff    time.Duration // then: the wait before the next attempt when no lane takes the items
}

// attempt is one turn of put's retry loop: the wait for its turn, one
// BatchWriteItem, and what its answer means (judge).
func (b *putBatch) attempt(ctx, inflight context.Context, a *backoff.Attempt) (again bool, err error) {
	w := b.w
	if a.N > 1 {
		w.c.retries.Add(1)
	}
	if b.handingOff {
		if w.handOff(ctx, b.items) {
			return false, nil // a lane writes the rest; this writer takes the next batch
		}
		if err := backoff.Sleep(ctx, b.handOff); err != nil {
			return false, err
		}
	}
	if err := b.turn(ctx, a); err != nil {
		return false, err
	}
	sent := time.Now()
	// One attempt, no retry by the SDK (this loop retries), sent without
	// the SDK's middleware stack (dynamo.Client.WriteBatch).
	out, err := w.db.WriteBatch(inflight, &dynamodb.BatchWriteItemInput{
		RequestItems: map[string][]types.WriteRequest{w.name: b.reqs},
	}, w.timeout)
	return b.judge(ctx, a, sent, out, err)
}

// turn waits until the batch may be sent: the throttling gate, the rate
// limit (whose wait is not the batch's retrying), and a place among the
// requests in flight.
func (b *putBatch) turn(ctx context.Context, a *backoff.Attempt) error {
	w := b.w
	if err := w.gate.wait(ctx); err != nil {
		return err
	}
	t0 := time.Now()
	if err := w.limit.wait(ctx, writeUnits(b.items)); err != nil {
		return err
	}
	a.Pause(time.Since(t0))
	if err := ctx.Err(); err != nil {
		return err
	}
	return w.conc.acquire(ctx)
}

// judge reads an attempt's answer: what it acknowledged, whether it may
// have written what it did not acknowledge, and whether and when to try
// again (retry).
func (b *putBatch) judge(ctx context.Context, a *backoff.Attempt, sent time.Time, out *dynamodb.BatchWriteItemOutput, err error) (bool, error) {
	w := b.w
	isThrottle := err != nil && throttles.IsErrorThrottle(err) == aws.TrueTernary
	keyThrottle := false // throttled, maybe by one partition key's limit only (onePartition)
	if w.conc != nil {
		throttledHere := isThrottle || (err == nil && len(out.UnprocessedItems[w.name]) > 0)
		keyThrottle = throttledHere && onePartition(w.table, b.items)
		w.conc.release(sent, err == nil || isThrottle, throttledHere && !keyThrottle)
	}
	if err != nil && mayHaveActed(err) {
		b.doubt = true
		if w.doubted != nil {
			if derr := w.doubted(b.items); derr != nil {
				return false, derr
			}
		}
	}
	throttled := false
	switch {
	case err == nil:
		w.gate.succeeded()
		left := out.UnprocessedItems[w.name]
		rest, done, err := w.unprocessed(b.items, left)
		if err != nil {
			return false, err
		}
		w.acknowledged(done)
		if len(rest) == 0 {
			return false, nil
		}
		b.items, b.reqs = rest, left
	case ctx.Err() != nil: // the run stops, and this request failed or was cut at the end of the grace period
		return false, ctx.Err()
	case isRefused(err):
		return false, &refusedError{items: b.items, err: err}
	case isThrottle:
		w.c.throttled.Add(1)
		throttled = true
	case retryables.IsErrorRetryable(err) == aws.TrueTernary:
	default:
		return false, fmt.Errorf("migrate: %s %d items (%s): %w", w.verb(b.items), len(b.items), w.keys(b.items), err)
	}
	if err := ctx.Err(); err != nil { // the run stops: no retry
		return false, err
	}
	b.retry(a, sent, throttled, keyThrottle, err == nil)
	return true, err
}

// retry sets the wait before the next attempt: a batch throttled by one
// key's limit is handed to a lane first; a throttled one makes every
// writer wait (the gate); else the backoff's delay.
func (b *putBatch) retry(a *backoff.Attempt, sent time.Time, throttled, keyThrottle, answered bool) {
	w := b.w
	delay := w.backoff.Delay(a.N)
	if w.conc != nil && (throttled || answered) {
		// Throttled, or items left unprocessed: the adapting concurrency
		// holds the writers to what the table takes, so a batch's own wait
		// does not grow past its second retry's: long waits would leave
		// the table idle at the end of the run.
		delay = w.backoff.Delay(min(a.N, 2))
	}
	b.handingOff = keyThrottle && !b.doubt
	switch {
	case b.handingOff: // to a lane before the next attempt, unless the policy gives up
		b.handOff = delay
		a.Wait(0)
	case throttled && w.gate != nil && !keyThrottle: // one key's batch backs off alone
		w.gate.throttled(sent) // every writer waits, this one too, before the next attempt
		a.Wait(0)
	default:
		a.Wait(delay)
	}
}

// reason words a failed attempt for the error that ends the retries.
func (w *writer) reason(err error) string {
	var na *dynamo.NoAnswerError
	if errors.As(err, &na) {
		return na.Error() + " (--request-timeout)"
	}
	return err.Error()
}

func (w *writer) verb(items []pending) string {
	if len(items) > 0 && items[0].del {
		return "deleting"
	}
	return "writing"
}

// requests are the batch's write requests; its puts are allocated
// together, not one by one (deletes, rare, one by one).
func requests(items []pending) []types.WriteRequest {
	reqs := make([]types.WriteRequest, len(items))
	puts := make([]types.PutRequest, len(items))
	for i, p := range items {
		if p.del {
			reqs[i].DeleteRequest = &types.DeleteRequest{Key: p.item}
			continue
		}
		puts[i].Item = p.item
		reqs[i].PutRequest = &puts[i]
	}
	return reqs
}

// mayHaveActed says whether DynamoDB may have acted on a request that
// failed with err: anything but an answer that refuses it (a 4xx, such as
// throttling or a validation error, is given before any write).
func mayHaveActed(err error) bool {
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		code := re.HTTPStatusCode()
		return code < 400 || code >= 500
	}
	return true
}

// isRefused says whether DynamoDB refused the request as invalid.
func isRefused(err error) bool {
	var api smithy.APIError
	return errors.As(err, &api) && api.ErrorCode() == "ValidationException"
}

// unprocessed splits items into the ones DynamoDB left unprocessed (found
// by their key: one batch never holds two items with the same key) and the
// ones it did, each in the batch's order.
func (w *writer) unprocessed(items []pending, left []types.WriteRequest) (rest, done []pending, err error) {
	if len(left) == 0 {
		return nil, items, nil
	}
	keys := make(map[string]bool, len(left))
	for _, r := range left {
		switch {
		case r.PutRequest != nil:
			keys[w.table.KeyString(r.PutRequest.Item)] = true
		case r.DeleteRequest != nil:
			keys[w.table.KeyString(r.DeleteRequest.Key)] = true
		default:
			return nil, nil, errors.New("migrate: DynamoDB left a request unprocessed that is neither a put nor a delete")
		}
	}
	rest = make([]pending, 0, len(left))
	done = make([]pending, 0, len(items)-len(left))
	for _, p := range items {
		if k := w.table.KeyString(p.item); keys[k] {
			delete(keys, k)
			rest = append(rest, p)
		} else {
			done = append(done, p)
		}
	}
	if len(keys) > 0 {
		return nil, nil, fmt.Errorf("migrate: DynamoDB left %d items unprocessed that were not in the batch", len(keys))
	}
	return rest, done, nil
}

// itemSize is p's item's bytes as DynamoDB counts them.
func itemSize(p *pending) int {
	if p.size == 0 {
		return mapping.ItemSize(p.item)
	}
	return p.size
}

// acknowledged counts the items DynamoDB acknowledged, in total and per
// entity, and remembers their keys when the run keeps them.
func (w *writer) acknowledged(done []pending) {
	w.account(done)
	now := time.Now()
	for _, p := range done {
		if p.del {
			w.c.deleted.Add(1)
			continue
		}
		w.c.written.Add(1)
		if ec := w.c.perEntity[p.entity]; ec != nil {
			ec.stored(1, int64(itemSize(&p)), now)
		}
		if w.written != nil {
			w.written.add(w.table, p.item)
		}
		p.mark.settle(true)
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
