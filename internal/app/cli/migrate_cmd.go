package cli

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/remodel-dev/remodel/internal/app/report"
	"github.com/remodel-dev/remodel/internal/domain/dynamo"
	"github.com/remodel-dev/remodel/internal/domain/keyset"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/mapping"
	"github.com/remodel-dev/remodel/migrate"
)

// migrateFlags are migrate's flags as the command line sets them: the
// run's options (m) and the ones read into them by check.
type migrateFlags struct {
	o           common
	d           dynamoFlags
	m           migrate.Options
	retryFor    time.Duration
	keyCheckMiB int64
	keyCheck    string
	prog        progressFlags
	s3f         s3Flags
	shard       string
	warm        string // --warm-throughput
}

func (a *app) migrateCmd() *cobra.Command {
	f := &migrateFlags{}
	cmd := &cobra.Command{
		Use:     "migrate",
		Short:   "Write every source row into the DynamoDB table",
		Long:    migrateLong,
		Example: migrateExamples,
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			a.tuneGC(migrateMemoryLimit(f.keyCheckMiB << 20))
			if err := f.check(cmd, a); err != nil {
				return err
			}
			return a.runMigrate(cmd, f)
		},
	}
	f.register(cmd)
	return cmd
}

// check reads the flags that need it into f.m and refuses what does not
// go together, naming every problem at once.
func (f *migrateFlags) check(cmd *cobra.Command, a *app) error {
	o, d, m := &f.o, &f.d, &f.m
	if !cmd.Flags().Changed("rejects") { // named after the table, as the checkpoint
		m.RejectsPath = defaultRejects(d.table, o.mapping)
	}
	var c checks
	o.out.check(cmd, a.stderr, &c)
	c.atLeast("writers", int64(m.Writers), 1)
	if f.warm != "" {
		wt, err := migrate.ParseWarmThroughput(f.warm)
		switch {
		case err != nil:
			c = append(c, err.Error())
		case !m.CreateTable:
			c = append(c, "--warm-throughput needs --create-table: it is set when the table is created")
		}
		m.WarmThroughput = wt
	}
	if m.Stream && !m.CreateTable {
		c = append(c, "--stream needs --create-table: the stream is enabled when the table is created (on an existing table: follow-back --enable-stream)")
	}
	c.atLeast("readers", int64(m.Readers), 1)
	c.atLeast("ranges", int64(m.Ranges), 1)
	c.atLeast("render-workers", int64(m.RenderWorkers), 1)
	c.atLeast("key-check-memory", f.keyCheckMiB, 1)
	c.oneOf("key-check", f.keyCheck, "auto", "always")
	m.KeyCheckAlways = f.keyCheck == "always"
	m.KeyCheckMemory = f.keyCheckMiB << 20
	c.atLeast("max-rejects", m.MaxRejects, 0)
	c.positive("retry-for", f.retryFor)
	c.positive("table-timeout", m.TableTimeout)
	c.atLeast("rate-limit", m.RateLimit, 0)
	c.positive("checkpoint-every", m.CheckpointEvery)
	c.replaceable("rejects", m.RejectsPath)
	c.replaceable("checkpoint", m.CheckpointPath)
	shardFlag(&c, cmd, f.shard, m)
	c.slotName("slot", m.Slot)
	if (m.Slot != "" || m.Publication != "") && !m.Follow {
		c = append(c, "--slot and --publication need --follow")
	}
	f.s3f.check(&c, cmd, m)
	o.out.outsideObjects(&c, m.To)
	migrateFiles(m, o, d.table, cmd.Flags().Changed("rejects")).check(&c)
	if m.DeleteStale && !m.AllowNonEmpty && !m.Resume {
		c = append(c, "--delete-stale needs --allow-non-empty: without it migrate writes only into an empty table, where nothing is stale")
	}
	d.check(&c)
	f.prog.check(&c)
	return c.err()
}

