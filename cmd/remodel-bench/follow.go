package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
	"github.com/remodel-dev/remodel/migrate"
)

// The follow bench (-follow; make bench FOLLOW=1): remodel migrate
// --follow measured on a source with logical replication (PostgreSQL) or
// a row binlog (MariaDB). All through the built remodel
// binary and its --progress json lines:
//
//  1. the copy: migrate --follow --create-table into a fresh table; its
//     items/s from the copy phase's end line (rows done, the phase's
//     seconds); SIGINT once the follower runs (its first lag line);
//  2. catch-up: a backlog of -follow-backlog changed rows made on the
//     source while the follower is stopped (as fast as the source takes
//     them), then --follow --resume, timed from its start to the first lag
//     line counting every change of the backlog applied and nothing
//     waiting: changes/s, beside the copy's items/s (target ≥ 0.8 ×);
//  3. steady lag: a workload at -follow-rate changed rows per second for
//     -follow-seconds while the follower runs, its behind_s read from each
//     lag line (one a second): p50, p99, max (target p99 < 5 s);
//  4. the writes stopped, the lag waited down to 0, SIGINT (exit 0, the
//     cutover report counting every change made), remodel verify of the
//     table (every item against its row: a figure from a wrong table is
//     worthless), then remodel follow-cleanup.

// followOptions are the follow bench's flags.
type followOptions struct {
	on      bool
	backlog int64         // changed rows made while the follower is stopped
	rate    float64       // changed rows per second of the steady workload
	seconds time.Duration // how long the steady workload runs
	workers int           // its connections
	limit   time.Duration // how long each wait may take
	seed    uint64
}

// The follower's targets: catch-up at 0.8 of the copy's rate or more, lag p99 under 5 s.
const (
	targetCatchUp = 0.8             // catch-up changes/s over the copy's items/s, at least
	targetLagP99  = 5 * time.Second // the steady workload's lag p99, under
)

// followBench is one run of the follow bench.
type followBench struct {
	o      options
	stderr io.Writer
	engine introspect.Engine
	rows   int64 // the source's rows the mapping reads, at the start
	work   string
	table  string
	ck     string
	load   *workload
}

func (fb *followBench) step(format string, args ...any) {
	fmt.Fprintf(fb.stderr, "bench: follow: "+format+"\n", args...)
}

// runFollowBench runs the follow bench and prints its figures.
func runFollowBench(ctx context.Context, o options, stdout, stderr io.Writer) (err error) {
	rep := &followReport{Date: time.Now(), Machine: thisMachine(), LoadStart: loadAverage(), Rate: o.follow.rate}
	work, err := os.MkdirTemp("", "remodel-bench-follow-")
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	defer func() {
		if err != nil { // its logs, reports and dead letters tell why
			fmt.Fprintf(stderr, "bench: follow: the run's files are kept in %s\n", work)
			return
		}
		os.RemoveAll(work)
	}()
	fb := &followBench{o: o, stderr: stderr, work: work}
	if err := fb.setUp(ctx, rep); err != nil {
		return err
	}
	defer fb.load.Close()
	if !o.back.only {
		if err := fb.measure(ctx, rep); err != nil {
			return err
		}
	}
	if o.back.on {
		if rep.Back, err = fb.runBack(ctx); err != nil {
			return err
		}
	}
	rep.LoadEnd = loadAverage()
	rep.write(stdout)
	return nil
}

