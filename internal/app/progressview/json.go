package progressview

import (
	"encoding/json"
	"io"
	"math"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/progress"
)

// JSONVersion is the version of JSONLine's shape. A change that drops or
// redefines a field raises it; new fields may come without.
const JSONVersion = 1

// JSONLine is one line of --progress json: a phase's state at one moment.
// A phase has one "start" line when it is first seen running (none when it
// ended before that), "progress" lines every interval while it runs, and
// one "end" line with its final counts.
type JSONLine struct {
	Version int    `json:"version"` // JSONVersion
	Command string `json:"command"` // migrate, verify, preview
	Event   string `json:"event"`   // start, progress, end
	Time    string `json:"time"`    // RFC 3339, UTC, milliseconds
	// Elapsed is the seconds since the command started, PhaseElapsed since
	// the phase started (until it ended).
	Elapsed      float64 `json:"elapsed_s"`
	Phase        string  `json:"phase"`
	Unit         string  `json:"unit"` // what is counted: rows, items, samples, entities
	PhaseElapsed float64 `json:"phase_elapsed_s"`
	JSONCount
	// Tasks are the phase's entities or access patterns.
	Tasks []JSONTask `json:"tasks"`
	// Tallies are the phase's other counts by name (migrate's copy:
	// rejected, retries); absent when it has none.
	Tallies map[string]int64 `json:"tallies,omitempty"`
	// Follow is the lag of a phase that follows a stream of changes
	// (migrate's follow phase); absent for other phases.
	Follow *JSONFollow `json:"follow,omitempty"`
}

// JSONFollow is where a phase that applies a stream of changes stands:
// the source's position, the last position applied (the engine's own
// notation: PostgreSQL 0/24475E0, MySQL binlog.000004:3460582), how many
// seconds ago the oldest change received and not yet applied committed
// (0: nothing waits), the changes applied since the phase began, and how
// many per second over the last 5 seconds.
type JSONFollow struct {
	// State is "caught up", "behind" or "stalled"; Cause why it stalls
	// or what holds it back, when known.
	State       string  `json:"state"`
	Cause       string  `json:"cause,omitempty"`
	Source      string  `json:"source"`
	Applied     string  `json:"applied"`
	Behind      float64 `json:"behind_s"`
	Changes     int64   `json:"changes"`
	ChangesPerS float64 `json:"changes_per_s"`
}

// JSONTask is one task of a JSONLine.
type JSONTask struct {
	Name string `json:"name"`
	JSONCount
}

// JSONCount is a count and what follows from it. Total is null when not
// known, TotalExact false when it is an estimate (the source's statistics);
// Percent (0 to 100, one decimal) and ETA (seconds) are null when not known:
// no total, an estimate already passed, or nothing done yet (ETA). Rate is
// units per second since the task began.
type JSONCount struct {
	Done       int64    `json:"done"`
	Total      *int64   `json:"total"`
	TotalExact bool     `json:"total_exact"`
	Percent    *float64 `json:"percent"`
	Rate       float64  `json:"rate"`
	ETA        *float64 `json:"eta_s"`
}

// JSONPrinter writes JSON lines.
type JSONPrinter struct {
	enc     *json.Encoder
	started map[int]bool
	ended   map[int]bool
}

// NewJSON returns a JSON-lines printer writing to w.
func NewJSON(w io.Writer) *JSONPrinter {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &JSONPrinter{enc: enc, started: map[int]bool{}, ended: map[int]bool{}}
}

// Print writes a line per phase that started, runs or ended since the last.
func (j *JSONPrinter) Print(s progress.State) { j.print(s, false) }

// Close writes the end line of every phase not ended before.
func (j *JSONPrinter) Close(s progress.State) { j.print(s, true) }

func (j *JSONPrinter) print(s progress.State, final bool) {
	for i, p := range s.Phases {
		if j.ended[i] {
			continue
		}
		event := "progress"
		switch {
		case p.Ended || final:
			event = "end"
			j.ended[i] = true
		case !j.started[i]:
			event = "start"
		}
		j.started[i] = true
		_ = j.enc.Encode(phaseLine(s, p, event)) // progress is best effort: a broken stderr must not stop the run
	}
}

// phaseLine is the JSONLine of a phase.
func phaseLine(s progress.State, p progress.PhaseState, event string) JSONLine {
	l := JSONLine{
		Version: JSONVersion, Command: s.Command, Event: event,
		Time:    s.Time.UTC().Format("2006-01-02T15:04:05.000Z07:00"),
		Elapsed: seconds(s.Elapsed), Phase: p.Name, Unit: p.Unit, PhaseElapsed: seconds(p.Elapsed),
		JSONCount: jsonCount(p.Sum()), Tasks: []JSONTask{},
	}
	for _, t := range p.Tasks {
		l.Tasks = append(l.Tasks, JSONTask{Name: t.Name, JSONCount: jsonCount(t)})
	}
	for _, t := range p.Tallies {
		if l.Tallies == nil {
			l.Tallies = map[string]int64{}
		}
		l.Tallies[t.Name] = t.Count
	}
	if g := p.Lag; g != nil {
		l.Follow = &JSONFollow{State: g.State, Cause: g.Cause, Source: g.Source, Applied: g.Applied, Behind: seconds(g.Behind), Changes: g.Changes, ChangesPerS: round(g.PerSecond, 10)}
	}
	return l
}

func jsonCount(t progress.TaskState) JSONCount {
	c := JSONCount{Done: t.Done, TotalExact: t.Exact, Rate: round(t.Rate(), 10)}
	if t.Total != progress.Unknown {
		c.Total = &t.Total
	}
	if p, ok := t.Percent(); ok {
		p = round(p, 10)
		c.Percent = &p
	}
	if d, ok := t.ETA(); ok {
		e := d.Seconds()
		c.ETA = &e
	}
	return c
}

func seconds(d time.Duration) float64 { return round(d.Seconds(), 1000) }

func round(x, unit float64) float64 { return math.Round(x*unit) / unit }
