package progress

import (
	"math"
	"slices"
	"sync"
	"testing"
	"time"
)

// clock is a fake clock the tests move by hand.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newClock() *clock { return &clock{t: time.Date(2026, 11, 23, 1, 0, 0, 0, time.UTC)} }

func TestPercentETA(t *testing.T) {
	const s = time.Second
	tests := []struct {
		name   string
		task   TaskState
		pct    float64
		pctOK  bool
		eta    time.Duration
		etaOK  bool
		perSec float64
	}{
		{name: "unknown total", task: TaskState{Done: 10, Total: Unknown, Elapsed: 2 * s}, perSec: 5},
		{name: "nothing done yet", task: TaskState{Done: 0, Total: 100}, pct: 0, pctOK: true},
		{name: "a quarter in 10s", task: TaskState{Done: 25, Total: 100, Elapsed: 10 * s}, pct: 25, pctOK: true, eta: 30 * s, etaOK: true, perSec: 2.5},
		{name: "a third in 1s", task: TaskState{Done: 1, Total: 3, Exact: true, Elapsed: s}, pct: 100.0 / 3, pctOK: true, eta: 2 * s, etaOK: true, perSec: 1},
		{name: "rounded to the second", task: TaskState{Done: 3, Total: 10, Elapsed: s}, pct: 30, pctOK: true, eta: 2 * s, etaOK: true, perSec: 3},
		{name: "done", task: TaskState{Done: 100, Total: 100, Exact: true, Elapsed: 4 * s}, pct: 100, pctOK: true, eta: 0, etaOK: true, perSec: 25},
		{name: "empty and exact", task: TaskState{Done: 0, Total: 0, Exact: true}, pct: 100, pctOK: true, eta: 0, etaOK: true},
		{name: "estimate passed", task: TaskState{Done: 150, Total: 100, Elapsed: s}, perSec: 150},
		{name: "estimate of 0 passed", task: TaskState{Done: 1, Total: 0, Elapsed: s}, perSec: 1},
		{name: "estimate met", task: TaskState{Done: 100, Total: 100, Elapsed: s}, pct: 100, pctOK: true, eta: 0, etaOK: true, perSec: 100},
		{name: "begun but no time measured", task: TaskState{Done: 5, Total: 10}, pct: 50, pctOK: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pct, ok := tc.task.Percent()
			if ok != tc.pctOK || math.Abs(pct-tc.pct) > 1e-9 {
				t.Errorf("Percent() = %v, %v; want %v, %v", pct, ok, tc.pct, tc.pctOK)
			}
			eta, ok := tc.task.ETA()
			if ok != tc.etaOK || eta != tc.eta {
				t.Errorf("ETA() = %v, %v; want %v, %v", eta, ok, tc.eta, tc.etaOK)
			}
			if r := tc.task.Rate(); r != tc.perSec {
				t.Errorf("Rate() = %v, want %v", r, tc.perSec)
			}
		})
	}
}

func TestSum(t *testing.T) {
	p := PhaseState{Name: "copy", Elapsed: 10 * time.Second, Tasks: []TaskState{
		{Name: "a", Done: 10, Total: 20, Exact: true},
		{Name: "b", Done: 5, Total: 30},
	}}
	if got, want := p.Sum(), (TaskState{Name: "copy", Done: 15, Total: 50, Exact: false, Elapsed: 10 * time.Second}); got != want {
		t.Errorf("Sum() = %+v, want %+v", got, want)
	}
	p.Tasks = append(p.Tasks, TaskState{Name: "c", Done: 1, Total: Unknown})
	if got := p.Sum(); got.Total != Unknown || got.Done != 16 {
		t.Errorf("with an unknown total, Sum() = %+v, want done 16 and an unknown total", got)
	}
}

