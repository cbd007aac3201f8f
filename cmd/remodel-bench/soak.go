package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/dynamo"
	"github.com/remodel-dev/remodel/internal/domain/progress"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/internal/testsupport/faultproxy"
	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
	"github.com/remodel-dev/remodel/migrate"
	"github.com/remodel-dev/remodel/verify"
)

// The follow soak (-follow-soak N; make bench FOLLOW=1, issue 34): N seeds
// of migrate --follow --create-table, each through remodel's own code
// (migrate.Run, in this process) on a fresh table of soakOptions.rows
// orders (soakload.go), with
//
//   - the copy slowed: every BatchWriteItem held soakDelay by a fault
//     proxy before it goes on to DynamoDB Local;
//   - late copy writes: some of the copy's requests held (faultproxy's
//     Stale) past --request-timeout (soakRequestTimeout), so that the
//     writer gives up on them and writes their items again, and then
//     carried out all the same: some after a delay drawn from the seed,
//     the others once the follower has applied every change (so they
//     surely land after newer changes of their rows);
//   - a workload from the seed (issue 34's mix) committing during the
//     copy and a little after;
//   - CPU contention: busy goroutines (soakOptions.burn) for the run.
//
// Then the workload stops, the follower is waited until caught up (a
// sentinel change committed after the workload's, seen in the table, then
// a lag of 0 reported after it), the held requests are let through and
// waited for, the table is compared once (the differences the late writes
// left, which the clean stop must undo), the follower is stopped as SIGINT
// does (its context canceled: Run must return nil, the report saying it
// stopped), and remodel's verify compares every item of the table with
// the source rendered afresh: items missing, extra (stray) and different
// are the seed's differences. The figure: seeds run and differences
// (target 0); the bench fails when any seed differs.

// soakOptions are the soak's flags.
type soakOptions struct {
	seeds int     // 0: no soak
	first uint64  // the first seed
	rows  int     // orders in the table
	rate  float64 // the workload's transactions per second
	burn  int     // busy goroutines
}

const (
	soakWriters        = 4
	soakWorkers        = 4
	soakDelay          = 30 * time.Millisecond  // every BatchWriteItem's
	soakRequestTimeout = 500 * time.Millisecond // --request-timeout
	soakStaleShare     = 0.04                   // of the copy's requests, for each of the two Stale rules
	soakAfterCopy      = 500 * time.Millisecond // the workload goes on after the copy
	soakLimit          = 3 * time.Minute        // each wait
	soakLogEvery       = 50 * time.Millisecond  // how often the tracker is read
)

// soakTotals are the figures of the seeds run.
type soakTotals struct {
	seeds       int
	differences int64 // items missing, extra or different after the stop
	missing     int64
	extra       int64
	different   int64
	compared    int64 // items compared
	before      int64 // items that differed before the stop (the late writes' doing)
	seedsBefore int   // seeds whose table differed before the stop
	late        int   // copy requests held past --request-timeout and carried out late
	redone      int64 // rows of copy requests in doubt written again at the stop
	txns        int64 // the workload's transactions
	changes     int64 // changes the followers applied
	wall        time.Duration
	failed      []string // the seeds that differed, with their first problems
}

// soak is one engine's soak.
type soak struct {
	o      options
	stderr io.Writer
	engine introspect.Engine
	work   string
	direct *dynamo.Client
	setup  *execer
	conns  []sqlConn
	warm   bool // DynamoDB Local has made a table
}

func (s *soak) step(format string, args ...any) {
	fmt.Fprintf(s.stderr, "bench: soak: "+format+"\n", args...)
}

