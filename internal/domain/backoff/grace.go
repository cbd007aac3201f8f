package backoff

import (
	"context"
	"sync"
	"time"
)

// AfterGrace returns a context with ctx's values that is canceled grace
// after ctx is done (or when done is called): requests already in flight
// when a run stops use it to get their answer.
func AfterGrace(ctx context.Context, grace time.Duration) (inflight context.Context, done func()) {
	inflight, cancel := context.WithCancel(context.WithoutCancel(ctx))
	var mu sync.Mutex
	var timer *time.Timer
	stop := context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		if inflight.Err() == nil {
			timer = time.AfterFunc(grace, cancel)
		}
	})
	return inflight, func() {
		stop()
		cancel()
		mu.Lock()
		defer mu.Unlock()
		if timer != nil {
			timer.Stop()
		}
	}
}
