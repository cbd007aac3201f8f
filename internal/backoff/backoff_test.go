package backoff

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestDelay(t *testing.T) {
	b := Policy{Base: 10 * time.Millisecond, Cap: 300 * time.Millisecond}
	for attempt := 1; attempt <= 40; attempt++ {
		limit := b.Cap
		if attempt < 6 {
			limit = b.Base << (attempt - 1)
		}
		var longest time.Duration
		for range 500 {
			d := b.Delay(attempt)
			if d < 0 || d >= limit {
				t.Fatalf("attempt %d: delay %s outside [0, %s)", attempt, d, limit)
			}
			longest = max(longest, d)
		}
		if longest < limit/2 {
			t.Errorf("attempt %d: the longest of 500 delays is %s, below half of %s: no full jitter", attempt, longest, limit)
		}
	}
	if d := (Policy{}).Delay(3); d != 0 {
		t.Errorf("zero policy: delay %s", d)
	}
}

func TestGiveUp(t *testing.T) {
	p := Policy{Deadline: time.Second}
	for _, c := range []struct {
		attempt int
		elapsed time.Duration
		want    bool
	}{
		{1, 0, false},
		{1, time.Hour, false}, // a first attempt past the deadline is retried once
		{2, time.Second, false},
		{2, time.Second + 1, true},
		{9, 500 * time.Millisecond, false},
	} {
		if got := p.GiveUp(c.attempt, c.elapsed); got != c.want {
			t.Errorf("GiveUp(%d, %s) = %v, want %v", c.attempt, c.elapsed, got, c.want)
		}
	}
}

func TestSleepWatchesTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	if err := Sleep(ctx, time.Minute); !errors.Is(err, context.Canceled) {
		t.Fatalf("Sleep on a cancelled context = %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("Sleep on a cancelled context took %s", d)
	}
	if err := Sleep(context.Background(), time.Millisecond); err != nil {
		t.Fatalf("Sleep = %v", err)
	}
}
