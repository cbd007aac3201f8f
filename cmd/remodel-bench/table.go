package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// result is one measurement: how many rows or items went through in how
// long, at what CPU and memory cost.
type result struct {
	Name  string
	Items int64 // rows for the source read, items for the sinks
	Wall  time.Duration
	// CPU is user+sys time of the process measured: the remodel process
	// for remodel runs, the bench process itself for the raw ones.
	CPU time.Duration
	// MaxRSS is the peak resident memory of the remodel process in bytes;
	// 0 for the in-process raw measurements, where it would be the bench's.
	MaxRSS int64
	// Emulator is DynamoDB Local's own CPU time during the measurement (0:
	// not measured).
	Emulator time.Duration
	// MinRate and MaxRate are the lowest and highest rate over the rounds
	// the median was taken from (both 0 for a single round).
	MinRate, MaxRate float64
}

// median is the round with the median rate (of an even number, the slower
// of the middle two), with the range of the rates over all rounds.
func median(rs []result) result {
	s := slices.Clone(rs)
	slices.SortStableFunc(s, func(a, b result) int { return cmp.Compare(a.Rate(), b.Rate()) })
	m := s[(len(s)-1)/2]
	if len(s) > 1 {
		m.MinRate, m.MaxRate = s[0].Rate(), s[len(s)-1].Rate()
	}
	return m
}

func medianDuration(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}

// Rate is items (or rows) per second of wall time.
func (r result) Rate() float64 {
	if r.Wall <= 0 {
		return 0
	}
	return float64(r.Items) / r.Wall.Seconds()
}

// CPUPerMillion is CPU seconds per million items.
func (r result) CPUPerMillion() float64 {
	if r.Items == 0 {
		return 0
	}
	return r.CPU.Seconds() * 1e6 / float64(r.Items)
}

// Cores is CPU time over wall time: how many cores the process kept busy.
func (r result) Cores() float64 {
	if r.Wall <= 0 {
		return 0
	}
	return r.CPU.Seconds() / r.Wall.Seconds()
}

// report is everything one bench run prints.
type report struct {
	Date    time.Time
	Machine machine
	Header  [][2]string // name, value lines above the table
	Rounds  int         // rounds measured; each figure is its median round
	Read    result      // 1. raw source read
	Sink    result      // 2. raw sink write
	Remodel result      // 3. remodel end to end into DynamoDB Local
	Null    result      // 4. remodel into the null sink
	Verify  result      // 5. remodel verify of the table of 3.
	Notes   []string
}

// verifyRatio is verify's wall time over the migration's, of the same
// rows (0 when either was not measured).
func (r *report) verifyRatio() float64 {
	if r.Verify.Wall <= 0 || r.Remodel.Wall <= 0 {
		return 0
	}
	return r.Verify.Wall.Seconds() / r.Remodel.Wall.Seconds()
}

// ratios are the two figures the bench exists for.
func (r *report) ratios() (endToEnd, nullSink float64) {
	ceiling := min(r.Read.Rate(), r.Sink.Rate())
	if ceiling > 0 {
		endToEnd = r.Remodel.Rate() / ceiling
	}
	if rr := r.Read.Rate(); rr > 0 {
		nullSink = r.Null.Rate() / rr
	}
	return endToEnd, nullSink
}

// write prints the report as a plain-text table that reads the same in a
// terminal and in a Markdown code block.
func (r *report) write(w io.Writer) {
	fmt.Fprintf(w, "remodel bench, %s\n", r.Date.UTC().Format("2006-01-02 15:04 MST"))
	lines := append([][2]string{{"machine", r.Machine.String()}}, r.Header...)
	for _, l := range lines {
		fmt.Fprintf(w, "  %-9s %s\n", l[0], l[1])
	}
	fmt.Fprintln(w)
	ranged := r.Rounds > 1
	head := fmt.Sprintf("  %-36s %10s %9s %8s %6s %8s", "measurement", "items/s", "wall", "CPU s/M", "cores", "max RSS")
	if ranged {
		head += fmt.Sprintf("  %s", "items/s over the rounds")
	}
	fmt.Fprintln(w, head)
	for _, m := range []struct {
		r      result
		rss    bool
		marker string
	}{{r.Read, false, "*"}, {r.Sink, false, "*"}, {r.Remodel, true, ""}, {r.Null, true, ""}, {r.Verify, true, ""}} {
		if m.r.Name == "" { // not measured (-null-only)
			continue
		}
		rss := "-"
		if m.rss {
			rss = mib(m.r.MaxRSS)
		}
		line := fmt.Sprintf("  %-36s %10s %9s %8s %6.2f %8s", m.r.Name, thousands(m.r.Rate()), seconds(m.r.Wall),
			fmt.Sprintf("%.1f%s", m.r.CPUPerMillion(), m.marker), m.r.Cores(), rss)
		if ranged {
			line += fmt.Sprintf("  %s to %s", thousands(m.r.MinRate), thousands(m.r.MaxRate))
		}
		fmt.Fprintln(w, line)
	}
	e2e, null := r.ratios()
	fmt.Fprintln(w)
	if r.Remodel.Name == "" || r.Sink.Name == "" { // not measured (-null-only, -kill-only)
		fmt.Fprintf(w, "  %-38s %5s\n", "end to end / min(raw read, raw sink)", "-")
	} else {
		fmt.Fprintf(w, "  %-38s %5.2f\n", "end to end / min(raw read, raw sink)", e2e)
	}
	if r.Null.Name == "" {
		fmt.Fprintf(w, "  %-38s %5s\n", "null sink / raw read", "-")
	} else {
		fmt.Fprintf(w, "  %-38s %5.2f\n", "null sink / raw read", null)
	}
	if vr := r.verifyRatio(); vr > 0 {
		fmt.Fprintf(w, "  %-38s %5.2f\n", "verify / migrate (wall, same rows)", vr)
	}
	fmt.Fprintln(w)
	if r.Sink.Emulator > 0 && r.Remodel.Emulator > 0 {
		fmt.Fprintf(w, "  DynamoDB Local's own CPU: %.1f s (%.2f cores) during the raw sink, %.1f s (%.2f cores) during remodel's run.\n",
			r.Sink.Emulator.Seconds(), r.Sink.Emulator.Seconds()/r.Sink.Wall.Seconds(),
			r.Remodel.Emulator.Seconds(), r.Remodel.Emulator.Seconds()/r.Remodel.Wall.Seconds())
	}
	if r.Verify.Emulator > 0 {
		fmt.Fprintf(w, "  DynamoDB Local's own CPU during remodel verify: %.1f s (%.2f cores).\n",
			r.Verify.Emulator.Seconds(), r.Verify.Emulator.Seconds()/r.Verify.Wall.Seconds())
	}
	if ranged {
		fmt.Fprintf(w, "  Each measurement is its median of %d rounds; the ratios are of the medians.\n", r.Rounds)
	}
	fmt.Fprintln(w, "  CPU s/M: user+sys CPU seconds per million items, of the remodel process or,")
	fmt.Fprintln(w, "  marked *, of the bench process itself (the driver; for the raw sink, the SDK).")
	fmt.Fprintln(w, "  cores: CPU time / wall time. max RSS: the remodel process's peak.")
	for _, n := range r.Notes {
		fmt.Fprintf(w, "  %s\n", n)
	}
}

// thousands formats a rate as a whole number with thin-space-free
// thousands separators: 12 345.
func thousands(v float64) string {
	s := fmt.Sprintf("%.0f", v)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(' ')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

func mib(b int64) string {
	if b <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20))
}