// runSoak runs the soak's seeds and prints its line; an error when a seed
// differs or could not run.
func runSoak(ctx context.Context, o options, stdout, stderr io.Writer) error {
	work, err := os.MkdirTemp("", "remodel-bench-soak-")
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	defer os.RemoveAll(work)
	s := &soak{o: o, stderr: stderr, work: work}
	src, err := source.Open(ctx, o.source)
	if err != nil {
		return err
	}
	s.engine = src.Engine()
	src.Close()
	if o.script != "" {
		s.step("restarting DynamoDB Local on :%d", o.port)
		if err := restartDynamoDB(ctx, o.script, o.port); err != nil {
			return err
		}
	}
	if s.direct, err = dynamo.Open(ctx, o.endpoint); err != nil {
		return err
	}
	if s.setup, err = openSQL(ctx, s.engine, o.source); err != nil {
		return err
	}
	defer s.setup.close()
	for range soakWorkers {
		c, err := connect(ctx, s.engine, o.source)
		if err != nil {
			return err
		}
		defer c.close()
		s.conns = append(s.conns, c)
	}
	start, load0 := time.Now(), loadAverage()
	var t soakTotals
	for i := range o.soak.seeds {
		seed := o.soak.first + uint64(i)
		if err := s.seed(ctx, seed, &t); err != nil {
			return fmt.Errorf("bench: soak: seed %d: %w", seed, err)
		}
		t.seeds++
	}
	t.wall = time.Since(start)
	writeSoak(stdout, s.engine, o, t, load0, loadAverage())
	if t.differences > 0 {
		return fmt.Errorf("bench: soak: %d of %d seeds left the table different from the source (%d items): %s",
			len(t.failed), t.seeds, t.differences, strings.Join(t.failed, "; "))
	}
	return nil
}

// writeSoak prints the soak's line.
func writeSoak(w io.Writer, engine introspect.Engine, o options, t soakTotals, load0, load1 string) {
	so := o.soak
	fmt.Fprintf(w, "remodel bench, follow soak (migrate --follow during a slowed copy with late copy writes, under CPU contention), %s UTC\n", time.Now().UTC().Format("2006-01-02 15:04"))
	fmt.Fprintf(w, "  each seed  %d orders (item key CUSTOMER#{customer_id|pad:6} / ORDER#{created_at|iso}#{order_id|pad:10}); migrate --follow --create-table, %d writers,\n", so.rows, soakWriters)
	fmt.Fprintf(w, "             every BatchWriteItem held %s, %.0f %% of the copy's held past --request-timeout %s and carried out late\n", soakDelay, 200*soakStaleShare, soakRequestTimeout)
	fmt.Fprintf(w, "             (half after a delay from the seed, half once the follower is caught up); a workload of %.0f transactions/s on\n", so.rate)
	fmt.Fprintf(w, "             %d connections during the copy and %s after (30 %% inserts, 30 %% status and amount, 20 %% created_at: the item\n", soakWorkers, soakAfterCopy)
	fmt.Fprintf(w, "             moves, 10 %% deletes, 10 %% two statements); %d busy goroutines; caught up, the late writes landed, stop as SIGINT,\n", so.burn)
	fmt.Fprintf(w, "             remodel verify of every item (missing, extra, different)\n")
	fmt.Fprintf(w, "  load       1/5/15-min load average %s at start, %s at end\n\n", load0, load1)
	fmt.Fprintf(w, "  %-8s %6s %12s %15s %12s %12s %10s %9s\n", "engine", "seeds", "differences", "before the stop", "late writes", "rows redone", "changes", "seconds")
	fmt.Fprintf(w, "  %-8s %6d %12d %15s %12d %12d %10d %9.1f\n", engine, t.seeds, t.differences,
		fmt.Sprintf("%d (%d seeds)", t.before, t.seedsBefore), t.late, t.redone, t.changes, t.wall.Seconds())
	fmt.Fprintf(w, "\n  differences: items missing %d, extra %d, different %d after the stop, over %s items compared (target 0).\n",
		t.missing, t.extra, t.different, thousands(float64(t.compared)))
	fmt.Fprintf(w, "  before the stop: items the late copy writes left older than the source once they had landed, which the clean stop\n")
	fmt.Fprintf(w, "  writes again. late writes: copy requests carried out after the writer gave up on them. rows redone: the stop's\n")
	fmt.Fprintf(w, "  rewrites of rows in doubt. changes: applied by the followers (%d transactions committed).\n", t.txns)
}

// seedRun is one seed's run.
type seedRun struct {
	s       *soak
	seed    uint64
	table   string
	ck      string
	src     source.Source
	plan    *mapping.Plan
	tracker *progress.Tracker
	log     *soakLog
	proxy   *faultproxy.Proxy
	release chan struct{}
	flight  atomic.Int64 // BatchWriteItem requests in the proxy
	// done is closed when migrate.Run has returned rep and runErr.
	done   chan struct{}
	rep    *migrate.Report
	runErr error
}

