package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/followback"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/mapping"
)

// The follow-back bench (-follow -follow-back; make bench FOLLOWBACK=1),
// after the forward follower's steps in the same run, on the same source:
//
//  1. remodel migrate --create-table --stream of the -follow-back-mapping
//     (each user's settings and subscriptions embedded) into a fresh table;
//  2. follow-back's process (the bench as __followback: followback.Run,
//     the code remodel follow-back runs) started, its start point
//     recorded, stopped (SIGINT); a backlog of -follow-backlog item
//     changes written into the table through the AWS SDK; follow-back
//     --resume timed from its start to every change done: changes/s;
//  3. steady: item changes at -follow-rate per second for -follow-seconds,
//     each change's lag the moment follow-back's process applied it less
//     the moment the workload wrote it (the workload's clock, not the
//     stream record's, whose creation time has whole seconds on DynamoDB
//     Local): p50, p99, max (target p99 < 5 s); applied/s over the time
//     from the first write to the last change applied (target ≥ 500);
//  4. SIGINT (its report: every change applied, no dead letter, a clean
//     stop), then remodel verify of the table (the source equals it).

// backOptions are the follow-back bench's flags.
type backOptions struct {
	on      bool
	only    bool   // no forward steps before
	mapping string // the mapping whose table follow-back follows
}

// targetBackRate is the follow-back's steady applied changes per second,
// at least.
const targetBackRate = 500

// backReport is what the follow-back bench measured.
type backReport struct {
	Mapping  string
	Workload string
	Copy     phase // items
	Backlog  phase // item changes written, follow-back stopped
	CatchUp  phase // applied by the resumed process
	Steady   phase // written at the rate asked
	Applied  phase // the steady changes, from the first write to the last applied
	Lags     []time.Duration
	Drain    time.Duration // from the writes' stop to the last applied
	Report   followback.Report
	Verified int64
	VWall    time.Duration
	CPU      time.Duration // the resumed process's over its life
	RSS      int64
}

// backBench is one run of the follow-back bench.
type backBench struct {
	fb    *followBench
	plan  *mapping.Plan
	table string
	ck    string
	load  *backLoad
	rep   *backReport
}

func (bb *backBench) step(format string, args ...any) {
	fmt.Fprintf(bb.fb.stderr, "bench: follow-back: "+format+"\n", args...)
}

// runBack runs the follow-back bench on fb's source.
func (fb *followBench) runBack(ctx context.Context) (*backReport, error) {
	bb := &backBench{fb: fb, rep: &backReport{Mapping: fb.o.back.mapping}}
	bb.table = fmt.Sprintf("bench_back_%s_%d", fb.engine, time.Now().Unix())
	bb.ck = filepath.Join(fb.work, "back.checkpoint.json")
	if err := bb.copy(ctx); err != nil {
		return nil, err
	}
	if err := bb.open(ctx); err != nil {
		return nil, err
	}
	p, err := bb.catchUp(ctx)
	if err != nil {
		return nil, err
	}
	defer p.kill()
	if err := bb.steady(ctx, p); err != nil {
		return nil, err
	}
	if err := bb.finish(p); err != nil {
		return nil, err
	}
	return bb.rep, bb.prove(ctx)
}

// compile reads the follow-back mapping against the source.
func (bb *backBench) compile(ctx context.Context) (map[string]int64, int64, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	src, err := source.Open(ctx, bb.fb.o.source)
	if err != nil {
		return nil, 0, err
	}
	defer src.Close()
	schema, err := src.Inspect(ctx)
	if err != nil {
		return nil, 0, err
	}
	file, err := mapping.ParseFile(bb.rep.Mapping)
	if err != nil {
		return nil, 0, err
	}
	if bb.plan, err = mapping.Compile(file, schema); err != nil {
		return nil, 0, err
	}
	return countRows(ctx, src, bb.plan)
}

