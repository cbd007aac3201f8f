package progressview

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/progress"
)

// Lines prints a line per running phase at every update once the phase has
// run for an interval, and one when such a phase ends (a phase shorter than
// an interval prints nothing, so that quick commands stay quiet):
//
//	migrate copy: 1234 of ~5000 rows (24.7%), 301 rows/s, ETA 13s, 4.1s elapsed, 2 rejected, 17 retries; personal 1000 of ~1200, user 234 of ~3800
//	migrate copy: done: 5012 rows in 16s (313 rows/s), 2 rejected, 40 retries
//
// The tasks listed are those under way (begun, not done); the phase's
// tallies (Phase.Tally) follow its count, zero or not. A phase that follows
// a stream (Phase.Lag) has its lag instead of counts:
//
//	migrate follow: applied 0/24475E0, source at 0/24476A0, 0.3s behind, 61 changes (58/s), 12s elapsed, 0 rejected
//	migrate follow: stopped after 1m5s: applied 0/2449A10, source at 0/2449A10, 0.0s behind, 130 changes (0/s), 0 rejected
type Lines struct {
	w       io.Writer
	every   time.Duration
	printed map[int]bool // phases with a line printed
	ended   map[int]bool // phases whose end was printed
}

// NewLines returns a Lines printer writing to w, for updates every interval.
func NewLines(w io.Writer, every time.Duration) *Lines {
	return &Lines{w: w, every: every, printed: map[int]bool{}, ended: map[int]bool{}}
}

// Print prints the state.
func (l *Lines) Print(s progress.State) {
	for i, p := range s.Phases {
		switch {
		case p.Ended:
			l.end(s.Command, i, p)
		case p.Elapsed >= l.every:
			l.printed[i] = true
			fmt.Fprintln(l.w, Line(s.Command, p))
		}
	}
}

func (l *Lines) end(command string, i int, p progress.PhaseState) {
	if l.printed[i] && !l.ended[i] {
		l.ended[i] = true
		fmt.Fprintln(l.w, EndLine(command, p))
	}
}

// Close prints the phases that ended since the last Print.
func (l *Lines) Close(s progress.State) {
	for i, p := range s.Phases {
		l.end(s.Command, i, p)
	}
}

// Line is the line of a running phase.
func Line(command string, p progress.PhaseState) string {
	if p.Lag != nil {
		return fmt.Sprintf("%s %s: %s, %s elapsed%s", command, p.Name, lag(p.Lag), duration(p.Elapsed), tallies(p))
	}
	sum := p.Sum()
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %s %s", command, p.Name, count(sum), p.Unit)
	if sum.Total != progress.Unknown {
		fmt.Fprintf(&b, " (%s)", percent(sum))
	}
	fmt.Fprintf(&b, ", %.0f %s/s", sum.Rate(), p.Unit)
	if e := eta(sum); e != "" {
		fmt.Fprintf(&b, ", %s", e)
	}
	fmt.Fprintf(&b, ", %s elapsed%s", duration(p.Elapsed), tallies(p))
	sep := "; "
	for _, t := range p.Tasks {
		if t.Done == 0 || (t.Total != progress.Unknown && t.Done >= t.Total) {
			continue
		}
		fmt.Fprintf(&b, "%s%s %s", sep, t.Name, count(t))
		sep = ", "
	}
	return b.String()
}

// EndLine is the line of an ended phase: "done" when every task reached
// its total, "stopped" otherwise (a phase that follows a stream ends when
// it is stopped).
func EndLine(command string, p progress.PhaseState) string {
	if p.Lag != nil {
		return fmt.Sprintf("%s %s: stopped after %s: %s%s", command, p.Name, duration(p.Elapsed), lag(p.Lag), tallies(p))
	}
	sum := p.Sum()
	if sum.Exact && sum.Done == sum.Total {
		return fmt.Sprintf("%s %s: done: %d %s in %s (%.0f %s/s)%s", command, p.Name, sum.Done, p.Unit, duration(p.Elapsed), sum.Rate(), p.Unit, tallies(p))
	}
	return fmt.Sprintf("%s %s: stopped after %s: %s %s%s", command, p.Name, duration(p.Elapsed), count(sum), p.Unit, tallies(p))
}

// tallies is ", 2 rejected, 17 retries": the phase's tallies, or "".
func tallies(p progress.PhaseState) string {
	var b strings.Builder
	for _, t := range p.Tallies {
		fmt.Fprintf(&b, ", %d %s", t.Count, t.Name)
	}
	return b.String()
}