// setUp counts the source's rows, connects the workload and restarts
// DynamoDB Local.
func (fb *followBench) setUp(ctx context.Context, rep *followReport) error {
	sctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	src, err := source.Open(sctx, fb.o.source)
	if err != nil {
		return err
	}
	defer src.Close()
	schema, err := src.Inspect(sctx)
	if err != nil {
		return err
	}
	file, err := mapping.ParseFile(fb.o.mapping)
	if err != nil {
		return err
	}
	plan, err := mapping.Compile(file, schema)
	if err != nil {
		return err
	}
	counts, total, err := countRows(sctx, src, plan)
	if err != nil {
		return err
	}
	fb.engine, fb.rows = src.Engine(), total
	rep.Source = fmt.Sprintf("%s, %s rows in %d entities (%s)%s", fb.engine, thousands(float64(total)), len(plan.Entities), perEntity(counts), note(fb.o.note))
	fo := fb.o.follow
	if fb.load, err = openWorkload(ctx, fb.engine, fb.o.source, fo.workers, fo.seed); err != nil {
		return err
	}
	rep.Workload = fmt.Sprintf("%d connections; transactions of 1 or 2 statements on users, personal, subscribe, subscribe_user (value updates, inserts, deletes, sort-key moves)", fo.workers)
	rep.Run = fmt.Sprintf("%d readers, %d writers; DynamoDB Local on :%d, a fresh process", fb.o.readers, fb.o.writers, fb.o.port)
	if fb.o.script != "" {
		fb.step("restarting DynamoDB Local on :%d", fb.o.port)
		return restartDynamoDB(ctx, fb.o.script, fb.o.port)
	}
	return nil
}

// migrateArgs are the arguments of remodel migrate --follow into the
// bench's table.
func (fb *followBench) migrateArgs(resume bool) []string {
	a := []string{"migrate", "--follow", "--source", fb.o.source, "-m", fb.o.mapping,
		"--endpoint", fb.o.endpoint, "--table", fb.table, "--checkpoint", fb.ck,
		"--readers", strconv.Itoa(fb.o.readers), "--writers", strconv.Itoa(fb.o.writers),
		"--rejects", filepath.Join(fb.work, "rejects.jsonl"),
		"--progress", "json", "--progress-interval", "1s", // a lag line (the follow phase's JSON line) a second
		"--output", "json"}
	if resume {
		return append(a, "--resume", "--output-file", "json="+filepath.Join(fb.work, "follow.report.json"))
	}
	return append(a, "--create-table", "--output-file", "json="+filepath.Join(fb.work, "copy.report.json"))
}

// profiled is how the resumed follower (catch-up, steady workload, stop)
// runs: remodel, or with -cpuprofile the bench binary as remodel with a
// CPU profile of that whole process written to the file (its CPU figures
// then include the profiler's own cost).
func (fb *followBench) profiled(args []string) (bin string, _, env []string, err error) {
	if fb.o.cpuprofile == "" {
		return fb.o.remodel, args, nil, nil
	}
	self, err := os.Executable()
	if err != nil {
		return "", nil, nil, fmt.Errorf("bench: %w", err)
	}
	abs, err := filepath.Abs(fb.o.cpuprofile)
	if err != nil {
		return "", nil, nil, fmt.Errorf("bench: %w", err)
	}
	fb.step("the resumed follower runs with a CPU profile into %s", abs)
	return self, append([]string{profileArg}, args...), []string{"REMODEL_BENCH_CPUPROFILE=" + abs}, nil
}

// measure runs the four steps.
func (fb *followBench) measure(ctx context.Context, rep *followReport) error {
	fb.table = fmt.Sprintf("bench_follow_%s_%d", fb.engine, time.Now().Unix())
	fb.ck = filepath.Join(fb.work, "follow.checkpoint.json")
	if err := fb.copy(ctx, rep); err != nil {
		return err
	}
	f, err := fb.catchUp(ctx, rep)
	if err != nil {
		return err
	}
	defer f.kill()
	if err := fb.steady(ctx, rep, f); err != nil {
		return err
	}
	if err := fb.finish(ctx, rep, f); err != nil {
		return err
	}
	if err := fb.prove(ctx, rep); err != nil {
		return err
	}
	return fb.s3CatchUp(ctx, rep) // follows3.go
}