// TestSnapshot follows a tracker on a fake clock: a counted task and a
// polled one, each timed from its first unit, a phase frozen at its end,
// totals made exact by a complete end and kept by an incomplete one.
func TestSnapshot(t *testing.T) {
	clk := newClock()
	tr := newTracker("migrate", clk.now)
	var polled int64
	var mu sync.Mutex
	ph := tr.Phase("copy", "rows", []Task{
		{Name: "added", Total: 100},
		{Name: "polled", Total: Unknown, Count: func() int64 { mu.Lock(); defer mu.Unlock(); return polled }},
	})
	clk.advance(2 * time.Second)
	ph.Counter(0).Add(10) // begins at 2s
	clk.advance(3 * time.Second)
	mu.Lock()
	polled = 7
	mu.Unlock()
	s := tr.Snapshot() // the polled task is first seen at 5s
	if s.Command != "migrate" || s.Elapsed != 5*time.Second || len(s.Phases) != 1 {
		t.Fatalf("state %+v", s)
	}
	p := s.Phases[0]
	want := []TaskState{
		{Name: "added", Done: 10, Total: 100, Elapsed: 3 * time.Second},
		{Name: "polled", Done: 7, Total: Unknown, Elapsed: 0},
	}
	for i, w := range want {
		if p.Tasks[i] != w {
			t.Errorf("task %d = %+v, want %+v", i, p.Tasks[i], w)
		}
	}
	if len(p.Tallies) != 0 {
		t.Errorf("tallies %+v before any", p.Tallies)
	}
	retries := int64(3)
	ph.Tally(Tally{Name: "rejected", Count: func() int64 { return 0 }}, Tally{Name: "retries", Count: func() int64 { return retries }})
	if got := tr.Snapshot().Phases[0].Tallies; !slices.Equal(got, []TallyState{{"rejected", 0}, {"retries", 3}}) {
		t.Errorf("tallies %+v, want 0 rejected, 3 retries", got)
	}
	if eta, ok := p.Tasks[0].ETA(); !ok || eta != 27*time.Second {
		t.Errorf("ETA %v, %v; want 27s", eta, ok)
	}
	clk.advance(time.Second)
	ph.Counter(0).Add(20)
	ph.Counter(1).SetTotal(50, false)
	ph.End(true)
	clk.advance(time.Hour)
	p = tr.Snapshot().Phases[0]
	if !p.Ended || p.Elapsed != 6*time.Second {
		t.Errorf("ended %v after %v, want true after 6s", p.Ended, p.Elapsed)
	}
	want = []TaskState{
		{Name: "added", Done: 30, Total: 30, Exact: true, Elapsed: 4 * time.Second},
		{Name: "polled", Done: 7, Total: 7, Exact: true, Elapsed: time.Second},
	}
	for i, w := range want {
		if p.Tasks[i] != w {
			t.Errorf("after a complete end, task %d = %+v, want %+v", i, p.Tasks[i], w)
		}
	}

	ph2 := tr.Phase("verify", "samples", []Task{{Name: "pattern", Total: 10, Exact: true}})
	ph2.Counter(0).Add(4)
	ph2.End(false)
	ph2.Counter(0).Add(1) // counts after the end still count; the totals stay
	s = tr.Snapshot()
	if got := s.Phases[1].Tasks[0]; got.Done != 5 || got.Total != 10 || !got.Exact {
		t.Errorf("after an incomplete end, task = %+v, want 5 of 10", got)
	}
	if s.Current().Name != "verify" {
		t.Errorf("current phase %q, want verify", s.Current().Name)
	}
}

// TestNil: a nil tracker, phase and counter do nothing, without panicking.
func TestNil(t *testing.T) {
	var tr *Tracker
	ph := tr.Phase("copy", "rows", []Task{{Name: "a"}})
	if ph != nil {
		t.Fatal("a nil tracker made a phase")
	}
	ph.Counter(0).Add(1)
	ph.Counter(0).SetTotal(1, true)
	ph.Counter(0).Finish()
	ph.End(true)
	if s := tr.Snapshot(); len(s.Phases) != 0 || s.Current() != nil {
		t.Errorf("a nil tracker's state: %+v", s)
	}
	Run(tr, nil, time.Millisecond)()
}

type printed struct {
	mu     sync.Mutex
	prints []State
	closed []State
}

func (p *printed) Print(s State) { p.mu.Lock(); p.prints = append(p.prints, s); p.mu.Unlock() }
func (p *printed) Close(s State) { p.mu.Lock(); p.closed = append(p.closed, s); p.mu.Unlock() }

func (p *printed) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.prints)
}