// copy is step 1: remodel migrate --create-table --stream.
func (bb *backBench) copy(ctx context.Context) error {
	_, rows, err := bb.compile(ctx)
	if err != nil {
		return err
	}
	fb := bb.fb
	bb.step("migrate --create-table --stream of %s into %s (%d items)", bb.rep.Mapping, bb.table, rows)
	rp := filepath.Join(fb.work, "back.copy.report.json")
	t0 := time.Now()
	err = runCommand(ctx, fb.o.follow.limit, fb.o.remodel, []string{"migrate", "--create-table", "--stream",
		"--source", fb.o.source, "-m", bb.rep.Mapping, "--endpoint", fb.o.endpoint, "--table", bb.table,
		"--checkpoint", filepath.Join(fb.work, "back.copy.checkpoint.json"), "--rejects", filepath.Join(fb.work, "back.rejects.jsonl"),
		"--readers", strconv.Itoa(fb.o.readers), "--writers", strconv.Itoa(fb.o.writers),
		"--progress", "none", "--output-file", "json=" + rp}, filepath.Join(fb.work, "back.copy.log"))
	if err != nil {
		return err
	}
	r, err := readReport(rp)
	if err != nil {
		return err
	}
	if r.ItemsWritten != rows || r.Rejected != 0 {
		return fmt.Errorf("bench: follow-back: the copy wrote %d items and rejected %d; the mapping makes %d", r.ItemsWritten, r.Rejected, rows)
	}
	bb.rep.Copy = phase{Count: rows, Wall: time.Since(t0)}
	return nil
}

// open connects the workload.
func (bb *backBench) open(ctx context.Context) error {
	fb := bb.fb
	db, _, err := followback.Connect(ctx, followback.Config{Endpoint: fb.o.endpoint})
	if err != nil {
		return err
	}
	bb.load, err = openBackLoad(ctx, db, bb.table, bb.plan, fb.o.follow.workers, fb.o.follow.seed)
	bb.rep.Workload = fmt.Sprintf("users whose items hold no empty map (DynamoDB Local's stream loses their type); %d workers writing through the AWS SDK: 20 %% a user's name (UpdateItem), 25 %% a user's embedded settings (one changed, one added or removed; GetItem, PutItem), 10 %% users put, 5 %% deleted, 15 %% contents put, 15 %% moved to another key (TransactWriteItems: delete, put), 10 %% deleted", fb.o.follow.workers)
	return err
}

// backArgs are the arguments of the __followback process.
func (bb *backBench) backArgs(resume bool) []string {
	fb := bb.fb
	a := []string{backArg, "-source", fb.o.source, "-mapping", bb.rep.Mapping, "-endpoint", fb.o.endpoint,
		"-table", bb.table, "-checkpoint", bb.ck, "-dead-letter", filepath.Join(fb.work, "back.dead-letters.jsonl")}
	if resume {
		a = append(a, "-resume", "-report", filepath.Join(fb.work, "back.report.json"))
		if fb.o.cpuprofile != "" {
			a = append(a, "-cpuprofile", fb.o.cpuprofile+".followback")
		}
		return a
	}
	return append(a, "-report", filepath.Join(fb.work, "back.start.report.json"))
}

// catchUp is step 2; it returns the resumed process, still running.
func (bb *backBench) catchUp(ctx context.Context) (*backProc, error) {
	fb, fo := bb.fb, bb.fb.o.follow
	bb.step("starting follow-back to record its start point")
	p, err := startBack(bb.backArgs(false), filepath.Join(fb.work, "back.start.log"), bb.load)
	if err != nil {
		return nil, err
	}
	if err := p.waitReady(ctx, fo.limit); err != nil {
		p.kill()
		return nil, err
	}
	if err := p.stop(time.Minute); err != nil {
		return nil, err
	}
	bb.step("catch-up: writing %d item changes with follow-back stopped", fo.backlog)
	t0 := time.Now()
	n := bb.load.runUntil(ctx, fo.backlog)
	if err := bb.workloadErr(); err != nil {
		return nil, err
	}
	bb.rep.Backlog = phase{Count: n, Wall: time.Since(t0)}
	bb.step("catch-up: %d item changes in %.1f s; follow-back --resume", n, bb.rep.Backlog.Wall.Seconds())
	p, err = startBack(bb.backArgs(true), filepath.Join(fb.work, "back.log"), bb.load)
	if err != nil {
		return nil, err
	}
	at, err := p.waitDone(ctx, n, fo.limit)
	if err != nil {
		p.kill()
		return nil, err
	}
	bb.load.takeLags() // the backlog's lags are its age, not follow-back's
	bb.rep.CatchUp = phase{Count: n, Wall: at.Sub(p.start), CPU: p.cpu(), RSS: p.peakRSS()}
	bb.step("catch-up: every change applied after %.1f s (%.0f changes/s)", bb.rep.CatchUp.Wall.Seconds(), bb.rep.CatchUp.Rate())
	return p, nil
}