// runMigrate connects to the source and DynamoDB (or S3), runs the
// migration and writes its report wherever --output and --output-file say.
func (a *app) runMigrate(cmd *cobra.Command, f *migrateFlags) error {
	o, d, m := &f.o, &f.d, &f.m
	var p *mapping.Plan
	var src source.Source
	var db *dynamo.Client
	var err error
	began := time.Now()                    // the report's schema phase
	if m.Null || m.To != nil && m.To.Dir { // the null sink, a local directory: no DynamoDB (no table, no import), no AWS configuration
		p, src, err = o.plan(cmd.Context())
	} else {
		p, src, db, err = d.plan(cmd.Context(), a, o)
	}
	if err != nil {
		return err
	}
	schema := migrate.Phase{Name: migrate.TimedSchema, Seconds: time.Since(began).Seconds()}
	defer src.Close()
	if err := f.s3f.connect(cmd.Context(), a, d, m); err != nil {
		return err
	}
	m.Plan, m.Source, m.Table, m.RequestTimeout = p, src, d.table, d.requestTimeout
	if db != nil {
		m.DB = db
	}
	tracker, stopProgress, err := f.prog.start(a, "migrate")
	if err != nil {
		return err
	}
	m.Progress, m.ExactCounts = tracker, f.prog.exact
	if err := checkpointOptions(m, o); err != nil {
		return err
	}
	if m.Null {
		m.CheckpointPath = "" // nothing is stored: nothing to resume
	}
	m.Backoff = migrate.DefaultBackoff
	m.Backoff.Deadline = f.retryFor
	m.Before = []migrate.Phase{schema}
	rep, runErr := migrate.Run(cmd.Context(), *m)
	stopProgress()
	runErr = migrateFailed(runErr, rep, m.MaxRejects)
	for _, of := range o.out.toFiles {
		if err := writeReportFile(of, rep); err != nil && runErr == nil {
			runErr = err
		}
	}
	// The JSON report is printed however the run ended (ok, error,
	// interrupted say how); the text report once the run began.
	if o.out.out == "json" || rep.RowsRead > 0 || rep.Partial || runErr == nil {
		if err := report.Write(a.stdout, report.Format(o.out.out), rep); err != nil && runErr == nil {
			return err
		}
	}
	return runErr
}

func (f *migrateFlags) register(cmd *cobra.Command) {
	f.o.sourceFlag(cmd)
	f.o.mappingFlag(cmd)
	f.o.formatFlag(cmd, "also", &migrate.Report{})
	f.d.register(cmd)
	fs := cmd.Flags()
	fs.BoolVar(&f.m.CreateTable, "create-table", false, "create the table with its indexes and wait until it is ACTIVE")
	fs.BoolVar(&f.m.Stream, "stream", false, "with --create-table: enable the table's stream (NEW_AND_OLD_IMAGES) as it is created, for follow-back")
	fs.BoolVar(&f.m.AllowNonEmpty, "allow-non-empty", false, "write into a table that already holds items (items with the same key are replaced)")
	fs.IntVar(&f.m.Writers, "writers", 8, "the most BatchWriteItem requests in flight at once: how many adapts to throttling, up to this")
	fs.StringVar(&f.warm, "warm-throughput", "", "with --create-table: the table's warm throughput, WRITES or WRITES,READS units a second it takes at once (CreateTable's WarmThroughput)")
	fs.IntVar(&f.m.Readers, "readers", 4, "source connections reading entities, or key ranges of them, in parallel (reading an entity with embeds takes one more per embed)")
	fs.IntVar(&f.m.Ranges, "ranges", 1, "split each entity into this many key ranges of about equal rows, read in parallel (--resume: the checkpoint's)")
	fs.IntVar(&f.m.RenderWorkers, "render-workers", runtime.GOMAXPROCS(0), "goroutines rendering the rows read into items, checking their keys and filling the writers' batches: by default one per CPU Go uses (GOMAXPROCS)")
	fs.StringVar(&f.keyCheck, "key-check", "auto", "the key collision check: auto (skipped when the mapping, or the snapshot's data, proves the keys distinct) or always")
	fs.Int64Var(&f.keyCheckMiB, "key-check-memory", keyset.DefaultMemory>>20, "MiB the key collision check holds in memory, whatever the number of keys (when it runs: the keys are not proven distinct); the keys go to temporary files in $TMPDIR, and more keys than this suits cost time, not memory")
	fs.Int64Var(&f.m.MaxRejects, "max-rejects", 0, "rejected rows allowed before the run stops")
	fs.StringVar(&f.m.RejectsPath, "rejects", "", "file that receives every rejected row as a JSON line (always written: empty when no row is rejected; default <table>.remodel-rejects.jsonl, <table> being --table or the mapping's table.name, as the checkpoint's)")
	fs.DurationVar(&f.retryFor, "retry-for", migrate.DefaultBackoff.Deadline, "how long to keep retrying one batch before the run fails")
	fs.DurationVar(&f.m.TableTimeout, "table-timeout", migrate.DefaultTableTimeout, "how long --create-table waits for the table and its indexes to become ACTIVE")
	fs.Int64Var(&f.m.RateLimit, "rate-limit", 0, "write at most this many write units per second (1 per started KB of each item; 0: no limit): the copy and, with --follow, the follower, whose progress says when the limit holds it back")
	fs.BoolVar(&f.m.DeleteStale, "delete-stale", false, "with --allow-non-empty: after a successful run, delete the items this run did not write")
	f.prog.register(cmd, true)
	fs.StringVar(&f.m.CheckpointPath, "checkpoint", "", "the file recording how far the run got, to --resume from (default <table>.remodel-checkpoint.json; removed when the run succeeds)")
	fs.DurationVar(&f.m.CheckpointEvery, "checkpoint-every", migrate.DefaultCheckpointEvery, "how often the checkpoint is saved while the run writes")
	fs.BoolVar(&f.m.Resume, "resume", false, "continue the interrupted run whose --checkpoint this is: only the rows it did not settle are written")
	fs.BoolVar(&f.m.Follow, "follow", false, "after the copy, apply the changes committed since its snapshot, and keep applying them until SIGINT or SIGTERM (PostgreSQL: logical replication; see docs/cli.md)")
	fs.StringVar(&f.m.Slot, "slot", "", "--follow: the replication slot that keeps the changes (default remodel_<table>_<8 hex digits>, the migration's own)")
	fs.StringVar(&f.m.Publication, "publication", "", "--follow: the PostgreSQL publication of the mapped tables; created unless it exists (default: the slot's name)")
	f.s3f.register(cmd, &f.m)
	fs.StringVar(&f.shard, "shard", "", "run shard i of n (1-based: 1/3, 2/3, 3/3) of a sharded job: only this shard's key ranges of every entity, with its own lock, checkpoint and rejects file (docs/cli.md, Sharded runs)")
	fs.StringVar(&f.m.Job, "job", "", "with --shard: the sharded job's name, the same for all its shards (a Kubernetes Job's uid, an AWS Batch array job's id): a shard never adopts the split plan another job left in the table")
}

