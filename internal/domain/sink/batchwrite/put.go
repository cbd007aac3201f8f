package batchwrite

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/remodel-dev/remodel/internal/domain/backoff"
	"github.com/remodel-dev/remodel/internal/domain/sink"
)

var (
	retryables = retry.IsErrorRetryables(retry.DefaultRetryables)
	throttles  = retry.IsErrorThrottles(retry.DefaultThrottles)
)

// put writes items idx of b with BatchWriteItem, retrying what is left
// unprocessed, throttled, failed with a 5xx or unanswered within the
// attempt's deadline, until the backoff's deadline has passed since the
// first attempt (time spent waiting for the rate limit does not count),
// and at least once. A ValidationException comes back as a *refusedError
// holding the items not written.
//
// Requests are sent with inflight, which outlives ctx by the grace period:
// once ctx is done no request is started, but the answer to one in flight
// is awaited and what it acknowledges is acknowledged.
//
// An item whose request got no answer, or one that does not say whether
// DynamoDB acted (a 5xx, a connection cut, a request cut at the end of the
// grace period), may have been written although it was not acknowledged:
// when put gives up on it, it is counted as unknown, not as unwritten.
func (s *Sink) put(ctx, inflight context.Context, b sink.Batch, idx []int) (err error) {
	pb := &putBatch{s: s, b: b, idx: idx, reqs: requests(b, idx)}
	defer func() {
		var ref *refusedError
		if err != nil && pb.doubt && !errors.As(err, &ref) && !b.Item(pb.idx[0]).Delete {
			s.cfg.Stats.Unknown.Add(int64(len(pb.idx)))
		}
	}()
	err = s.cfg.Backoff.Loop(ctx, func(a *backoff.Attempt) (bool, error) {
		return pb.attempt(ctx, inflight, a)
	})
	var gaveUp *backoff.GaveUp
	if errors.As(err, &gaveUp) {
		why := "left unprocessed"
		if gaveUp.Last != nil {
			why = reason(gaveUp.Last)
		}
		what := "written"
		if b.Item(pb.idx[0]).Delete {
			what = "deleted"
		}
		return fmt.Errorf("migrate: %d items still not %s after retrying for %s (%s): %s", len(pb.idx), what, s.cfg.Backoff.Deadline, s.keys(b, pb.idx), why)
	}
	return err
}

// putBatch is one batch put is writing: the items (and their requests)
// not yet acknowledged, and what its attempts found so far.
type putBatch struct {
	s          *Sink
	b          sink.Batch
	idx        []int
	reqs       []types.WriteRequest
	doubt      bool          // an attempt for the items left ended without saying whether it wrote them
	handingOff bool          // the last attempt was throttled by one partition key's limit
	handOff    time.Duration // then: the wait before the next attempt when no lane takes the items
}

// attempt is one turn of put's retry loop: the wait for its turn, one
// BatchWriteItem, and what its answer means (judge).
func (pb *putBatch) attempt(ctx, inflight context.Context, a *backoff.Attempt) (again bool, err error) {
	s := pb.s
	if a.N > 1 {
		s.cfg.Stats.Retries.Add(1)
	}
	if pb.handingOff {
		if s.handOff(ctx, pb.b, pb.idx) {
			return false, nil // a lane writes the rest; this writer takes the next batch
		}
		if err := backoff.Sleep(ctx, pb.handOff); err != nil {
			return false, err
		}
	}
	if err := pb.turn(ctx, a); err != nil {
		return false, err
	}
	sent := time.Now()
	// One attempt, no retry by the SDK (this loop retries), sent without
	// the SDK's middleware stack (dynamo.Client.WriteBatch).
	out, err := s.cfg.Client.WriteBatch(inflight, &dynamodb.BatchWriteItemInput{
		RequestItems: map[string][]types.WriteRequest{s.cfg.Name: pb.reqs},
	}, s.cfg.Timeout)
	return pb.judge(ctx, a, sent, out, err)
}

// turn waits until the batch may be sent: the throttling gate, the rate
// limit (whose wait is not the batch's retrying), and a place among the
// requests in flight.
func (pb *putBatch) turn(ctx context.Context, a *backoff.Attempt) error {
	s := pb.s
	if err := s.cfg.Gate.wait(ctx); err != nil {
		return err
	}
	t0 := time.Now()
	if err := s.cfg.Limit.wait(ctx, writeUnits(pb.b, pb.idx)); err != nil {
		return err
	}
	a.Pause(time.Since(t0))
	if err := ctx.Err(); err != nil {
		return err
	}
	return s.cfg.Conc.acquire(ctx)
}

