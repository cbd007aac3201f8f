package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
	"github.com/remodel-dev/remodel/migrate"
)

// The kill loop (-kill-loop N): remodel migrate into a fresh table, killed
// with SIGKILL at N moments and resumed with --resume each time until a
// run finishes; then the table is proven exact. The moments are drawn from
// the seed (printed; -kill-seed replays the draw): N fractions of the job,
// sorted, each in [5%, 95%); an attempt is killed once the table holds that
// share of the items (polled with DescribeTable, whose ItemCount DynamoDB
// Local keeps exact) and this attempt has added at least one, and, for the
// first attempt, once its checkpoint exists (before it, there is nothing to
// resume). The timing of a real run decides where exactly each kill falls:
// the seed replays the targets, not the exact kill points.
//
// After each kill the bench waits until the item count stops changing
// (requests DynamoDB Local was still applying) and records the items in the
// table and the items the checkpoint settled: the difference is what the
// resumed run writes again, the cost of the crash. The finished job must
// then have: the last report counting every row as written, none rejected,
// no stray item, and the items the earlier runs settled equal to the last
// checkpoint's; no checkpoint left; DescribeTable's item count equal to the
// source's rows (nothing lost, nothing extra, the lock item gone); and
// remodel verify passing, which compares every item attribute by attribute
// with its row, looks for stray items and runs the access patterns.
//
// The loop runs its jobs, one per -kill-ranges value, for the bench's
// mapping (-mapping, "main"), then again for -kill-embed's ("embedded",
// personalization-embed.yaml by default): the same source with each user's
// settings and subscriptions embedded in the user's item, so that kills
// fall in an entity with embedded rows, whose checkpoint advances by the
// user's key and whose child rows a --ranges key range reads by the same
// bounds. Its jobs are held to the same account (its items are its
// entities' rows; verify compares the embedded lists too), and each kill
// line says how many key ranges of entities with embeds the checkpoint
// had mid-way (rows settled, not done): the resumed run started inside
// them.

// kill is one kill -9 of the loop.
type kill struct {
	Target  float64       // the share of the job's items the kill waited for
	At      time.Duration // into its attempt
	JobAt   time.Duration // into the job: the earlier attempts' wall time and At
	InTable int64         // items in the table once it settled after the kill (the lock item left out)
	Settled int64         // items the checkpoint counts as settled: the resumed run does not write them
	// MidEmbed of EmbedRanges: the checkpoint's key ranges (one per
	// entity without --ranges) of entities with embedded rows that had
	// rows settled and were not done.
	MidEmbed, EmbedRanges int
}

// Rewritten is the items the resumed run writes again: in the table but
// not settled by the checkpoint.
func (k kill) Rewritten() int64 { return k.InTable - k.Settled }

// killMapping is a mapping the kill loop migrates: the bench's (main) or
// -kill-embed's (embedded).
type killMapping struct {
	label string // main, embedded
	path  string
	plan  *mapping.Plan
	rows  int64 // its entities' rows: the items of a finished job
	// entities names its entities, in file order; withEmbeds those with
	// embedded rows.
	entities   []string
	withEmbeds map[string]bool
	// embeds counts the child rows each embed reads (embedded only).
	embeds []embedCount
}

// embedCount is the child rows an embed of an entity reads.
type embedCount struct {
	entity, attr, table string
	rows                int64
}

// job names a job of the mapping at ranges for the bench's lines.
func (km *killMapping) job(ranges int) string {
	if km.label == "main" {
		return fmt.Sprintf("--ranges %d", ranges)
	}
	return fmt.Sprintf("%s, --ranges %d", km.label, ranges)
}

// describe says what the mapping makes of the source.
func (km *killMapping) describe() string {
	s := fmt.Sprintf("%s items, one per row of %s", thousands(float64(km.rows)), strings.Join(km.entities, ", "))
	if len(km.embeds) == 0 {
		return s
	}
	var total int64
	parts := make([]string, len(km.embeds))
	for i, c := range km.embeds {
		total += c.rows
		parts[i] = fmt.Sprintf("%s.%s: %s of %s", c.entity, c.attr, thousands(float64(c.rows)), c.table)
	}
	return fmt.Sprintf("%s; %s child rows embedded (%s)", s, thousands(float64(total)), strings.Join(parts, ", "))
}

