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

// TestDo: the retry loop stops at the first attempt that is not to be
// repeated (success or a permanent error), retries the others with the
// policy's waits, gives up after its deadline (at least one retry) with the
// last attempt's error, and stops waiting when the context is done.
func TestDo(t *testing.T) {
	boom, busy := errors.New("boom"), errors.New("busy")
	quick := Policy{Base: time.Microsecond, Cap: time.Microsecond, Deadline: time.Hour}
	for _, c := range []struct {
		name     string
		policy   Policy
		try      func(attempt int) (bool, error)
		attempts int
		want     error
		gaveUp   bool
	}{
		{"done at once", quick, func(int) (bool, error) { return false, nil }, 1, nil, false},
		{"permanent error", quick, func(int) (bool, error) { return false, boom }, 1, boom, false},
		{"retried until done", quick, func(a int) (bool, error) { return a < 4, busy }, 4, busy, false},
		{"retried until success", quick, func(a int) (bool, error) {
			if a < 3 {
				return true, busy
			}
			return false, nil
		}, 3, nil, false},
		{"gives up after the deadline, once retried", Policy{Base: time.Microsecond, Cap: time.Microsecond}, func(int) (bool, error) { return true, busy }, 2, busy, true},
		{"gives up with work left and no error", Policy{Base: time.Microsecond, Cap: time.Microsecond}, func(int) (bool, error) { return true, nil }, 2, nil, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := 0
			err := c.policy.Do(context.Background(), func(a int) (bool, error) {
				n++
				if a != n {
					t.Errorf("attempt %d numbered %d", n, a)
				}
				return c.try(a)
			})
			var g *GaveUp
			if n != c.attempts || errors.As(err, &g) != c.gaveUp || (c.want != nil && !errors.Is(err, c.want)) || (c.want == nil && !c.gaveUp && err != nil) {
				t.Errorf("%d attempts, error %v; want %d attempts, error %v, gave up %v", n, err, c.attempts, c.want, c.gaveUp)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	err := Policy{Base: time.Hour, Cap: time.Hour, Deadline: time.Hour}.Do(ctx, func(int) (bool, error) {
		n++
		cancel()
		return true, errors.New("busy")
	})
	if !errors.Is(err, context.Canceled) || n != 1 {
		t.Errorf("canceled during the wait: %d attempts, %v; want 1, context.Canceled", n, err)
	}
}

// TestLoop: an attempt's pause does not count toward the deadline, its
// wait replaces the policy's delay, and the wait never passes the deadline.
func TestLoop(t *testing.T) {
	busy := errors.New("busy")
	t.Run("paused time is not retrying time", func(t *testing.T) {
		p := Policy{Base: time.Microsecond, Cap: time.Microsecond, Deadline: 30 * time.Millisecond}
		n := 0
		err := p.Loop(context.Background(), func(a *Attempt) (bool, error) {
			n++
			t0 := time.Now()
			time.Sleep(20 * time.Millisecond) // a rate limit's wait
			a.Pause(time.Since(t0))
			return n < 4, busy
		})
		if n != 4 || !errors.Is(err, busy) {
			t.Fatalf("%d attempts, %v; want 4 attempts (80 ms of pauses past a 30 ms deadline), busy", n, err)
		}
	})
	t.Run("without the pause it gives up", func(t *testing.T) {
		p := Policy{Base: time.Microsecond, Cap: time.Microsecond, Deadline: 30 * time.Millisecond}
		n := 0
		err := p.Loop(context.Background(), func(a *Attempt) (bool, error) {
			n++
			time.Sleep(20 * time.Millisecond)
			return n < 4, busy
		})
		var g *GaveUp
		if !errors.As(err, &g) || n != 2 {
			t.Fatalf("%d attempts, %v; want to give up after 2", n, err)
		}
	})
	t.Run("the attempt's wait replaces the delay, capped by the deadline", func(t *testing.T) {
		p := Policy{Base: time.Hour, Cap: time.Hour, Deadline: 50 * time.Millisecond}
		n := 0
		start := time.Now()
		err := p.Loop(context.Background(), func(a *Attempt) (bool, error) {
			n++
			switch a.N {
			case 1:
				a.Wait(0) // at once, instead of up to an hour
			case 2:
				a.Wait(time.Hour) // capped by what is left of the 50 ms deadline
			}
			return a.N < 3, busy
		})
		if n != 3 || !errors.Is(err, busy) || time.Since(start) > time.Minute {
			t.Fatalf("%d attempts in %s, %v; want 3 at once", n, time.Since(start), err)
		}
	})
}