// judge reads an attempt's answer: what it acknowledged, whether it may
// have written what it did not acknowledge, and whether and when to try
// again (retry).
func (pb *putBatch) judge(ctx context.Context, a *backoff.Attempt, sent time.Time, out *dynamodb.BatchWriteItemOutput, err error) (bool, error) {
	s := pb.s
	isThrottle := err != nil && throttles.IsErrorThrottle(err) == aws.TrueTernary
	keyThrottle := false // throttled, maybe by one partition key's limit only (onePartition)
	if s.cfg.Conc != nil {
		throttledHere := isThrottle || (err == nil && len(out.UnprocessedItems[s.cfg.Name]) > 0)
		keyThrottle = throttledHere && onePartition(s.cfg.Table, pb.b, pb.idx)
		s.cfg.Conc.release(sent, err == nil || isThrottle, throttledHere && !keyThrottle)
	}
	if err != nil && mayHaveActed(err) {
		pb.doubt = true
		if s.cfg.Doubted != nil {
			if derr := s.cfg.Doubted(pb.b, pb.idx); derr != nil {
				return false, derr
			}
		}
	}
	throttled := false
	switch {
	case err == nil:
		s.cfg.Gate.succeeded()
		left := out.UnprocessedItems[s.cfg.Name]
		rest, done, err := s.unprocessed(pb.b, pb.idx, left)
		if err != nil {
			return false, err
		}
		s.stored(pb.b, done)
		if len(rest) == 0 {
			return false, nil
		}
		pb.idx, pb.reqs = rest, left
	case ctx.Err() != nil: // the run stops, and this request failed or was cut at the end of the grace period
		return false, ctx.Err()
	case isRefused(err):
		return false, &refusedError{idx: pb.idx, err: err}
	case isThrottle:
		s.cfg.Stats.Throttled.Add(1)
		throttled = true
	case retryables.IsErrorRetryable(err) == aws.TrueTernary:
	default:
		return false, fmt.Errorf("migrate: %s %d items (%s): %w", verb(pb.b, pb.idx), len(pb.idx), s.keys(pb.b, pb.idx), err)
	}
	if err := ctx.Err(); err != nil { // the run stops: no retry
		return false, err
	}
	pb.retry(a, sent, throttled, keyThrottle, err == nil)
	return true, err
}

// retry sets the wait before the next attempt: a batch throttled by one
// key's limit is handed to a lane first; a throttled one makes every
// writer wait (the gate); else the backoff's delay.
func (pb *putBatch) retry(a *backoff.Attempt, sent time.Time, throttled, keyThrottle, answered bool) {
	s := pb.s
	delay := s.cfg.Backoff.Delay(a.N)
	if s.cfg.Conc != nil && (throttled || answered) {
		// Throttled, or items left unprocessed: the adapting concurrency
		// holds the writers to what the table takes, so a batch's own wait
		// does not grow past its second retry's: long waits would leave
		// the table idle at the end of the run.
		delay = s.cfg.Backoff.Delay(min(a.N, 2))
	}
	pb.handingOff = keyThrottle && !pb.doubt
	switch {
	case pb.handingOff: // to a lane before the next attempt, unless the policy gives up
		pb.handOff = delay
		a.Wait(0)
	case throttled && s.cfg.Gate != nil && !keyThrottle: // one key's batch backs off alone
		s.cfg.Gate.throttled(sent) // every writer waits, this one too, before the next attempt
		a.Wait(0)
	default:
		a.Wait(delay)
	}
}

// requests are the write requests of items idx of b; its puts are
// allocated together, not one by one (deletes, rare, one by one).
func requests(b sink.Batch, idx []int) []types.WriteRequest {
	reqs := make([]types.WriteRequest, len(idx))
	puts := make([]types.PutRequest, len(idx))
	for n, i := range idx {
		it := b.Item(i)
		if it.Delete {
			reqs[n].DeleteRequest = &types.DeleteRequest{Key: it.Value}
			continue
		}
		puts[n].Item = it.Value
		reqs[n].PutRequest = &puts[n]
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

// unprocessed splits items idx of b into the ones DynamoDB left
// unprocessed (found by their key: one batch never holds two items with
// the same key) and the ones it did, each in the batch's order.
func (s *Sink) unprocessed(b sink.Batch, idx []int, left []types.WriteRequest) (rest, done []int, err error) {
	if len(left) == 0 {
		return nil, idx, nil
	}
	t := s.cfg.Table
	keys := make(map[string]bool, len(left))
	for _, r := range left {
		switch {
		case r.PutRequest != nil:
			keys[t.KeyString(r.PutRequest.Item)] = true
		case r.DeleteRequest != nil:
			keys[t.KeyString(r.DeleteRequest.Key)] = true
		default:
			return nil, nil, errors.New("migrate: DynamoDB left a request unprocessed that is neither a put nor a delete")
		}
	}
	rest = make([]int, 0, len(left))
	done = make([]int, 0, len(idx)-len(left))
	for _, i := range idx {
		if k := t.KeyString(b.Item(i).Value); keys[k] {
			delete(keys, k)
			rest = append(rest, i)
		} else {
			done = append(done, i)
		}
	}
	if len(keys) > 0 {
		return nil, nil, fmt.Errorf("migrate: DynamoDB left %d items unprocessed that were not in the batch", len(keys))
	}
	return rest, done, nil
}
