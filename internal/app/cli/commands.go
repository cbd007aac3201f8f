package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/remodel-dev/remodel/internal/app/document"
	"github.com/remodel-dev/remodel/internal/app/report"
	"github.com/remodel-dev/remodel/internal/domain/analyze"
	"github.com/remodel-dev/remodel/internal/domain/dynamo"
	"github.com/remodel-dev/remodel/internal/domain/keyset"
	"github.com/remodel-dev/remodel/internal/domain/mapping"
	"github.com/remodel-dev/remodel/internal/domain/migrate"
	"github.com/remodel-dev/remodel/internal/domain/preview"
	"github.com/remodel-dev/remodel/internal/domain/s3out"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/internal/domain/verify"
)

func (a *app) previewCmd() *cobra.Command {
	var o common
	var rows int
	var entities []string
	var doc string
	var coll preview.CollectionOptions
	var an analyzeFlags
	var prog progressFlags
	cmd := &cobra.Command{
		Use:   "preview",
		Short: "Show the items the first rows of every entity become, without touching DynamoDB",
		Long: `preview renders the first --rows rows (in primary-key order) of every entity
through the mapping and prints the table definition, each entity's key
patterns and its items in DynamoDB JSON, and rows that would be rejected with
the reason. Nothing is written to DynamoDB; --output-file [FORMAT=]FILE also
writes what is printed to FILE (repeatable).

--document FILE writes the modeling definition document instead: the
source's ERD, the table and its indexes, each entity's key patterns and
attributes, each access pattern's key condition and the SQL it replaces,
and example data laid out per table and index, grouped by partition key:
a few item collections whole, every item of every entity whose table
partition key is one of them, as DynamoDB holds a partition (found among
the first --scan-rows rows of each entity). --partition VALUE (repeatable)
names them; without it --partitions N are chosen one at a time: the
partition holding most entities not shown yet, then the most entities,
then the most items (a partition larger than 25 items, or a grid of more
than 300, is cut, and what is not shown is counted). FILE ending in .md is Markdown (the ERD as a mermaid block),
in .html one self-contained HTML file that works offline; - writes Markdown
on stdout. With --analyze too, the document also holds the analysis of
every row and the cost (see below), as its sections Analysis and Cost.` + analyzeHelp,
		Example: `  remodel preview --source $DSN --mapping mapping.yaml --rows 5
  remodel preview --source $DSN -m mapping.yaml --entity user --output json
  remodel preview --source $DSN -m mapping.yaml --document design.html --partition USER#42
  remodel preview --source $DSN -m mapping.yaml --analyze --rate-limit 4000 --output-file analysis.md
  remodel preview --source $DSN -m mapping.yaml --document design.html --analyze --traffic traffic.yaml`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var c checks
			o.out.check(cmd, a.stderr, &c)
			if o.out.out == "markdown" && !an.on {
				c = append(c, "--output markdown is the analysis's (with --analyze); a preview's Markdown is the modeling document: --document FILE.md, or - for stdout")
			}
			c.atLeast("rows", int64(rows), 1)
			if doc != "" {
				for _, name := range []string{"rows", "entity"} {
					if cmd.Flags().Changed(name) {
						c = append(c, "--"+name+" is for the item preview; the document's example data is item collections (--partition, --partitions, --scan-rows)")
					}
				}
				c.atLeast("partitions", int64(coll.Count), 1)
				c.atLeast("scan-rows", int64(coll.ScanRows), 1)
			} else {
				for _, name := range []string{"partition", "partitions", "scan-rows"} {
					if cmd.Flags().Changed(name) {
						c = append(c, "--"+name+" is for the modeling document: give --document FILE too")
					}
				}
			}
			an.check(cmd, &c)
			prog.check(&c)
			for _, of := range o.out.toFiles {
				switch {
				case doc != "":
					c = append(c, "--output-file is for the printed result; with --document the result is the document FILE")
				case of.format == "markdown" && !an.on:
					c = append(c, "--output-file "+of.path+": markdown is the analysis's format (with --analyze)")
				}
			}
			previewFiles(&o, &an, doc).check(&c)
			if err := c.err(); err != nil {
				return err
			}
			docFormat := ""
			if doc != "" {
				f, err := documentFormat(doc)
				if err != nil {
					return err
				}
				docFormat = f
			}
			p, src, err := o.plan(cmd.Context())
			if err != nil {
				return err
			}
			defer src.Close()
			if an.on && doc == "" {
				return a.runAnalyze(cmd.Context(), &an, &prog, &o.out, p, src)
			}
			for _, n := range entities {
				if p.Entity(n) == nil {
					return usagef("--entity %s: the mapping has no entity %q (entities: %s)", n, n, entityNames(p))
				}
			}
			tracker, stopProgress, err := prog.start(a, "preview")
			if err != nil {
				return err
			}
			if doc != "" {
				res, parts, err := preview.Collections(cmd.Context(), p, src, coll, tracker)
				stopProgress()
				if err != nil {
					return err
				}
				var rep *analyze.Report
				if an.on {
					if rep, err = a.analyze(cmd.Context(), &an, &prog, p, src); err != nil {
						return err
					}
				}
				return a.writeDocument(doc, docFormat, o.mapping, document.Options{Rows: rows, Partitions: parts, ScanRows: coll.ScanRows}, p, res, rep)
			}
			res, err := preview.Run(cmd.Context(), p, src, rows, entities, tracker)
			stopProgress()
			if err != nil {
				return err
			}
			return o.out.writeOutputs(a.stdout, func(w io.Writer, format string) error {
				return report.Write(w, report.Format(format), res)
			})
		},
	}
	o.sourceFlag(cmd)
	o.mappingFlag(cmd)
	o.formatFlag(cmd, "also", &analyze.Report{}) // text and JSON of a preview; markdown with --analyze
	cmd.Flags().IntVar(&rows, "rows", 3, "rows to render per entity")
	cmd.Flags().StringSliceVar(&entities, "entity", nil, "preview only these entities (repeat or comma-separate)")
	cmd.Flags().StringVar(&doc, "document", "", "write the modeling definition document to this file: .md (Markdown) or .html (self-contained); - for Markdown on stdout")
	cmd.Flags().StringArrayVar(&coll.Partitions, "partition", nil, "with --document: a table partition key value whose item collection the example data shows (repeatable)")
	cmd.Flags().IntVar(&coll.Count, "partitions", 3, "with --document, without --partition: how many item collections are chosen")
	cmd.Flags().IntVar(&coll.ScanRows, "scan-rows", 10000, "with --document: the rows of each entity read to find the item collections' items")
	an.register(cmd)
	prog.register(cmd, false)
	return cmd
}

