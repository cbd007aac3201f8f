package migrate

import (
	"context"
	"sync"
	"time"
)

// Defaults of the run's deadlines (Options).
const (
	DefaultRequestTimeout = 30 * time.Second
	DefaultTableTimeout   = 5 * time.Minute
	DefaultStopGrace      = 5 * time.Second
	DefaultLockStale      = 2 * time.Minute
)

func (o *Options) runDefaults() {
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = DefaultRequestTimeout
	}
	if o.TableTimeout <= 0 {
		o.TableTimeout = DefaultTableTimeout
	}
	if o.StopGrace <= 0 {
		o.StopGrace = DefaultStopGrace
	}
	if o.LockStale <= 0 {
		o.LockStale = DefaultLockStale
	}
}

// afterGrace returns a context with ctx's values that is canceled grace
// after ctx is done (or when done is called): requests already in flight
// when a run stops use it to get their answer.
func afterGrace(ctx context.Context, grace time.Duration) (inflight context.Context, done func()) {
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