// seed runs one seed and adds its figures to t.
func (s *soak) seed(ctx context.Context, seed uint64, t *soakTotals) error {
	t0 := time.Now()
	sctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	for _, q := range soakSchema(s.engine, s.o.soak.rows) {
		if err := s.setup.exec(sctx, q); err != nil {
			return fmt.Errorf("making %s: %w", soakTable, err)
		}
	}
	r := &seedRun{s: s, seed: seed, release: make(chan struct{}), log: newSoakLog(),
		table: fmt.Sprintf("soak_%s_%d_%d", s.engine, seed, time.Now().UnixNano()),
		ck:    filepath.Join(s.work, fmt.Sprintf("soak-%d.checkpoint.json", seed))}
	var err error
	if r.src, err = source.Open(sctx, s.o.source); err != nil {
		return err
	}
	defer r.src.Close()
	schema, err := r.src.Inspect(sctx)
	if err != nil {
		return err
	}
	f, err := mapping.Parse("soak.yaml", []byte(soakMapping))
	if err != nil {
		return err
	}
	if r.plan, err = mapping.Compile(f, schema); err != nil {
		return err
	}
	if !s.warm {
		// A fresh DynamoDB Local's first CreateTable can take longer than
		// the soak's --request-timeout.
		name := fmt.Sprintf("soak_warmup_%d", time.Now().UnixNano())
		if err := migrate.CreateTable(sctx, s.direct, &r.plan.Table, name, time.Minute); err != nil {
			return fmt.Errorf("warming DynamoDB Local up: %w", err)
		}
		_, _ = s.direct.DeleteTable(sctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
		s.warm = true
	}
	defer r.dropTable()
	res, err := r.run(sctx)
	cleanupErr := r.cleanup()
	if err != nil {
		return err
	}
	if cleanupErr != nil {
		return cleanupErr
	}
	t.late += res.late
	t.redone += res.redone
	t.txns += res.txns
	t.changes += res.changes
	t.compared += res.compared
	t.before += res.before
	if res.before > 0 {
		t.seedsBefore++
	}
	t.missing += res.missing
	t.extra += res.extra
	t.different += res.different
	d := res.missing + res.extra + res.different
	t.differences += d
	if d > 0 {
		t.failed = append(t.failed, fmt.Sprintf("seed %d: %d missing, %d extra, %d different (%s)", seed, res.missing, res.extra, res.different, res.problems))
	}
	s.step("seed %d: %d differences (%d before the stop), %d late copy writes, %d rows redone, %d transactions, %d changes applied, %.1f s (%s)",
		seed, d, res.before, res.late, res.redone, res.txns, res.changes, time.Since(t0).Seconds(), strings.Join(res.times, ", "))
	return nil
}

// seedResult is what one seed found.
type seedResult struct {
	late                      int
	redone, txns, changes     int64
	compared, before          int64
	missing, extra, different int64
	problems                  string
	times                     []string // each step's seconds
}

// run is the seed's migration, workload, stop and comparison.
func (r *seedRun) run(ctx context.Context) (seedResult, error) {
	var res seedResult
	lap := res.lapper()
	slow, closeTarget, err := r.slowTarget(ctx)
	if err != nil {
		return res, err
	}
	defer closeTarget()
	stopFollower, endFollow := r.startFollow(ctx, slow)
	defer endFollow()
	// CPU contention from the copy's start (the table made: a busy machine
	// can keep DynamoDB Local's CreateTable past --request-timeout) until
	// the follower has stopped.
	burning := r.burnFromCopy(r.s.o.soak.burn)
	defer burning()

	if res.txns, err = r.copyUnderLoad(ctx); err != nil {
		return res, err
	}
	lap("copy")
	// Caught up: every change of the workload applied.
	if err := r.caughtUp(ctx, 1); err != nil {
		return res, err
	}
	lap("caught up")
	if res.late, err = r.landLateWrites(ctx); err != nil {
		return res, err
	}
	lap("landed")
	before, err := r.compare(ctx)
	if err != nil {
		return res, err
	}
	lap("verify")
	res.before = before.missing + before.extra + before.different

	// The cutover: stopped as SIGINT does.
	if err := r.stopFollow(stopFollower, burning); err != nil {
		return res, err
	}
	lap("stop")
	if res.redone, res.changes, err = r.stoppedReport(); err != nil {
		return res, err
	}
	after, err := r.compare(ctx)
	if err != nil {
		return res, err
	}
	res.compared, res.missing, res.extra, res.different, res.problems = after.compared, after.missing, after.extra, after.different, after.problems
	lap("verify")
	return res, nil
}

// lapper returns lap, which adds to res.times the seconds since the last
// lap (the first: since lapper) under name.
func (res *seedResult) lapper() (lap func(name string)) {
	mark := time.Now()
	return func(name string) {
		res.times = append(res.times, fmt.Sprintf("%s %.1f", name, time.Since(mark).Seconds()))
		mark = time.Now()
	}
}

// slowTarget puts the fault proxy (r.proxy) in front of DynamoDB Local,
// counting the requests in it (r.flight), and opens a client through it.
// Two Stale rules hold some of the copy's BatchWriteItem requests, until
// letGo for one and a delay drawn from the seed for the other; every
// BatchWriteItem is slowed by soakDelay. closeTarget lets the held
// requests go and stops the proxy.
func (r *seedRun) slowTarget(ctx context.Context) (slow *dynamo.Client, closeTarget func(), err error) {
	rng := rand.New(rand.NewPCG(r.seed, 0x50a4))
	staleAfter := time.Duration(1000+rng.IntN(2000)) * time.Millisecond
	copying := func(string, []byte) bool { return r.copying() }
	r.proxy, err = faultproxy.New(r.s.o.endpoint, r.seed,
		faultproxy.Rule{Fault: faultproxy.Stale, Ops: []string{faultproxy.BatchWriteItem}, Prob: soakStaleShare, Release: r.release, Match: copying},
		faultproxy.Rule{Fault: faultproxy.Stale, Ops: []string{faultproxy.BatchWriteItem}, Prob: soakStaleShare, Delay: staleAfter, Match: copying},
		faultproxy.Rule{Fault: faultproxy.Delay, Ops: []string{faultproxy.BatchWriteItem}, Prob: 1, Delay: soakDelay})
	if err != nil {
		return nil, nil, err
	}
	url, stopServe, err := serve(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.flight.Add(1)
		defer r.flight.Add(-1)
		r.proxy.ServeHTTP(w, req)
	}))
	if err != nil {
		r.proxy.Close()
		return nil, nil, err
	}
	closeTarget = func() {
		r.letGo() // a seed that failed: the held requests go, so that the server stops
		stopServe()
		r.proxy.Close()
	}
	if slow, err = dynamo.Open(ctx, url); err != nil {
		closeTarget()
		return nil, nil, err
	}
	return slow, closeTarget, nil
}

