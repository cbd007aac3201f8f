package progressview

import (
	"fmt"
	"io"
	"sync"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/remodel-dev/remodel/internal/domain/progress"
)

// BarsPrinter draws a live bar per task (mpb), added when its phase
// starts: the phase and task name, the bar, the counts, the percent and
// the ETA. A phase's bars stay on the screen when it ends, full when the
// phase is complete, as far as they got otherwise. A phase that follows a
// stream (progress.LagPhase) has a line instead of a bar per task, its
// lag, redrawn live:
//
//	follow stream    applied 0/24475E0, source at 0/24476A0, 0.3s behind, 61 changes (58/s), 0 rejected
type BarsPrinter struct {
	p      *mpb.Progress
	phases []*phaseBars
}

type phaseBars struct {
	bars  []*mpb.Bar
	state []*barState
	ended bool
}

// barState is what a bar's decorators show; they run on mpb's goroutines.
type barState struct {
	mu   sync.Mutex
	t    progress.TaskState
	p    progress.PhaseState // for a phase that follows a stream: its lag and tallies
	unit string
}

func (b *barState) get() progress.TaskState {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.t
}

// lag is the lag line of a phase that follows a stream.
func (b *barState) lag() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.p.Lag == nil {
		return ""
	}
	return lag(b.p.Lag) + tallies(b.p)
}

// NewBars returns a bar printer drawing on w.
func NewBars(w io.Writer) *BarsPrinter {
	// The width is the line's where the terminal's is not known (bars
	// forced on a file); each bar is 32 wide.
	return &BarsPrinter{p: mpb.New(mpb.WithOutput(w), mpb.WithWidth(160), mpb.WithRefreshRate(BarRefresh), mpb.WithAutoRefresh())}
}

// Print adds the bars of phases that started and sets every bar's counts.
func (b *BarsPrinter) Print(s progress.State) { b.print(s, false) }

// Close ends every bar and waits for the last drawing.
func (b *BarsPrinter) Close(s progress.State) {
	b.print(s, true)
	b.p.Wait()
}

func (b *BarsPrinter) print(s progress.State, final bool) {
	width := 0
	for _, p := range s.Phases {
		for _, t := range p.Tasks {
			width = max(width, len(p.Name)+1+len(t.Name))
		}
	}
	for i, p := range s.Phases {
		if i == len(b.phases) {
			b.phases = append(b.phases, b.add(p, width))
		}
		pb := b.phases[i]
		if pb.ended {
			continue
		}
		end := p.Ended || final
		for j, t := range p.Tasks {
			st := pb.state[j]
			st.mu.Lock()
			st.t, st.p = t, p
			st.mu.Unlock()
			bar := pb.bars[j]
			total := t.Total
			switch {
			case total == progress.Unknown:
				total = 0 // an empty bar: the decorators say "?%"
			case t.Done > total:
				total = t.Done // past its estimate: full, and "?%"
			}
			bar.SetTotal(total, false)
			bar.SetCurrent(t.Done)
			if end {
				if pct, ok := t.Percent(); ok && pct == 100 && t.Exact {
					bar.SetTotal(max(t.Done, 1), true) // full, also when it had nothing to do
				} else {
					bar.Abort(false)
				}
			}
		}
		pb.ended = end
	}
}

func (b *BarsPrinter) add(p progress.PhaseState, width int) *phaseBars {
	pb := &phaseBars{}
	for _, t := range p.Tasks {
		st := &barState{t: t, p: p, unit: p.Unit}
		label := fmt.Sprintf("%-*s", width, p.Name+" "+t.Name)
		if p.Lag != nil {
			bar := b.p.New(0, mpb.NopStyle(),
				mpb.PrependDecorators(decor.Name(label, decor.WC{C: decor.DindentRight})),
				mpb.AppendDecorators(decor.Any(func(decor.Statistics) string { return " " + st.lag() })), // not synchronised: the bars keep their columns
			)
			pb.bars = append(pb.bars, bar)
			pb.state = append(pb.state, st)
			continue
		}
		// Total 0: mpb would complete a bar by itself when its count
		// reaches the total, and an estimate is no end; totals are set by
		// Print, completion only at the phase's end.
		bar := b.p.AddBar(0, mpb.BarWidth(32),
			mpb.PrependDecorators(decor.Name(label, decor.WC{C: decor.DindentRight})),
			mpb.AppendDecorators(
				decor.Any(func(decor.Statistics) string { return " " + count(st.get()) + " " + st.unit }, decor.WCSyncSpace),
				decor.Any(func(decor.Statistics) string { return percent(st.get()) }, decor.WCSyncSpace),
				decor.Any(func(decor.Statistics) string { return barTime(st.get(), st.unit) }, decor.WCSyncSpace),
			),
		)
		pb.bars = append(pb.bars, bar)
		pb.state = append(pb.state, st)
	}
	return pb
}

// barTime is a finished task's time ("25s"), the ETA of one under way
// ("ETA 54s"), or its rate when there is no ETA ("6 rows/s").
func barTime(t progress.TaskState, unit string) string {
	if pct, ok := t.Percent(); ok && pct == 100 && t.Exact {
		return duration(t.Elapsed)
	}
	if e := eta(t); e != "" {
		return e
	}
	return fmt.Sprintf("%.0f %s/s", t.Rate(), unit)
}