// copy is step 1.
func (fb *followBench) copy(ctx context.Context, rep *followReport) error {
	fb.step("migrate --follow --create-table into %s", fb.table)
	f, err := startFollower(fb.o.remodel, fb.migrateArgs(false), nil, filepath.Join(fb.work, "copy.log"))
	if err != nil {
		return err
	}
	defer f.kill()
	end, i, err := f.wait(ctx, 0, fb.o.follow.limit, "the copy's end", func(s statusLine) bool { return s.CopyEnd })
	if err != nil {
		return err
	}
	rep.Copy = phase{Count: end.CopyDone, Wall: end.CopyElapsed, CPU: f.cpu(), RSS: f.peakRSS()}
	fb.step("copy: %d rows in %.1f s; waiting for the follower's first lag line", end.CopyDone, end.CopyElapsed.Seconds())
	if _, _, err := f.wait(ctx, i, fb.o.follow.limit, "the follower's first lag line", func(s statusLine) bool { return s.Follow }); err != nil {
		return err
	}
	if err := f.stop(time.Minute); err != nil {
		return err
	}
	r, err := readReport(filepath.Join(fb.work, "copy.report.json"))
	if err != nil {
		return err
	}
	if r.RowsRead != fb.rows || r.ItemsWritten != fb.rows || r.Rejected != 0 || end.CopyDone != fb.rows {
		return fmt.Errorf("bench: follow: the copy read %d rows, wrote %d items, rejected %d (its end line: %d done); the source has %d rows",
			r.RowsRead, r.ItemsWritten, r.Rejected, end.CopyDone, fb.rows)
	}
	return nil
}

// catchUp is step 2: it returns the resumed follower, still running.
func (fb *followBench) catchUp(ctx context.Context, rep *followReport) (*follower, error) {
	fo := fb.o.follow
	fb.step("catch-up: making a backlog of %d changed rows with the follower stopped", fo.backlog)
	t0 := time.Now()
	n := fb.load.runUntil(ctx, fo.backlog)
	if err := fb.workloadErr(); err != nil {
		return nil, err
	}
	rep.Backlog = phase{Count: n, Wall: time.Since(t0)}
	fb.step("catch-up: %d changed rows in %.1f s; migrate --follow --resume", n, rep.Backlog.Wall.Seconds())
	bin, args, env, err := fb.profiled(fb.migrateArgs(true))
	if err != nil {
		return nil, err
	}
	f, err := startFollower(bin, args, env, filepath.Join(fb.work, "follow.log"))
	if err != nil {
		return nil, err
	}
	done, _, err := f.wait(ctx, 0, fo.limit, fmt.Sprintf("the backlog's %d changes applied", n), func(s statusLine) bool { return s.caughtUp(n) })
	if err != nil {
		f.kill()
		return nil, err
	}
	rep.CatchUp = phase{Count: n, Wall: done.At.Sub(f.start), CPU: f.cpu(), RSS: f.peakRSS()}
	rep.applied = done.Changes
	fb.step("catch-up: lag 0 after %.1f s (%.0f changes/s)", rep.CatchUp.Wall.Seconds(), rep.CatchUp.Rate())
	return f, nil
}

// steady is step 3, on the follower catchUp left running.
func (fb *followBench) steady(ctx context.Context, rep *followReport, f *follower) error {
	fo := fb.o.follow
	fb.step("steady: %.0f changed rows/s for %s", fo.rate, fo.seconds)
	from := f.count()
	cpu0 := f.cpu()
	stop := make(chan struct{})
	timer := time.AfterFunc(fo.seconds, func() { close(stop) })
	defer timer.Stop()
	t0 := time.Now()
	n := fb.load.runAt(ctx, fo.rate, stop)
	t1 := time.Now()
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := fb.workloadErr(); err != nil {
		return err
	}
	want := rep.applied + n
	done, _, err := f.wait(ctx, from, fo.limit, "the steady workload's changes applied", func(s statusLine) bool { return s.caughtUp(want) })
	if err != nil {
		return err
	}
	rep.Steady = phase{Count: n, Wall: t1.Sub(t0), CPU: f.cpu() - cpu0, RSS: f.peakRSS()}
	rep.Drain = done.At.Sub(t1)
	rep.applied = done.Changes
	rep.Lags = lagsBetween(f.since(from), t0, t1)
	fb.step("steady: %d changed rows in %.1f s; lag p99 %.1f s; lag 0 %.1f s after the writes stopped",
		n, rep.Steady.Wall.Seconds(), percentile(rep.Lags, 0.99).Seconds(), rep.Drain.Seconds())
	return nil
}

