package migrate

import (
	"testing"

	"github.com/remodel-dev/remodel/mapping"
)

// TestWriterConcurrency: the report's line of the adaptive concurrency,
// and none without it.
func TestWriterConcurrency(t *testing.T) {
	w := newWriter(Options{Plan: &mapping.Plan{}, Writers: 8, Backoff: DefaultBackoff}, &counters{}, nil)
	if r := w.concurrency(); r == nil || r.Writers != 8 || r.Cuts != 0 || r.Peak != 4 { // the cuts: batchwrite's TestAdaptive
		t.Errorf("concurrency report: %+v", r)
	}
	if r := newWriter(Options{Plan: &mapping.Plan{}, Writers: 8, FixedWriters: true}, &counters{}, nil).concurrency(); r != nil {
		t.Errorf("a writer without adaptive concurrency reports %+v", r)
	}
}
