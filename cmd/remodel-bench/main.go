// Command remodel-bench measures remodel against its ceilings, in one run on one
// machine, and prints the figures side by side (make bench runs it through
// scripts/bench.sh, which loads the data and starts DynamoDB Local):
//
//  1. raw source read: the rows remodel reads, read the same way (same
//     query, driver and protocol) but not converted;
//  2. raw sink: BatchWriteItem of items rendered by remodel's mapping from
//     the source (so of the same size distribution), at the same number of
//     writers, into DynamoDB Local;
//  3. remodel end to end: the built remodel binary migrating the source
//     into DynamoDB Local;
//  4. remodel into the null sink: the built remodel binary migrating the
//     source with --to null:, the product's null sink, which acknowledges
//     every item without sending it anywhere, so the figure is remodel's
//     own cost (read, render, key check, batch), without a store's;
//  5. remodel verify of the table the end-to-end run wrote (every item
//     compared, the access patterns at a fixed seed), beside the migration
//     of the same rows: verify ÷ migrate, of wall time.
//
// With -kill-loop N it then runs the kill -9 loop (killloop.go): remodel
// migrate killed with SIGKILL at N seeded points and resumed each time,
// once per -kill-ranges value, the finished table proven exact; and the
// same again with the -kill-embed mapping, whose users hold their settings
// and subscriptions as embedded rows (personalization-embed.yaml).
//
// For the remodel runs it reports user+sys CPU and peak RSS from the
// process's rusage. The machine is shared and noisy: only the ratios within
// one run mean much.
//
// It is not part of the remodel binary. Run as "bench __remodel ARGS...", it
// is remodel itself with a CPU profile written to $REMODEL_BENCH_CPUPROFILE
// (used by -cpuprofile); as "bench __spawn CMD ARGS...", the go-between that
// measures a remodel process (see spawn).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/remodel-dev/remodel/internal/app/cli"
	"github.com/remodel-dev/remodel/internal/domain/dynamo"
	"github.com/remodel-dev/remodel/internal/domain/source"
	_ "github.com/remodel-dev/remodel/internal/domain/source/engines" // the engines source.Open opens
	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
	"github.com/remodel-dev/remodel/migrate"
)

const profileArg = "__remodel"

type options struct {
	source, mapping, remodel string
	endpoint                 string
	script                   string
	port                     int
	readers, writers         int
	pool                     int
	note                     string
	cpuprofile               string
	repeat                   int
	nullOnly                 bool
	// s3Route measures migrate --to (s3route.go) in each round; large
	// appends the large mode's figures to this file instead of measuring
	// (large.go), largeTable prints the file's table.
	s3Route           bool
	large, largeTable string
	keyCheck          string
	// The kill loop (killloop.go): -kill-loop kills per job, one job per
	// -kill-ranges value and mapping (-mapping, then -kill-embed unless
	// empty); -kill-only skips the raw sink and the null sink.
	killLoop   int
	killSeed   uint64
	killRanges []int
	killOnly   bool
	killEmbed  string
	// follow: the follow bench (follow.go) instead of the measurements.
	follow followOptions
	// back: with follow, the follow-back bench after it (followback.go).
	back backOptions
	// capacity: the capacity mode (capacity.go) instead of the measurements.
	capacity capacityOptions
	// soak: the follow soak (soak.go) instead of the measurements.
	soak soakOptions
}