func newKillMapping(label, path string, plan *mapping.Plan, rows int64) *killMapping {
	km := &killMapping{label: label, path: path, plan: plan, rows: rows, withEmbeds: map[string]bool{}}
	for _, e := range plan.Entities {
		km.entities = append(km.entities, e.Name)
		if len(e.Embeds()) > 0 {
			km.withEmbeds[e.Name] = true
		}
	}
	return km
}

// embeddedMapping reads -kill-embed's mapping, compiled on the bench's
// source, which must have an entity with embedded rows, and counts its
// rows and child rows.
func embeddedMapping(ctx context.Context, src source.Source, schema *introspect.Schema, path string) (*killMapping, error) {
	file, err := mapping.ParseFile(path)
	if err != nil {
		return nil, fmt.Errorf("bench: -kill-embed: %w", err)
	}
	plan, err := mapping.Compile(file, schema)
	if err != nil {
		return nil, fmt.Errorf("bench: -kill-embed %s: %w", path, err)
	}
	km := newKillMapping("embedded", path, plan, 0)
	if len(km.withEmbeds) == 0 {
		return nil, fmt.Errorf("bench: -kill-embed %s: no entity has embedded rows (embed:)", path)
	}
	if _, km.rows, err = countRows(ctx, src, plan); err != nil {
		return nil, err
	}
	snap, err := src.Snapshot(ctx, 1)
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	r := snap.Readers()[0]
	for _, e := range plan.Entities {
		for _, m := range e.Embeds() {
			n, err := r.Count(ctx, m.Scan(0), m.Where)
			if err != nil {
				return nil, err
			}
			km.embeds = append(km.embeds, embedCount{entity: e.Name, attr: m.Name, table: m.Child.Name, rows: n})
		}
	}
	return km, nil
}

// killRun is one job of the loop.
type killRun struct {
	M        *killMapping
	Table    string
	Ranges   int
	Kills    []kill
	Early    int           // kills not made: a run finished before its target
	Attempts int           // remodel processes, the one that finished included
	Wall     time.Duration // the attempts' wall times added up
	CPU      time.Duration // their user+sys CPU
	Items    int64         // items in the finished table
	Verify   time.Duration // remodel verify's wall time (not in Wall)
	Verdict  string        // verify's first line
}

// Rewritten is the items written more than once over the job.
func (r killRun) Rewritten() int64 {
	var n int64
	for _, k := range r.Kills {
		n += k.Rewritten()
	}
	return n
}

// killTargets draws n kill points as sorted shares of the job in [0.05, 0.95).
func killTargets(rng *rand.Rand, n int) []float64 {
	t := make([]float64, n)
	for i := range t {
		t[i] = 0.05 + 0.9*rng.Float64()
	}
	slices.Sort(t)
	return t
}

