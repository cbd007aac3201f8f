package batchwrite

import (
	"bytes"
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/sink"
	"github.com/remodel-dev/remodel/mapping"
)

// Adaptive is the writers' concurrency: how many BatchWriteItem requests
// may be in flight at once. It adapts to throttling by AIMD, as TCP does
// to congestion: it grows by one after a window's worth of answers without
// throttling (as many answers as the limit, about one round trip of every
// writer), and is cut by a factor (Decrease) on a throttled answer (HTTP
// 400 throttling, or items left unprocessed, which is how DynamoDB answers
// a batch it throttles in part), at most once per window: answers to
// requests sent before the last cut do not cut it again. It never goes
// below one or above the writers there are (NewAdaptive). So the writers
// keep the table as busy as its capacity allows, without a pile of
// requests it refuses.
type Adaptive struct {
	max int

	mu      sync.Mutex
	limit   float64 // the window; its integer part is the requests allowed
	flying  int
	good    int       // answers without throttling since the last change
	cut     time.Time // when the limit was last cut
	changed chan struct{}

	// counts for the report and tests
	cuts, peak atomic.Int64
}

// Decrease is the factor of a cut.
const Decrease = 0.5

// startWindow is the first limit.
const startWindow = 4

// NewAdaptive is the concurrency of max writers, starting at startWindow.
func NewAdaptive(max int) *Adaptive {
	a := &Adaptive{max: max, limit: float64(min(max, startWindow)), changed: make(chan struct{})}
	a.peak.Store(int64(a.limit))
	return a
}

// acquire waits for a request slot.
func (a *Adaptive) acquire(ctx context.Context) error {
	if a == nil {
		return nil
	}
	for {
		a.mu.Lock()
		if a.flying < int(a.limit) {
			a.flying++
			a.mu.Unlock()
			return nil
		}
		ch := a.changed
		a.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// release gives the slot of a request sent at sent back, with whether its
// answer was throttled (answered is false for a request that got no
// answer saying either: it changes nothing).
func (a *Adaptive) release(sent time.Time, answered, throttled bool) {
	if a == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.flying--
	switch {
	case throttled && sent.After(a.cut):
		a.limit = max(1, a.limit*Decrease)
		a.cut = time.Now()
		a.good = 0
		a.cuts.Add(1)
	case answered && !throttled:
		if a.good++; a.good >= int(a.limit) && a.limit < float64(a.max) {
			a.limit = min(float64(a.max), a.limit+1)
			a.good = 0
			if int64(a.limit) > a.peak.Load() {
				a.peak.Store(int64(a.limit))
			}
		}
	}
	close(a.changed) // a slot is free, or the limit changed
	a.changed = make(chan struct{})
}

// InFlight is how many requests are in flight now (progress).
func (a *Adaptive) InFlight() int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return int64(a.flying)
}

// window is the current limit (for tests and progress).
func (a *Adaptive) window() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return int(a.limit)
}

// onePartition says whether every item of a batch has one partition-key
// value. A throttled answer to such a batch may be that key's limit (1 000
// write units a second for one partition-key value, which a large item
// collection meets) rather than the table's: it does not cut the writers'
// concurrency, so that the other keys' batches keep the table busy; the
// batch backs off on its own. When the table itself is the limit, the
// batches of several keys are throttled too, and they cut it.
func onePartition(t *mapping.Table, b sink.Batch, idx []int) bool {
	if len(idx) == 0 {
		return false
	}
	first := b.Item(idx[0]).Value[t.PK.Name]
	for _, i := range idx[1:] {
		if !sameValue(first, b.Item(i).Value[t.PK.Name]) {
			return false
		}
	}
	return true
}

func sameValue(a, b types.AttributeValue) bool {
	switch x := a.(type) {
	case *types.AttributeValueMemberS:
		y, ok := b.(*types.AttributeValueMemberS)
		return ok && x.Value == y.Value
	case *types.AttributeValueMemberN:
		y, ok := b.(*types.AttributeValueMemberN)
		return ok && x.Value == y.Value
	case *types.AttributeValueMemberB:
		y, ok := b.(*types.AttributeValueMemberB)
		return ok && bytes.Equal(x.Value, y.Value)
	}
	return false
}

// Max is the most requests it allows.
func (a *Adaptive) Max() int { return a.max }

// Peak is the most requests it allowed at once.
func (a *Adaptive) Peak() int64 { return a.peak.Load() }

// Cuts is how many times throttling cut it.
func (a *Adaptive) Cuts() int64 { return a.cuts.Load() }
