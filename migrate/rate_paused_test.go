package migrate

import (
	"testing"
	"time"
)

// TestGatePaused: the time throttling paused the writers adds what each
// pause adds to the one under way, once.
func TestGatePaused(t *testing.T) {
	g := newGate(Backoff{Base: 100 * time.Millisecond, Cap: 100 * time.Millisecond, Deadline: time.Minute})
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

// TestWriterConcurrency: the report's line of the adaptive concurrency,
// and none without it.
func TestWriterConcurrency(t *testing.T) {
	w := &writer{conc: newAdaptive(8), gate: newGate(DefaultBackoff)}
	w.conc.release(time.Now().Add(time.Hour), true, true) // a cut
	if r := w.concurrency(); r == nil || r.Writers != 8 || r.Cuts != 1 || r.Peak != startWindow {
		t.Errorf("concurrency report: %+v", r)
	}
	if r := (&writer{}).concurrency(); r != nil {
		t.Errorf("a writer without adaptive concurrency reports %+v", r)
	}
}
