package batchwrite

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// TestAdaptive: the window starts at 4, grows by one after as many answers
// without throttling as it allows, halves on a throttled answer to a
// request sent after the last cut (not for older ones), stays within 1 and
// the maximum.
func TestAdaptive(t *testing.T) {
	a := NewAdaptive(16)
	ctx := context.Background()
	// one request at a time, each answered
	send := func(throttled bool) {
		t.Helper()
		if err := a.acquire(ctx); err != nil {
			t.Fatal(err)
		}
		a.release(time.Now(), true, throttled)
	}
	if w := a.window(); w != 4 {
		t.Fatalf("first window %d, want 4", w)
	}
	for range 4 {
		send(false)
	}
	if w := a.window(); w != 5 {
		t.Errorf("after 4 good answers: window %d, want 5", w)
	}
	for range 5 + 6 + 7 {
		send(false)
	}
	if w := a.window(); w != 8 {
		t.Errorf("window %d, want 8", w)
	}
	before := time.Now()
	send(true)
	if w := a.window(); w != 4 {
		t.Errorf("after a throttled answer: window %d, want 4", w)
	}
	// an answer to a request sent before the cut does not cut again
	_ = a.acquire(ctx)
	a.release(before, true, true)
	if w := a.window(); w != 4 {
		t.Errorf("after an old throttled answer: window %d, want 4", w)
	}
	for range 5 {
		send(true)
	}
	if w := a.window(); w != 1 {
		t.Errorf("window %d, want 1 at least and at most", w)
	}
	// an unanswered request changes nothing
	_ = a.acquire(ctx)
	a.release(time.Now(), false, false)
	if w := a.window(); w != 1 {
		t.Errorf("window %d after no answer, want 1", w)
	}
	for range 1000 {
		send(false)
	}
	if w := a.window(); w != 16 || a.Peak() != 16 {
		t.Errorf("window %d, peak %d, want the maximum, 16", w, a.Peak())
	}
	if c := a.Cuts(); c != 6 {
		t.Errorf("%d cuts, want 6", c)
	}
	if w := NewAdaptive(2).window(); w != 2 {
		t.Errorf("a maximum of 2 starts at %d", w)
	}
}

// TestAdaptiveBlocks: no more requests than the window are in flight; a
// waiting one goes when a slot is freed, or gives up with its context.
func TestAdaptiveBlocks(t *testing.T) {
	a := NewAdaptive(4)
	ctx := context.Background()
	for range 4 {
		if err := a.acquire(ctx); err != nil {
			t.Fatal(err)
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := a.acquire(cctx); !errors.Is(err, context.Canceled) {
		t.Errorf("a fifth request with its context canceled: %v", err)
	}
	got := make(chan struct{})
	go func() {
		if err := a.acquire(ctx); err != nil {
			t.Error(err)
		}
		close(got)
	}()
	select {
	case <-got:
		t.Fatal("a fifth request went while four were in flight")
	default:
	}
	a.release(time.Now(), true, false)
	<-got
	// concurrent use: the count of requests in flight never passes the window
	var mu sync.Mutex
	flying, most := 0, 0
	var wg sync.WaitGroup
	for i := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 50 {
				if err := a.acquire(ctx); err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				flying++
				most = max(most, flying)
				mu.Unlock()
				mu.Lock()
				flying--
				mu.Unlock()
				a.release(time.Now(), true, (i+j)%17 == 0)
			}
		}()
	}
	for range 4 {
		a.release(time.Now(), true, false) // the four held above
	}
	wg.Wait()
	if most > 4 {
		t.Errorf("%d requests in flight at once, the most is 4", most)
	}
}
