package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"time"
)

// phase is one measured stretch of the follow bench: Count items or
// changed rows in Wall, the remodel process's CPU and peak RSS (0: not
// measured).
type phase struct {
	Count int64
	Wall  time.Duration
	CPU   time.Duration
	RSS   int64
}

// Rate is Count per second of Wall.
func (p phase) Rate() float64 {
	if p.Wall <= 0 {
		return 0
	}
	return float64(p.Count) / p.Wall.Seconds()
}

// CPUPerMillion is CPU seconds per million of Count.
func (p phase) CPUPerMillion() float64 {
	if p.Count == 0 {
		return 0
	}
	return p.CPU.Seconds() * 1e6 / float64(p.Count)
}

// followReport is what the follow bench prints.
type followReport struct {
	Date               time.Time
	Machine            machine
	Source, Workload   string
	Run                string
	LoadStart, LoadEnd string
	Rate               float64 // the steady workload's changed rows per second, asked
	Copy               phase   // items
	Backlog            phase   // changed rows made with the follower stopped
	CatchUp            phase   // the backlog applied by --follow --resume
	Steady             phase   // changed rows made at Rate
	Lags               []time.Duration
	Drain              time.Duration // from the writes' stop to lag 0
	Puts, Deletes      int64         // the follower's, over the catch-up and the steady workload
	Verified           int64         // items remodel verify compared (every one passed)
	VerifyWall         time.Duration
	FollowerCPU        time.Duration // the resumed follower process's, over its life
	FollowerRSS        int64
	Back               *backReport     // follow-back's figures, when measured
	S3                 *s3FollowReport // the large-and-live route's (follows3.go)
	applied            int64           // changes the resumed follower applied so far
}

// catchUpRatio is the catch-up's changes/s over the copy's items/s.
func (r *followReport) catchUpRatio() float64 {
	if r.Copy.Rate() == 0 {
		return 0
	}
	return r.CatchUp.Rate() / r.Copy.Rate()
}

// percentile is the q-quantile (0 < q ≤ 1) of ds by the nearest-rank
// method: the smallest value with at least q of them at or below it (0
// for none).
func percentile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	rank := int(math.Ceil(q*float64(len(s)))) - 1
	return s[min(max(rank, 0), len(s)-1)]
}

// verdict says whether a figure meets its target.
func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT MET"
}

// write prints the report as a plain-text table that reads the same in a
// terminal and in a Markdown code block.
func (r *followReport) write(w io.Writer) {
	what := "following (migrate --follow)"
	if r.Back != nil {
		what = "following (migrate --follow) and following back (follow-back)"
	}
	fmt.Fprintf(w, "remodel bench, %s, %s\n", what, r.Date.UTC().Format("2006-01-02 15:04 MST"))
	for _, l := range [][2]string{
		{"machine", r.Machine.String()}, {"source", r.Source}, {"workload", r.Workload}, {"run", r.Run},
		{"load", fmt.Sprintf("1/5/15-min load average %s at start, %s at end", r.LoadStart, r.LoadEnd)},
	} {
		fmt.Fprintf(w, "  %-9s %s\n", l[0], l[1])
	}
	if r.Copy.Count > 0 {
		r.writeForward(w)
	}
	if r.Back != nil {
		r.writeBack(w)
	}
}

