package progressview

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/vbauerster/mpb/v8/cwriter"

	"github.com/remodel-dev/remodel/internal/domain/progress"
)

// The --progress modes.
const (
	Auto  = "auto"  // Bars on a terminal, Plain otherwise
	Bars  = "bar"   // live bars, one per task of the current phase
	Plain = "plain" // a line per running phase every interval
	JSON  = "json"  // a JSON line per phase every interval (JSONLine)
	None  = "none"
)

// Modes lists the --progress values.
var Modes = []string{Auto, Bars, Plain, JSON, None}

// BarRefresh is how often bars are redrawn.
const BarRefresh = 200 * time.Millisecond

// New returns the printer of a mode writing to w, and how often it wants
// the state (every for lines, BarRefresh for bars); nil for None.
func New(mode string, w io.Writer, every time.Duration) (progress.Printer, time.Duration, error) {
	if mode == Auto {
		mode = Plain
		if IsTerminal(w) {
			mode = Bars
		}
	}
	switch mode {
	case Bars:
		return NewBars(w), BarRefresh, nil
	case Plain:
		return NewLines(w, every), every, nil
	case JSON:
		return NewJSON(w), every, nil
	case None:
		return nil, every, nil
	}
	return nil, 0, fmt.Errorf("unknown progress mode %q (want %s)", mode, strings.Join(Modes, ", "))
}

// IsTerminal reports whether w is a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && cwriter.IsTerminal(int(f.Fd()))
}

// count words a task's done count and total: "1234 of ~5000", "1234 of
// 5000", "1234" (total unknown).
func count(t progress.TaskState) string {
	switch {
	case t.Total == progress.Unknown:
		return strconv.FormatInt(t.Done, 10)
	case t.Exact:
		return fmt.Sprintf("%d of %d", t.Done, t.Total)
	}
	return fmt.Sprintf("%d of ~%d", t.Done, t.Total)
}

// percent is "24.7%", or "?%" when not known.
func percent(t progress.TaskState) string {
	if p, ok := t.Percent(); ok {
		return strconv.FormatFloat(p, 'f', 1, 64) + "%"
	}
	return "?%"
}

// eta is "ETA 13s", or "" when not known.
func eta(t progress.TaskState) string {
	if d, ok := t.ETA(); ok {
		return "ETA " + duration(d)
	}
	return ""
}

// duration rounds d to seconds (tenths under 10 s).
func duration(d time.Duration) string {
	if d < 10*time.Second {
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// lag words a following phase's lag: "behind: applied 0/24475E0, source
// at 0/24476A0, 0.3s behind, 61 changes (58/s)", its state first and the
// cause of a stall (or what holds it back) last.
func lag(l *progress.LagState) string {
	s := fmt.Sprintf("applied %s, source at %s, %.1fs behind, %d changes (%.0f/s)", l.Applied, l.Source, l.Behind.Seconds(), l.Changes, l.PerSecond)
	if l.State != "" {
		s = l.State + ": " + s
	}
	if l.Cause != "" {
		s += " (" + l.Cause + ")"
	}
	return s
}