// startFollow starts migrate --follow (migrate.Run, r.done closed when it
// returns) on a fresh table through slow, its progress logged to r.log.
// stopFollower cancels it as SIGINT does; endFollow, for a seed that
// failed, also waits for it to return (up to soakLimit) so that the run
// ends before its source is closed and its slot dropped.
func (r *seedRun) startFollow(ctx context.Context, slow *dynamo.Client) (stopFollower, endFollow func()) {
	r.tracker = progress.New("migrate")
	stopLog := progress.Run(r.tracker, r.log, soakLogEvery)
	rctx, stopFollower := context.WithCancel(ctx)
	r.done = make(chan struct{})
	go func() {
		defer close(r.done)
		r.rep, r.runErr = migrate.Run(rctx, migrate.Options{
			Plan: r.plan, Source: r.src, DB: slow, Table: r.table, CreateTable: true,
			Writers: soakWriters, RequestTimeout: soakRequestTimeout,
			Backoff:  migrate.Backoff{Base: 5 * time.Millisecond, Cap: 200 * time.Millisecond, Deadline: time.Minute},
			Progress: r.tracker, Follow: true,
			CheckpointPath: r.ck, CheckpointEvery: 100 * time.Millisecond,
			MappingDigest: "soak", SourceID: "soak",
		})
	}()
	endFollow = func() {
		stopFollower()
		select {
		case <-r.done:
		case <-time.After(soakLimit):
		}
		stopLog()
	}
	return stopFollower, endFollow
}

// copyUnderLoad runs the seed's workload from the start of the copy until
// soakAfterCopy after the follower's first lag, and returns its
// transactions.
func (r *seedRun) copyUnderLoad(ctx context.Context) (txns int64, err error) {
	s := r.s
	load := newSoakLoad(s.conns, s.o.soak.rows, r.seed)
	stopLoad := make(chan struct{})
	loadDone := make(chan struct{})
	go func() {
		defer close(loadDone)
		load.run(ctx, s.o.soak.rate, stopLoad)
	}()
	err = r.waitFor(ctx, "the follower's first lag", func() bool { return r.log.following() })
	if err == nil {
		time.Sleep(soakAfterCopy)
	}
	close(stopLoad)
	<-loadDone
	if err != nil {
		return 0, err
	}
	if err := load.err(); err != nil {
		return 0, err
	}
	return load.txns.Load(), nil
}

