package migrate_test

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/progress"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/mapping"
	"github.com/remodel-dev/remodel/migrate"
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

// TestProgress: a real migration's progress, with the source's estimates
// and with --exact-counts: the copy phase has a task per entity whose count
// never goes back, never passes an exact total, and ends at exactly the
// report's rows of that entity; exact counts are the source's rows from
// the first state on.
func TestProgress(t *testing.T) {
	for _, eng := range testenv.Engines {
		for _, exact := range []bool{false, true} {
			name := eng.Name + "/estimates"
			if exact {
				name = eng.Name + "/exact"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				endpoint := testenv.DynamoDB(t)
				fx := personalization(t, eng)
				db := newDB(t, endpoint)
				table := tableName(t, db)
				o := fx.options(db, table)
				o.CreateTable, o.ExactCounts = true, exact
				tracker := progress.New("migrate")
				o.Progress = tracker
				rec := &recorder{}
				stop := progress.Run(tracker, rec, 5*time.Millisecond)
				rep, err := migrate.Run(testContext(t), o)
				stop()
				if err != nil {
					t.Fatalf("Run: %v", err)
				}
				checkLanded(t, fx, rep, db, table)

				want := []string{"copy"}
				if exact {
					want = []string{"count", "copy"}
				}
				final := rec.states[len(rec.states)-1]
				var got []string
				for _, p := range final.Phases {
					got = append(got, p.Name)
					if !p.Ended {
						t.Errorf("phase %s has not ended", p.Name)
					}
				}
				if !slices.Equal(got, want) {
					t.Fatalf("phases %q, want %q", got, want)
				}
				if exact {
					if c := final.Phases[0].Sum(); c.Done != int64(len(fx.plan.Entities)) || c.Total != c.Done {
						t.Errorf("count phase: %d of %d entities, want %d", c.Done, c.Total, len(fx.plan.Entities))
					}
				}
				checkCopyProgress(t, fx, rep, rec.states, exact)
			})
		}
	}
}

// checkCopyProgress checks the copy phase in every recorded state.
func checkCopyProgress(t *testing.T, fx *fixture, rep *migrate.Report, states []progress.State, exact bool) {
	t.Helper()
	last := map[string]int64{}
	seen := 0
	for _, s := range states {
		i := slices.IndexFunc(s.Phases, func(p progress.PhaseState) bool { return p.Name == "copy" })
		if i < 0 {
			continue
		}
		seen++
		p := s.Phases[i]
		if len(p.Tasks) != len(fx.plan.Entities) {
			t.Fatalf("copy phase has %d tasks, the plan %d entities", len(p.Tasks), len(fx.plan.Entities))
		}
		for j, task := range p.Tasks {
			e := fx.plan.Entities[j]
			if task.Name != e.Name {
				t.Errorf("task %d is %q, want entity %q", j, task.Name, e.Name)
			}
			if task.Done < last[e.Name] {
				t.Errorf("entity %s: done went back from %d to %d", e.Name, last[e.Name], task.Done)
			}
			last[e.Name] = task.Done
			if task.Exact && task.Done > task.Total {
				t.Errorf("entity %s: %d done, more than the exact total %d", e.Name, task.Done, task.Total)
			}
			if exact && (!task.Exact || task.Total != fx.rows[e.Name]) {
				t.Errorf("entity %s: total %d (exact %v) with exact counts, the source has %d rows", e.Name, task.Total, task.Exact, fx.rows[e.Name])
			}
		}
	}
	if seen < 2 {
		t.Errorf("the copy phase was seen in %d states, want at least its start and end", seen)
	}
	final := states[len(states)-1].Phases
	p := final[len(final)-1]
	for j, er := range rep.Entities {
		task := p.Tasks[j]
		if task.Done != er.Items+er.Rejected || task.Total != task.Done || !task.Exact {
			t.Errorf("entity %s ends at %d of %d (exact %v); the report has %d items and %d rejected", er.Name, task.Done, task.Total, task.Exact, er.Items, er.Rejected)
		}
		if pct, ok := task.Percent(); !ok || pct != 100 {
			t.Errorf("entity %s ends at %v%% (known %v)", er.Name, pct, ok)
		}
	}
	want := []progress.TallyState{{Name: "rejected", Count: rep.Rejected}, {Name: "retries", Count: rep.Retries}}
	if c := rep.Concurrency; c != nil { // the writers' adaptive concurrency: none in flight at the end
		want = append(want, progress.TallyState{Name: "requests in flight", Count: 0}, progress.TallyState{Name: "s paused by throttling", Count: int64(c.Paused)})
	}
	if !slices.Equal(p.Tallies, want) {
		t.Errorf("the copy phase ends with tallies %+v, the report has %+v", p.Tallies, want)
	}
	if sum := p.Sum(); sum.Done != rep.RowsRead {
		t.Errorf("the copy phase ends at %d rows, the report read %d", sum.Done, rep.RowsRead)
	}
}

// TestProgressEstimates: an entity with a where gets, as its copy total,
// the planner's estimate of its own rows (not the whole table's, not
// unknown), so the run keeps an ETA.
func TestProgressEstimates(t *testing.T) {
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			t.Parallel()
			endpoint := testenv.DynamoDB(t)
			fx := personalization(t, eng)
			db := newDB(t, endpoint)
			table := tableName(t, db)
			o := fx.options(db, table)
			o.CreateTable = true
			var personal *mapping.Entity
			for _, e := range o.Plan.Entities {
				if e.Name == "personal" {
					personal = e
				}
			}
			tableRows, _, _ := personal.Table.Size.Rows()
			personal.Where = "user_id <= 100" // about a tenth of its rows
			tracker := progress.New("migrate")
			o.Progress = tracker
			rec := &recorder{}
			stop := progress.Run(tracker, rec, 5*time.Millisecond)
			_, err := migrate.Run(testContext(t), o)
			stop()
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			var first, last *progress.TaskState
			for _, st := range rec.states {
				for _, ph := range st.Phases {
					if ph.Name != "copy" {
						continue
					}
					for i := range ph.Tasks {
						if ph.Tasks[i].Name == "personal" {
							if first == nil && !ph.Ended {
								first = &ph.Tasks[i]
							}
							last = &ph.Tasks[i]
						}
					}
				}
			}
			if last == nil || first == nil {
				t.Fatal("no copy task for personal while the copy ran")
			}
			rows := last.Done
			// The planner's figure (without fresh statistics PostgreSQL
			// guesses a third of the table for a range): known, not exact,
			// under the whole table's.
			if first.Total == progress.Unknown || first.Exact || first.Total <= 0 || first.Total >= tableRows {
				t.Errorf("personal's copy total = %d (exact %v) for %d rows read of a %d-row table; want the planner's estimate of the where", first.Total, first.Exact, rows, tableRows)
			}
		})
	}
}