// lagsBetween is the lag of each lag line that came while the workload
// ran, from t0 to t1.
func lagsBetween(lines []statusLine, t0, t1 time.Time) []time.Duration {
	var lags []time.Duration
	for _, s := range lines {
		if s.Follow && s.At.After(t0) && !s.At.After(t1) {
			lags = append(lags, s.Behind)
		}
	}
	return lags
}

// finish is step 4's stop: SIGINT, and the cutover report must count every
// change made.
func (fb *followBench) finish(ctx context.Context, rep *followReport, f *follower) error {
	fb.step("stopping the follower (SIGINT)")
	rep.FollowerRSS = f.peakRSS()
	if err := f.stop(time.Minute); err != nil {
		return err
	}
	rep.FollowerCPU = f.cpu()
	r, err := readReport(filepath.Join(fb.work, "follow.report.json"))
	if err != nil {
		return err
	}
	made := rep.Backlog.Count + rep.Steady.Count
	if r.Follow == nil || !r.Follow.Stopped || r.Follow.Changes != made || r.Follow.Rejected != 0 || r.Rejected != 0 {
		b, _ := json.Marshal(r.Follow)
		return fmt.Errorf("bench: follow: the cutover report does not count the %d changed rows made, or rejected some, or was not stopped cleanly: %s", made, b)
	}
	rep.Puts, rep.Deletes = r.Follow.Puts, r.Follow.Deletes
	return nil
}

// prove is step 4's proof: verify of every item, then follow-cleanup.
func (fb *followBench) prove(ctx context.Context, rep *followReport) error {
	rows, err := fb.sourceRows(ctx)
	if err != nil {
		return err
	}
	fb.step("remodel verify of %s (%d rows)", fb.table, rows)
	v := verifyRun{bin: fb.o.remodel, source: fb.o.source, mapPth: fb.o.mapping, table: fb.table, endpt: fb.o.endpoint, work: fb.work}
	vctx, cancel := context.WithTimeout(ctx, fb.o.follow.limit)
	defer cancel()
	r, err := v.run(vctx, "remodel verify (the followed table)")
	if err != nil {
		return err
	}
	if r.Items != rows {
		return fmt.Errorf("bench: follow: remodel verify compared %d items, the source has %d rows", r.Items, rows)
	}
	rep.Verified, rep.VerifyWall = rows, r.Wall
	fb.step("remodel follow-cleanup")
	return runCommand(ctx, time.Minute, fb.o.remodel, []string{"follow-cleanup", "--source", fb.o.source, "--checkpoint", fb.ck},
		filepath.Join(fb.work, "cleanup.log"))
}

// sourceRows counts the rows the mapping reads now.
func (fb *followBench) sourceRows(ctx context.Context) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	src, err := source.Open(ctx, fb.o.source)
	if err != nil {
		return 0, err
	}
	defer src.Close()
	schema, err := src.Inspect(ctx)
	if err != nil {
		return 0, err
	}
	file, err := mapping.ParseFile(fb.o.mapping)
	if err != nil {
		return 0, err
	}
	plan, err := mapping.Compile(file, schema)
	if err != nil {
		return 0, err
	}
	_, total, err := countRows(ctx, src, plan)
	return total, err
}

// workloadErr fails the bench when a transaction of the workload failed:
// the source is meant to take every one.
func (fb *followBench) workloadErr() error {
	n, errs := fb.load.failures()
	if n == 0 {
		return nil
	}
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Error()
	}
	return fmt.Errorf("bench: follow: %d transactions of the workload failed: %s", n, strings.Join(msgs, "; "))
}

func readReport(path string) (*migrate.Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("bench: follow: reading remodel's report: %w", err)
	}
	var r migrate.Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("bench: follow: remodel's report %s: %w", path, err)
	}
	return &r, nil
}