// killLoop runs the loop for one mapping at one --ranges value.
func (b *bench) killLoop(ctx context.Context, km *killMapping, ranges int, targets []float64) (killRun, error) {
	job := km.job(ranges)
	b.step("kill loop, %s: %d kills at %s of the job", job, len(targets), percents(targets))
	if err := b.fresh(ctx); err != nil {
		return killRun{}, err
	}
	table, err := b.tableOf(ctx, km.plan, "kill_"+km.label+"_r"+strconv.Itoa(ranges))
	if err != nil {
		return killRun{}, err
	}
	work := b.m.work
	ck := filepath.Join(work, table+".checkpoint.json")
	reportPath := filepath.Join(work, table+".report.json")
	args := []string{"migrate", "--source", b.o.source, "-m", km.path,
		"--endpoint", b.o.endpoint, "--table", table,
		"--readers", strconv.Itoa(b.o.readers), "--writers", strconv.Itoa(b.o.writers),
		"--ranges", strconv.Itoa(ranges), "--checkpoint", ck,
		"--rejects", filepath.Join(work, table+".rejects.jsonl"),
		"--output-file", "json=" + reportPath, "--output", "json", "--progress", "none"}
	args = append(args, b.m.extra...) // -key-check always
	if km.label == "embedded" {
		args = append(args, b.m.embedExtra...)
	}
	run := killRun{M: km, Table: table, Ranges: ranges}
	for attempt := 1; ; attempt++ {
		a := args
		if attempt > 1 {
			a = append(slices.Clone(args), "--resume")
		}
		target := -1.0
		if len(run.Kills) < len(targets) {
			target = targets[len(run.Kills)]
		}
		logPath := filepath.Join(work, fmt.Sprintf("%s.%d.log", table, attempt))
		res, err := b.attempt(ctx, km, table, a, logPath, attempt == 1, ck, target)
		if err != nil {
			return run, err
		}
		run.Attempts++
		run.Wall += res.wall
		run.CPU += res.cpu
		if !res.killed {
			if res.code != 0 {
				return run, fmt.Errorf("bench: kill loop, attempt %d: remodel migrate exited %d\n%s", attempt, res.code, tail(logPath))
			}
			run.Early = len(targets) - len(run.Kills)
			break
		}
		k := kill{Target: target, At: res.wall, JobAt: run.Wall}
		if k.InTable, err = b.settledCount(ctx, km.plan, table); err != nil {
			return run, err
		}
		if _, err := os.Stat(ck); errors.Is(err, os.ErrNotExist) {
			return run, fmt.Errorf("bench: kill loop, %s, attempt %d: killed as its job finished (the checkpoint was removed between the last look and the kill): nothing to resume from; run again", job, attempt)
		}
		c, err := readCheckpoint(ck, km.withEmbeds)
		if err != nil {
			return run, err
		}
		k.Settled, k.MidEmbed, k.EmbedRanges = c.items, c.midEmbed, c.embedRanges
		run.Kills = append(run.Kills, k)
		mid := ""
		if k.EmbedRanges > 0 {
			mid = fmt.Sprintf("; %d of %d key ranges of entities with embedded rows mid-way", k.MidEmbed, k.EmbedRanges)
		}
		b.step("kill %d/%d (%s): %.1f s into attempt %d (%.1f s into the job), target %.0f%%: %d items in the table, %d settled by the checkpoint, %d to be written again%s",
			len(run.Kills), len(targets), job, k.At.Seconds(), attempt, k.JobAt.Seconds(), 100*k.Target, k.InTable, k.Settled, k.Rewritten(), mid)
	}
	if err := b.checkKilledJob(ctx, &run, table, ck, reportPath); err != nil {
		return run, err
	}
	b.step("kill loop, %s: remodel verify", job)
	t0 := time.Now()
	verdict, err := b.verifyKilled(ctx, km, table, filepath.Join(work, table+".verify.log"))
	run.Verify, run.Verdict = time.Since(t0), verdict
	return run, err
}

// attemptResult is how one remodel process of the loop ended.
type attemptResult struct {
	killed    bool
	code      int
	wall, cpu time.Duration
}