// TestRun: the printer hears of a phase's start and end at once, not at
// the next interval, and is closed once with the final state.
func TestRun(t *testing.T) {
	tr := New("verify")
	pr := &printed{}
	stop := Run(tr, pr, time.Hour)
	wait := func(n int) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for pr.count() < n {
			if time.Now().After(deadline) {
				t.Fatalf("%d prints after 30s, want %d", pr.count(), n)
			}
			time.Sleep(time.Millisecond)
		}
	}
	ph := tr.Phase("items", "rows", []Task{{Name: "user", Total: 2, Exact: true}})
	wait(1)
	ph.Counter(0).Add(2)
	ph.End(true)
	wait(2)
	stop()
	stop() // a second stop only waits
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if last := pr.prints[len(pr.prints)-1]; !last.Phases[0].Ended {
		t.Errorf("the print after the end: %+v", last)
	}
	if len(pr.closed) != 1 || pr.closed[0].Phases[0].Tasks[0].Done != 2 {
		t.Errorf("closed %d times: %+v", len(pr.closed), pr.closed)
	}
}

// TestLag: a phase that follows a stream has its lag read at every
// snapshot while it runs, with the changes applied (its done count) and
// their rate over the last RateWindow (since the phase began before
// that); its end reads the lag once more, and keeps it and its rate. A
// phase of LagPhase has a lag, another has none.
func TestLag(t *testing.T) {
	clk := newClock()
	tr := newTracker("migrate", clk.now)
	var mu sync.Mutex
	applied := int64(0)
	lag := Lag{Source: "0/20", Applied: "0/10", Behind: 300 * time.Millisecond}
	set := func(n int64, l Lag) { mu.Lock(); applied, lag = n, l; mu.Unlock() }
	tr.Phase("copy", "rows", []Task{{Name: "user", Total: 1}}).End(true)
	ph := tr.LagPhase("follow", "changes", []Task{{Name: "stream", Total: Unknown, Count: func() int64 { mu.Lock(); defer mu.Unlock(); return applied }}},
		func() Lag { mu.Lock(); defer mu.Unlock(); return lag })
	if got := tr.Snapshot().Phases[0].Lag; got != nil {
		t.Fatalf("a phase that follows no stream has lag %+v", got)
	}
	lagAt := func() LagState {
		t.Helper()
		l := tr.Snapshot().Phases[1].Lag
		if l == nil {
			t.Fatal("no lag in the state")
		}
		return *l
	}
	steps := []struct {
		after time.Duration
		n     int64
		lag   Lag
		want  LagState
	}{
		{0, 0, lag, LagState{Lag: lag}},
		// 2 s in, 40 changes: 20/s since the phase began.
		{2 * time.Second, 40, Lag{Source: "0/30", Applied: "0/30", Behind: 0}, LagState{Lag{Source: "0/30", Applied: "0/30", Behind: 0}, 40, 20}},
		// 4 s in, 100: 25/s since the phase began (less than a window).
		{2 * time.Second, 100, Lag{Source: "0/40", Applied: "0/35", Behind: time.Second}, LagState{Lag{Source: "0/40", Applied: "0/35", Behind: time.Second}, 100, 25}},
		// 7 s in, 100: the window goes back to the sample at 2 s (the
		// newest at or before 5 s ago): 60 changes in 5 s.
		{3 * time.Second, 100, Lag{Source: "0/40", Applied: "0/40", Behind: 0}, LagState{Lag{Source: "0/40", Applied: "0/40", Behind: 0}, 100, 12}},
		// 13 s in, nothing since 7 s: 0/s.
		{6 * time.Second, 100, Lag{Source: "0/50", Applied: "0/40", Behind: 0}, LagState{Lag{Source: "0/50", Applied: "0/40", Behind: 0}, 100, 0}},
	}
	for i, s := range steps {
		clk.advance(s.after)
		set(s.n, s.lag)
		if got := lagAt(); got != s.want {
			t.Errorf("step %d: lag %+v, want %+v", i, got, s.want)
		}
	}
	// 18 s in, 150 changes, then the end (50 changes since 13 s): the
	// lag read at the end stays.
	clk.advance(5 * time.Second)
	set(150, Lag{Source: "0/60", Applied: "0/60", Behind: 0})
	ph.End(false)
	end := LagState{Lag{Source: "0/60", Applied: "0/60", Behind: 0}, 150, 10}
	clk.advance(time.Minute)
	set(500, Lag{Source: "0/90", Applied: "0/70", Behind: time.Hour})
	if got := lagAt(); got != end {
		t.Errorf("after the end: lag %+v, want %+v", got, end)
	}
}