// landLateWrites lets the held copy requests go, once the follower has
// caught up, so that they land after newer changes of their rows; it waits
// until they are carried out and returns how many the proxy held.
func (r *seedRun) landLateWrites(ctx context.Context) (late int, err error) {
	r.letGo()
	if err := r.waitFor(ctx, "the held copy requests carried out", func() bool { return r.flight.Load() == 0 }); err != nil {
		return 0, err
	}
	if err := r.endedEarly(); err != nil {
		return 0, err
	}
	return r.proxy.Stats().Injected[faultproxy.Stale], nil
}

// endedEarly is an error when migrate --follow has returned before it was
// stopped.
func (r *seedRun) endedEarly() error {
	select {
	case <-r.done:
		return fmt.Errorf("migrate --follow ended before it was stopped: %v", r.runErr)
	default:
		return nil
	}
}

// stopFollow cancels the follower as SIGINT does, waits up to soakLimit
// for it to return, and then stops the CPU contention.
func (r *seedRun) stopFollow(stopFollower, burning func()) error {
	stopFollower()
	select {
	case <-r.done:
	case <-time.After(soakLimit):
		return fmt.Errorf("migrate --follow did not stop within %s of its context's cancel", soakLimit)
	}
	burning()
	return nil
}

// stoppedReport checks that the stopped follower returned nil and a report
// saying it stopped cleanly with no row rejected, and returns the rows it
// redid and the changes it applied.
func (r *seedRun) stoppedReport() (redone, changes int64, err error) {
	rep := r.rep
	if r.runErr != nil {
		return 0, 0, fmt.Errorf("migrate --follow, stopped as SIGINT does, returned: %w", r.runErr)
	}
	if rep == nil || rep.Follow == nil || !rep.Follow.Stopped || rep.Follow.Rejected != 0 || rep.Rejected != 0 {
		return 0, 0, fmt.Errorf("the stopped follower's report does not say it stopped cleanly, or it rejected rows: %+v", rep)
	}
	return int64(rep.Follow.Redone), rep.Follow.Changes, nil
}

// copying says whether the migration is still copying: the late writes
// are the copy's (the follower's writes are not held).
func (r *seedRun) copying() bool {
	for _, p := range r.tracker.Snapshot().Phases {
		if p.Name == "follow" || p.Name == "copy" && p.Ended {
			return false
		}
	}
	return true
}

// burnFromCopy starts n busy goroutines once the copy phase has begun;
// the returned stop stops them (more calls do nothing).
func (r *seedRun) burnFromCopy(n int) (stop func()) {
	quit, started := make(chan struct{}), make(chan struct{})
	var burning func()
	go func() {
		defer close(started)
		for !r.copyBegun() {
			select {
			case <-quit:
				return
			case <-r.done:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
		burning = burn(n)
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(quit)
			<-started
			if burning != nil {
				burning()
			}
		})
	}
}

// copyBegun says whether the copy phase has begun.
func (r *seedRun) copyBegun() bool {
	for _, p := range r.tracker.Snapshot().Phases {
		if p.Name == "copy" {
			return true
		}
	}
	return false
}

// letGo lets the requests held until the follower caught up go.
func (r *seedRun) letGo() {
	select {
	case <-r.release:
	default:
		close(r.release)
	}
}

// waitFor polls ok until it holds; an error when the run ends first or
// soakLimit passes.
func (r *seedRun) waitFor(ctx context.Context, what string, ok func() bool) error {
	deadline := time.Now().Add(soakLimit)
	for !ok() {
		select {
		case <-r.done:
			return fmt.Errorf("waiting for %s: migrate --follow ended first: %v", what, r.runErr)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("waiting for %s: not within %s (last lag %+v)", what, soakLimit, r.log.last())
		}
	}
	return nil
}