// steady is step 3.
func (bb *backBench) steady(ctx context.Context, p *backProc) error {
	fo := bb.fb.o.follow
	bb.step("steady: %.0f item changes/s for %s", fo.rate, fo.seconds)
	before, _ := bb.load.doneCount()
	cpu0 := p.cpu()
	stop := make(chan struct{})
	timer := time.AfterFunc(fo.seconds, func() { close(stop) })
	defer timer.Stop()
	t0 := time.Now()
	n := bb.load.runAt(ctx, fo.rate, stop)
	t1 := time.Now()
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := bb.workloadErr(); err != nil {
		return err
	}
	at, err := p.waitDone(ctx, before+n, fo.limit)
	if err != nil {
		return err
	}
	bb.rep.Steady = phase{Count: n, Wall: t1.Sub(t0)}
	bb.rep.Applied = phase{Count: n, Wall: at.Sub(t0), CPU: p.cpu() - cpu0, RSS: p.peakRSS()}
	bb.rep.Drain = max(at.Sub(t1), 0)
	bb.rep.Lags = bb.load.takeLags()
	bb.step("steady: %d item changes in %.1f s, applied at %.0f/s; lag p99 %.2f s",
		n, bb.rep.Steady.Wall.Seconds(), bb.rep.Applied.Rate(), percentile(bb.rep.Lags, 0.99).Seconds())
	return nil
}

// finish stops the process: its report must count every change applied,
// no dead letter, a clean stop.
func (bb *backBench) finish(p *backProc) error {
	bb.step("stopping follow-back (SIGINT)")
	bb.rep.RSS = p.peakRSS()
	if err := p.stop(time.Minute); err != nil {
		return err
	}
	bb.rep.CPU = p.cpu()
	b, err := os.ReadFile(filepath.Join(bb.fb.work, "back.report.json"))
	if err != nil {
		return fmt.Errorf("bench: follow-back: reading its report: %w", err)
	}
	r := &bb.rep.Report
	if err := json.Unmarshal(b, r); err != nil {
		return fmt.Errorf("bench: follow-back: its report: %w", err)
	}
	made := bb.rep.Backlog.Count + bb.rep.Steady.Count
	_, strange := bb.load.doneCount()
	if !r.OK || !r.Stopped || r.Applied != made || r.DeadLetters != 0 || r.Deferred != 0 || strange != 0 {
		return fmt.Errorf("bench: follow-back: its report does not count the %d item changes written as applied, or has dead letters or changes deferred, or it did not stop cleanly, or it did %d records no write of the workload's made: %s", made, strange, b)
	}
	return nil
}

// prove is step 4's proof: remodel verify of every item.
func (bb *backBench) prove(ctx context.Context) error {
	_, rows, err := bb.compile(ctx)
	if err != nil {
		return err
	}
	fb := bb.fb
	bb.step("remodel verify of %s (%d rows)", bb.table, rows)
	v := verifyRun{bin: fb.o.remodel, source: fb.o.source, mapPth: bb.rep.Mapping, table: bb.table, endpt: fb.o.endpoint, work: fb.work}
	vctx, cancel := context.WithTimeout(ctx, fb.o.follow.limit)
	defer cancel()
	r, err := v.run(vctx, "remodel verify (the table followed back)")
	if err != nil {
		return err
	}
	if r.Items != rows {
		return fmt.Errorf("bench: follow-back: remodel verify compared %d items, the source has %d rows of the mapping's entities", r.Items, rows)
	}
	bb.rep.Verified, bb.rep.VWall = rows, r.Wall
	return nil
}

func (bb *backBench) workloadErr() error {
	n, errs := bb.load.failures()
	if n == 0 {
		return nil
	}
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Error()
	}
	return fmt.Errorf("bench: follow-back: %d writes of the workload failed: %s", n, strings.Join(msgs, "; "))
}

// backProc is one __followback process, its stdout read as it comes.
type backProc struct {
	cmd   *exec.Cmd
	start time.Time
	log   string
	exit  chan struct{}
	err   error

	mu     sync.Mutex
	ready  bool
	last   time.Time // the moment of the last record done
	bad    error
	notify chan struct{}
	eof    bool
	load   *backLoad
}