func entityNames(p *mapping.Plan) string {
	names := make([]string, len(p.Entities))
	for i, e := range p.Entities {
		names[i] = e.Name
	}
	return strings.Join(names, ", ")
}

// dynamoFlags are the flags of commands that talk to DynamoDB: the AWS
// CLI's --profile, --region and --endpoint-url (--endpoint is accepted as
// an alias), the table, and the deadline of every request.
type dynamoFlags struct {
	profile        string
	region         string
	endpoint       string
	table          string
	requestTimeout time.Duration
}

func (d *dynamoFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&d.profile, "profile", "", "AWS profile from the shared config and credentials files (default: $AWS_PROFILE, or default)")
	f.StringVar(&d.region, "region", "", "AWS region (default: $AWS_REGION, or the profile's region)")
	f.StringVar(&d.endpoint, "endpoint-url", "", "DynamoDB endpoint URL, e.g. http://127.0.0.1:8000 for DynamoDB Local (default: $AWS_ENDPOINT_URL_DYNAMODB, the profile's, or the region's; --endpoint is an alias)")
	f.StringVar(&d.table, "table", "", "DynamoDB table name (default: table.name of the mapping)")
	f.DurationVar(&d.requestTimeout, "request-timeout", dynamo.DefaultRequestTimeout, "how long one request to DynamoDB may go unanswered before it is tried again (the SDK tries a request 3 times; migrate's writes retry for --retry-for)")
	f.SetNormalizeFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		if name == "endpoint" {
			name = "endpoint-url"
		}
		return pflag.NormalizedName(name)
	})
}

func (d *dynamoFlags) check(c *checks) {
	c.region(d.region)
	c.endpoint("endpoint-url", d.endpoint)
	c.positive("request-timeout", d.requestTimeout)
}

// connect sets up the DynamoDB client (no request is sent yet).
func (d *dynamoFlags) connect(ctx context.Context, a *app) (*dynamo.Client, error) {
	db, err := dynamo.Connect(ctx, dynamo.Config{Profile: d.profile, Region: d.region, Endpoint: d.endpoint, RequestTimeout: d.requestTimeout, Log: a.log()})
	if errors.Is(err, dynamo.ErrNoRegion) {
		return nil, usageError{err}
	}
	return db, err
}

