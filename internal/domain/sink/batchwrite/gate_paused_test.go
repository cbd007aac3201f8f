package batchwrite

import (
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/backoff"
)

// TestGatePaused: the time throttling paused the writers adds what each
// pause adds to the one under way, once.
func TestGatePaused(t *testing.T) {
	g := NewGate(backoff.Policy{Base: 100 * time.Millisecond, Cap: 100 * time.Millisecond, Deadline: time.Minute})
	sent := time.Now()
	g.throttled(sent.Add(time.Millisecond)) // a first pause: 50 to 100 ms (equal jitter)
	first := time.Duration(g.paused.Load())
	if first < 50*time.Millisecond || first > 100*time.Millisecond || g.pauses.Load() != 1 {
		t.Fatalf("after one throttled answer: paused %s, %d pauses", first, g.pauses.Load())
	}
	g.throttled(sent) // sent before the pause began: covered by it, adds nothing
	if d := time.Duration(g.paused.Load()); d != first || g.pauses.Load() != 1 {
		t.Errorf("an answer the pause covers: paused %s (was %s), %d pauses", d, first, g.pauses.Load())
	}
}
