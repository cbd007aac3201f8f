package cli

import (
	"errors"
	"time"

	"github.com/spf13/cobra"

	"github.com/remodel-dev/remodel/internal/app/report"
	"github.com/remodel-dev/remodel/internal/domain/followback"
)

// followBackFlags are follow-back's flags as the command line sets them.
type followBackFlags struct {
	o    common
	d    dynamoFlags
	fo   followback.Options
	prog progressFlags
}

// followBackCmd is remodel follow-back: the way back from DynamoDB.
func (a *app) followBackCmd() *cobra.Command {
	f := &followBackFlags{}
	cmd := &cobra.Command{
		Use:     "follow-back",
		Short:   "Apply the changes written to the DynamoDB table back to the source database (the rollback window)",
		Long:    followBackLong,
		Example: followBackExamples,
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := f.check(cmd, a); err != nil {
				return err
			}
			return a.runFollowBack(cmd, f)
		},
	}
	f.register(cmd)
	return cmd
}

// followBackLong is follow-back's --help text.
const followBackLong = `follow-back reads the table's DynamoDB Stream (NEW_AND_OLD_IMAGES) and applies every
item change to the source database through the inverse of the mapping, until
SIGINT or SIGTERM: key templates are parsed back into their columns,
attributes into column values, embedded lists into child row inserts,
updates and deletes. Start it at the switch, before the application writes to
DynamoDB: a first run starts at the stream's end (what was written before,
the copy and migrate --follow's changes, is never applied back), and refuses
to start while a migrate run holds the table's lock.

An update or delete applies only where the source row still holds the
item's old image; otherwise it is a conflict, written to --dead-letter (a
JSON line: the stream record, the entity, the reason) and never overwritten.
So are items of entities read from a view or a query:, items that match no
entity or several, and items the mapping cannot make of any row. More than
--max-dead-letters (default 0: the first) stop the run, exit status 1. A
change the source's foreign keys refuse for now is retried for --defer-for,
other changes of the same item waiting behind it.

--resume goes on from --checkpoint (one position per stream shard) after
any stop; a checkpoint older than the stream's 24 hours, or a stream enabled
again since, is refused as lost changes. The stream is created with the table
by migrate --create-table --stream; --enable-stream enables it on an existing
table (and accepts a stream enabled after the table was created: give it only
before the application writes to the table).`

// followBackExamples are follow-back's --help examples.
const followBackExamples = `  remodel follow-back -m mapping.yaml --source $DSN --progress plain
  remodel follow-back -m mapping.yaml --resume --checkpoint shop.remodel-followback.json`

// register adds follow-back's flags to cmd.
func (f *followBackFlags) register(cmd *cobra.Command) {
	f.o.sourceFlag(cmd)
	f.o.mappingFlag(cmd)
	f.o.formatFlag(cmd, "also", &followback.Report{})
	f.d.register(cmd)
	fs := cmd.Flags()
	fs.StringVar(&f.fo.CheckpointPath, "checkpoint", "", "the file recording each stream shard's position, to --resume from (default <table>.remodel-followback.json)")
	fs.BoolVar(&f.fo.Resume, "resume", false, "go on from --checkpoint after any stop")
	fs.BoolVar(&f.fo.EnableStream, "enable-stream", false, "enable the table's stream (NEW_AND_OLD_IMAGES) if it is off, and accept a stream enabled after the table was created: only before the application writes to the table")
	fs.StringVar(&f.fo.DeadLetterPath, "dead-letter", "remodel-dead-letters.jsonl", "file that receives every item change not applied, as a JSON line (the stream record, the entity, the reason)")
	fs.Int64Var(&f.fo.MaxDeadLetters, "max-dead-letters", 0, "dead letters allowed before the run stops (exit status 1)")
	fs.DurationVar(&f.fo.DeferFor, "defer-for", followback.DefaultDeferFor, "how long a change the source's foreign keys refuse is retried before it is a dead letter")
	f.fo.LockStale = time.Duration(0)
	f.prog.register(cmd, false)
}

// check refuses flags out of their range and files that cannot be
// written, naming every problem at once.
func (f *followBackFlags) check(cmd *cobra.Command, a *app) error {
	var c checks
	f.o.out.check(cmd, a.stderr, &c)
	c.atLeast("max-dead-letters", f.fo.MaxDeadLetters, 0)
	c.positive("defer-for", f.fo.DeferFor)
	c.replaceable("checkpoint", f.fo.CheckpointPath)
	f.d.check(&c)
	f.prog.check(&c)
	followBackFiles(&f.o, &f.fo, f.d.table).check(&c)
	return c.err()
}

// runFollowBack opens the source and the table's stream, runs follow-back
// until it stops, and writes its report.
func (a *app) runFollowBack(cmd *cobra.Command, f *followBackFlags) error {
	o, d, fo := &f.o, &f.d, &f.fo
	p, src, err := o.plan(cmd.Context())
	if err != nil {
		return err
	}
	defer src.Close()
	db, st, err := followback.Connect(cmd.Context(), followback.Config{Profile: d.profile, Region: d.region, Endpoint: d.endpoint})
	if err != nil {
		return err
	}
	fo.Plan, fo.Source, fo.DB, fo.Streams, fo.Table = p, src, db, st, d.table
	if fo.Table == "" {
		fo.Table = p.Table.Name
	}
	if fo.CheckpointPath == "" {
		fo.CheckpointPath = defaultFollowBackCheckpoint(fo.Table)
	}
	tracker, stopProgress, err := f.prog.start(a, "follow-back")
	if err != nil {
		return err
	}
	fo.Progress = tracker
	rep, runErr := followback.Run(cmd.Context(), *fo)
	stopProgress()
	var many *followback.TooManyError
	if errors.As(runErr, &many) {
		runErr = failedError{runErr}
	}
	return a.writeFollowBackReport(o, rep, runErr)
}

// writeFollowBackReport writes rep to every --output-file and to stdout,
// and returns runErr, or else the first write's error.
func (a *app) writeFollowBackReport(o *common, rep *followback.Report, runErr error) error {
	for _, of := range o.out.toFiles {
		if err := writeReportFile(of, rep); err != nil && runErr == nil {
			runErr = err
		}
	}
	if err := report.Write(a.stdout, report.Format(o.out.out), rep); err != nil && runErr == nil {
		return err
	}
	return runErr
}

// defaultFollowBackCheckpoint is follow-back's checkpoint without
// --checkpoint.
func defaultFollowBackCheckpoint(table string) string { return table + ".remodel-followback.json" }

// followBackFiles are the files follow-back reads (the mapping) and writes
// (the checkpoint and its journal, --dead-letter, every --output-file);
// table is --table ("": the mapping's).
func followBackFiles(o *common, fo *followback.Options, table string) *files {
	var fs files
	fs.read("--mapping", o.mapping)
	ck, flag := fo.CheckpointPath, "--checkpoint"
	if ck == "" {
		if table == "" {
			table = mappingTable(o.mapping)
		}
		if table != "" {
			ck, flag = defaultFollowBackCheckpoint(table), "the default --checkpoint"
		}
	}
	fs.write(flag, ck)
	if ck != "" {
		fs.write("the journal of "+flag, followback.JournalPath(ck))
	}
	fs.write("--dead-letter", fo.DeadLetterPath)
	o.out.writes(&fs)
	return &fs
}