// attempt runs remodel with args and kills it with SIGKILL once the table
// holds target of the job's items and the attempt has added one (and, when
// first, once the checkpoint ck exists); a negative target: no kill. Nor
// once the checkpoint is gone: a run removes it when the job is done, and
// a kill then, before it exits, would leave a finished job with nothing to
// resume and no report (small jobs were killed so).
func (b *bench) attempt(ctx context.Context, km *killMapping, table string, args []string, logPath string, first bool, ck string, target float64) (attemptResult, error) {
	start, err := b.count(ctx, km.plan, table)
	if err != nil {
		return attemptResult{}, err
	}
	log, err := os.Create(logPath)
	if err != nil {
		return attemptResult{}, fmt.Errorf("bench: %w", err)
	}
	defer log.Close()
	cmd := exec.Command(b.o.remodel, args...)
	cmd.Stdout, cmd.Stderr = log, log
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return attemptResult{}, fmt.Errorf("bench: starting %s: %w", b.o.remodel, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var waitErr error
	exited := false
	if target >= 0 {
		want := int64(target*float64(km.rows) + 0.5)
		wait := time.Second
		ckSeen := !first // a resumed run starts from the killed run's
	poll:
		for {
			select {
			case waitErr = <-done:
				exited = true
				break poll
			case <-ctx.Done():
				_ = cmd.Process.Kill()
				<-done
				return attemptResult{}, ctx.Err()
			case <-time.After(wait):
			}
			if _, err := os.Stat(ck); err != nil {
				if !ckSeen {
					wait = 100 * time.Millisecond
					continue
				}
				break poll // removed: the job is done, the run is ending (no kill)
			}
			ckSeen = true
			n, err := b.count(ctx, km.plan, table)
			if err != nil {
				wait = time.Second
				continue // DynamoDB Local busy: try again
			}
			if n >= want && n > start {
				if _, err := os.Stat(ck); err != nil {
					break poll // removed while counting
				}
				_ = cmd.Process.Signal(syscall.SIGKILL)
				break poll
			}
			wait = nextPoll(n-start, want-n, time.Since(t0))
		}
	}
	if !exited {
		waitErr = <-done
	}
	r := attemptResult{wall: time.Since(t0)}
	if ps := cmd.ProcessState; ps != nil {
		r.cpu = ps.UserTime() + ps.SystemTime()
	}
	var ee *exec.ExitError
	switch {
	case waitErr == nil:
	case errors.As(waitErr, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			r.killed = true
		} else {
			r.code = ee.ExitCode()
		}
	default:
		return r, fmt.Errorf("bench: remodel migrate: %w", waitErr)
	}
	return r, nil
}

// nextPoll is how long to wait before counting the table again, when
// this attempt has added added items in elapsed and left are still to come
// before the kill: half the time they take at that rate, between 100 ms and
// 5 s, so that the counting (a DescribeTable, which DynamoDB Local answers
// by counting) costs DynamoDB Local little and the kill still comes close
// to its target.
func nextPoll(added, left int64, elapsed time.Duration) time.Duration {
	if added <= 0 {
		return time.Second
	}
	d := time.Duration(float64(elapsed) * float64(left) / float64(added) / 2)
	return min(max(d, 100*time.Millisecond), 5*time.Second)
}

// count is the table's item count less the lock item of plan's table, if
// it is there.
func (b *bench) count(ctx context.Context, plan *mapping.Plan, table string) (int64, error) {
	out, err := b.db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		return 0, fmt.Errorf("bench: describing %s: %w", table, err)
	}
	n := aws.ToInt64(out.Table.ItemCount)
	lock, err := b.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: plan.Table.LockKey(), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return 0, fmt.Errorf("bench: reading the lock item of %s: %w", table, err)
	}
	if lock.Item != nil {
		n--
	}
	return n, nil
}

// settledCount is the table's count once it has not changed for a second:
// requests of a killed run that DynamoDB Local was still applying are in it.
func (b *bench) settledCount(ctx context.Context, plan *mapping.Plan, table string) (int64, error) {
	last := int64(-1)
	for {
		n, err := b.count(ctx, plan, table)
		if err != nil {
			return 0, err
		}
		if n == last {
			return n, nil
		}
		last = n
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// checkpointSummary is what the kill loop reads of a checkpoint.
type checkpointSummary struct {
	items int64 // settled, over its entities (or key ranges) and the entities of their shared reads
	// midEmbed of embedRanges: its entries (entities, or key ranges of
	// them) of the entities withEmbeds names that had rows settled and were
	// not done.
	midEmbed, embedRanges int
}

// readCheckpoint reads a checkpoint file remodel migrate wrote; withEmbeds
// names the entities with embedded rows.
func readCheckpoint(path string, withEmbeds map[string]bool) (checkpointSummary, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return checkpointSummary{}, fmt.Errorf("bench: kill loop: reading the checkpoint: %w", err)
	}
	var ck struct {
		Entities []struct {
			Name  string            `json:"name"`
			Done  bool              `json:"done"`
			After []json.RawMessage `json:"after"`
			Items int64             `json:"items"`
			Also  []struct {
				Items int64 `json:"items"`
			} `json:"also"`
		} `json:"entities"`
	}
	if err := json.Unmarshal(b, &ck); err != nil {
		return checkpointSummary{}, fmt.Errorf("bench: kill loop: the checkpoint %s: %w", path, err)
	}
	var c checkpointSummary
	for _, e := range ck.Entities {
		c.items += e.Items
		for _, a := range e.Also {
			c.items += a.Items
		}
		if withEmbeds[e.Name] {
			c.embedRanges++
			if !e.Done && len(e.After) > 0 {
				c.midEmbed++
			}
		}
	}
	return c, nil
}

// checkKilledJob holds the finished job to account (see the top of this
// file): its last report, the checkpoint gone, the table's item count.
func (b *bench) checkKilledJob(ctx context.Context, run *killRun, table, ck, reportPath string) error {
	raw, err := os.ReadFile(reportPath)
	if err != nil {
		return fmt.Errorf("bench: kill loop: reading the last run's report: %w", err)
	}
	var rep migrate.Report
	if err := json.Unmarshal(raw, &rep); err != nil {
		return fmt.Errorf("bench: kill loop: the last run's report: %w", err)
	}
	_, err = os.Stat(ck)
	ckLeft := !errors.Is(err, os.ErrNotExist)
	out, err := b.db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		return fmt.Errorf("bench: describing %s: %w", table, err)
	}
	run.Items = aws.ToInt64(out.Table.ItemCount)
	if problems := jobProblems(&rep, run.M.rows, run.Kills, ckLeft, run.Items); len(problems) > 0 {
		return fmt.Errorf("bench: kill loop, %s, table %s: NOT EXACT after %d kills: %s", run.M.job(run.Ranges), table, len(run.Kills), strings.Join(problems, "; "))
	}
	return nil
}

