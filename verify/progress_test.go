package verify_test

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/progress"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// recorder is a progress printer that keeps every state it is handed.
type recorder struct {
	mu     sync.Mutex
	states []progress.State
}

func (r *recorder) Print(s progress.State) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.states = append(r.states, s)
}

func (r *recorder) Close(s progress.State) { r.Print(s) }

// TestProgress: a real verify's progress has the phases count, scan, items
// and patterns (in that order, the last three side by side); every count ends at exactly the report's number (items
// scanned, entities counted, rows read per entity, samples per pattern),
// and the item check's totals are the counted rows from the start.
func TestProgress(t *testing.T) {
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			o := migrated(t, eng.Name, eng.Fresh, exampleMapping(t))
			tracker := progress.New("verify")
			o.Progress = tracker
			rec := &recorder{}
			stop := progress.Run(tracker, rec, 5*time.Millisecond)
			rep := run(t, o)
			stop()
			if !rep.OK {
				t.Fatalf("verify failed:\n%s", text(rep))
			}
			final := rec.states[len(rec.states)-1]
			var names []string
			for _, p := range final.Phases {
				names = append(names, p.Name)
				if !p.Ended {
					t.Errorf("phase %s has not ended", p.Name)
				}
			}
			if want := []string{"count", "scan", "items", "patterns"}; !slices.Equal(names, want) {
				t.Fatalf("phases %q, want %q", names, want)
			}
			var items int64
			for _, c := range rep.Counts {
				items += c.Items
			}
			check := func(phase, task string, got progress.TaskState, want int64) {
				t.Helper()
				if got.Name != task || got.Done != want || got.Total != want || !got.Exact {
					t.Errorf("phase %s ends with task %+v, want %s at %d of %d", phase, got, task, want, want)
				}
			}
			check("count", "entities", final.Phases[0].Tasks[0], int64(len(rep.Counts)))
			check("scan", o.Table, final.Phases[1].Tasks[0], items)
			for i, ic := range rep.Items {
				check("items", ic.Entity, final.Phases[2].Tasks[i], ic.Rows)
			}
			for i, pc := range rep.Patterns {
				check("patterns", pc.Name, final.Phases[3].Tasks[i], int64(pc.Samples))
			}
			// The item check's totals are the count check's rows all along.
			for _, s := range rec.states {
				if len(s.Phases) < 3 {
					continue
				}
				for i, task := range s.Phases[2].Tasks {
					if c := rep.Counts[i]; task.Total != c.Source || !task.Exact || task.Done > task.Total {
						t.Errorf("items of %s at %d of %d (exact %v), the source has %d rows", c.Entity, task.Done, task.Total, task.Exact, c.Source)
					}
				}
			}
		})
	}
}
