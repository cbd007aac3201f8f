package cli

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/remodel-dev/remodel/internal/app/report"
	"github.com/remodel-dev/remodel/internal/domain/migrate"
)

// statusVersion is the version of status's JSON shape; it changes only when
// a field changes meaning or goes.
const statusVersion = 1

// statusReport is remodel status's output: every checkpoint found, the
// shards of the job that have none, and the totals.
type statusReport struct {
	Version     int                         `json:"version"` // statusVersion
	Checkpoints []*migrate.CheckpointStatus `json:"checkpoints"`
	// Shards is the n of a sharded job's checkpoints; Missing the shards
	// (i/n) of it without one: finished (a run that succeeds removes its
	// checkpoint) or not started.
	Shards   int      `json:"shards,omitempty"`
	Missing  []string `json:"shards_without_checkpoint,omitempty"`
	Rows     int64    `json:"rows_settled"`
	Items    int64    `json:"items_written"`
	Rejected int64    `json:"rejected"`
	Done     bool     `json:"done"`
}

func (a *app) statusCmd() *cobra.Command {
	var o common
	var globs []string
	var table string
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show how far migrate runs got, from their checkpoints (every shard of a sharded job)",
		Long: `status reads migrate's checkpoint files and prints, for each, its table,
shard, where it writes (the table, or the S3 prefix of --to), the rows
settled (their items written, or uploaded in an object), the items
written and the rows rejected over every run of the job, how many of its
key ranges are done, and when and by which host and process it was last
saved; then the totals.

--checkpoint takes a file or a glob (quote it:
--checkpoint 'orders.shard-*-of-3.remodel-checkpoint.json'), and may be
given more than once; --table T reads the default names in the current
folder: T.remodel-checkpoint.json and T.shard-*-of-*.remodel-checkpoint.json.

A run that succeeds removes its checkpoint: a shard of the job (the n of
shard i/n) without a checkpoint is listed as finished or not started
(its report, or for --to its manifest beside the prefix, tells which). A
checkpoint whose key ranges are all done belongs to a run that is ending.
--output json prints the same as JSON.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var c checks
			o.out.check(cmd, a.stderr, &c)
			if len(globs) == 0 && table == "" {
				c = append(c, "give --checkpoint FILE|GLOB or --table TABLE")
			}
			if err := c.err(); err != nil {
				return err
			}
			if table != "" {
				globs = append(globs, table+checkpointSuffix, table+".shard-*-of-*"+checkpointSuffix)
			}
			rep, err := readStatus(globs)
			if err != nil {
				return err
			}
			if o.out.out == "json" {
				return report.WriteJSON(a.stdout, rep)
			}
			rep.writeText(a)
			return nil
		},
	}
	o.formatFlag(cmd, "", nil)
	f := cmd.Flags()
	f.StringArrayVar(&globs, "checkpoint", nil, "a checkpoint file, or a glob of them (quoted); may be repeated")
	f.StringVar(&table, "table", "", "read the default checkpoint names of this table in the current folder (<table>.remodel-checkpoint.json, <table>.shard-*-of-*.remodel-checkpoint.json)")
	return cmd
}

// readStatus reads every checkpoint the globs name.
func readStatus(globs []string) (*statusReport, error) {
	var paths []string
	for _, g := range globs {
		m, err := filepath.Glob(g)
		if err != nil {
			return nil, usageError{fmt.Errorf("--checkpoint %q: %w", g, err)}
		}
		for _, p := range m {
			if !slices.Contains(paths, p) {
				paths = append(paths, p)
			}
		}
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("status: no checkpoint file matches %s (a run that succeeds removes its checkpoint)", strings.Join(globs, ", "))
	}
	rep := &statusReport{Version: statusVersion, Done: true}
	have := map[int]bool{}
	for _, p := range paths {
		st, err := migrate.ReadCheckpointStatus(p)
		if err != nil {
			return nil, fmt.Errorf("status: %w", err)
		}
		rep.Checkpoints = append(rep.Checkpoints, st)
		rep.Rows += st.Rows
		rep.Items += st.Items
		rep.Rejected += st.Rejected
		rep.Done = rep.Done && st.Done
		if st.Shard != "" {
			s, err := migrate.ParseShard(st.Shard)
			if err != nil {
				return nil, fmt.Errorf("status: checkpoint %s: shard %w", p, err)
			}
			if rep.Shards != 0 && rep.Shards != s.Count {
				return nil, fmt.Errorf("status: the checkpoints are of shards of %d and of %d: give the checkpoints of one job", rep.Shards, s.Count)
			}
			rep.Shards = s.Count
			have[s.Index] = true
		}
	}
	slices.SortFunc(rep.Checkpoints, func(a, b *migrate.CheckpointStatus) int {
		if c := strings.Compare(a.Table, b.Table); c != 0 {
			return c
		}
		return shardIndex(a.Shard) - shardIndex(b.Shard)
	})
	for i := 1; i <= rep.Shards; i++ {
		if !have[i] {
			rep.Missing = append(rep.Missing, strconv.Itoa(i)+"/"+strconv.Itoa(rep.Shards))
		}
	}
	return rep, nil
}

func shardIndex(s string) int {
	sh, err := migrate.ParseShard(s)
	if err != nil {
		return 0
	}
	return sh.Index
}

func (r *statusReport) writeText(a *app) {
	w := a.stdout
	fmt.Fprintf(w, "%-8s %-10s %12s %12s %9s %8s  %-7s %s\n", "shard", "table", "rows", "items", "rejected", "ranges", "state", "checkpoint")
	for _, c := range r.Checkpoints {
		shard := c.Shard
		if shard == "" {
			shard = "-"
		}
		state := "stopped or running"
		if c.Done {
			state = "done"
		}
		fmt.Fprintf(w, "%-8s %-10s %12d %12d %9d %8s  %-7s %s (saved %s by %s pid %d", shard, c.Table, c.Rows, c.Items, c.Rejected,
			strconv.Itoa(c.RangesDone)+"/"+strconv.Itoa(c.Ranges), state, c.Path, c.Saved.UTC().Format(time.RFC3339), c.Host, c.PID)
		if c.S3 != "" {
			fmt.Fprintf(w, ", into %s, %d objects", c.S3, c.Objects)
		}
		fmt.Fprintln(w, ")")
	}
	for _, s := range r.Missing {
		fmt.Fprintf(w, "%-8s no checkpoint: finished (a run that succeeds removes it) or not started\n", s)
	}
	state := "not done"
	if r.Done && len(r.Missing) == 0 {
		state = "done"
	}
	fmt.Fprintf(w, "%-8s %-10s %12d %12d %9d  (%s)\n", "total", "", r.Rows, r.Items, r.Rejected, state)
}