// jobProblems lists what is wrong with a finished kill-loop job of rows
// source rows: rep is its last run's report, ckLeft whether its checkpoint
// is still there, items the table's item count (the lock item included).
func jobProblems(rep *migrate.Report, rows int64, kills []kill, ckLeft bool, items int64) []string {
	var problems []string
	if err := checkReport(rep, rows); err != nil {
		problems = append(problems, err.Error())
	}
	if rep.StrayItems != 0 {
		problems = append(problems, fmt.Sprintf("the last run found %d stray items: %v", rep.StrayItems, rep.StrayKeys))
	}
	if n := len(kills); n > 0 {
		settled := kills[n-1].Settled
		switch {
		case rep.Earlier == nil:
			problems = append(problems, "the last run's report does not say it resumed")
		case rep.Earlier.Items != settled:
			problems = append(problems, fmt.Sprintf("the last run resumed after %d items, the checkpoint settled %d", rep.Earlier.Items, settled))
		}
	}
	if ckLeft {
		problems = append(problems, "the finished job's checkpoint is still there")
	}
	if items != rows {
		problems = append(problems, fmt.Sprintf("the table holds %d items (the lock item included, if left), the source %d rows", items, rows))
	}
	return problems
}

// verifyKilled runs remodel verify on the kill loop's table (every item
// compared) and returns the first line of its report; an error unless it
// passed.
func (b *bench) verifyKilled(ctx context.Context, km *killMapping, table, logPath string) (string, error) {
	cmd := exec.CommandContext(ctx, b.o.remodel, "verify", "--source", b.o.source, "-m", km.path,
		"--endpoint", b.o.endpoint, "--table", table, "--seed", "1", "--progress", "none")
	out, err := cmd.CombinedOutput()
	_ = os.WriteFile(logPath, out, 0o644)
	first, _, _ := strings.Cut(string(out), "\n")
	if err != nil {
		return first, fmt.Errorf("bench: kill loop: remodel verify of %s: %w\n%s", table, err, out)
	}
	return first, nil
}

