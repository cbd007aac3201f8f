package progress

import "time"

// State is a snapshot of a command's progress.
type State struct {
	Command string
	Time    time.Time
	Elapsed time.Duration // since the tracker started
	Phases  []PhaseState  // in the order they started
}

// PhaseState is one phase in a State.
type PhaseState struct {
	Name, Unit string
	Elapsed    time.Duration // since the phase started, until it ended
	Ended      bool
	Tasks      []TaskState
	Tallies    []TallyState // Phase.Tally's counts, in their order
	Lag        *LagState    // a phase that follows a stream (Phase.Lag); nil otherwise
}

// TallyState is one of a phase's tallies in a State.
type TallyState struct {
	Name  string
	Count int64
}

// TaskState is one task in a State, or a phase's tasks summed (Sum).
type TaskState struct {
	Name  string
	Done  int64
	Total int64 // Unknown when not known
	Exact bool
	// Elapsed is how long the task has been doing something: from when it
	// was first seen to have done a unit until now, or the phase's end.
	Elapsed time.Duration
}

// Snapshot reads every phase's counts now. A nil tracker has no phases.
func (t *Tracker) Snapshot() State {
	if t == nil {
		return State{}
	}
	now := t.now()
	s := State{Command: t.command, Time: now, Elapsed: now.Sub(t.start)}
	t.mu.Lock()
	phases := append([]*Phase(nil), t.phases...)
	t.mu.Unlock()
	for _, p := range phases {
		p.mu.Lock()
		ended, end, tallies := p.ended, p.end, p.tallies
		p.mu.Unlock()
		if !ended {
			end = now
		}
		ps := PhaseState{Name: p.name, Unit: p.unit, Elapsed: end.Sub(p.start), Ended: ended}
		for _, c := range p.counters {
			done := c.value()
			if done > 0 {
				c.first.CompareAndSwap(0, now.UnixNano()) // a polled count: first seen now
			}
			ts := TaskState{Name: c.name, Done: done, Total: c.total.Load(), Exact: c.exact.Load()}
			if first := c.first.Load(); first != 0 && done > 0 {
				ts.Elapsed = max(0, end.Sub(time.Unix(0, first)))
			}
			ps.Tasks = append(ps.Tasks, ts)
		}
		for _, tl := range tallies {
			ps.Tallies = append(ps.Tallies, TallyState{Name: tl.Name, Count: tl.Count()})
		}
		p.mu.Lock()
		ps.Lag = p.lagState(now, ps.Sum().Done)
		p.mu.Unlock()
		s.Phases = append(s.Phases, ps)
	}
	return s
}

// Current is the phase that started last, or nil before any.
func (s State) Current() *PhaseState {
	if len(s.Phases) == 0 {
		return nil
	}
	return &s.Phases[len(s.Phases)-1]
}

// Sum is the phase's tasks added up, timed by the phase: its total is
// unknown if any task's is, and exact only if every task's is.
func (p PhaseState) Sum() TaskState {
	sum := TaskState{Name: p.Name, Exact: true, Elapsed: p.Elapsed}
	for _, t := range p.Tasks {
		sum.Done += t.Done
		switch {
		case sum.Total == Unknown || t.Total == Unknown:
			sum.Total = Unknown
		default:
			sum.Total += t.Total
		}
		sum.Exact = sum.Exact && t.Exact
	}
	return sum
}

// Percent is how much of the task is done, from 0 to 100; ok is false when
// it is not known: no total, or an estimated total the task has gone past
// (the estimate was low).
func (t TaskState) Percent() (pct float64, ok bool) {
	switch {
	case t.Total == Unknown || t.Total < 0:
		return 0, false
	case t.Done > t.Total && !t.Exact:
		return 0, false
	case t.Done >= t.Total:
		return 100, true
	}
	return 100 * float64(t.Done) / float64(t.Total), true
}

// Rate is the units done per second since the task began (0 before).
func (t TaskState) Rate() float64 {
	if t.Elapsed <= 0 {
		return 0
	}
	return float64(t.Done) / t.Elapsed.Seconds()
}

// ETA is how long the rest of the task takes at the rate it has had so
// far; ok is false when that is not known: the percent is not, or nothing
// is done yet.
func (t TaskState) ETA() (eta time.Duration, ok bool) {
	pct, ok := t.Percent()
	switch {
	case !ok:
		return 0, false
	case pct == 100:
		return 0, true
	case t.Done == 0 || t.Elapsed <= 0:
		return 0, false
	}
	left := float64(t.Total-t.Done) / float64(t.Done) * float64(t.Elapsed)
	return time.Duration(left).Round(time.Second), true
}
