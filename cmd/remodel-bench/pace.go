package main

import (
	"context"
	"sync"
	"time"
)

// paceWorkers runs the workers of a follow workload (followload.go,
// followbackload.go) at rate changes per second in all, until stop is
// closed, ctx is done or failed (when not nil) says the workload failed.
// Each worker has a ticker at its share of the rate and calls change on a
// tick when it is behind its share (made says how many changes it has
// made): a slow target makes the rate fall short (the bench reports the
// rate achieved), not burst.
func paceWorkers[W any](ctx context.Context, workers []W, rate float64, stop <-chan struct{}, made func(W) int64, change func(W), failed func() bool) {
	each := rate / float64(len(workers))
	t0 := time.Now()
	var wg sync.WaitGroup
	for _, w := range workers {
		wg.Go(func() {
			t := time.NewTicker(time.Duration(float64(time.Second) / each))
			defer t.Stop()
			made0 := made(w)
			for failed == nil || !failed() {
				select {
				case <-stop:
					return
				case <-ctx.Done():
					return
				case now := <-t.C:
					if behind(made(w)-made0, now.Sub(t0), each) {
						change(w)
					}
				}
			}
		})
	}
	wg.Wait()
}

// behind says whether a worker that has made made changes in elapsed is
// behind its share of each changes per second.
func behind(made int64, elapsed time.Duration, each float64) bool {
	return float64(made) < elapsed.Seconds()*each
}
