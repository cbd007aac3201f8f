package verify

import (
	"github.com/remodel-dev/remodel/internal/domain/progress"
)

// Progress (Options.Progress) has four phases, each counted where the report
// counts, so that a complete phase ends at exactly the report's numbers.
// The source counts come first; the other three then run side by side
// (they start in this order):
//
//	count     entities the entities whose source rows were counted
//	scan      items    the table's items read by the count scan (total unknown)
//	items     rows     per entity, the source rows the item check read, of
//	                   the exact count the count check made
//	patterns  samples  per access pattern, the parameter sets checked (each
//	                   counted as it begins), of --samples until the sampling
//	                   says how many there are (fewer when the source has
//	                   fewer values)

// scanPhase starts the scan phase.
func (v *verifier) scanPhase() *progress.Phase {
	return v.o.Progress.Phase("scan", "items", []progress.Task{{Name: v.o.Table, Total: progress.Unknown}})
}

// countPhase starts the count phase.
func (v *verifier) countPhase() *progress.Phase {
	n := int64(len(v.o.Plan.Entities))
	return v.o.Progress.Phase("count", "entities", []progress.Task{{Name: "entities", Total: n, Exact: true}})
}

// itemsPhase starts the items phase, with the counts of rep as totals (an
// entity whose rows could not be counted has none).
func (v *verifier) itemsPhase(rep *Report) *progress.Phase {
	if v.o.Progress == nil {
		return nil
	}
	tasks := make([]progress.Task, len(v.o.Plan.Entities))
	for i, e := range v.o.Plan.Entities {
		tasks[i] = progress.Task{Name: e.Name, Total: progress.Unknown}
		for _, cc := range rep.Counts {
			if cc.Entity == e.Name && !v.countFailed[e.Name] {
				tasks[i].Total, tasks[i].Exact = cc.Source, true
			}
		}
	}
	return v.o.Progress.Phase("items", "rows", tasks)
}

// patternsPhase starts the patterns phase.
func (v *verifier) patternsPhase() *progress.Phase {
	if v.o.Progress == nil {
		return nil
	}
	tasks := make([]progress.Task, len(v.o.Plan.AccessPatterns))
	for i, ap := range v.o.Plan.AccessPatterns {
		tasks[i] = progress.Task{Name: ap.Name, Total: int64(v.o.Samples)}
	}
	return v.o.Progress.Phase("patterns", "samples", tasks)
}