// writeForward prints the forward follower's figures.
func (r *followReport) writeForward(w io.Writer) {
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  %-44s %16s %9s %8s %8s %8s\n", "measurement", "count", "wall", "per s", "CPU s/M", "max RSS")
	row := func(name string, p phase, unit string, cpu bool) {
		c, rss := "-", "-"
		if cpu {
			c, rss = fmt.Sprintf("%.1f", p.CPUPerMillion()), mib(p.RSS)
		}
		fmt.Fprintf(w, "  %-44s %16s %9s %8s %8s %8s\n", name, thousands(float64(p.Count))+" "+unit, seconds(p.Wall), thousands(p.Rate()), c, rss)
	}
	row("copy (migrate --follow --create-table)", r.Copy, "items", true)
	row("backlog made, the follower stopped", r.Backlog, "changes", false)
	row("catch-up (--follow --resume, to lag 0)", r.CatchUp, "changes", true)
	row(fmt.Sprintf("steady workload (%s changes/s asked)", thousands(r.Rate)), r.Steady, "changes", true)
	fmt.Fprintln(w)
	ratio := r.catchUpRatio()
	fmt.Fprintf(w, "  %-32s %5.2f  %-26s %s\n", "catch-up / copy (per s)", ratio, fmt.Sprintf("target >= %.1f", targetCatchUp), verdict(ratio >= targetCatchUp))
	p50, p99, top := percentile(r.Lags, 0.5), percentile(r.Lags, 0.99), percentile(r.Lags, 1)
	fmt.Fprintf(w, "  %-32s %5.1f  %-26s %s\n", "lag p99 (s), steady workload", p99.Seconds(), fmt.Sprintf("target < %.0f s", targetLagP99.Seconds()), verdict(len(r.Lags) > 0 && p99 < targetLagP99))
	fmt.Fprintf(w, "  %-32s p50 %.1f s, p99 %.1f s, max %.1f s, over %d lag lines (one a second)\n", "lag, steady workload", p50.Seconds(), p99.Seconds(), top.Seconds(), len(r.Lags))
	fmt.Fprintf(w, "  %-32s %.1f s\n", "lag 0 after the writes stopped", r.Drain.Seconds())
	fmt.Fprintf(w, "  %-32s remodel verify PASS, %s items (%s); the follower put %s items and deleted %s\n", "exact", thousands(float64(r.Verified)), seconds(r.VerifyWall), thousands(float64(r.Puts)), thousands(float64(r.Deletes)))
	if s := r.S3; s != nil { // follows3.go
		ratio := r.s3CatchUpRatio()
		fmt.Fprintf(w, "  %-32s %5.2f  %-26s %s\n", "S3 route catch-up / copy (per s)", ratio, fmt.Sprintf("target >= %.1f", targetCatchUp), verdict(ratio >= targetCatchUp))
		fmt.Fprintf(w, "  %-32s %s changes made while the import was held, applied in %s after it (%s/s); verify PASS, %s items\n", "S3 route (--to --import --follow)", thousands(float64(s.Backlog.Count)), seconds(s.CatchUp.Wall), thousands(s.CatchUp.Rate()), thousands(float64(s.Verified)))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "  copy: rows over the copy phase's seconds (its --progress json end line), not the process's start.")
	fmt.Fprintln(w, "  catch-up: the backlog's changed rows over the time from the resumed process's start (connecting,")
	fmt.Fprintln(w, "  checks, the stream's start included) to its first lag line counting them all applied, behind 0 s.")
	fmt.Fprintln(w, "  lag: behind_s of the follower's lag lines (how long ago the oldest change received and not yet")
	fmt.Fprintln(w, "  applied committed) while the workload ran. A change is a row inserted, updated or deleted.")
	fmt.Fprintf(w, "  CPU s/M: user+sys CPU seconds of the remodel process per million items or changes; max RSS: its\n")
	fmt.Fprintf(w, "  peak (VmHWM) at the phase's end. The resumed follower used %.1f CPU s over its life, peak %s.\n", r.FollowerCPU.Seconds(), mib(r.FollowerRSS))
}

