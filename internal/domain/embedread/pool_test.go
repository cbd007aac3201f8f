package embedread

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/source"
)

// TestPoolTakesAllAtOnce: two takers of two readers each wait on a pool of
// two whose readers are out; when both come back, one taker gets both and
// the other gets them after it (each took one and both waited for ever
// before: migrate --ranges 3 of an entity with two embeds hung so).
func TestPoolTakesAllAtOnce(t *testing.T) {
	p := NewPool(make([]source.Reader, 2))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	held, err := p.Take(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rs, err := p.Take(ctx, 2)
			if err == nil && len(rs) != 2 {
				err = errors.New("took fewer than 2")
			}
			if err == nil {
				time.Sleep(10 * time.Millisecond)
				p.Put(rs)
			}
			errs <- err
		}()
	}
	time.Sleep(100 * time.Millisecond) // both takers waiting
	p.Put(held)
	wg.Wait()
	for range 2 {
		if err := <-errs; err != nil {
			t.Errorf("a taker: %v (a deadlock ends at the test's deadline)", err)
		}
	}
	if n := len(p.free); n != 2 {
		t.Errorf("%d readers back in the pool, want 2", n)
	}

	// A taker waiting to gather, or waiting behind one, stops with its
	// context, and gives back what it gathered.
	held, _ = p.Take(ctx, 1)
	short, stop := context.WithTimeout(ctx, 50*time.Millisecond)
	defer stop()
	if _, err := p.Take(short, 2); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a taker past its deadline: %v", err)
	}
	p.Put(held)
	if n := len(p.free); n != 2 {
		t.Errorf("%d readers back in the pool after a taker gave up, want 2", n)
	}
	if !(Pool{}).IsZero() || p.IsZero() {
		t.Error("IsZero")
	}
}
