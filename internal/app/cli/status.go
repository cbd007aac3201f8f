package cli

import (
	"context"
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

A followed migration (migrate --follow) keeps its checkpoint while it
follows: status says its phase (copy, catch-up, following, stopped), its
slot and publication (PostgreSQL), the copy's start and the last applied
position in the source's log, whether it stopped on a change it cannot
follow, the copy rows in doubt and the changes its follower rejected.
With the source (--source, $REMODEL_SOURCE, or else the one the
checkpoint names, without a password) it also says where the source's
log ends now, how far that is past what was applied, and on PostgreSQL
how much WAL the slot holds back; a source it cannot reach is noted, not
an error.
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
			if rep.Followed() {
				askSource(cmd.Context(), &o, rep)
			}
			return report.Write(a.stdout, report.Format(o.out.out), rep)
		},
	}
	o.formatFlag(cmd, "", &migrate.Status{})
	o.sourceFlag(cmd)
	f := cmd.Flags()
	f.StringArrayVar(&globs, "checkpoint", nil, "a checkpoint file, or a glob of them (quoted); may be repeated")
	f.StringVar(&table, "table", "", "read the default checkpoint names of this table in the current folder (<table>.remodel-checkpoint.json, <table>.shard-*-of-*.remodel-checkpoint.json)")
	return cmd
}

// askSource asks the source of a followed migration where it stands
// (migrate.Status.AskSource): the source is --source ($REMODEL_SOURCE),
// or else the one the checkpoint names. Not reaching it is noted in the
// report, not an error: the checkpoints say what they say without it.
func askSource(ctx context.Context, o *common, rep *migrate.Status) {
	if o.dsn() == "" {
		o.source = rep.FollowSourceOf()
	}
	if o.dsn() == "" {
		rep.NoSource("the checkpoint names no source: give --source")
		return
	}
	src, err := o.open(ctx)
	if err != nil {
		rep.NoSource(err.Error())
		return
	}
	defer src.Close()
	rep.AskSource(ctx, src)
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
