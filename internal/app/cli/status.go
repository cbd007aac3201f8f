package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/remodel-dev/remodel/internal/app/report"
	"github.com/remodel-dev/remodel/migrate"
)

func (a *app) statusCmd() *cobra.Command {
	var o common
	var globs []string
	var prefix, table string
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
given more than once; --prefix P reads the default names migrate gives a
table's checkpoints, P.remodel-checkpoint.json and
P.shard-*-of-*.remodel-checkpoint.json: P is the table's name, with a
folder before it when the checkpoints are elsewhere (--prefix runs/orders).
(--table T, its spelling before --prefix, works for one release, with a
warning: --table names the DynamoDB table.)

A run that succeeds removes its checkpoint and leaves its report in a
finished record beside it (orders.remodel-finished.json, replaced by the
next run that succeeds): while no checkpoint is beside it, status lists
that run as done, with when it finished, its rows, items and rejected rows
and its rejects file. A shard
of the job (the n of shard i/n) with neither is listed as not started (or
finished before remodel kept finished records). A checkpoint whose key ranges
are all done belongs to a run that is ending; one saved by a process of this
host is "running" while that process runs and "stopped" once it is gone (of
another host: "stopped or running").

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

--output json prints the same as JSON; --output-file [FORMAT=]FILE also
writes it to FILE.`,
		Example: `  remodel status --prefix orders
  remodel status --checkpoint 'orders.shard-*-of-3.remodel-checkpoint.json' --output json
  remodel status --prefix runs/orders --output-file status.json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var c checks
			o.out.check(cmd, a.stderr, &c)
			if table != "" {
				fmt.Fprintf(a.stderr, "remodel: --table %s is deprecated for status and will be removed: use --prefix %s (--table names the DynamoDB table)\n", table, table)
				if prefix == "" {
					prefix = table
				}
			}
			if len(globs) == 0 && prefix == "" {
				c = append(c, "give --checkpoint FILE|GLOB or --prefix TABLE")
			}
			if err := c.err(); err != nil {
				return err
			}
			if prefix != "" {
				globs = append(globs, prefix+checkpointSuffix, prefix+".shard-*-of-*"+checkpointSuffix)
			}
			rep, err := readStatus(globs)
			if err != nil {
				return err
			}
			if rep.Followed() {
				askSource(cmd.Context(), &o, rep)
			}
			werr := report.Write(a.stdout, report.Format(o.out.out), rep)
			for _, of := range o.out.toFiles {
				if err := writeReportFile(of, rep); err != nil && werr == nil {
					werr = err
				}
			}
			return werr
		},
	}
	o.formatFlag(cmd, "also", &migrate.Status{})
	o.sourceFlag(cmd)
	f := cmd.Flags()
	f.StringArrayVar(&globs, "checkpoint", nil, "a checkpoint file, or a glob of them (quoted); may be repeated")
	f.StringVar(&prefix, "prefix", "", "read the default checkpoint names of a table: `PREFIX`.remodel-checkpoint.json and PREFIX.shard-*-of-*.remodel-checkpoint.json, PREFIX the table's name (with a folder: runs/orders)")
	f.StringVar(&table, "table", "", "deprecated: use --prefix")
	_ = f.MarkHidden("table")
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

// readStatus reads the checkpoints the globs name and the finished
// records of the runs that removed theirs.
func readStatus(globs []string) (*migrate.Status, error) {
	paths, err := statusPaths(globs)
	if err != nil {
		return nil, err
	}
	var finished []string
	for _, g := range globs {
		m, _ := filepath.Glob(migrate.FinishedPath(g)) // the globs are checked above
		for _, p := range m {
			if !slices.Contains(finished, p) {
				finished = append(finished, p)
			}
		}
	}
	if len(paths) == 0 && len(finished) == 0 {
		return nil, fmt.Errorf("status: no checkpoint file matches %s, and no finished record (%s) of a run that removed its checkpoint", strings.Join(globs, ", "), strings.Join(mapStrings(globs, migrate.FinishedPath), ", "))
	}
	var rep *migrate.Status
	if len(paths) > 0 {
		if rep, err = migrate.ReadStatus(paths); err != nil {
			return nil, err
		}
	}
	return migrate.AddFinished(rep, finished)
}

func mapStrings(s []string, f func(string) string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[i] = f(v)
	}
	return out
}

// statusPaths are the checkpoint files the globs name (none is no error).
func statusPaths(globs []string) ([]string, error) {
	var paths []string
	for _, g := range globs {
		m, err := filepath.Glob(g)
		if err != nil {
			return nil, usageError{fmt.Errorf("--checkpoint %q: %w", g, err)}
		}
		for _, p := range m {
			// A glob of checkpoints (shard*.json) may match their
			// finished records too: those are read as such.
			if !slices.Contains(paths, p) && !migrate.IsFinishedPath(p) {
				paths = append(paths, p)
			}
		}
	}
	return paths, nil
}