// startBack starts the bench itself as __followback with args.
func startBack(args []string, logPath string, load *backLoad) (*backProc, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	log, err := os.Create(logPath)
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	p := &backProc{cmd: exec.Command(self, args...), log: logPath, exit: make(chan struct{}), notify: make(chan struct{}, 1), load: load}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		log.Close()
		return nil, fmt.Errorf("bench: %w", err)
	}
	p.cmd.Stderr = log
	p.start = time.Now()
	if err := p.cmd.Start(); err != nil {
		log.Close()
		return nil, fmt.Errorf("bench: starting follow-back's process: %w", err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.read(out)
	}()
	go func() {
		<-done
		p.err = p.cmd.Wait()
		log.Close()
		close(p.exit)
		p.wake()
	}()
	return p, nil
}

// read handles the process's lines.
func (p *backProc) read(r interface{ Read([]byte) (int, error) }) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "ready" {
			p.mu.Lock()
			p.ready = true
			p.mu.Unlock()
			p.wake()
			continue
		}
		rest, ok := strings.CutPrefix(line, "done ")
		ns, key, ok2 := strings.Cut(rest, " ")
		at, err := strconv.ParseInt(ns, 10, 64)
		if !ok || !ok2 || err != nil {
			p.mu.Lock()
			if p.bad == nil {
				p.bad = fmt.Errorf("bench: follow-back's process wrote a line the bench does not know: %q", line)
			}
			p.mu.Unlock()
			continue
		}
		t := time.Unix(0, at)
		p.load.doneAt(key, t)
		p.mu.Lock()
		p.last = t
		p.mu.Unlock()
		p.wake()
	}
	p.mu.Lock()
	p.eof = true
	p.mu.Unlock()
	p.wake()
}

func (p *backProc) wake() {
	select {
	case p.notify <- struct{}{}:
	default:
	}
}

// waitFor waits until ok holds (p.mu held while it is called).
func (p *backProc) waitFor(ctx context.Context, limit time.Duration, what string, ok func() bool) error {
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	for {
		p.mu.Lock()
		hit, bad, eof := ok(), p.bad, p.eof
		p.mu.Unlock()
		switch {
		case hit:
			return nil
		case bad != nil:
			return bad
		case eof:
			<-p.exit
			return fmt.Errorf("bench: waiting for %s: follow-back's process ended first (%v)\n%s", what, p.err, tail(p.log))
		}
		select {
		case <-p.notify:
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline.C:
			return fmt.Errorf("bench: waiting for %s: not within %s\n%s", what, limit, tail(p.log))
		}
	}
}

func (p *backProc) waitReady(ctx context.Context, limit time.Duration) error {
	return p.waitFor(ctx, limit, "follow-back's start point", func() bool { return p.ready })
}

// waitDone waits until n records of the workload's writes are done, and
// returns the moment of the last one.
func (p *backProc) waitDone(ctx context.Context, n int64, limit time.Duration) (time.Time, error) {
	err := p.waitFor(ctx, limit, fmt.Sprintf("%d item changes applied", n), func() bool {
		d, _ := p.load.doneCount()
		return d >= n
	})
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.last, err
}

// stop sends SIGINT and waits up to limit for a clean exit.
func (p *backProc) stop(limit time.Duration) error {
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		return fmt.Errorf("bench: stopping follow-back: %w", err)
	}
	select {
	case <-p.exit:
	case <-time.After(limit):
		_ = p.cmd.Process.Kill()
		<-p.exit
		return fmt.Errorf("bench: follow-back did not stop within %s of SIGINT; killed\n%s", limit, tail(p.log))
	}
	if p.err != nil {
		return fmt.Errorf("bench: follow-back, stopped by SIGINT: %w\n%s", p.err, tail(p.log))
	}
	return nil
}

func (p *backProc) kill() {
	select {
	case <-p.exit:
	default:
		_ = p.cmd.Process.Kill()
		<-p.exit
	}
}

func (p *backProc) cpu() time.Duration {
	select {
	case <-p.exit:
		return p.cmd.ProcessState.UserTime() + p.cmd.ProcessState.SystemTime()
	default:
	}
	c, _ := processCPU(p.cmd.Process.Pid)
	return c
}

func (p *backProc) peakRSS() int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(p.cmd.Process.Pid) + "/status")
	if err != nil {
		return 0
	}
	return vmHWM(string(b))
}
