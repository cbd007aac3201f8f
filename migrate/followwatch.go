package migrate

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/progress"
	"github.com/remodel-dev/remodel/internal/domain/source"
)

// The follower's watch: nothing goes quiet. Every headEvery it reads where
// the source is from the source itself (source.Stream.Head, on a
// connection of its own), so that a stream that stops delivering is seen
// as behind however silent it is; and it words the follower's state for
// the progress: caught up, behind, or stalled (applied has not moved for
// stallAfter while the source is ahead) with the cause when it is known:
// the source does not answer, the stream brings nothing, DynamoDB is not
// taking the writes, or --rate-limit holds the writes back.

// headEvery is how often the watch reads the source's head; stallAfter how
// long applied may stand still while the source is ahead before the
// follower is said to be stalled (variables for the tests).
var (
	headEvery  = 2 * time.Second
	stallAfter = 3 * headEvery
)

// followWatch reads the source's head and words the follower's state.
type followWatch struct {
	f      *follower
	stream source.Stream

	mu        sync.Mutex
	headErr   error     // the last head reading's error; nil: it answered
	headErrAt time.Time // since when readings fail
	applied   source.Position
	movedAt   time.Time // when applied last moved
	// limitWaited is how long writes waited for the rate limit in all;
	// nil: no limit.
	limitWaited func() time.Duration
	waited      time.Duration // limitWaited at the last reading
	waitedAt    time.Time
	limited     bool // the rate limit held the writes back for most of the last interval
}

func newFollowWatch(f *follower, stream source.Stream) *followWatch {
	now := time.Now()
	w := &followWatch{f: f, stream: stream, movedAt: now, waitedAt: now}
	if l := f.w.cfg.Limit; l != nil {
		w.limitWaited = l.Waited
	}
	return w
}

// start reads the head every headEvery until stop is called.
func (w *followWatch) start(ctx context.Context) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(headEvery)
		defer tick.Stop()
		for {
			w.read(ctx)
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	})
	return func() {
		cancel()
		wg.Wait()
	}
}

// read reads the head once (within headEvery and the source's own
// deadlines) and the rate limit's wait.
func (w *followWatch) read(ctx context.Context) {
	hctx, cancel := context.WithTimeout(ctx, max(headEvery, 5*time.Second))
	_, err := w.stream.Head(hctx)
	cancel()
	if ctx.Err() != nil {
		return
	}
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case err == nil:
		w.headErr = nil
	case w.headErr == nil:
		w.headErr, w.headErrAt = err, now
	default:
		w.headErr = err
	}
	if w.limitWaited != nil {
		waited := w.limitWaited()
		w.limited = waited-w.waited > now.Sub(w.waitedAt)/2
		w.waited, w.waitedAt = waited, now
	}
}

// lag is the follower's lag and state now (progress.LagPhase's).
func (w *followWatch) lag() progress.Lag {
	st := w.stream.Status()
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	if st.Applied != w.applied {
		w.applied, w.movedAt = st.Applied, now
	}
	l := progress.Lag{Source: string(st.Source), Applied: string(st.Applied), Behind: st.Behind, State: progress.LagBehind}
	switch {
	case w.headErr != nil:
		// Since the last reading that answered, nothing is known: the
		// follower is at least that far behind.
		since := st.HeadRead
		if since.IsZero() {
			since = w.headErrAt
		}
		l.State = progress.LagStalled
		l.Cause = fmt.Sprintf("the source has not said where it is for %s: %v", now.Sub(since).Round(time.Second), w.headErr)
		l.Behind = max(l.Behind, now.Sub(since))
	case st.CaughtUp:
		l.State = progress.LagCaughtUp
	case st.HeadRead.IsZero():
		l.Cause = "the source's position is not read yet"
	case now.Sub(w.movedAt) >= stallAfter:
		l.State = progress.LagStalled
		l.Cause = w.stallCause(now)
	}
	if w.limited && l.Cause == "" {
		l.Cause = fmt.Sprintf("held back by --rate-limit %d write units/s", w.f.o.RateLimit)
	}
	return l
}

// stallCause says why applied has not moved (w.mu held).
func (w *followWatch) stallCause(now time.Time) string {
	f := w.f
	f.mu.Lock()
	txns, since, retries := f.busyTxns, f.busySince, f.busyRetries
	f.mu.Unlock()
	switch {
	case txns == 0:
		return fmt.Sprintf("the change stream has brought nothing for %s while the source is ahead", now.Sub(w.movedAt).Round(time.Second))
	case w.limited:
		return fmt.Sprintf("applying %d transactions for %s, held back by --rate-limit %d write units/s", txns, now.Sub(since).Round(time.Second), f.o.RateLimit)
	case f.w.c.sent.Retries.Load() > retries:
		return fmt.Sprintf("DynamoDB is not taking the writes: applying %d transactions for %s, %d attempts retried; retrying until %s", txns, now.Sub(since).Round(time.Second),
			f.w.c.sent.Retries.Load()-retries, since.Add(f.o.Backoff.Deadline).Format(time.TimeOnly))
	}
	return fmt.Sprintf("applying %d transactions for %s", txns, now.Sub(since).Round(time.Second))
}
