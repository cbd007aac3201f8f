package progressview

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/testsupport/golden"

	"github.com/remodel-dev/remodel/internal/domain/progress"
)

// lockedBuffer is a bytes.Buffer that a reading goroutine fills while the
// test looks.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
	// changed, when a waiter made it, is closed by the next Write.
	changed chan struct{}
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.changed != nil {
		close(l.changed)
		l.changed = nil
	}
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// waitFor waits until the text written, as clean shows it, contains want,
// woken by each write; it fails the test after a minute without it.
func (l *lockedBuffer) waitFor(t *testing.T, want string, clean func(string) string) {
	t.Helper()
	timeout := time.After(time.Minute)
	for {
		l.mu.Lock()
		text := l.b.String()
		if l.changed == nil {
			l.changed = make(chan struct{})
		}
		changed := l.changed
		l.mu.Unlock()
		if strings.Contains(clean(text), want) {
			return
		}
		select {
		case <-changed:
		case <-timeout:
			t.Fatalf("%q was not written within a minute:\n%s", want, clean(text))
		}
	}
}

var t0 = time.Date(2026, 11, 23, 1, 0, 0, 0, time.UTC)

// copyState is a migrate whose count phase ended and whose copy phase has
// run for elapsed: personal (exact total), user (an estimate), service (no
// total), subscribe (not begun); its tallies are rejected rows (one per
// 1000 personal rows) and retries (one per 100 user rows).
func copyState(elapsed time.Duration, personal, user int64) progress.State {
	s := progress.State{Command: "migrate", Time: t0.Add(elapsed + 500*time.Millisecond), Elapsed: elapsed + 500*time.Millisecond}
	s.Phases = []progress.PhaseState{
		{Name: "count", Unit: "entities", Elapsed: 500 * time.Millisecond, Ended: true,
			Tasks: []progress.TaskState{{Name: "entities", Done: 4, Total: 4, Exact: true, Elapsed: 400 * time.Millisecond}}},
		{Name: "copy", Unit: "rows", Elapsed: elapsed, Tasks: []progress.TaskState{
			{Name: "personal", Done: personal, Total: 1200, Exact: true, Elapsed: elapsed},
			{Name: "user", Done: user, Total: 3800, Elapsed: elapsed / 2},
			{Name: "service", Done: 6, Total: progress.Unknown, Elapsed: time.Second},
			{Name: "subscribe", Done: 0, Total: 40},
		}, Tallies: []progress.TallyState{{Name: "rejected", Count: personal / 1000}, {Name: "retries", Count: user / 100}}},
	}
	return s
}

// followState is a migrate --follow whose copy ended complete and whose
// follow phase has run for elapsed and applied changes: its lag is
// source, applied, behind and the rate; rejected rows are its tally.
func followState(elapsed time.Duration, changes int64, source, applied string, behind time.Duration, perSecond float64, end bool) progress.State {
	s := ended(copyState(10*time.Second, 1200, 3790))
	s.Time, s.Elapsed = s.Time.Add(elapsed), s.Elapsed+elapsed
	s.Phases = append(s.Phases, progress.PhaseState{Name: "follow", Unit: "changes", Elapsed: elapsed, Ended: end,
		Tasks:   []progress.TaskState{{Name: "stream", Done: changes, Total: progress.Unknown, Elapsed: elapsed}},
		Tallies: []progress.TallyState{{Name: "rejected", Count: changes / 100}},
		Lag:     &progress.LagState{Lag: progress.Lag{Source: source, Applied: applied, Behind: behind, State: lagState(source, applied)}, Changes: changes, PerSecond: perSecond}})
	return s
}

// lagState is the state of a lag in these tests: caught up when applied is
// the source's position.
func lagState(source, applied string) string {
	if source == applied {
		return progress.LagCaughtUp
	}
	return progress.LagBehind
}

// ended is the state with the copy phase ended complete: every total exact.
func ended(s progress.State) progress.State {
	p := &s.Phases[len(s.Phases)-1]
	p.Ended = true
	for i := range p.Tasks {
		p.Tasks[i].Total, p.Tasks[i].Exact = p.Tasks[i].Done, true
	}
	return s
}