// defaultKillEmbed is the kill loop's mapping with embedded rows, on the
// personalization example's data (from the repository's root, where
// scripts/bench.sh runs the bench).
const defaultKillEmbed = "cmd/remodel-bench/personalization-embed.yaml"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	if len(os.Args) > 1 && os.Args[1] == spawnArg {
		stop() // the command gets the signals; the go-between waits for it
		os.Exit(spawned(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == backArg {
		code := followBackProcess(ctx, os.Args[2:], os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	if len(os.Args) > 1 && os.Args[1] == profileArg {
		code := profiled(ctx, os.Args[2:])
		stop()
		os.Exit(code)
	}
	var o options
	flag.StringVar(&o.source, "source", "", "source DSN (the bench database)")
	flag.StringVar(&o.mapping, "mapping", "examples/personalization/mapping.yaml", "mapping file")
	flag.StringVar(&o.remodel, "remodel", "bin/remodel", "the remodel binary to measure")
	flag.IntVar(&o.port, "port", 8777, "DynamoDB Local's port on 127.0.0.1")
	flag.StringVar(&o.script, "dynamodb-script", "scripts/dynamodb-local.sh", "script that restarts DynamoDB Local (stop PORT, start PORT) before each run that stores items; empty: use it as it is")
	flag.IntVar(&o.readers, "readers", 4, "source connections (remodel --readers)")
	flag.IntVar(&o.writers, "writers", 8, "BatchWriteItem writers (remodel --writers)")
	flag.IntVar(&o.pool, "pool", 200000, "items rendered once for the raw sink, which cycles through them")
	flag.StringVar(&o.note, "note", "", "how the data was made, printed with the source")
	flag.IntVar(&o.repeat, "repeat", 1, "measure everything this many rounds and print each measurement's median round")
	flag.StringVar(&o.keyCheck, "key-check", "auto", "remodel migrate --key-check: always measures the key collision check on a mapping that does not need it")
	flag.BoolVar(&o.nullOnly, "null-only", false, "measure only the raw read and the null sink (no DynamoDB Local writes: for sizes it would take hours to store)")
	flag.StringVar(&o.cpuprofile, "cpuprofile", "", "after the measured runs, profile one more null-sink run of remodel into this file; with -follow: profile the resumed follower (catch-up, steady workload, stop) into it")
	flag.IntVar(&o.killLoop, "kill-loop", 0, "after the measurements, migrate once per -kill-ranges value killing remodel with SIGKILL this many times, --resume each time, and prove the table exact")
	flag.Uint64Var(&o.killSeed, "kill-seed", 0, "the seed of the kill loop's kill points (0: drawn, and printed)")
	ranges := flag.String("kill-ranges", "1,4", "the --ranges values of the kill loop's jobs, comma-separated")
	flag.StringVar(&o.killEmbed, "kill-embed", defaultKillEmbed, "with -kill-loop: a mapping with embedded rows (an entity with embed:) on the same source, whose jobs the kill loop runs too, one per -kill-ranges value after the -mapping ones; empty: none")
	flag.BoolVar(&o.killOnly, "kill-only", false, "with -kill-loop: measure only the raw read, remodel uninterrupted and the kill loop (no raw sink, null sink or verify)")
	flag.BoolVar(&o.follow.on, "follow", false, "measure remodel migrate --follow instead (follow.go): the copy, the catch-up of a backlog, the lag under a steady workload; -source needs logical replication (PostgreSQL) or a row binlog (MariaDB)")
	flag.Int64Var(&o.follow.backlog, "follow-backlog", 10000, "-follow: changed rows made on the source while the follower is stopped, for the catch-up")
	flag.Float64Var(&o.follow.rate, "follow-rate", 500, "-follow: changed rows per second of the steady workload")
	flag.DurationVar(&o.follow.seconds, "follow-seconds", time.Minute, "-follow: how long the steady workload runs")
	flag.IntVar(&o.follow.workers, "follow-workers", 8, "-follow: the workload's connections")
	flag.DurationVar(&o.follow.limit, "follow-timeout", 20*time.Minute, "-follow: how long the copy, the catch-up, the lag's return to 0 and verify may each take")
	flag.Uint64Var(&o.follow.seed, "follow-seed", 1, "-follow: the workload's seed")
	flag.BoolVar(&o.back.on, "follow-back", false, "-follow: then measure follow-back (followback.go) on a fresh table of -follow-back-mapping made by migrate --create-table --stream: the catch-up of -follow-backlog item changes written into it through the AWS SDK, then -follow-rate item changes/s for -follow-seconds (applied/s, lag per change), then verify; printed beside the forward follower's figures")
	flag.BoolVar(&o.back.only, "follow-back-only", false, "-follow -follow-back: measure follow-back only (no forward follower before)")
	flag.StringVar(&o.back.mapping, "follow-back-mapping", defaultKillEmbed, "-follow-back: the mapping of the table follow-back follows (on the same source)")
	flag.BoolVar(&o.s3Route, "s3-route", true, "measure migrate --to in each round too: to a local directory (gzip, zstd) and to an in-process S3 (gzip), beside the null sink")
	flag.StringVar(&o.large, "large", "", "large mode: measure only the null sink, migrate --to a local directory and verify --files of its objects, and append the figures of this size to this file (large.go)")
	flag.StringVar(&o.largeTable, "large-table", "", "print the large mode's table of the sizes in this file, and nothing else")
	flag.BoolVar(&o.capacity.on, "capacity", false, "measure instead remodel migrate behind the fault proxy's capacity model of DynamoDB, on an even and a skewed dataset made in -source, as a share of what the model allows (capacity.go)")
	flag.IntVar(&o.capacity.rows, "capacity-rows", 20000, "-capacity: rows of each dataset (the skewed one has a fifth of them on one partition key)")
	flag.IntVar(&o.soak.seeds, "follow-soak", 0, "run instead the follow soak (soak.go) of this many seeds: migrate --follow of a fresh table during a slowed copy with late copy writes, a seeded workload and CPU contention, each seed ending in remodel verify of every item; fails if any seed differs. -source needs logical replication (PostgreSQL) or a row binlog (MariaDB)")
	flag.Uint64Var(&o.soak.first, "follow-soak-seed", 1, "-follow-soak: the first seed (the seeds are it and those after)")
	flag.IntVar(&o.soak.rows, "follow-soak-rows", 2000, "-follow-soak: the orders of each seed's table")
	flag.Float64Var(&o.soak.rate, "follow-soak-rate", 200, "-follow-soak: the workload's transactions per second")
	flag.IntVar(&o.soak.burn, "follow-soak-burn", runtime.NumCPU(), "-follow-soak: busy goroutines, for CPU contention")
	flag.Parse()
	if o.largeTable != "" {
		if err := printLarge(o.largeTable, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	var err error
	if o.killRanges, err = parseRanges(*ranges); err != nil || o.source == "" || o.repeat < 1 || o.killLoop < 0 || o.killOnly && o.killLoop == 0 || o.killOnly && o.nullOnly {
		fmt.Fprintln(os.Stderr, "bench: -source is required, -repeat must be at least 1, -kill-loop at least 0, -kill-ranges whole numbers of at least 1 (got "+*ranges+"); -kill-only needs -kill-loop and excludes -null-only")
		os.Exit(2)
	}
	o.endpoint = fmt.Sprintf("http://127.0.0.1:%d", o.port)
	for k, v := range map[string]string{"AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local", "AWS_REGION": "us-east-1"} {
		if os.Getenv(k) == "" {
			os.Setenv(k, v)
		}
	}
	if o.soak.seeds > 0 {
		if o.soak.rows < 100 || o.soak.rate <= 0 || o.soak.burn < 0 {
			fmt.Fprintln(os.Stderr, "bench: -follow-soak-rows must be at least 100, -follow-soak-rate positive, -follow-soak-burn at least 0")
			os.Exit(2)
		}
		err = runSoak(ctx, o, os.Stdout, os.Stderr)
	} else if o.follow.on {
		if o.follow.backlog < 1 || o.follow.rate <= 0 || o.follow.seconds <= 0 || o.follow.workers < 1 || o.follow.limit <= 0 {
			fmt.Fprintln(os.Stderr, "bench: -follow-backlog, -follow-rate, -follow-seconds, -follow-workers and -follow-timeout must be positive")
			os.Exit(2)
		}
		err = runFollowBench(ctx, o, os.Stdout, os.Stderr)
	} else if o.capacity.on {
		err = runCapacity(ctx, o, os.Stdout, os.Stderr)
	} else if o.large != "" {
		err = runLarge(ctx, o, os.Stderr)
	} else {
		err = run(ctx, o, os.Stdout, os.Stderr)
	}
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// profiled runs remodel in this process with a CPU profile.
func profiled(ctx context.Context, args []string) int {
	path := os.Getenv("REMODEL_BENCH_CPUPROFILE")
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		return 1
	}
	defer f.Close()
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		return 1
	}
	defer pprof.StopCPUProfile()
	return cli.Main(ctx, args, os.Stdin, os.Stdout, os.Stderr)
}

func run(ctx context.Context, o options, stdout, stderr io.Writer) error {
	rep := &report{Date: time.Now(), Machine: thisMachine()}
	loadStart := loadAverage()
	work, err := os.MkdirTemp("", "remodel-bench-")
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	defer os.RemoveAll(work)
	b := &bench{o: o, stderr: stderr}
	if err := b.setUp(ctx, work); err != nil {
		return err
	}
	defer b.src.Close()

	var rounds [5][]result
	var s3Rounds []s3Result
	for i := range o.repeat {
		b.round = i + 1
		for j, measure := range []func(context.Context) (result, error){b.rawRead, b.nullSink, b.rawSink, b.endToEnd, b.verify} {
			if o.nullOnly && j >= 2 || o.killOnly && (j == 1 || j == 2 || j == 4) {
				rounds[j] = append(rounds[j], result{})
				continue
			}
			r, err := measure(ctx)
			if err != nil {
				return err
			}
			rounds[j] = append(rounds[j], r)
		}
		if o.s3Route && !o.killOnly { // in the same round as its null sink
			r, err := b.s3Round(ctx)
			if err != nil {
				return err
			}
			s3Rounds = append(s3Rounds, r)
		}
	}
	rep.Read, rep.Null, rep.Sink, rep.Remodel, rep.Verify = median(rounds[0]), median(rounds[1]), median(rounds[2]), median(rounds[3]), median(rounds[4])
	rep.Rounds = o.repeat

	seed, kills, err := b.killLoops(ctx)
	if err != nil {
		return err
	}
	if b.items == 0 { // no null-sink run (-kill-only)
		b.items = rep.Remodel.Items
	}

	p := b.pool
	rep.Header = [][2]string{
		{"source", fmt.Sprintf("%s, %s rows in %d entities (%s)%s", b.engine, thousands(float64(b.total)), len(b.plan.Entities), perEntity(b.counts), note(o.note))},
		{"items", fmt.Sprintf("%s; DynamoDB size mean %.0f B, min %d B, max %d B (raw sink: %s items rendered by the mapping, cycled)",
			thousands(float64(b.items)), p.meanSize(), p.sizeMin, p.sizeMax, thousands(float64(len(p.items))))},
		{"run", fmt.Sprintf("%d readers, %d writers; DynamoDB Local on :%d%s", o.readers, o.writers, o.port, restarted(o.script, b.warmup))},
		{"load", fmt.Sprintf("1/5/15-min load average %s at start, %s at end", loadStart, loadAverage())},
	}
	rep.Notes = append(rep.Notes, "The null sink is remodel migrate --to null: (every row read, rendered and its key checked, nothing sent anywhere).")
	if k := b.keyCheck; k != nil {
		rep.Notes = append(rep.Notes, fmt.Sprintf("Key collision check (--key-check %s), last null-sink run: %s keys, %.1f MiB in memory, %.0f MiB in temporary files, %s keys past the filter (looked up in its table and on disk).",
			o.keyCheck, thousands(float64(k.Keys)), float64(k.MemoryBytes)/(1<<20), float64(k.DiskBytes)/(1<<20), thousands(float64(k.Lookups))))
	}
	rep.Notes = append(rep.Notes, "remodel's wall time is the whole process: start, introspection, snapshot, the copy (tables are created before).")
	if o.cpuprofile != "" {
		b.step("profiling one more null-sink run into %s", o.cpuprofile)
		if err := b.profileNull(ctx); err != nil {
			return err
		}
	}
	rep.write(stdout)
	writeS3(stdout, medianS3(s3Rounds), rep.Null)
	writeKills(stdout, seed, kills, rep.Remodel)
	return nil
}

// bench holds what the measurements share.
type bench struct {
	o      options
	stderr io.Writer
	src    source.Source
	engine introspect.Engine
	plan   *mapping.Plan
	counts map[string]int64
	total  int64 // rows
	items  int64 // items remodel writes (from the first null-sink run)
	pool   *pool
	db     *dynamo.Client
	m      migrateRun
	// names starts the names of the tables the bench creates ("bench").
	names string
	// kill is the mappings the kill loop migrates: -mapping's (the plan
	// and rows above), then -kill-embed's.
	kill []*killMapping
	// e2eTable is the table the last end-to-end run wrote, which verify
	// then checks.
	e2eTable string
	warmup   int64
	round    int
	seq      int
	// keyCheck is the key collision check of the last null-sink run, when on.
	keyCheck *migrate.KeyCheckStats
}

func (b *bench) step(format string, args ...any) {
	fmt.Fprintf(b.stderr, "bench: "+format+"\n", args...)
}

func (b *bench) setUp(ctx context.Context, work string) error {
	var err error
	if b.src, err = source.Open(ctx, b.o.source); err != nil {
		return err
	}
	schema, err := b.src.Inspect(ctx)
	if err != nil {
		return err
	}
	file, err := mapping.ParseFile(b.o.mapping)
	if err != nil {
		return err
	}
	if b.plan, err = mapping.Compile(file, schema); err != nil {
		return err
	}
	if b.counts, b.total, err = countRows(ctx, b.src, b.plan); err != nil {
		return err
	}
	b.engine = b.src.Engine()
	b.step("%s: %d rows in %d entities; rendering the raw sink's items", b.engine, b.total, len(b.plan.Entities))
	if b.pool, err = buildPool(ctx, b.plan, b.src, b.counts, b.o.pool); err != nil {
		return err
	}
	if b.db, err = dynamo.Open(ctx, b.o.endpoint); err != nil {
		return err
	}
	b.m = migrateRun{bin: b.o.remodel, source: b.o.source, mapPth: b.o.mapping, reads: b.o.readers, writes: b.o.writers, work: work}
	if b.o.keyCheck != "auto" {
		b.m.extra = []string{"--key-check", b.o.keyCheck}
	}
	b.warmup = min(b.total, 5000)
	b.kill = []*killMapping{newKillMapping("main", b.o.mapping, b.plan, b.total)}
	if b.o.killLoop > 0 && b.o.killEmbed != "" {
		km, err := embeddedMapping(ctx, b.src, schema, b.o.killEmbed)
		if err != nil {
			return err
		}
		b.step("kill loop's embedded mapping %s: %s", km.path, km.describe())
		b.kill = append(b.kill, km)
	}
	return nil
}

// table creates a new table with remodel's own CreateTable, before the run
// that writes it starts: no measurement includes creating its table.
func (b *bench) table(ctx context.Context, what string) (string, error) {
	return b.tableOf(ctx, b.plan, what)
}

// tableOf is table for the table of plan (the kill loop's other mapping).
func (b *bench) tableOf(ctx context.Context, plan *mapping.Plan, what string) (string, error) {
	name := b.name(what)
	return name, migrate.CreateTable(ctx, b.db, &plan.Table, name, 5*time.Minute)
}

// name is the next name of a table the bench uses, for what.
func (b *bench) name(what string) string {
	b.seq++
	names := b.names
	if names == "" {
		names = "bench"
	}
	return fmt.Sprintf("%s_%s_%d", names, what, b.seq)
}

// fresh restarts DynamoDB Local and warms its JVM up with b.warmup items
// written into a table dropped again, so that each run that stores items
// starts on the same empty, warm emulator.
func (b *bench) fresh(ctx context.Context) error {
	if b.o.script == "" {
		return nil
	}
	if err := restartDynamoDB(ctx, b.o.script, b.o.port); err != nil {
		return err
	}
	name, err := b.table(ctx, "warmup")
	if err != nil {
		return err
	}
	if _, err := rawSink(ctx, b.db, name, b.pool, b.warmup, b.o.writers); err != nil {
		return err
	}
	if _, err := b.db.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)}); err != nil {
		return fmt.Errorf("bench: deleting %s: %w", name, err)
	}
	return nil
}

func (b *bench) prefix() string {
	if b.o.repeat == 1 {
		return ""
	}
	return fmt.Sprintf("round %d/%d: ", b.round, b.o.repeat)
}

// rawRead is measurement 1.
func (b *bench) rawRead(ctx context.Context) (result, error) {
	b.step("%sraw source read", b.prefix())
	cpu0, t0 := selfCPU(), time.Now()
	rows, err := rawRead(ctx, b.engine, b.o.source, b.plan.Entities, b.o.readers)
	if err != nil {
		return result{}, err
	}
	r := result{Name: fmt.Sprintf("raw source read (%s)", readDriver(b.engine)), Items: rows, Wall: time.Since(t0), CPU: selfCPU() - cpu0}
	if rows != b.total {
		return result{}, fmt.Errorf("bench: the raw read got %d rows, the source counts %d", rows, b.total)
	}
	return r, nil
}

// nullSink is measurement 4: remodel migrate --to null:, which needs no
// table and sends DynamoDB Local nothing.
func (b *bench) nullSink(ctx context.Context) (result, error) {
	b.step("%sremodel into the null sink", b.prefix())
	r, rep, err := b.nullRun().run(ctx, "remodel -> null sink")
	if err != nil {
		return result{}, err
	}
	if err := checkReport(rep, b.total); err != nil {
		return result{}, err
	}
	if !rep.NullSink {
		return result{}, errors.New("bench: remodel's report of the null-sink run does not say it ran into the null sink")
	}
	b.items = rep.ItemsWritten
	if rep.KeyCheck != nil {
		b.keyCheck = rep.KeyCheck
	}
	return r, nil
}

// rawSink is measurement 2: as many items as remodel writes.
func (b *bench) rawSink(ctx context.Context) (result, error) {
	b.step("%sraw sink: %d items from the pool of %d into DynamoDB Local", b.prefix(), b.items, len(b.pool.items))
	if err := b.fresh(ctx); err != nil {
		return result{}, err
	}
	name, err := b.table(ctx, "raw")
	if err != nil {
		return result{}, err
	}
	emu := b.emulatorCPU()
	cpu0 := selfCPU()
	wall, err := rawSink(ctx, b.db, name, b.pool, b.items, b.o.writers)
	if err != nil {
		return result{}, err
	}
	r := result{Name: fmt.Sprintf("raw sink (BatchWriteItem, %d writers)", b.o.writers), Items: b.items, Wall: wall, CPU: selfCPU() - cpu0, Emulator: emu()}
	return r, checkCount(ctx, b.db, name, b.items)
}

// endToEnd is measurement 3.
func (b *bench) endToEnd(ctx context.Context) (result, error) {
	b.step("%sremodel into DynamoDB Local", b.prefix())
	if err := b.fresh(ctx); err != nil {
		return result{}, err
	}
	m := b.m
	m.endpt = b.o.endpoint
	var err error
	if m.table, err = b.table(ctx, "e2e"); err != nil {
		return result{}, err
	}
	emu := b.emulatorCPU()
	r, rep, err := m.run(ctx, "remodel -> DynamoDB Local")
	if err != nil {
		return result{}, err
	}
	r.Emulator = emu()
	b.e2eTable = m.table
	return r, checkReport(rep, b.total)
}

// verify is measurement 5: remodel verify of the table endToEnd wrote,
// right after it, on the same DynamoDB Local.
func (b *bench) verify(ctx context.Context) (result, error) {
	b.step("%sremodel verify of %s", b.prefix(), b.e2eTable)
	v := verifyRun{bin: b.o.remodel, source: b.o.source, mapPth: b.o.mapping, table: b.e2eTable, endpt: b.o.endpoint, work: b.m.work}
	emu := b.emulatorCPU()
	r, err := v.run(ctx, "remodel verify (the e2e table)")
	if err != nil {
		return result{}, err
	}
	r.Emulator = emu()
	if r.Items != b.total {
		return result{}, fmt.Errorf("bench: remodel verify compared %d items, the source has %d rows", r.Items, b.total)
	}
	return r, nil
}

// emulatorCPU starts counting DynamoDB Local's CPU time; the function it
// returns gives the time used since (0 where it cannot be read).
func (b *bench) emulatorCPU() func() time.Duration {
	pid := dynamoDBLocalPID(b.o.port)
	c0, ok := processCPU(pid)
	return func() time.Duration {
		c1, ok1 := processCPU(pid)
		if !ok || !ok1 {
			return 0
		}
		return c1 - c0
	}
}

// profileNull runs remodel once more into a null sink, in the bench binary
// (the same code as the remodel binary) with a CPU profile.
func (b *bench) profileNull(ctx context.Context) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	abs, err := filepath.Abs(b.o.cpuprofile)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	m := b.nullRun()
	m.bin, m.pre, m.env = self, []string{profileArg}, []string{"REMODEL_BENCH_CPUPROFILE=" + abs}
	_, _, err = m.run(ctx, "profiled null sink")
	return err
}

// nullRun is a remodel migrate --to null: run: the null sink, the
// product's (no table: the name only names its files).
func (b *bench) nullRun() migrateRun {
	m := b.m
	m.to, m.table = "null:", b.name("null")
	return m
}

func countRows(ctx context.Context, src source.Source, plan *mapping.Plan) (map[string]int64, int64, error) {
	snap, err := src.Snapshot(ctx, 1)
	if err != nil {
		return nil, 0, err
	}
	defer snap.Close()
	r := snap.Readers()[0]
	counts := map[string]int64{}
	var total int64
	for _, e := range plan.Entities {
		n, err := r.Count(ctx, e.Table, e.Where)
		if err != nil {
			return nil, 0, err
		}
		counts[e.Name] = n
		total += n
	}
	return counts, total, nil
}

// checkReport holds a remodel run to account: every row read and written,
// nothing rejected or retried.
func checkReport(r *migrate.Report, rows int64) error {
	if r.RowsRead != rows || r.ItemsWritten != rows || r.Rejected != 0 {
		return fmt.Errorf("bench: remodel read %d rows, wrote %d items and rejected %d; the source has %d rows", r.RowsRead, r.ItemsWritten, r.Rejected, rows)
	}
	return nil
}

// checkCount makes sure the raw sink's table holds every item written.
func checkCount(ctx context.Context, db dynamo.API, table string, want int64) error {
	out, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		return fmt.Errorf("bench: describing %s: %w", table, err)
	}
	if got := aws.ToInt64(out.Table.ItemCount); got != want {
		return fmt.Errorf("bench: the raw sink's table holds %d items, %d were written", got, want)
	}
	return nil
}

func readDriver(e introspect.Engine) string { return benchEngineOf(e).readDriver() }

func perEntity(counts map[string]int64) string {
	names := make([]string, 0, len(counts))
	for n := range counts {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + " " + thousands(float64(counts[n]))
	}
	return strings.Join(parts, ", ")
}

func note(s string) string {
	if s == "" {
		return ""
	}
	return "; " + s
}

func restarted(script string, warmup int64) string {
	if script == "" {
		return ""
	}
	return fmt.Sprintf(", a fresh process for each run that stores items, warmed up with %d items", warmup)
}
