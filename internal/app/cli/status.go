package cli

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/remodel-dev/remodel/internal/app/report"
	"github.com/remodel-dev/remodel/internal/domain/migrate"
)

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
key ranges are done, when and by which host and process it was last
saved, and a shard's split plan (the digest the job's shards share) and
--job; then the totals. The checkpoints must be of one table; a warning
says when they name more than one split plan or --job, or mix a sharded
run with one that is not: they are not all of one job.

--checkpoint takes a file or a glob (quote it:
--checkpoint 'orders.shard-*-of-3.remodel-checkpoint.json'), and may be
given more than once; --table T reads the default names in the current
folder: T.remodel-checkpoint.json and T.shard-*-of-*.remodel-checkpoint.json.

A run that succeeds removes its checkpoint: a shard of the job (the n of
shard i/n) without a checkpoint is listed as finished or not started
(its report, or for --to its manifest beside the prefix, tells which). A
checkpoint whose key ranges are all done belongs to a run that is ending;
one saved by a process of this host that is gone is "stopped" (of another
host: "stopped or running").
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
			paths, err := statusPaths(globs)
			if err != nil {
				return err
			}
			rep, err := migrate.ReadStatus(paths)
			if err != nil {
				return err
			}
			return report.Write(a.stdout, report.Format(o.out.out), rep)
		},
	}
	o.formatFlag(cmd, "", &migrate.Status{})
	f := cmd.Flags()
	f.StringArrayVar(&globs, "checkpoint", nil, "a checkpoint file, or a glob of them (quoted); may be repeated")
	f.StringVar(&table, "table", "", "read the default checkpoint names of this table in the current folder (<table>.remodel-checkpoint.json, <table>.shard-*-of-*.remodel-checkpoint.json)")
	return cmd
}

// statusPaths are the checkpoint files the globs name.
func statusPaths(globs []string) ([]string, error) {
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
	return paths, nil
}
