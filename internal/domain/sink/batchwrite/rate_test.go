package batchwrite

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/backoff"
	"github.com/remodel-dev/remodel/internal/domain/sink"
	"github.com/remodel-dev/remodel/mapping"
)

// items is a batch of the items themselves (sink.Batch).
type items []sink.Item

func (b items) Len() int             { return len(b) }
func (b items) Item(i int) sink.Item { return b[i] }

// all is every index of b.
func all(b sink.Batch) []int {
	idx := make([]int, b.Len())
	for i := range idx {
		idx[i] = i
	}
	return idx
}

// sized is an item of exactly size bytes as DynamoDB counts them; half of
// them say their size, as the pipeline's do.
func sized(t *testing.T, pk string, size int) sink.Item {
	t.Helper()
	v := mapping.Item{"PK": &types.AttributeValueMemberS{Value: pk}, "SK": &types.AttributeValueMemberS{Value: "x"}}
	base := mapping.ItemSize(v) + len("v")
	v["v"] = &types.AttributeValueMemberS{Value: strings.Repeat("x", size-base)}
	if got := mapping.ItemSize(v); got != size {
		t.Fatalf("item of %d bytes, want %d", got, size)
	}
	it := sink.Item{Value: v, Entity: "a"}
	if len(pk)%2 == 0 {
		it.Size = size
	}
	return it
}

// TestWriteUnits: one write unit per started KB of each item, as DynamoDB
// counts a put; a delete counts one.
func TestWriteUnits(t *testing.T) {
	for _, c := range []struct {
		sizes []int
		del   int // deletes added
		want  int
	}{
		{[]int{20}, 0, 1},
		{[]int{1024}, 0, 1},
		{[]int{1025}, 0, 2},
		{[]int{2048, 2049, 400 * 1024}, 0, 2 + 3 + 400},
		{[]int{100, 100}, 3, 5},
		{nil, 0, 0},
	} {
		var b items
		for i, s := range c.sizes {
			b = append(b, sized(t, strings.Repeat(string(rune('a'+i)), i+1), s))
		}
		for range c.del {
			b = append(b, sink.Item{Value: mapping.Item{"PK": &types.AttributeValueMemberS{Value: strings.Repeat("k", 5000)}}, Delete: true})
		}
		if got := writeUnits(b, all(b)); got != c.want {
			t.Errorf("sizes %v and %d deletes: %d units, want %d", c.sizes, c.del, got, c.want)
		}
	}
}

// fakeClock drives a rateLimit without waiting: sleeping moves the clock.
type fakeClock struct {
	now   time.Time
	slept time.Duration
	fail  error // returned by sleep when set
}

func (c *fakeClock) install(r *RateLimit) {
	r.now = func() time.Time { return c.now }
	r.sleep = func(_ context.Context, d time.Duration) error {
		if c.fail != nil {
			return c.fail
		}
		c.slept += d
		c.now = c.now.Add(d)
		return nil
	}
}

// TestRateLimit holds the token bucket to its accounting with a fake clock:
// it starts empty, N units a second come in, a request larger than a
// second's units waits for several, and a canceled wait gives its units
// back.
func TestRateLimit(t *testing.T) {
	ctx := context.Background()
	approx := func(got, want time.Duration) bool { return got > want-time.Millisecond && got < want+time.Millisecond }
	for _, c := range []struct {
		perSecond int64
		requests  []int
		want      time.Duration
	}{
		{100, repeat(25, 40), 10 * time.Second},          // 1000 units at 100/s, from an empty bucket
		{10, []int{25}, 2500 * time.Millisecond},         // larger than the bucket: 10 + 10 + 5
		{1000, []int{400, 400, 200}, time.Second},        // within one second's worth, still paced
		{40, append(repeat(1, 10), 70), 2 * time.Second}, // 80 units at 40/s
		{1 << 40, repeat(25, 10), 250 * time.Nanosecond}, // practically none
	} {
		clock := &fakeClock{now: time.Unix(1_700_000_000, 0)}
		r := NewRateLimit(c.perSecond, clock.now)
		clock.install(r)
		total := 0
		for _, n := range c.requests {
			if err := r.wait(ctx, n); err != nil {
				t.Fatal(err)
			}
			total += n
		}
		if !approx(clock.slept, c.want) || r.requested.Load() != int64(total) {
			t.Errorf("%d units/s, requests %v: waited %s for %d units, want %s for %d", c.perSecond, c.requests, clock.slept, r.requested.Load(), c.want, total)
		}
	}

	// A canceled wait gives its units back: the next request waits as if
	// it had never been made.
	clock := &fakeClock{now: time.Unix(1_700_000_000, 0)}
	r := NewRateLimit(100, clock.now)
	clock.install(r)
	clock.fail = context.Canceled
	if err := r.wait(ctx, 50); !errors.Is(err, context.Canceled) {
		t.Fatalf("wait: %v, want the sleep's error", err)
	}
	clock.fail = nil
	if err := r.wait(ctx, 50); err != nil {
		t.Fatal(err)
	}
	if !approx(clock.slept, 500*time.Millisecond) {
		t.Errorf("after a canceled wait for 50 units, 50 more waited %s, want 500ms", clock.slept)
	}

	if NewRateLimit(0, time.Now()) != nil || NewRateLimit(0, time.Now()).wait(ctx, 1000) != nil {
		t.Error("a rate of 0 is no limit")
	}
}

func repeat(n, times int) []int {
	out := make([]int, times)
	for i := range out {
		out[i] = n
	}
	return out
}

// TestPause: the shared pause after throttling starts from Base and grows
// with each throttled answer to a request sent after the last pause began,
// with equal jitter; answers to requests sent before it began do not
// lengthen it.
func TestPause(t *testing.T) {
	b := backoff.Policy{Base: 100 * time.Millisecond, Cap: 800 * time.Millisecond}
	for n := 1; n <= 40; n++ {
		limit := b.Cap
		if n < 4 {
			limit = b.Base << (n - 1)
		}
		for range 200 {
			if d := pause(b, n); d < limit/2 || d >= limit {
				t.Fatalf("pause %d: %s outside [%s, %s)", n, d, limit/2, limit)
			}
		}
	}
	g := NewGate(backoff.Policy{Base: time.Hour, Cap: 8 * time.Hour})
	before := time.Now()
	g.throttled(before)
	first := g.until
	if g.streak != 1 || time.Until(first) < 30*time.Minute {
		t.Fatalf("after one throttle: streak %d, paused until %s", g.streak, first)
	}
	g.throttled(before) // sent before the pause began: covered
	if g.streak != 1 || g.until != first {
		t.Errorf("a request sent before the pause lengthened it: streak %d", g.streak)
	}
	g.throttled(time.Now()) // sent after: the pause was not enough
	if g.streak != 2 || time.Until(g.until) < time.Hour {
		t.Errorf("a request sent after the pause began: streak %d, paused until %s", g.streak, g.until)
	}
	g.succeeded()
	if g.streak != 0 || g.pauses.Load() != 2 {
		t.Errorf("after a success: streak %d, %d pauses", g.streak, g.pauses.Load())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := g.wait(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("waiting at a closed gate with a canceled context: %v", err)
	}
}
