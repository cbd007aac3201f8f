package progress

import (
	"sync"
	"sync/atomic"
	"time"
)

// Unknown is the total of a task whose size is not known.
const Unknown = -1

// Task describes one task of a phase when the phase starts.
type Task struct {
	Name string
	// Total is how many units the task has (Unknown when not known), and
	// Exact whether it is counted rather than estimated.
	Total int64
	Exact bool
	// Count, when set, is the task's done count, read at every update: a
	// counter the domain package keeps anyway (safe for concurrent use).
	// Without it the task counts what Counter.Add adds.
	Count func() int64
}

// Tracker holds a command's phases. A nil *Tracker reports nothing.
type Tracker struct {
	command string
	now     func() time.Time
	start   time.Time
	changed chan struct{} // a phase started or ended

	mu     sync.Mutex
	phases []*Phase
}

// New starts a tracker for the command (migrate, verify, preview).
func New(command string) *Tracker { return newTracker(command, time.Now) }

func newTracker(command string, now func() time.Time) *Tracker {
	return &Tracker{command: command, now: now, start: now(), changed: make(chan struct{}, 1)}
}

// Phase starts a phase of the command with its tasks; the unit names what
// the tasks count (rows, items, samples). It returns nil on a nil tracker.
func (t *Tracker) Phase(name, unit string, tasks []Task) *Phase {
	return t.phase(name, unit, tasks, nil)
}

func (t *Tracker) phase(name, unit string, tasks []Task, lag func() Lag) *Phase {
	if t == nil {
		return nil
	}
	p := &Phase{t: t, name: name, unit: unit, start: t.now(), counters: make([]*Counter, len(tasks)), lag: lag}
	for i, task := range tasks {
		c := &Counter{name: task.Name, count: task.Count, p: p}
		c.total.Store(task.Total)
		c.exact.Store(task.Exact)
		p.counters[i] = c
	}
	if lag != nil {
		p.sample(p.start, p.done())
	}
	t.mu.Lock()
	t.phases = append(t.phases, p)
	t.mu.Unlock()
	t.signal()
	return p
}

func (t *Tracker) signal() {
	select {
	case t.changed <- struct{}{}:
	default:
	}
}

// Phase is one step of a command. Its methods are safe for concurrent use
// and do nothing on a nil *Phase.
type Phase struct {
	t          *Tracker
	name, unit string
	start      time.Time
	counters   []*Counter

	mu      sync.Mutex
	ended   bool
	end     time.Time
	tallies []Tally
	lag     func() Lag
	endLag  Lag      // lag's value when the phase ended
	samples []sample // the phase's done count at recent moments (lag.go)
}

// Tally is a count a phase shows beside its tasks' (retries, rejected
// rows), read at every update from a counter the domain package keeps
// anyway (safe for concurrent use).
type Tally struct {
	Name  string
	Count func() int64
}

// Tally adds counts the phase shows beside its tasks', in this order.
func (p *Phase) Tally(tallies ...Tally) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.tallies = append(p.tallies, tallies...)
	p.mu.Unlock()
}

// done is the phase's tasks' done counts added up.
func (p *Phase) done() int64 {
	var n int64
	for _, c := range p.counters {
		n += c.value()
	}
	return n
}

// Counter is the i-th task's counter (nil on a nil phase).
func (p *Phase) Counter(i int) *Counter {
	if p == nil {
		return nil
	}
	return p.counters[i]
}

// End ends the phase (a second call does nothing): its state from then on
// is final. complete says that every task is done: each task's total
// becomes its done count, exact. A phase that ends incomplete (an error, an
// interruption) keeps its totals and shows the counts it reached.
func (p *Phase) End(complete bool) {
	if p == nil {
		return
	}
	p.mu.Lock()
	if !p.ended {
		p.ended, p.end = true, p.t.now()
		if complete {
			for _, c := range p.counters {
				c.Finish()
			}
		}
		if p.lag != nil {
			p.endLag = p.lag()
			p.sample(p.end, p.done())
		}
	}
	p.mu.Unlock()
	p.t.signal()
}

// Counter is one task's progress. Its methods are safe for concurrent use
// and do nothing on a nil *Counter.
type Counter struct {
	p     *Phase
	name  string
	count func() int64
	done  atomic.Int64
	total atomic.Int64
	exact atomic.Bool
	// first is when the task was first seen to have done something (Unix
	// nanoseconds; 0: not yet): its rate is measured from then.
	first atomic.Int64
}

// Add adds n done units.
func (c *Counter) Add(n int64) {
	if c == nil {
		return
	}
	if c.done.Add(n) == n && n > 0 {
		c.first.CompareAndSwap(0, c.p.t.now().UnixNano())
	}
}

// SetTotal sets the task's total (Unknown when not known), and whether it
// is exact.
func (c *Counter) SetTotal(n int64, exact bool) {
	if c == nil {
		return
	}
	c.total.Store(n)
	c.exact.Store(exact)
}

// Finish says the task is done: its total becomes its done count, exact.
func (c *Counter) Finish() {
	if c == nil {
		return
	}
	c.SetTotal(c.value(), true)
}

func (c *Counter) value() int64 {
	if c.count != nil {
		return c.count()
	}
	return c.done.Load()
}