// plan sets up the DynamoDB client and compiles the mapping against the
// source; the caller closes the source.
func (d *dynamoFlags) plan(ctx context.Context, a *app, o *common) (*mapping.Plan, source.Source, *dynamo.Client, error) {
	db, err := d.connect(ctx, a)
	if err != nil {
		return nil, nil, nil, err
	}
	p, src, err := o.plan(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	return p, src, db, nil
}

func (a *app) migrateCmd() *cobra.Command {
	var o common
	var d dynamoFlags
	var m migrate.Options
	var retryFor time.Duration
	var keyCheckMiB int64
	var keyCheck string
	var prog progressFlags
	var s3f s3Flags
	var shard string
	var warm string // --warm-throughput
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "Write every source row into the DynamoDB table",
		Long: `migrate reads every entity from one consistent snapshot of the source, renders
each row into its item, and writes the items with BatchWriteItem (25 per
request) from up to --writers requests in flight. UnprocessedItems, throttling and 5xx
answers are retried with capped exponential backoff and jitter for up to
--retry-for per batch; after that the run stops and names the items.
--readers source connections read the rows (--ranges splits each entity into
key ranges read in parallel) and hand them, 64 at a time, to --render-workers
goroutines that render the items, check their keys for collisions and fill
the writers' batches.

A row that cannot become an item (a NULL in a key, an item over 400 KB, a
row rendering the key of an earlier row, ...) is rejected: it is written to
--rejects (by default <table>.remodel-rejects.jsonl) with its entity, source
key and reason. More than --max-rejects
rejected rows stop the run (the default 0 stops at the first) with exit
status 1.

The key collision check runs unless the mapping (or, for a text column that
may hold the separator after it, the snapshot's data) proves that no two rows
render one key; --key-check always runs it anyway. It holds at most
--key-check-memory MiB whatever the number of rows: the keys go to temporary
files in $TMPDIR, a filter in memory clears almost every new key at once, and
the report says how many keys it had to look up on disk.

migrate refuses to write into a table that already holds items unless
--allow-non-empty is given; then it reports how many items were there and,
after a successful run, how many it did not write (stray items, named);
--delete-stale deletes those. While it writes, a lock item in the table
(key #remodel#lock) keeps a second migrate out: that one is refused, naming
the run that holds the lock, unless the lock's heartbeat is older than 2
minutes (its run died), when it is taken over. The lock is removed however
the run ends.

Every request to DynamoDB has --request-timeout to be answered, and is
retried like any other failure when it is not. --rate-limit caps the writes
at N write units per second (one unit per started KB of each item); a
throttled answer pauses every writer, not only the one it answered.

How many requests are in flight adapts to throttling (AIMD): it starts at 4,
grows by one after as many answers without throttling as are in flight, and
halves on a throttled answer or one leaving items unprocessed, never above
--writers: the writers keep the table as busy as its capacity allows without
a pile of refused requests. A throttled batch whose items share one
partition key (a large item collection: DynamoDB takes 1 000 write units a
second for one key) goes on in a lane of its own while the writers take the
next batches. --create-table --warm-throughput WRITES[,READS]
creates the table warm, able to take that many units a second at once
(CreateTable's WarmThroughput; DynamoDB Local takes it and enforces nothing).

On SIGINT or SIGTERM, or when the run fails, the writers wait for the
answers to their requests in flight (a few seconds at most) and the report
counts exactly the items DynamoDB acknowledged; it says the table is
partial. The exit status is then 130 (interrupted) or 1 or 3.

It shows progress on stderr (--progress: a bar per entity with percent and
ETA on a terminal, a line every --progress-interval otherwise, or JSON
lines), with totals from the source's row estimates, or exact ones with
--exact-counts, and prints a summary to stdout; the exit status is 0 only if
every row was written or, within --max-rejects, rejected.

Resume: while it writes, migrate keeps a checkpoint (--checkpoint, by
default <table>.remodel-checkpoint.json), saved every 2 seconds and when the
run stops: per entity, the source key up to which every row's item is
acknowledged by DynamoDB or the row rejected. A run that succeeds removes
it. After a crash, kill -9, SIGINT or a failure, migrate --resume (same
mapping, source and table; refused otherwise) takes over the interrupted
run's lock, reads a new snapshot, and writes only the rows after each
entity's checkpoint key; it appends to the interrupted run's rejects file
without listing a row twice, and its report counts the whole job. It reads
the settled rows' keys again (nothing is written for them) for the
collision check and to report, or with --delete-stale delete, the items no
source row has any more. Rows changed before the checkpoint key since the
interrupted run are not rewritten: verify finds them.

Follow: with --follow, migrate starts the copy at a point of the source's
history (PostgreSQL: a publication of the mapped tables and a logical
replication slot, --slot and --publication, whose exported snapshot the copy
reads; MySQL/MariaDB: the snapshot's row-binlog position, saved in the
checkpoint), and after the copy applies every change committed
since, in batches of whole transactions (each touched row read again by key
and rendered as the copy renders it; stale item keys deleted), until SIGINT or
SIGTERM, which stop it cleanly with exit status 0 and a cutover report. Its
lag (source and applied positions, seconds behind, changes/s) is a live line
under the bars, or a line (--progress plain) or the "follow" object of a JSON
line (--progress json) every --progress-interval. --follow --resume goes on from the slot
after any stop; remodel follow-cleanup drops the slot when the migration is
over. PostgreSQL needs wal_level=logical, the REPLICATION privilege and
REPLICA IDENTITY FULL on tables whose item keys read columns outside their
primary key; MySQL a ROW binlog with full row images and the replication
privileges. Entities from views and queries are synchronised by a diff pass
when the follower stops (docs/cutover.md).

S3 import (--to s3://bucket/prefix/): instead of writing into a table,
migrate writes every item as a line of ImportTable's DYNAMODB_JSON format
into gzip (or --compression zstd) objects of at most --object-size MiB of
JSON and --object-items items under the prefix, uploaded through the S3
transfer manager, the items of each batch dealt over one open object per
writer; then a manifest beside the prefix (orders/ has
orders.remodel-manifest.json): the objects with
their items, sizes and SHA-256, and the table definition. The key
collision check always runs (ImportTable silently keeps one of two items
with one key); no table, no lock item; the prefix must be empty (but for
sibling shards' objects: --shard). The
checkpoint moves only past uploaded objects: --resume keeps every object
uploaded and writes no item twice. --import then has DynamoDB create the
table from the objects (keys, global indexes, billing), waits with
progress, and enables TTL; refused when the table exists. A mapping with a
local index is refused (ImportTable cannot create one). S3 is reached
through the standard AWS chain (--profile, --region, AWS_ENDPOINT_URL_S3
with path-style addressing for S3-compatible servers); every request has
--request-timeout. --to file:///abs/dir/prefix/ (an absolute path) writes
the same objects and manifest into a local directory instead
(/abs/dir/prefix/ and /abs/dir/prefix.remodel-manifest.json; /abs/dir must
exist), each file written whole or not at all, with the same prefix check
and --resume; --import is refused (ImportTable reads S3: copy the directory
with its manifest to an S3 prefix first), and so are a checkpoint or
rejects file under the prefix.

Sharded runs (--shard i/n, 1-based: 1/3, 2/3, 3/3): n processes on any
machines write one table at once. Each splits every entity into the same
--ranges key ranges and reads only its own share of them: the first shard
records the split (every range's boundaries) in the table's split plan
item, and the others read the recorded ranges even if the source changed
since; a shard given another --ranges, mapping, n or --job is refused
(exit status 3) while the plan is in use, and the last shard to finish
removes it. Give the shards of a job one --job NAME (the Kubernetes Job's
uid, the AWS Batch array job's id), so that none adopts a plan another job
left behind. Each shard has its own lock item, its default
checkpoint and rejects file name the shard
(<table>.shard-2-of-3.remodel-checkpoint.json), and --resume continues
that shard alone. --create-table
from several shards at once: one creates the table, the others wait for it
and check its keys and indexes. A shard neither refuses a table holding
items nor looks for stray items: run verify once every shard is done. With
a Kubernetes Indexed Job: --shard $((JOB_COMPLETION_INDEX+1))/n; an AWS
Batch array job: --shard $((AWS_BATCH_JOB_ARRAY_INDEX+1))/n
(examples/sharding). remodel status --checkpoint 'GLOB' shows every
shard's progress. With --to, each shard writes its own objects
(shard-2-of-3-...) under the one prefix and its own manifest beside it
(orders.shard-2-of-3.remodel-manifest.json); a new shard accepts only its
siblings' objects there, and its manifest names its split plan's digest;
--import is refused in a shard: once all are done, verify --files checks
every shard's objects (duplicate keys across shards and manifests of
different splits included), and migrate --to URL --import --shards-done n
imports them, refusing manifests of different splits. Not
with --follow or --delete-stale.

Unless GOGC or GOMEMLIMIT is set, migrate collects its heap when it
reaches a soft memory limit (GOGC=off) of 144 MiB less --key-check-memory
(80 MiB by default; at least 64 MiB): its peak memory is then about the
same at a million rows as at a hundred million (about 100 MiB; 165 MiB
with the key collision check, which holds --key-check-memory from the
start).`,
		Example: `  remodel migrate --source $DSN -m mapping.yaml --create-table
  remodel migrate --source $DSN -m mapping.yaml --resume          # after a crash or Ctrl-C
  remodel migrate --source $DSN -m mapping.yaml --table orders_v2 --allow-non-empty --delete-stale
  remodel migrate --source $DSN -m mapping.yaml --create-table --follow   # then follow-cleanup
  remodel migrate --source $DSN -m mapping.yaml --to s3://bucket/orders/ --import
  remodel migrate --source $DSN -m mapping.yaml --shard 2/3 --job nightly-42
  remodel migrate --source $DSN -m mapping.yaml --output json --output-file markdown=report.md`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			a.tuneGC(migrateMemoryLimit(keyCheckMiB << 20))
			if !cmd.Flags().Changed("rejects") { // named after the table, as the checkpoint
				m.RejectsPath = defaultRejects(d.table, o.mapping)
			}
			var c checks
			o.out.check(cmd, a.stderr, &c)
			c.atLeast("writers", int64(m.Writers), 1)
			if warm != "" {
				wt, err := migrate.ParseWarmThroughput(warm)
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
			c.atLeast("key-check-memory", keyCheckMiB, 1)
			c.oneOf("key-check", keyCheck, "auto", "always")
			m.KeyCheckAlways = keyCheck == "always"
			m.KeyCheckMemory = keyCheckMiB << 20
			c.atLeast("max-rejects", m.MaxRejects, 0)
			c.positive("retry-for", retryFor)
			c.positive("table-timeout", m.TableTimeout)
			c.atLeast("rate-limit", m.RateLimit, 0)
			c.positive("checkpoint-every", m.CheckpointEvery)
			c.replaceable("rejects", m.RejectsPath)
			c.replaceable("checkpoint", m.CheckpointPath)
			shardFlag(&c, cmd, shard, &m)
			c.slotName("slot", m.Slot)
			if (m.Slot != "" || m.Publication != "") && !m.Follow {
				c = append(c, "--slot and --publication need --follow")
			}
			s3f.check(&c, cmd, &m)
			o.out.outsideObjects(&c, m.To)
			migrateFiles(&m, &o, d.table, cmd.Flags().Changed("rejects")).check(&c)
			if m.DeleteStale && !m.AllowNonEmpty && !m.Resume {
				c = append(c, "--delete-stale needs --allow-non-empty: without it migrate writes only into an empty table, where nothing is stale")
			}
			d.check(&c)
			prog.check(&c)
			if err := c.err(); err != nil {
				return err
			}
			var p *mapping.Plan
			var src source.Source
			var db *dynamo.Client
			var err error
			if m.To != nil && m.To.Dir { // a local directory: no DynamoDB (no table, no import), no AWS configuration
				p, src, err = o.plan(cmd.Context())
			} else {
				p, src, db, err = d.plan(cmd.Context(), a, &o)
			}
			if err != nil {
				return err
			}
			defer src.Close()
			if err := s3f.connect(cmd.Context(), a, &d, &m); err != nil {
				return err
			}
			m.Plan, m.Source, m.Table, m.RequestTimeout = p, src, d.table, d.requestTimeout
			if db != nil {
				m.DB = db
			}
			tracker, stopProgress, err := prog.start(a, "migrate")
			if err != nil {
				return err
			}
			m.Progress, m.ExactCounts = tracker, prog.exact
			if err := checkpointOptions(&m, &o); err != nil {
				return err
			}
			m.Backoff = migrate.DefaultBackoff
			m.Backoff.Deadline = retryFor
			rep, runErr := migrate.Run(cmd.Context(), m)
			stopProgress()
			runErr = migrateFailed(runErr, rep, m.MaxRejects)
			a.leaveFinished(runErr, m.CheckpointPath, rep)
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
		},
	}
	o.sourceFlag(cmd)
	o.mappingFlag(cmd)
	o.formatFlag(cmd, "also", &migrate.Report{})
	d.register(cmd)
	f := cmd.Flags()
	f.BoolVar(&m.CreateTable, "create-table", false, "create the table with its indexes and wait until it is ACTIVE")
	f.BoolVar(&m.Stream, "stream", false, "with --create-table: enable the table's stream (NEW_AND_OLD_IMAGES) as it is created, for follow-back")
	f.BoolVar(&m.AllowNonEmpty, "allow-non-empty", false, "write into a table that already holds items (items with the same key are replaced)")
	f.IntVar(&m.Writers, "writers", 8, "the most BatchWriteItem requests in flight at once: how many adapts to throttling, up to this")
	f.StringVar(&warm, "warm-throughput", "", "with --create-table: the table's warm throughput, WRITES or WRITES,READS units a second it takes at once (CreateTable's WarmThroughput)")
	f.IntVar(&m.Readers, "readers", 4, "source connections reading entities, or key ranges of them, in parallel (reading an entity with embeds takes one more per embed)")
	f.IntVar(&m.Ranges, "ranges", 1, "split each entity into this many key ranges of about equal rows, read in parallel (--resume: the checkpoint's)")
	f.IntVar(&m.RenderWorkers, "render-workers", runtime.GOMAXPROCS(0), "goroutines rendering the rows read into items, checking their keys and filling the writers' batches: by default one per CPU Go uses (GOMAXPROCS)")
	f.StringVar(&keyCheck, "key-check", "auto", "the key collision check: auto (skipped when the mapping, or the snapshot's data, proves the keys distinct) or always")
	f.Int64Var(&keyCheckMiB, "key-check-memory", keyset.DefaultMemory>>20, "MiB the key collision check holds in memory, whatever the number of keys (when it runs: the keys are not proven distinct); the keys go to temporary files in $TMPDIR, and more keys than this suits cost time, not memory")
	f.Int64Var(&m.MaxRejects, "max-rejects", 0, "rejected rows allowed before the run stops")
	f.StringVar(&m.RejectsPath, "rejects", "", "file that receives every rejected row as a JSON line (always written: empty when no row is rejected; default <table>.remodel-rejects.jsonl, <table> being --table or the mapping's table.name, as the checkpoint's)")
	f.DurationVar(&retryFor, "retry-for", migrate.DefaultBackoff.Deadline, "how long to keep retrying one batch before the run fails")
	f.DurationVar(&m.TableTimeout, "table-timeout", migrate.DefaultTableTimeout, "how long --create-table waits for the table and its indexes to become ACTIVE")
	f.Int64Var(&m.RateLimit, "rate-limit", 0, "write at most this many write units per second (1 per started KB of each item; 0: no limit): the copy and, with --follow, the follower, whose progress says when the limit holds it back")
	f.BoolVar(&m.DeleteStale, "delete-stale", false, "with --allow-non-empty: after a successful run, delete the items this run did not write")
	prog.register(cmd, true)
	f.StringVar(&m.CheckpointPath, "checkpoint", "", "the file recording how far the run got, to --resume from (default <table>.remodel-checkpoint.json; removed when the run succeeds)")
	f.DurationVar(&m.CheckpointEvery, "checkpoint-every", migrate.DefaultCheckpointEvery, "how often the checkpoint is saved while the run writes")
	f.BoolVar(&m.Resume, "resume", false, "continue the interrupted run whose --checkpoint this is: only the rows it did not settle are written")
	f.BoolVar(&m.Follow, "follow", false, "after the copy, apply the changes committed since its snapshot, and keep applying them until SIGINT or SIGTERM (PostgreSQL: logical replication; see docs/cli.md)")
	f.StringVar(&m.Slot, "slot", "", "--follow: the replication slot that keeps the changes (default remodel_<table>)")
	f.StringVar(&m.Publication, "publication", "", "--follow: the PostgreSQL publication of the mapped tables; created unless it exists (default: the slot's name)")
	s3f.register(cmd, &m)
	f.StringVar(&shard, "shard", "", "run shard i of n (1-based: 1/3, 2/3, 3/3) of a sharded job: only this shard's key ranges of every entity, with its own lock, checkpoint and rejects file (docs/cli.md, Sharded runs)")
	f.StringVar(&m.Job, "job", "", "with --shard: the sharded job's name, the same for all its shards (a Kubernetes Job's uid, an AWS Batch array job's id): a shard never adopts the split plan another job left in the table")
	return cmd
}

