package migrate

import (
	"context"
	"fmt"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/remodel-dev/remodel/internal/domain/progress"
	"github.com/remodel-dev/remodel/internal/domain/source"
)

// copyPhase starts the progress of the copy: one task per entity, whose
// done count is its rows written or rejected (the counters the report
// reads, polled), so that a complete phase ends at exactly the report's
// rows. Totals are the source's row counts for a table read whole, or the
// planner's estimate (an entity with a where, a view, a query:
// source.RowsTotal), so that one such entity does not leave the run
// without an ETA; with
// Options.ExactCounts every entity is first counted in the snapshot (SELECT
// count(*) with its where: a "count" phase), and the totals are exact.
// The phase's tallies are the rows rejected and the retries, and with the
// writers' adaptive concurrency (w.conc) the requests in flight and how
// long throttling paused the writers. A resumed run
// counts from the rows its earlier runs settled (tr), so that its percent
// and ETA are of the whole entity. Without a tracker it does nothing.
func copyPhase(ctx context.Context, o Options, readers []source.Reader, c *counters, tr *tracker, w *writer) (*progress.Phase, error) {
	if o.Progress == nil {
		return nil, nil
	}
	tasks := make([]progress.Task, len(o.Plan.Entities))
	for i, e := range o.Plan.Entities {
		ec := c.perEntity[e.Name]
		settled := tr.settledOf(e.Name)
		tasks[i] = progress.Task{Name: e.Name, Total: progress.Unknown,
			Count: func() int64 { return settled + ec.written.Load() + ec.rejected.Load() }}
		if n, exact, known := source.RowsTotal(ctx, readers[0], e.Table, e.Where); known {
			tasks[i].Total, tasks[i].Exact = n, exact
		}
	}
	if o.ExactCounts {
		totals, err := exactCounts(ctx, o, readers)
		if err != nil {
			return nil, err
		}
		for i, n := range totals {
			tasks[i].Total, tasks[i].Exact = n, true
		}
	}
	ph := o.Progress.Phase("copy", "rows", tasks)
	ph.Tally(progress.Tally{Name: "rejected", Count: c.rejected.Load}, progress.Tally{Name: "retries", Count: c.sent.Retries.Load})
	if w != nil && w.cfg.Conc != nil {
		ph.Tally(progress.Tally{Name: "requests in flight", Count: w.cfg.Conc.InFlight},
			progress.Tally{Name: "s paused by throttling", Count: func() int64 { return int64(w.cfg.Gate.Paused() / time.Second) }})
	}
	return ph, nil
}

// exactCounts counts every entity's rows in the snapshot, the readers
// sharing the entities.
func exactCounts(ctx context.Context, o Options, readers []source.Reader) ([]int64, error) {
	ents := o.Plan.Entities
	ph := o.Progress.Phase("count", "entities", []progress.Task{{Name: "entities", Total: int64(len(ents)), Exact: true}})
	totals := make([]int64, len(ents))
	jobs := make(chan int)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		defer close(jobs)
		for i := range ents {
			select {
			case jobs <- i:
			case <-gctx.Done():
				return gctx.Err()
			}
		}
		return nil
	})
	for _, r := range readers {
		g.Go(func() error {
			for i := range jobs {
				n, err := r.Count(gctx, ents[i].Table, ents[i].Where)
				if err != nil {
					return fmt.Errorf("migrate: counting the rows of entity %s: %w", ents[i].Name, err)
				}
				totals[i] = n
				ph.Counter(0).Add(1)
			}
			return nil
		})
	}
	err := g.Wait()
	ph.End(err == nil)
	return totals, err
}

// followPhase starts the progress of the follower: a phase whose one
// task, "stream", counts the changes applied, with the stream's lag
// (source and applied positions, how far behind) read at every update and
// the rows rejected as its tally. Without a tracker it does nothing.
func followPhase(o Options, w *followWatch) *progress.Phase {
	if o.Progress == nil {
		return nil
	}
	ph := o.Progress.LagPhase("follow", "changes", []progress.Task{{Name: "stream", Total: progress.Unknown, Count: w.f.applied}}, w.lag)
	ph.Tally(progress.Tally{Name: "rejected", Count: w.f.rejected})
	return ph
}
