package main

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// TestPaceWorkers holds the pacing loop to its rate (never above it: a
// worker ahead of its share waits) and to each of its three ends: stop,
// ctx and failed.
func TestPaceWorkers(t *testing.T) {
	type worker struct{ made int64 }
	run := func(ctx context.Context, stop <-chan struct{}, failed func() bool) (made int64, took time.Duration) {
		ws := []*worker{{}, {}}
		var all atomic.Int64
		t0 := time.Now()
		paceWorkers(ctx, ws, 100, stop,
			func(w *worker) int64 { return w.made },
			func(w *worker) { w.made++; all.Add(1) },
			failed)
		return all.Load(), time.Since(t0)
	}

	stop := make(chan struct{})
	time.AfterFunc(500*time.Millisecond, func() { close(stop) })
	made, took := run(context.Background(), stop, nil)
	if due := int64(took.Seconds()*100) + 2; made == 0 || made > due {
		t.Errorf("100/s for %s: %d changes, want 1 to %d", took, made, due)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, took := run(ctx, nil, nil); took > 10*time.Second {
		t.Errorf("ctx done after 100 ms: returned after %s", took)
	}

	if made, _ := run(context.Background(), nil, func() bool { return true }); made != 0 {
		t.Errorf("failed from the start: %d changes, want 0", made)
	}
}
