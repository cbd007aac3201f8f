package batchwrite

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aws/smithy-go"

	"github.com/remodel-dev/remodel/internal/domain/backoff"
	"github.com/remodel-dev/remodel/internal/domain/dynamo"
	"github.com/remodel-dev/remodel/internal/domain/sink"
	"github.com/remodel-dev/remodel/mapping"
)

// MaxBatch is BatchWriteItem's limit on items per request.
const MaxBatch = 25

// Config is what a table sink is made of.
type Config struct {
	Client  *dynamo.Client
	Table   *mapping.Table // the table's key schema
	Name    string         // the table's name
	Backoff backoff.Policy
	// Timeout is each attempt's deadline (0: none); Grace is how long a
	// request in flight is still awaited once the run stops.
	Timeout, Grace time.Duration
	Gate           *Gate      // pauses every writer after a throttled answer; nil: each backs off alone
	Limit          *RateLimit // nil: no rate limit
	Conc           *Adaptive  // the requests in flight; nil: as many as writers
	Lanes          *Lanes     // where throttled batches of one partition key go on; nil: none
	Stats          *Stats     // counted into; nil: a Stats of the sink's own
	// Doubted is told of the items idx of b, in a request that failed
	// without saying whether DynamoDB acted on it: they may be written
	// later although not acknowledged. An error stops the write. nil: not
	// told.
	Doubted func(b sink.Batch, idx []int) error
}

// Stats are what a table sink counts beside its acknowledgements.
type Stats struct {
	// Retries counts attempts after a batch's first, Throttled the
	// throttled answers, and Unknown the items given up on after a
	// request that may have written them (their fate is not known).
	Retries, Throttled, Unknown atomic.Int64
}

// Sink writes batches into a table with BatchWriteItem and retries what
// DynamoDB leaves unprocessed. A batch DynamoDB refuses as invalid
// (ValidationException: DynamoDB then writes none of it) is split in
// halves until each item it refuses is alone: those are rejected with
// DynamoDB's message (Acks.Rejected), and the rest are written. A batch
// of deletes DynamoDB refuses is an error.
//
// Every attempt has a deadline (Config.Timeout). When the run stops (ctx
// is done), a request in flight is still given Config.Grace to be
// answered, so that what DynamoDB acknowledged is acknowledged; nothing
// new is sent.
type Sink struct {
	cfg  Config
	acks sink.Acks
}

var _ sink.Sink = (*Sink)(nil)

// New is a table sink made of cfg that tells acks what it stored.
func New(cfg Config, acks sink.Acks) *Sink {
	if cfg.Stats == nil {
		cfg.Stats = new(Stats)
	}
	return &Sink{cfg: cfg, acks: acks}
}

// WithLanes is the sink with lanes l (a copy: s is unchanged).
func (s *Sink) WithLanes(l *Lanes) *Sink {
	c := *s
	c.cfg.Lanes = l
	return &c
}

// Write writes batch b: when it returns nil, every item of b is
// acknowledged or rejected, or handed to a lane that will (Lanes.Wait).
func (s *Sink) Write(ctx context.Context, b sink.Batch) error {
	if err := s.cfg.Lanes.failed(); err != nil {
		return err
	}
	if b.Len() == 0 {
		return nil
	}
	idx := make([]int, b.Len())
	for i := range idx {
		idx[i] = i
	}
	inflight, done := backoff.AfterGrace(ctx, s.cfg.Grace)
	defer done()
	return s.split(ctx, inflight, b, idx)
}

// Close holds nothing: each Write returned once its items were settled
// (lanes are waited for by their owner, Lanes.Wait).
func (s *Sink) Close(context.Context, bool) error { return nil }

// refusedError is DynamoDB refusing a batch as invalid; idx are the items
// not written (the whole batch, or what was left unprocessed before).
type refusedError struct {
	idx []int
	err error
}

func (e *refusedError) Error() string { return e.err.Error() }

// split writes items idx of b, halving a batch DynamoDB refuses until the
// items it refuses are alone.
func (s *Sink) split(ctx, inflight context.Context, b sink.Batch, idx []int) error {
	err := s.put(ctx, inflight, b, idx)
	var ref *refusedError
	if !errors.As(err, &ref) {
		return err
	}
	if b.Item(ref.idx[0]).Delete {
		return fmt.Errorf("migrate: deleting %d items (%s): %w", len(ref.idx), s.keys(b, ref.idx), ref.err)
	}
	if len(ref.idx) == 1 {
		return s.reject(b, ref.idx[0], ref.err)
	}
	half := len(ref.idx) / 2
	if err := s.split(ctx, inflight, b, ref.idx[:half]); err != nil {
		return err
	}
	return s.split(ctx, inflight, b, ref.idx[half:])
}

// reject tells of an item DynamoDB refuses on its own.
func (s *Sink) reject(b sink.Batch, i int, err error) error {
	reason := err.Error()
	var api smithy.APIError
	if errors.As(err, &api) {
		reason = api.ErrorCode() + ": " + api.ErrorMessage()
	}
	return s.acks.Rejected(b, i, "DynamoDB refused the item: "+reason)
}

// stored acknowledges items idx of b (in order), a run of consecutive
// items at a time.
func (s *Sink) stored(b sink.Batch, idx []int) {
	for len(idx) > 0 {
		n := 1
		for n < len(idx) && idx[n] == idx[0]+n {
			n++
		}
		s.acks.Stored(b, idx[0], idx[0]+n)
		idx = idx[n:]
	}
}

// handOff gives the items idx of b left of a batch of one partition key,
// just throttled, to a lane, which writes them as put would; false when
// there are no lanes, this is a lane's own write, or lanes are full.
func (s *Sink) handOff(ctx context.Context, b sink.Batch, idx []int) bool {
	if s.cfg.Lanes == nil || inLane(ctx) {
		return false
	}
	return s.cfg.Lanes.take(len(idx), func() error {
		lctx := context.WithValue(ctx, laneKey{}, true)
		if err := backoff.Sleep(lctx, s.cfg.Backoff.Delay(1)); err != nil {
			return err
		}
		inflight, done := backoff.AfterGrace(lctx, s.cfg.Grace)
		defer done()
		return s.split(lctx, inflight, b, idx)
	})
}

// reason words a failed attempt for the error that ends the retries.
func reason(err error) string {
	var na *dynamo.NoAnswerError
	if errors.As(err, &na) {
		return na.Error() + " (--request-timeout)"
	}
	return err.Error()
}

func verb(b sink.Batch, idx []int) string {
	if len(idx) > 0 && b.Item(idx[0]).Delete {
		return "deleting"
	}
	return "writing"
}

// keys names up to five items by their key, for error messages.
func (s *Sink) keys(b sink.Batch, idx []int) string {
	var out []string
	for n, i := range idx {
		if n == 5 {
			out = append(out, fmt.Sprintf("and %d more", len(idx)-5))
			break
		}
		out = append(out, s.cfg.Table.KeyString(b.Item(i).Value))
	}
	return strings.Join(out, "; ")
}