// writeBack prints follow-back's figures, beside the forward follower's
// of the same run where it ran.
func (r *followReport) writeBack(w io.Writer) {
	b := r.Back
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  follow-back: %s (migrate --create-table --stream: %s items in %s)\n", b.Mapping, thousands(float64(b.Copy.Count)), seconds(b.Copy.Wall))
	fmt.Fprintf(w, "  workload: %s\n", b.Workload)
	fmt.Fprintln(w)
	fwd := r.Copy.Count > 0
	col := func(forward, back string) string {
		if !fwd {
			return fmt.Sprintf("%28s", back)
		}
		return fmt.Sprintf("%28s %28s", forward, back)
	}
	fmt.Fprintf(w, "  %-38s %s\n", "", col("forward (migrate --follow)", "back (follow-back)"))
	fmt.Fprintf(w, "  %-38s %s\n", "a change is", col("a source row changed", "an item change (a record)"))
	fmt.Fprintf(w, "  %-38s %s\n", "catch-up of a backlog, changes/s", col(
		fmt.Sprintf("%s (%s)", thousands(r.CatchUp.Rate()), thousands(float64(r.CatchUp.Count))),
		fmt.Sprintf("%s (%s)", thousands(b.CatchUp.Rate()), thousands(float64(b.CatchUp.Count)))))
	fwdApplied := phase{Count: r.Steady.Count, Wall: r.Steady.Wall + r.Drain, CPU: r.Steady.CPU, RSS: r.Steady.RSS}
	fmt.Fprintf(w, "  %-38s %s\n", fmt.Sprintf("steady (%s/s asked): written, applied/s", thousands(r.Rate)), col(
		fmt.Sprintf("%s, %s", thousands(r.Steady.Rate()), thousands(fwdApplied.Rate())),
		fmt.Sprintf("%s, %s", thousands(b.Steady.Rate()), thousands(b.Applied.Rate()))))
	p := func(ls []time.Duration) string {
		return fmt.Sprintf("%.2f / %.2f / %.2f", percentile(ls, 0.5).Seconds(), percentile(ls, 0.99).Seconds(), percentile(ls, 1).Seconds())
	}
	fmt.Fprintf(w, "  %-38s %s\n", "steady lag p50 / p99 / max, s", col(p(r.Lags), p(b.Lags)))
	fmt.Fprintf(w, "  %-38s %s\n", "steady CPU s per million changes", col(fmt.Sprintf("%.1f", fwdApplied.CPUPerMillion()), fmt.Sprintf("%.1f", b.Applied.CPUPerMillion())))
	fmt.Fprintf(w, "  %-38s %s\n", "peak RSS (VmHWM)", col(mib(r.FollowerRSS), mib(b.RSS)))
	fmt.Fprintf(w, "  %-38s %s\n", "remodel verify", col(fmt.Sprintf("PASS, %s items", thousands(float64(r.Verified))), fmt.Sprintf("PASS, %s items", thousands(float64(b.Verified)))))
	fmt.Fprintln(w)
	p99 := percentile(b.Lags, 0.99)
	keepsUp := b.CatchUp.Rate() >= targetBackRate && b.Steady.Rate() >= 0.95*r.Rate
	fmt.Fprintf(w, "  %-44s %-24s %s\n", fmt.Sprintf("follow-back applies >= %d changes/s", targetBackRate), fmt.Sprintf("catch-up %s/s", thousands(b.CatchUp.Rate())), verdict(keepsUp))
	fmt.Fprintf(w, "  %-44s %-24s %s\n", "follow-back lag p99 < 5 s at the rate asked", fmt.Sprintf("%.2f s over %s changes", p99.Seconds(), thousands(float64(len(b.Lags)))), verdict(len(b.Lags) > 0 && p99 < targetLagP99))
	fmt.Fprintf(w, "  %-44s applied %s, rows written %s, dead letters %d; verify PASS (%s)\n", "follow-back's report", thousands(float64(b.Report.Applied)), thousands(float64(b.Report.Rows)), b.Report.DeadLetters, seconds(b.VWall))
	fmt.Fprintln(w)
	fmt.Fprintln(w, "  back: follow-back's code (followback.Run, as remodel follow-back runs it) in a process of its own")
	fmt.Fprintln(w, "  (the bench's __followback), its CPU and peak RSS its own. Its lag per change: the moment it applied")
	fmt.Fprintln(w, "  the change to the source less the moment the workload wrote the item (both on this machine's clock),")
	fmt.Fprintln(w, "  every change of the steady workload; applied/s: the steady changes over the time from the first write")
	fmt.Fprintln(w, "  to the last applied. Forward: lag from its lag lines (one a second), applied/s over the workload's")
	fmt.Fprintln(w, "  time and its drain to lag 0. The catch-up: the backlog over the time from the resumed process's start.")
	fmt.Fprintf(w, "  The resumed follow-back process used %.1f CPU s over its life.\n", b.CPU.Seconds())
}