// TestJSONGolden: the JSON lines of a count phase that ended before the
// first update (its end only), and of a copy phase (start, progress, end);
// closing prints nothing more. Then a follower's: its phase's lines have
// the lag in "follow" (source, applied, behind_s, changes, changes_per_s),
// and no other phase's has. Every line is a JSONLine of version 1 with
// no field beyond it.
func TestJSONGolden(t *testing.T) {
	var b bytes.Buffer
	j := NewJSON(&b)
	j.Print(copyState(2*time.Second, 100, 50))
	j.Print(copyState(6*time.Second, 1000, 200))
	last := ended(copyState(25*time.Second, 1200, 3790))
	j.Print(last)
	j.Close(last)
	// The follower: its lag in a "follow" object, its start, progress and
	// end lines; the copy, ended, prints nothing more.
	j = NewJSON(&b)
	j.Print(ended(copyState(25*time.Second, 1200, 3790)))
	j.Print(followState(time.Second, 0, "0/2443CA8", "0/2443CA8", 0, 0, false))
	j.Print(followState(6*time.Second, 61, "0/24476A0", "0/24475E0", 345*time.Millisecond, 58.04, false))
	last = followState(65*time.Second, 130, "0/2449A10", "0/2449A10", 0, 0, true)
	j.Print(last)
	j.Close(last)
	golden.Check(t, "progress.jsonl", b.Bytes())

	sc := bufio.NewScanner(&b)
	var events []string
	for sc.Scan() {
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		var l JSONLine
		if err := dec.Decode(&l); err != nil {
			t.Fatalf("%q: %v", sc.Text(), err)
		}
		if l.Version != JSONVersion || l.Command != "migrate" {
			t.Errorf("line %q: version %d, command %q", sc.Text(), l.Version, l.Command)
		}
		events = append(events, l.Phase+" "+l.Event)
		if (l.Phase == "follow") != (l.Follow != nil) {
			t.Errorf("line %q: phase %s with follow %+v", sc.Text(), l.Phase, l.Follow)
		}
	}
	if got, want := strings.Join(events, ", "), "count end, copy start, copy progress, copy end, count end, copy end, follow start, follow progress, follow end"; got != want {
		t.Errorf("events %s, want %s", got, want)
	}
}

// TestLines: a phase is quiet for its first interval, then has a line per
// update listing the tasks under way, and an end line, each with the
// phase's tallies (zero too); a phase that ended within its first interval
// prints nothing; one that stopped says so. A follower's line is its lag.
func TestLines(t *testing.T) {
	var b bytes.Buffer
	l := NewLines(&b, 5*time.Second)
	l.Print(copyState(time.Second, 100, 50))
	l.Print(copyState(6*time.Second, 1000, 200))
	l.Print(copyState(16*time.Second, 1100, 2500))
	last := ended(copyState(25*time.Second, 1200, 3790))
	l.Print(last)
	l.Print(last)
	l.Close(last)

	stopped := progress.State{Command: "verify", Phases: []progress.PhaseState{
		{Name: "items", Unit: "rows", Elapsed: 12300 * time.Millisecond, Ended: true,
			Tasks: []progress.TaskState{{Name: "user", Done: 700, Total: 1000, Exact: true, Elapsed: 12 * time.Second}}},
	}}
	stopped.Phases[0].Tallies = []progress.TallyState{{Name: "retries", Count: 0}}
	stopped.Phases[0].Ended = false
	l2 := NewLines(&b, 5*time.Second)
	l2.Print(stopped) // 12.3s in: printed
	stopped.Phases[0].Ended = true
	l2.Close(stopped)

	l3 := NewLines(&b, 5*time.Second)
	l3.Print(followState(time.Second, 0, "0/2443CA8", "0/2443CA8", 0, 0, false)) // quiet: 1 s in
	l3.Print(followState(6*time.Second, 61, "0/24476A0", "0/24475E0", 345*time.Millisecond, 58.04, false))
	follow := followState(65*time.Second, 130, "0/2449A10", "0/2449A10", 0, 0, true)
	l3.Print(follow)
	l3.Close(follow)

	// service has no total: the phase has none, and no percent or ETA.
	want := `migrate copy: 1206 rows, 201 rows/s, 6s elapsed, 1 rejected, 2 retries; personal 1000 of 1200, user 200 of ~3800, service 6
migrate copy: 3606 rows, 225 rows/s, 16s elapsed, 1 rejected, 25 retries; personal 1100 of 1200, user 2500 of ~3800, service 6
migrate copy: done: 4996 rows in 25s (200 rows/s), 1 rejected, 37 retries
verify items: 700 of 1000 rows (70.0%), 57 rows/s, ETA 5s, 12s elapsed, 0 retries; user 700 of 1000
verify items: stopped after 12s: 700 of 1000 rows, 0 retries
migrate follow: behind: applied 0/24475E0, source at 0/24476A0, 0.3s behind, 61 changes (58/s), 6s elapsed, 0 rejected
migrate follow: stopped after 1m5s: caught up: applied 0/2449A10, source at 0/2449A10, 0.0s behind, 130 changes (0/s), 1 rejected
`
	if got := b.String(); got != want {
		t.Errorf("lines:\n%s\nwant:\n%s", got, want)
	}
}

// TestBarsClose: bars forced on a writer that is no terminal draw, and
// closing them returns, with no phase at all or with a phase that never
// ended (an interrupted run): its bars are left where they got.
func TestBarsClose(t *testing.T) {
	done := make(chan string)
	go func() {
		NewBars(io.Discard).Close(progress.State{Command: "verify"})
		var b lockedBuffer
		bars := NewBars(&b)
		s := copyState(6*time.Second, 1000, 200)
		bars.Print(s)
		bars.Close(s)
		done <- b.String()
	}()
	select {
	case out := <-done:
		if !strings.Contains(out, "1000 of 1200 rows") {
			t.Errorf("the bars drew:\n%s", out)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("closing the bars did not return in 30s")
	}
}
