package progress

import "time"

// RateWindow is how far back a lag's rate of changes looks.
const RateWindow = 5 * time.Second

// Lag is where a phase that applies a stream of changes (migrate's
// follow phase) stands against the stream: the position the source is at,
// the last position applied, and how long ago the oldest change received
// and not yet applied committed (0: nothing waits).
type Lag struct {
	Source, Applied string
	Behind          time.Duration
	// State is the follower's word on it: LagCaughtUp, LagBehind or
	// LagStalled ("" when the phase has none); Cause says why it stalls
	// or what holds it back, when known.
	State, Cause string
}

// The states of a Lag.
const (
	// LagCaughtUp: everything the source committed up to its position,
	// read from the source itself, is applied.
	LagCaughtUp = "caught up"
	// LagBehind: changes wait to be applied, and applied moves.
	LagBehind = "behind"
	// LagStalled: the source is ahead and applied has not moved for a
	// while.
	LagStalled = "stalled"
)

// LagState is a phase's lag in a State.
type LagState struct {
	Lag
	// Changes is the phase's done count (changes applied), and PerSecond
	// how many it did per second over the last RateWindow (since the
	// phase began, when that is shorter), up to the state's moment or the
	// phase's end.
	Changes   int64
	PerSecond float64
}

// LagPhase starts a phase that follows a stream of changes (see Phase):
// its done count is the changes applied, and its lag is read from lag at
// every update while it runs (safe for concurrent use), and once more when
// it ends, which is its lag from then on. It returns nil on a nil tracker.
func (t *Tracker) LagPhase(name, unit string, tasks []Task, lag func() Lag) *Phase {
	return t.phase(name, unit, tasks, lag)
}

// sample is a phase's done count at a moment.
type sample struct {
	at   time.Time
	done int64
}

// sample records the done count at a moment (p.mu held), keeping the
// newest sample at or before RateWindow ago and the ones after it.
func (p *Phase) sample(at time.Time, done int64) {
	p.samples = append(p.samples, sample{at, done})
	for len(p.samples) > 1 && !p.samples[1].at.After(at.Add(-RateWindow)) {
		p.samples = p.samples[1:]
	}
}

// lagState is the phase's lag now, its tasks having done done (p.mu
// held): read from its function while the phase runs, the one read at its
// end after.
func (p *Phase) lagState(now time.Time, done int64) *LagState {
	if p.lag == nil {
		return nil
	}
	l := p.endLag
	if !p.ended {
		l = p.lag()
		p.sample(now, done)
	}
	first, last := p.samples[0], p.samples[len(p.samples)-1]
	ls := &LagState{Lag: l, Changes: last.done}
	if d := last.at.Sub(first.at); d > 0 {
		ls.PerSecond = float64(last.done-first.done) / d.Seconds()
	}
	return ls
}
