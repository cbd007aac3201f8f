package report

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/migrate"
)

// shortDigest is the first 12 hex digits of a digest, as a report shows it.
func shortDigest(d string) string { return d[:min(len(d), 12)] }

// statusText renders remodel status as a table: a line per checkpoint, one
// per shard without one, and the totals.
func statusText(w io.Writer, r *migrate.Status) error {
	fmt.Fprintf(w, "%-8s %-10s %12s %12s %9s %8s  %-7s %s\n", "shard", "table", "rows", "items", "rejected", "ranges", "state", "checkpoint")
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
		}
		fmt.Fprintf(w, "%-8s %-10s %12d %12d %9d %8s  %-7s %s (saved %s by %s pid %d", shard, c.Table, c.Rows, c.Items, c.Rejected,
			strconv.Itoa(c.RangesDone)+"/"+strconv.Itoa(c.Ranges), state, c.Path, c.Saved.UTC().Format(time.RFC3339), c.Host, c.PID)
		if c.S3 != "" {
			fmt.Fprintf(w, ", into %s, %d objects", c.S3, c.Objects)
		}
		if c.Job != "" {
			fmt.Fprintf(w, ", job %q", c.Job)
		}
		if c.SplitDigest != "" {
			fmt.Fprintf(w, ", split plan %s", shortDigest(c.SplitDigest))
		}
		fmt.Fprintln(w, ")")
	}
	for _, s := range r.Missing {
		fmt.Fprintf(w, "%-8s no checkpoint: finished (a run that succeeds removes it) or not started\n", s)
	}
	if r.JobsDiffer {
		fmt.Fprintln(w, "warning: the checkpoints name more than one --job, or are of a sharded run and of one that is not: they are not all of one job")
	}
	if r.SplitsDiffer {
		fmt.Fprintln(w, "warning: the checkpoints name more than one split plan: they are not all of one job (the shards of a job read by one plan; a shard begun with another --ranges or mapping is of another job)")
	}
	state := "not done"
	if r.Done && len(r.Missing) == 0 {
		state = "done"
	}
	fmt.Fprintf(w, "%-8s %-10s %12d %12d %9d  (%s)\n", "total", "", r.Rows, r.Items, r.Rejected, state)
	return nil
}
