package batchwrite

import (
	"context"
	"sync"
)

// Lanes let the batches of one large item collection go at their key's
// pace without holding up the others. DynamoDB takes at most 1 000 write
// units a second for one partition-key value; a collection read in key
// order fills batch after batch with that one key, and each writer that
// takes one would retry it at that pace while the other keys' batches wait
// behind it in the channel. So a batch of one partition key (onePartition)
// throttled while the writers adapt to throttling is handed to a lane: a
// goroutine of its own that retries it as the writer would, while the
// writer takes the next batch. Lanes hold at most maxItems items; past
// that the writer keeps its batch, as before, and the readers wait. The
// copy's pipeline alone uses lanes: --follow applies changes of one key in
// order and never hands a batch over.
type Lanes struct {
	maxItems int

	mu    sync.Mutex
	items int
	err   error
	wg    sync.WaitGroup
}

// LaneItems is the most items lanes should hold: a few MB for items of a
// few hundred bytes.
const LaneItems = 10000

// NewLanes are lanes that hold at most maxItems items.
func NewLanes(maxItems int) *Lanes { return &Lanes{maxItems: maxItems} }

// take starts a lane for items unless lanes are full; run writes them.
func (l *Lanes) take(n int, run func() error) bool {
	if l == nil {
		return false
	}
	l.mu.Lock()
	if l.items+n > l.maxItems || l.err != nil {
		l.mu.Unlock()
		return false
	}
	l.items += n
	l.mu.Unlock()
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		err := run()
		l.mu.Lock()
		l.items -= n
		if err != nil && l.err == nil {
			l.err = err
		}
		l.mu.Unlock()
	}()
	return true
}

// failed is the first error of a lane, nil while none failed.
func (l *Lanes) failed() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// Wait waits for every lane and returns the first error.
func (l *Lanes) Wait() error {
	if l == nil {
		return nil
	}
	l.wg.Wait()
	return l.failed()
}

// laneKey marks a context whose writes must not be handed to a lane: a
// lane's own.
type laneKey struct{}

func inLane(ctx context.Context) bool { return ctx.Value(laneKey{}) != nil }