// tail is the end of a log file, for an error message.
func tail(path string) string {
	b, _ := os.ReadFile(path)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

func percents(fs []float64) string {
	s := make([]string, len(fs))
	for i, f := range fs {
		s[i] = fmt.Sprintf("%.0f%%", 100*f)
	}
	return strings.Join(s, ", ")
}

// writeKills prints the kill loop's lines below the bench's table: the
// mappings, one line per kill and a summary row per job, beside the
// uninterrupted run (of the main mapping).
func writeKills(w io.Writer, seed uint64, runs []killRun, uninterrupted result) {
	if len(runs) == 0 {
		return
	}
	fmt.Fprintf(w, "\n  kill -9 loop (seed %d; KILL_SEED=%d replays the targets): each kill at a target share of the job, then --resume\n", seed, seed)
	var maps []*killMapping
	for _, r := range runs {
		if !slices.Contains(maps, r.M) {
			maps = append(maps, r.M)
			fmt.Fprintf(w, "  %-9s %s: %s\n", r.M.label, r.M.path, r.M.describe())
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  %-9s %6s %4s %7s %9s %9s %10s %10s %10s  %s\n", "mapping", "ranges", "kill", "target", "attempt", "job", "in table", "settled", "rewritten", "embed mid-way")
	for _, r := range runs {
		for i, k := range r.Kills {
			mid := "-"
			if k.EmbedRanges > 0 {
				mid = fmt.Sprintf("%d of %d", k.MidEmbed, k.EmbedRanges)
			}
			fmt.Fprintf(w, "  %-9s %6d %4d %6.0f%% %9s %9s %10s %10s %10s  %s\n", r.M.label, r.Ranges, i+1, 100*k.Target,
				seconds(k.At), seconds(k.JobAt), thousands(float64(k.InTable)), thousands(float64(k.Settled)), thousands(float64(k.Rewritten())), mid)
		}
		if r.Early > 0 {
			fmt.Fprintf(w, "  %-9s %6d the last %d kill(s) not made: the run finished before its target\n", r.M.label, r.Ranges, r.Early)
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  %-46s %10s %9s %8s %7s %10s  %s\n", "job", "items/s", "wall", "CPU s/M", "x wall", "rewritten", "exact")
	if uninterrupted.Name != "" {
		fmt.Fprintf(w, "  %-46s %10s %9s %8.1f %7s %10s  %s\n", "uninterrupted, --ranges 1", thousands(uninterrupted.Rate()),
			seconds(uninterrupted.Wall), uninterrupted.CPUPerMillion(), "1.00", "0", "(remodel -> DynamoDB Local above)")
	}
	for _, r := range runs {
		res := result{Items: r.M.rows, Wall: r.Wall, CPU: r.CPU}
		ratio := "-"
		if uninterrupted.Wall > 0 && r.M.label == "main" {
			ratio = fmt.Sprintf("%.2f", r.Wall.Seconds()/uninterrupted.Wall.Seconds())
		}
		job := fmt.Sprintf("killed %d times, --ranges %d, %d runs", len(r.Kills), r.Ranges, r.Attempts)
		if r.M.label != "main" {
			job = r.M.label + ": " + job
		}
		fmt.Fprintf(w, "  %-46s %10s %9s %8.1f %7s %10s  %s\n", job,
			thousands(res.Rate()), seconds(r.Wall), res.CPUPerMillion(), ratio, thousands(float64(r.Rewritten())),
			fmt.Sprintf("%s items = rows, verify %s (%s)", thousands(float64(r.Items)), verdictWord(r.Verdict), seconds(r.Verify)))
	}
	fmt.Fprintln(w, "  in table: items in the table after the kill (DescribeTable once it stopped changing, the lock item left out);")
	fmt.Fprintln(w, "  settled: items the checkpoint counts as done; rewritten: in table - settled, written again on resume;")
	fmt.Fprintln(w, "  embed mid-way: the checkpoint's key ranges of entities with embedded rows that were part done (the resume began inside them).")
	fmt.Fprintln(w, "  wall: the runs' wall times added up; x wall: over the uninterrupted run's (which used --ranges 1, main mapping);")
	fmt.Fprintln(w, "  exact: the finished table's item count = its mapping's rows (an embedded child row is no item), and remodel")
	fmt.Fprintln(w, "  verify (every item, embedded lists included, stray items, access patterns).")
}

func verdictWord(first string) string {
	if strings.Contains(first, "PASS") {
		return "PASS"
	}
	return strings.TrimSpace(first)
}

// killLoops runs the kill loop once per mapping (the main one, then the
// embedded one) and -kill-ranges value (none without -kill-loop), with
// kill points drawn from one seed: the main mapping's first, so a seed
// replays them with or without the embedded jobs.
func (b *bench) killLoops(ctx context.Context) (uint64, []killRun, error) {
	if b.o.killLoop == 0 {
		return 0, nil, nil
	}
	seed := b.o.killSeed
	if seed == 0 {
		seed = rand.Uint64()
	}
	b.step("kill loop: seed %d (-kill-seed %d, KILL_SEED=%d, replays the kill targets)", seed, seed, seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	var runs []killRun
	for _, km := range b.kill {
		for _, r := range b.o.killRanges {
			run, err := b.killLoop(ctx, km, r, killTargets(rng, b.o.killLoop))
			if err != nil {
				return seed, runs, fmt.Errorf("%w (kill loop seed %d)", err, seed)
			}
			runs = append(runs, run)
		}
	}
	return seed, runs, nil
}

// parseRanges reads -kill-ranges: "1,4".
func parseRanges(s string) ([]int, error) {
	var rs []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("bench: -kill-ranges: %q is not a whole number of at least 1", f)
		}
		rs = append(rs, n)
	}
	return rs, nil
}
