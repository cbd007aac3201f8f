package batchwrite

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/remodel-dev/remodel/internal/domain/backoff"
	"github.com/remodel-dev/remodel/internal/domain/sink"
	"github.com/remodel-dev/remodel/mapping"
)

// writeUnits is what writing items costs in write units, counted as
// DynamoDB counts a put into the table: one unit per started KB of each
// item's size (mapping.ItemSize), at least one. A delete counts one unit
// (the size of the item it deletes is unknown here). Writes into global
// secondary indexes are not counted: each index has its own capacity.
func writeUnits(b sink.Batch, idx []int) int {
	n := 0
	for _, i := range idx {
		it := b.Item(i)
		switch {
		case it.Delete:
			n++
		case it.Size > 0:
			n += mapping.WriteUnits(it.Size)
		default:
			n += mapping.WriteUnits(mapping.ItemSize(it.Value))
		}
	}
	return n
}

// RateLimit holds the writers to a number of write units per second: a
// token bucket (golang.org/x/time/rate) that holds one second of units and
// starts empty, shared by every writer. A request waits for the units of
// every item it sends, its retries too.
type RateLimit struct {
	lim   *rate.Limiter
	now   func() time.Time
	sleep func(context.Context, time.Duration) error
	// requested counts the units asked for (tests hold the writer to it).
	requested atomic.Int64
	// waited is how long writers waited for units, in all (nanoseconds).
	waited atomic.Int64
}

// NewRateLimit returns a limit of perSecond write units, nil for none.
func NewRateLimit(perSecond int64, now time.Time) *RateLimit {
	if perSecond <= 0 {
		return nil
	}
	burst := int(min(perSecond, 1<<30))
	r := &RateLimit{lim: rate.NewLimiter(rate.Limit(perSecond), burst), now: time.Now, sleep: backoff.Sleep}
	r.lim.ReserveN(now, burst) // start empty: the first second gets perSecond units, not twice that
	return r
}

// wait blocks until units write units may be spent (at most a bucket's
// worth is reserved at a time, so a batch larger than a second's units
// waits for several).
func (r *RateLimit) wait(ctx context.Context, units int) error {
	if r == nil {
		return nil
	}
	r.requested.Add(int64(units))
	for units > 0 {
		n := min(units, r.lim.Burst())
		now := r.now()
		res := r.lim.ReserveN(now, n)
		d := res.DelayFrom(now)
		r.waited.Add(int64(d))
		if err := r.sleep(ctx, d); err != nil {
			res.CancelAt(r.now())
			return err
		}
		units -= n
	}
	return nil
}

// Gate makes the writers back off together: a throttled answer pauses every
// writer, not only the one that got it. The pause grows with each throttled
// answer to a request sent after the previous pause began (the pause was not
// enough) and starts again from the shortest once a request succeeds.
// Answers to requests sent before the pause began do not lengthen it.
type Gate struct {
	backoff backoff.Policy
	mu      sync.Mutex
	since   time.Time // when the current pause began
	until   time.Time // when it ends
	streak  int
	pauses  atomic.Int64
	paused  atomic.Int64 // how long the writers were paused, in all (nanoseconds)
}

// NewGate is a gate whose pauses follow b.
func NewGate(b backoff.Policy) *Gate { return &Gate{backoff: b} }

// throttled reports a throttled answer to a request sent at sent.
func (g *Gate) throttled(sent time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := time.Now()
	switch {
	case sent.After(g.since): // the last pause (if any) was not enough
		g.streak++
	case now.Before(g.until):
		return // sent before the current pause began, which covers it
	}
	g.streak = max(g.streak, 1)
	until := now.Add(pause(g.backoff, g.streak))
	from := now
	if g.until.After(now) {
		from = g.until // what this pause adds to the one under way
	}
	g.paused.Add(int64(until.Sub(from)))
	g.since, g.until = now, until
	g.pauses.Add(1)
}

func (g *Gate) succeeded() {
	if g == nil {
		return
	}
	g.mu.Lock()
	g.streak = 0
	g.mu.Unlock()
}

// wait blocks while the writers are paused.
func (g *Gate) wait(ctx context.Context) error {
	if g == nil {
		return nil
	}
	for {
		g.mu.Lock()
		d := time.Until(g.until)
		g.mu.Unlock()
		if d <= 0 {
			return ctx.Err()
		}
		if err := backoff.Sleep(ctx, d); err != nil {
			return err
		}
	}
}

// pause is the shared pause after the n-th throttled answer in a row:
// min(Cap, Base·2^(n-1)) with equal jitter (a uniform duration in its upper
// half), so that one throttled answer always pauses the writers for a
// while, unlike one writer's own full-jitter backoff.
func pause(b backoff.Policy, n int) time.Duration {
	d := b.Cap
	if n < 31 {
		d = min(b.Cap, b.Base<<(n-1))
	}
	if d <= 1 {
		return max(d, 0)
	}
	return d/2 + rand.N(d-d/2)
}

// Waited is how long writers waited for units, in all.
func (r *RateLimit) Waited() time.Duration {
	if r == nil {
		return 0
	}
	return time.Duration(r.waited.Load())
}

// Pauses is how many times throttling paused the writers (0 without a
// gate).
func (g *Gate) Pauses() int64 {
	if g == nil {
		return 0
	}
	return g.pauses.Load()
}

// Paused is how long throttling paused the writers, in all.
func (g *Gate) Paused() time.Duration {
	if g == nil {
		return 0
	}
	return time.Duration(g.paused.Load())
}

// Requested is how many write units writers asked for, in all.
func (r *RateLimit) Requested() int64 {
	if r == nil {
		return 0
	}
	return r.requested.Load()
}
