package report

import (
	"fmt"
	"strconv"
	"time"

	"github.com/remodel-dev/remodel/migrate"
)

// shortDigest is the first 12 hex digits of a digest, as a report shows it.
func shortDigest(d string) string { return d[:min(len(d), 12)] }

// statusText renders remodel status as a table: a line per checkpoint, one
// per shard without one, and the totals.
func statusText(w *errWriter, r *migrate.Status) {
	w.printf("%-8s %-10s %12s %12s %9s %8s  %-7s %s\n", "shard", "table", "rows", "items", "rejected", "ranges", "state", "checkpoint")
	for _, c := range r.Checkpoints {
		shard := c.Shard
		if shard == "" {
			shard = "-"
		}
		state := "stopped or running"
		switch {
		case c.Done:
			state = "done"
		case c.Stopped:
			state = "stopped"
		case c.Running:
			state = "running"
		}
		w.printf("%-8s %-10s %12d %12d %9d %8s  %-7s %s (saved %s by %s pid %d", shard, c.Table, c.Rows, c.Items, c.Rejected,
			strconv.Itoa(c.RangesDone)+"/"+strconv.Itoa(c.Ranges), state, c.Path, c.Saved.UTC().Format(time.RFC3339), c.Host, c.PID)
		if c.S3 != "" {
			w.printf(", into %s, %d objects", c.S3, c.Objects)
		}
		if c.Job != "" {
			w.printf(", job %q", c.Job)
		}
		if c.SplitDigest != "" {
			w.printf(", split plan %s", shortDigest(c.SplitDigest))
		}
		w.printf(")\n")
		if c.Follow != nil {
			followText(w, c.Follow)
		}
	}
	for _, s := range r.Missing {
		w.printf("%-8s no checkpoint: finished (a run that succeeds removes it) or not started\n", s)
	}
	for _, f := range r.Finished {
		finishedText(w, f)
	}
	if r.JobsDiffer {
		w.printf("warning: the checkpoints name more than one --job, or are of a sharded run and of one that is not: they are not all of one job\n")
	}
	if r.SplitsDiffer {
		w.printf("warning: the checkpoints name more than one split plan: they are not all of one job (the shards of a job read by one plan; a shard begun with another --ranges or mapping is of another job)\n")
	}
	state := "not done"
	if r.Done && len(r.Missing) == 0 {
		state = "done"
	}
	w.printf("%-8s %-10s %12d %12d %9d  (%s)\n", "total", "", r.Rows, r.Items, r.Rejected, state)
}

// followText renders where a followed migration stands, under its
// checkpoint's line.
func followText(w *errWriter, f *migrate.FollowStatus) {
	const in = "         "
	w.printf("%sfollow: %s", in, f.Phase)
	if f.Phase == migrate.PhaseStopped {
		if f.CopyDone {
			w.printf(" (after the copy)")
		} else {
			w.printf(" (in the copy)")
		}
	}
	if f.Slot != "" {
		w.printf(", slot %s, publication %s", f.Slot, f.Publication)
	}
	w.printf(", start %s, applied %s\n", orNone(f.Start), orNone(f.Applied))
	if s := f.Source; s != nil {
		w.printf("%ssource at %s", in, s.Head)
		switch {
		case s.Behind > 0:
			w.printf(", %s past applied", byteSize(s.Behind))
		case s.Behind == 0:
			w.printf(", all applied")
		}
		if f.Slot != "" {
			switch {
			case !s.SlotFound:
				w.printf("; slot %s does not exist on the source", f.Slot)
			case s.SlotHeld >= 0:
				w.printf("; the slot holds %s of WAL (restart %s, %s)", byteSize(s.SlotHeld), s.Restart, map[bool]string{true: "active", false: "not active"}[s.SlotActive])
			}
		}
		w.printf("\n")
	} else if f.SourceNote != "" {
		w.printf("%ssource not asked: %s\n", in, f.SourceNote)
	}
	if f.Refused != "" {
		w.printf("%sstopped on a change it cannot follow (--follow --resume is refused): %s\n", in, f.Refused)
	}
	w.printf("%scopy rows in doubt: %d; changes rejected by the follower: %d\n", in, f.Doubtful, f.Rejected)
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// byteSize is n bytes for people: 512 B, 1.5 KiB, 3.2 MiB, 1.1 GiB.
func byteSize(n int64) string {
	const k = 1024
	switch {
	case n < k:
		return fmt.Sprintf("%d B", n)
	case n < k*k:
		return fmt.Sprintf("%.1f KiB", float64(n)/k)
	case n < k*k*k:
		return fmt.Sprintf("%.1f MiB", float64(n)/(k*k))
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/(k*k*k))
}

// finishedText renders a run whose success removed its checkpoint, from
// its finished record.
func finishedText(w *errWriter, f *migrate.FinishedRun) {
	shard := f.Shard
	if shard == "" {
		shard = "-"
	}
	w.printf("%-8s %-10s %12d %12d %9d %8s  %-7s %s (finished %s, in %.1fs", shard, f.Table, f.Rows, f.Items, f.Rejected, "all", "done", f.Path, f.Finished.UTC().Format(time.RFC3339), f.Seconds)
	if f.RejectsFile != "" {
		w.printf(", rejects in %s", f.RejectsFile)
	}
	w.printf("; its checkpoint removed)\n")
}