// shardFlag reads --shard i/n into m.Shard and checks what goes with it;
// a shard's default checkpoint and rejects file name the shard, so that
// shards started in one folder keep apart.
func shardFlag(c *checks, cmd *cobra.Command, value string, m *migrate.Options) {
	if !cmd.Flags().Changed("shard") {
		if cmd.Flags().Changed("job") {
			*c = append(*c, "--job names a sharded job: it goes with --shard")
		}
		return
	}
	if cmd.Flags().Changed("job") {
		if err := checkJob(m.Job); err != nil {
			*c = append(*c, "--job: "+err.Error())
		}
	}
	s, err := migrate.ParseShard(value)
	if err != nil {
		*c = append(*c, "--shard: "+err.Error())
		return
	}
	m.Shard = s
	// Into S3 (--to), the shards of a followed job keep the changes from
	// their snapshots, and the last shard given --import imports and
	// follows (migrate.Options' Shard, --follow).
	intoS3 := cmd.Flags().Changed("to")
	for _, f := range []struct {
		name, why string
		s3        bool // allowed with --to
	}{
		{"import", "ImportTable runs once, after every shard is done: migrate --to URL --import --shards-done n, or --to URL --import --follow in every shard, whose last imports and follows", intoS3 && cmd.Flags().Changed("follow")},
		{"shards-done", "--shards-done imports the shards' objects; it runs once, without --shard", false},
		{"follow", "into a table the change stream is one per job; into S3 (--to) each shard keeps the changes from its snapshot", intoS3},
		{"delete-stale", "stray items are the whole job's: run verify once every shard is done", false},
	} {
		if cmd.Flags().Changed(f.name) && !f.s3 {
			*c = append(*c, "--shard does not go with --"+f.name+" ("+f.why+")")
		}
	}
	if !cmd.Flags().Changed("rejects") {
		m.RejectsPath = shardFile(m.RejectsPath, s)
	}
}

// checkJob checks a --job name: it is recorded in the split plan item
// and printed in reports, so it is short, printable text.
func checkJob(job string) error {
	switch {
	case job == "":
		return errors.New("empty: give the job's name, or leave --job out")
	case strings.TrimSpace(job) != job:
		return fmt.Errorf("%q begins or ends with white space (\"j1\" and \"j1 \" would be two jobs)", job)
	case len(job) > 200:
		return fmt.Errorf("%d bytes long: at most 200", len(job))
	case !utf8.ValidString(job) || strings.IndexFunc(job, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0:
		return fmt.Errorf("%q holds characters that are not printable", job)
	}
	return nil
}