// caughtUp commits the sentinel change n after the workload's, waits for
// its item to show it, and then for a lag of 0 reported after that: every
// change before it is applied.
func (r *seedRun) caughtUp(ctx context.Context, n int) error {
	if err := r.s.setup.exec(ctx, soakSentinel(n)); err != nil {
		return fmt.Errorf("the sentinel change: %w", err)
	}
	// The sentinel is the only order of customer 0.
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(r.table),
		KeyConditionExpression:    aws.String("PK = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: "CUSTOMER#000000"}},
		ConsistentRead:            aws.Bool(true),
	}
	want := strconv.Itoa(n)
	var getErr error
	err := r.waitFor(ctx, "the sentinel change applied", func() bool {
		out, err := r.s.direct.Query(ctx, in)
		if err != nil {
			getErr = err
			return false
		}
		if len(out.Items) != 1 {
			return false
		}
		v, ok := out.Items[0]["items"].(*types.AttributeValueMemberN)
		return ok && v.Value == want
	})
	if err != nil {
		if getErr != nil {
			err = fmt.Errorf("%w (the last GetItem: %v)", err, getErr)
		}
		return err
	}
	seen := time.Now()
	return r.waitFor(ctx, "a lag of 0 after the sentinel change", func() bool {
		l, ok := r.log.since(seen)
		return ok && l.Behind == 0
	})
}

// comparison is what remodel's verify found.
type comparison struct {
	compared, missing, extra, different int64
	problems                            string
}

// compare runs remodel's verify on the table: every item against its row
// rendered afresh, and every item of the table against the source.
func (r *seedRun) compare(ctx context.Context) (comparison, error) {
	var c comparison
	rep, err := verify.Run(ctx, verify.Options{Plan: r.plan, Source: r.src, DB: r.s.direct, Table: r.table, Samples: 1, Seed: 1, MaxProblems: 3})
	if err != nil {
		return c, fmt.Errorf("remodel verify: %w", err)
	}
	var probs []string
	for _, it := range rep.Items {
		c.compared += it.Compared
		c.missing += it.Missing
		c.different += it.Different
		for _, p := range it.Problems.List {
			probs = append(probs, fmt.Sprintf("%+v", p))
		}
	}
	c.extra = rep.Stray.Total
	for _, p := range rep.Stray.List {
		probs = append(probs, fmt.Sprintf("%+v", p))
	}
	c.problems = strings.Join(probs, ", ")
	if !rep.OK && c.missing+c.extra+c.different == 0 {
		return c, fmt.Errorf("remodel verify failed without an item missing, extra or different: %+v", rep)
	}
	return c, nil
}

// cleanup drops the follower's slot (PostgreSQL) and its checkpoint.
func (r *seedRun) cleanup() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := os.Stat(r.ck); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if _, err := migrate.FollowCleanup(ctx, r.src, r.ck, true); err != nil {
		return fmt.Errorf("follow-cleanup: %w", err)
	}
	return nil
}

// dropTable deletes the seed's table from DynamoDB Local.
func (r *seedRun) dropTable() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, _ = r.s.direct.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(r.table)})
}

// burn keeps n goroutines busy until the returned stop is called (more
// calls do nothing).
func burn(n int) (stop func()) {
	var quit atomic.Bool
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			x := uint64(1)
			for !quit.Load() {
				for range 10000 {
					x = x*6364136223846793005 + 1442695040888963407
				}
			}
			runtime.KeepAlive(x)
		})
	}
	var once sync.Once
	return func() { once.Do(func() { quit.Store(true); wg.Wait() }) }
}

// soakLog records the follower's lag from the run's tracker (a
// progress.Printer).
type soakLog struct {
	mu  sync.Mutex
	all []soakLag
}

type soakLag struct {
	at time.Time
	progress.LagState
}

func newSoakLog() *soakLog { return &soakLog{} }

func (l *soakLog) Print(s progress.State) {
	for _, p := range s.Phases {
		if p.Name == "follow" && p.Lag != nil {
			l.mu.Lock()
			l.all = append(l.all, soakLag{time.Now(), *p.Lag})
			l.mu.Unlock()
		}
	}
}

func (l *soakLog) Close(s progress.State) { l.Print(s) }

// following says whether a lag was reported: the copy is done.
func (l *soakLog) following() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.all) > 0
}

// since is the latest lag reported after t.
func (l *soakLog) since(t time.Time) (progress.LagState, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n := len(l.all); n > 0 && l.all[n-1].at.After(t) {
		return l.all[n-1].LagState, true
	}
	return progress.LagState{}, false
}

func (l *soakLog) last() progress.LagState {
	st, _ := l.since(time.Time{})
	return st
}