// leaveFinished writes the finished record of a run that succeeded and
// removed its checkpoint (migrate.WriteFinished), for remodel status; a
// record that cannot be written is a warning, not a failed run.
func (a *app) leaveFinished(runErr error, checkpoint string, rep *migrate.Report) {
	if runErr != nil || rep == nil || !rep.OK {
		return
	}
	if _, err := os.Stat(checkpoint); !errors.Is(err, fs.ErrNotExist) {
		return // kept: a followed run's, to go on from
	}
	if err := migrate.WriteFinished(migrate.FinishedPath(checkpoint), rep); err != nil {
		fmt.Fprintf(a.stderr, "remodel: warning: %v (remodel status cannot say that this run finished)\n", err)
	}
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
	for _, f := range []struct{ name, why string }{
		{"import", "ImportTable runs once, after every shard is done: migrate --to URL --import --shards-done n"},
		{"shards-done", "--shards-done imports the shards' objects; it runs once, without --shard"},
		{"follow", "the change stream is one per job"},
		{"delete-stale", "stray items are the whole job's: run verify once every shard is done"},
	} {
		if cmd.Flags().Changed(f.name) {
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

func (a *app) verifyCmd() *cobra.Command {
	var o common
	var d dynamoFlags
	var v verify.Options
	var rejects, filesURL string
	var prog progressFlags
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Prove the DynamoDB table matches the source: counts, items and access patterns",
		Long: `verify checks a migrated table against the source, read from one snapshot:

  counts           source rows per entity (same where), less the rows accepted as
                   rejected, = items per entity in the table; and no stray item
                   (of no entity, or of no source row: named by key)
  items            every row (or a --sample-rate share) rendered and compared attribute
                   by attribute with the stored item, and every column attribute
                   compared with the source's own JSON rendering of the row (missing
                   and different items are named by key)
  access patterns  for --samples parameter values sampled from the source, the
                   Query (every page) returns exactly the items of the rows its SQL
                   returns; parameters are bound, never pasted into the SQL

--rejects FILE reads migrate's rejected-rows file: those rows are expected to
have no item (and it is a failure if one is in the table after all).

The report goes to stdout in --output's format (text, json, junit or
markdown). --output-file FORMAT=FILE also writes it to FILE in FORMAT (e.g.
--output-file junit=verify.xml --output-file markdown=$GITHUB_STEP_SUMMARY);
--output-file FILE writes FILE in the format its extension names (.json,
.xml for junit, .md, .txt) or else in --output's. A report is written even
when verify cannot finish.

Sampled parameters are fixed by --seed; without it a seed is drawn and
printed, so a failing run can be repeated with the same parameters.

Every request to DynamoDB has --request-timeout to be answered and is tried
3 times; connecting to the source and each set-up statement have
--source-timeout. Either failing ends verify with exit status 3.

Progress goes to stderr (--progress): the source counts, then, side by side,
the table scan, the rows the item check has read per entity (of the counted
rows; --readers entities at a time) and the samples checked per access
pattern.

--files s3://bucket/prefix/ checks migrate --to's ImportTable objects instead
of a table, before paying for the import: the manifest beside the prefix
(every object it lists present with its size and SHA-256, no other object
under the prefix, the same mapping file; a sharded job's manifests of one
split), then every object read: counts per
entity and every item against the source as above. Access patterns cannot
run against files: they are reported "not checked (files)". S3 is reached as
migrate --to reaches it (--profile, --region, AWS_ENDPOINT_URL_S3);
--files file:///abs/dir/prefix/ reads what migrate --to file:// wrote into a
local directory.

Unless GOGC or GOMEMLIMIT is set, verify collects its heap when it
reaches a soft memory limit of 64 MiB (GOGC=off): its peak memory is then
about the same at a million items as at a hundred million.

The exit status is 0 only when every check ran and passed.`,
		Example: `  remodel verify --source $DSN -m mapping.yaml
  remodel verify --source $DSN -m mapping.yaml --rejects orders.remodel-rejects.jsonl --seed 7
  remodel verify --source $DSN -m mapping.yaml --output-file junit=verify.xml --output-file markdown=$GITHUB_STEP_SUMMARY
  remodel verify --source $DSN -m mapping.yaml --files s3://bucket/orders/`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			a.tuneGC(verifyMemoryLimit)
			var c checks
			o.out.check(cmd, a.stderr, &c)
			c.atLeast("samples", int64(v.Samples), 1)
			c.atLeast("readers", int64(v.Readers), 1)
			c.atLeast("max-problems", int64(v.MaxProblems), 0)
			c.positive("gsi-settle", v.Settle)
			if !(v.SampleRate > 0 && v.SampleRate <= 1) {
				c = append(c, fmt.Sprintf("--sample-rate must be more than 0 and at most 1, got %v", v.SampleRate))
			}
			d.check(&c)
			prog.check(&c)
			if err := c.err(); err != nil {
				return err
			}
			if err := verifyFiles(&o, rejects).err(); err != nil {
				return err
			}
			var err error
			var filesLoc *s3out.Location
			if filesURL != "" {
				loc, err := s3out.Parse(filesURL)
				if err != nil {
					return usageError{fmt.Errorf("--files: %w", err)}
				}
				filesLoc = &loc
			}
			if !cmd.Flags().Changed("seed") {
				v.Seed = rand.Int64N(1 << 31)
			}
			// report writes the report to stdout and to every
			// --output-file; runErr (verify could not finish) wins over a
			// write error.
			report := func(rep *verify.Report, runErr error) error {
				if ctx := cmd.Context(); runErr != nil && ctx.Err() != nil {
					// A signal, not the check: "context canceled" would
					// not tell the report's reader.
					rep.Interrupted = true
					rep.Error = "interrupted"
					if cause := context.Cause(ctx); cause != nil && cause != context.Canceled {
						rep.Error += " (" + cause.Error() + ")"
					}
				}
				werr := report.Write(a.stdout, report.Format(o.out.out), rep)
				for _, of := range o.out.toFiles {
					if err := writeReportFile(of, rep); err != nil && werr == nil {
						werr = err
					}
				}
				switch {
				case runErr != nil:
					return runErr
				case werr != nil:
					return werr
				case !rep.OK:
					failed, total := rep.FailedChecks()
					return failedError{fmt.Errorf("verify: %d of %d checks failed (the report names them)", failed, total)}
				}
				return nil
			}
			failed := func(err error) error {
				// Without --table the report names the mapping's table,
				// read from the file alone: the source may be what failed.
				table := d.table
				if f, perr := mapping.ParseFile(o.mapping); table == "" && perr == nil {
					table = f.Table.Name.Value
				}
				return report(&verify.Report{Version: verify.ReportVersion, Table: table, Seed: v.Seed, Error: err.Error()}, err)
			}
			ctx := cmd.Context()
			var p *mapping.Plan
			var src source.Source
			var db *dynamo.Client
			if filesLoc != nil { // no table: the objects, through S3
				if v.S3, err = connectStore(ctx, a, &d, *filesLoc); err == nil {
					p, src, err = o.plan(ctx)
				}
				if b, rerr := os.ReadFile(o.mapping); rerr == nil {
					sum := sha256.Sum256(b)
					v.MappingDigest = hex.EncodeToString(sum[:])
				}
				v.Files = filesLoc
			} else {
				p, src, db, err = d.plan(ctx, a, &o)
			}
			if err != nil {
				var ue usageError
				if errors.As(err, &ue) {
					return err
				}
				return failed(err)
			}
			defer src.Close()
			if rejects != "" {
				if v.Rejects, err = verify.ReadRejects(rejects, p); err != nil {
					return usageError{err}
				}
			}
			v.Plan, v.Source, v.DB, v.Table = p, src, db, d.table
			tracker, stopProgress, err := prog.start(a, "verify")
			if err != nil {
				return err
			}
			v.Progress = tracker
			rep, err := verify.Run(cmd.Context(), v)
			stopProgress()
			return report(rep, err)
		},
	}
	o.sourceFlag(cmd)
	o.mappingFlag(cmd)
	o.formatFlag(cmd, "also", &verify.Report{})
	d.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&rejects, "rejects", "", "migrate's rejected-rows file: its rows are expected to have no item")
	fl.StringVar(&filesURL, "files", "", "check migrate --to's ImportTable objects under this S3 prefix, s3://bucket/prefix/ (or local directory, file:///abs/dir/prefix/), and their manifest, instead of a table (access patterns: not checked)")
	fl.IntVar(&v.Samples, "samples", 10, "parameter sets to check each access pattern with")
	fl.Int64Var(&v.Seed, "seed", 0, "fixes which parameter values are sampled (default: drawn at random and printed)")
	fl.IntVar(&v.MaxProblems, "max-problems", 20, "problems listed per check, all are counted (0 lists all)")
	fl.BoolVar(&v.SkipItems, "skip-items", false, "leave out the item-by-item comparison")
	fl.IntVar(&v.Readers, "readers", 4, "entities the item check reads at once, each on a source connection of its own (one more per embed), beside the table scan and the access patterns")
	fl.Float64Var(&v.SampleRate, "sample-rate", 1, "share of each entity's rows the item check compares (0 < F <= 1), chosen by a hash of each row's key: every run compares the same rows")
	fl.DurationVar(&v.Settle, "gsi-settle", 10*time.Second, "how long after the start a global index's Query is repeated while it disagrees with the SQL (GSIs are eventually consistent)")
	prog.register(cmd, false)
	return cmd
}

// writeReportFile writes result to of.path in of.format.
func writeReportFile(of outputFile, result any) error {
	file, err := os.Create(of.path)
	if err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	if err := report.Write(file, report.Format(of.format), result); err != nil {
		file.Close()
		return fmt.Errorf("writing the report %s: %w", of.path, err)
	}
	if err := file.Close(); err != nil {
		return fmt.Errorf("writing the report %s: %w", of.path, err)
	}
	return nil
}
