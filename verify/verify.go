package verify

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/remodel-dev/remodel/internal/domain/backoff"
	"github.com/remodel-dev/remodel/internal/domain/dynamo"
	"github.com/remodel-dev/remodel/internal/domain/progress"
	"github.com/remodel-dev/remodel/internal/domain/s3out"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/mapping"
)

// Options configure one verification.
type Options struct {
	Plan   *mapping.Plan
	Source source.Source
	DB     dynamo.API
	Table  string // empty: the mapping's table name
	// Samples is how many parameter sets each access pattern is checked with.
	Samples int
	// Seed fixes which parameter values are sampled: two runs with the same
	// seed on the same data check the same parameters.
	Seed int64
	// SkipItems leaves out the item-by-item comparison (and with it the
	// naming of stray items and the checks of accepted rejects).
	SkipItems bool
	// SampleRate is the share of each entity's rows the item check compares
	// (more than 0, at most 1), chosen by a hash of each row's source key so
	// that every run compares the same rows. Zero means 1: every row. A
	// sampled check does not name stray items or accepted rejects the
	// source lacks (it does not meet every row).
	SampleRate float64
	// Readers is how many entities the item check reads at once, each on
	// a source connection of its own (and one more per embed) of the same
	// snapshot (zero: 4).
	Readers int
	// Workers is how many BatchGetItem calls the item check makes at once
	// per entity (zero: 8), and Backoff their retry policy (zero:
	// backoff.Default).
	Workers int
	Backoff backoff.Policy
	// MaxProblems caps how many problems each check lists; all are counted.
	// 0 lists them all.
	MaxProblems int
	// JoinLimit is, for a check of files, how many items of the objects
	// are held in memory at once at most (zero: DefaultJoinLimit); a
	// bucket of more is split again before it is joined (files_join.go).
	JoinLimit int
	// Rejects are rows migrate rejected (its rejected-rows file, see
	// ReadRejects), accepted as rows that are expected to have no item.
	Rejects *Rejects
	// Settle is how long, from the start of the run, a global index's Query
	// is repeated while it disagrees with the SQL, for the index to catch up
	// with the table (GSIs are eventually consistent). Zero means 10 s.
	Settle time.Duration
	// Progress receives the counts of each check as it runs (progress.go);
	// nil for none.
	Progress *progress.Tracker
	// Files, when set, checks migrate --to's ImportTable objects under this
	// prefix and their manifest, read through S3 (s3out.S3, or s3out.Dir
	// for a local directory), instead of a table (DB is not used; files.go). MappingDigest, the hex SHA-256 of the mapping
	// file, is compared with the manifest's ("": not compared, a warning).
	Files         *s3out.Location
	S3            s3out.Store
	MappingDigest string
}

// Report is the outcome of a verification. OK is true only when every check
// ran and passed. A run that could not finish still returns its report, with
// the checks done so far and Error set.
type Report struct {
	Version  int            `json:"version"` // ReportVersion
	Table    string         `json:"table"`
	Engine   string         `json:"engine"`
	OK       bool           `json:"ok"`
	Error    string         `json:"error,omitempty"` // why verify could not finish
	Seed     int64          `json:"seed"`
	Seconds  float64        `json:"seconds"`
	Counts   []CountCheck   `json:"counts"`
	Stray    Problems       `json:"stray_items"`
	Items    []ItemCheck    `json:"items,omitempty"`
	Patterns []PatternCheck `json:"access_patterns"`
	// ItemsSkipped is set when the item comparison was left out.
	ItemsSkipped bool `json:"items_skipped,omitempty"`
	// Interrupted is set when SIGINT or SIGTERM stopped the run (Error
	// then says so; the exit status is 130).
	Interrupted bool `json:"interrupted,omitempty"`
	// Rejects lists the rows accepted as rejected (--rejects).
	Rejects *RejectsReport `json:"accepted_rejects,omitempty"`
	Warning string         `json:"warning,omitempty"`
	// Files is set when the check was on migrate --to's objects, not a
	// table (Options.Files).
	Files *FilesCheck `json:"files,omitempty"`
}

// CountCheck compares the number of source rows of an entity, less the rows
// accepted as rejected, with the number of items of that entity in the table.
type CountCheck struct {
	Entity   string   `json:"entity"`
	Source   int64    `json:"source_rows"`
	Rejected int64    `json:"accepted_rejects"`
	Items    int64    `json:"items"`
	OK       bool     `json:"ok"`
	Problems Problems `json:"problems"`
}

// PatternCheck is one access pattern checked with sampled parameters.
type PatternCheck struct {
	Name    string   `json:"name"`
	Target  string   `json:"target"`
	Samples int      `json:"samples"`
	Params  []string `json:"parameters,omitempty"` // each sample's parameters, in the order checked
	Items   int64    `json:"items_compared"`
	// Problems are what the pattern got wrong, or why it could not be
	// checked (KindPatternError).
	Problems Problems `json:"problems"`
	Note     string   `json:"note,omitempty"`
	OK       bool     `json:"ok"`
	// NotChecked is set when the pattern was not checked (on files, or
	// no parameter values to sample: 0 samples): it neither passes nor
	// fails, and the reports say skipped.
	NotChecked bool `json:"not_checked,omitempty"`
}

// RejectsReport lists the rows accepted as rejected.
type RejectsReport struct {
	File  string      `json:"file"`
	Total int64       `json:"total"`
	Rows  []Rejection `json:"rows,omitempty"` // the first MaxProblems, in mapping order of entities, then by row
}

// Run verifies the table against the source. It returns the report even
// when it returns an error: the checks done until then, OK false and Error
// set.
func Run(ctx context.Context, o Options) (*Report, error) {
	if o.Table == "" {
		o.Table = o.Plan.Table.Name
	}
	if o.Samples < 1 {
		o.Samples = 10
	}
	if o.MaxProblems < 0 {
		o.MaxProblems = 0
	}
	if o.Settle <= 0 {
		o.Settle = 10 * time.Second
	}
	if o.Readers < 1 {
		o.Readers = 4
	}
	start := time.Now()
	rep := &Report{
		Version: ReportVersion, Table: o.Table, Engine: string(o.Source.Engine()), Seed: o.Seed,
		Stray: Problems{Max: o.MaxProblems}, ItemsSkipped: o.SkipItems,
	}
	if o.SampleRate < 0 || o.SampleRate > 1 || math.IsNaN(o.SampleRate) {
		err := fmt.Errorf("verify: the sample rate must be more than 0 and at most 1, got %v", o.SampleRate)
		rep.finish(time.Since(start), err)
		return rep, err
	}
	v := &verifier{o: o, t: &o.Plan.Table, settleUntil: start.Add(o.Settle), countFailed: map[string]bool{}}
	if o.Rejects != nil {
		v.rejSeen = make([]bool, len(o.Rejects.List))
		v.rejKeys = make([]string, len(o.Rejects.List))
	}
	var err error
	if o.Files != nil {
		err = v.runFiles(ctx, rep)
	} else {
		err = v.run(ctx, rep)
	}
	rep.finish(time.Since(start), err)
	return rep, err
}

func (v *verifier) run(ctx context.Context, rep *Report) error {
	if err := v.checkTable(ctx); err != nil {
		return err
	}
	// One reader counts and serves the access patterns; each of the item
	// check's reader sets (a reader and one per embed) reads one entity at
	// a time. All of them read the same snapshot.
	sets := min(v.o.Readers, len(v.o.Plan.Entities))
	if v.o.SkipItems {
		sets = 0
	}
	per := 1 + v.o.Plan.MaxEmbeds()
	source.AllowStall(v.o.Source, v.o.Backoff.Deadline) // the readers wait while items are read again
	snap, err := v.o.Source.Snapshot(ctx, 1+sets*per)
	if err != nil {
		return err
	}
	defer snap.Close()
	rep.Warning = snap.Warning()
	readers := snap.Readers()
	v.r = readers[0]
	v.itemReaders = make(chan readerSet, sets)
	for i := range sets {
		set := readers[1+i*per : 1+(i+1)*per]
		v.itemReaders <- readerSet{r: set[0], kr: set[1:]}
	}
	if v.itemsComplete() {
		v.keys = newKeySet()
		defer v.keys.close() // its files, however the run ends
	}

	// The source rows are counted first: an entity whose rows cannot be
	// counted has no item check. Then the Scan of the table, the item
	// check and the access patterns run side by side, each on readers of
	// its own: the item check claims the keys of the items it reads, the
	// Scan adds every key it meets, and what is left unclaimed once both
	// are over is a stray. The report keeps the mapping's order.
	if err := v.sourceCounts(ctx, rep); err != nil {
		return err
	}
	v.listRejects(rep)
	// A Scan or pattern that cannot finish stops the run. An item check
	// that cannot finish stops the patterns, but the Scan runs on: the
	// report then still has the counts.
	scanned := v.scanPhase()
	var checked *progress.Phase
	if !v.o.SkipItems {
		checked = v.itemsPhase(rep)
	}
	sampled := v.patternsPhase()
	g, gctx := errgroup.WithContext(ctx)
	pctx, stopPatterns := context.WithCancel(gctx)
	defer stopPatterns()
	var itemsErr error
	g.Go(func() error { return v.scanTable(gctx, rep, scanned) })
	if !v.o.SkipItems {
		g.Go(func() error {
			if itemsErr = v.itemChecks(gctx, rep, checked); itemsErr != nil {
				stopPatterns()
			}
			return nil
		})
	}
	g.Go(func() error {
		err := v.patterns(pctx, rep, sampled)
		if err != nil && gctx.Err() == nil && pctx.Err() != nil {
			return nil // stopped by the item check, whose error is the run's
		}
		return err
	})
	err = g.Wait()
	if itemsErr != nil && (err == nil || errors.Is(err, context.Canceled)) {
		err = itemsErr
	}
	if v.itemCounts == nil {
		rep.Counts = nil // the scan did not finish: no count was checked
	} else {
		v.compareCounts(rep)
		if w := v.ownItemsWarning(); w != "" {
			rep.Warning = strings.TrimPrefix(rep.Warning+"; "+w, "; ")
		}
	}
	if err != nil || v.o.SkipItems {
		return err
	}
	if v.keys != nil {
		if err := v.keys.settle(v.skipStray); err != nil {
			return err
		}
	}
	v.checkRejects(rep)
	return v.strays(ctx, rep)
}

// patterns checks the access patterns side by side (patternWorkers at a
// time) into rep.Patterns, in the mapping's order; a pattern a stopped run
// did not finish is left out.
func (v *verifier) patterns(ctx context.Context, rep *Report, phase *progress.Phase) error {
	pcs := make([]PatternCheck, len(v.o.Plan.AccessPatterns))
	done := make([]bool, len(pcs))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(patternWorkers)
	for i, ap := range v.o.Plan.AccessPatterns {
		g.Go(func() error {
			pc, err := v.pattern(gctx, ap, phase.Counter(i))
			pcs[i], done[i] = pc, err == nil
			if err == nil {
				phase.Counter(i).Finish()
			}
			return err
		})
	}
	err := g.Wait()
	phase.End(err == nil)
	for i, pc := range pcs {
		if done[i] {
			rep.Patterns = append(rep.Patterns, pc)
		}
	}
	return err
}

// itemChecks runs the item check of the entities side by side, one per
// reader set, into rep.Items in mapping order. Each entity's check keeps
// its own counts and problems. When one fails, the checks of the entities
// after it in the mapping are stopped and those before it run on: the run
// then reports the entities before the first that failed, and that one's
// error, whatever the timing.
func (v *verifier) itemChecks(ctx context.Context, rep *Report, phase *progress.Phase) error {
	ents := v.o.Plan.Entities
	ics := make([]ItemCheck, len(ents))
	errs := make([]error, len(ents))
	done := make([]bool, len(ents))
	cancels := make([]context.CancelFunc, len(ents))
	var mu sync.Mutex // guards errs, done, cancels and failed
	failed := len(ents)
	var wg sync.WaitGroup
	for i, e := range ents {
		if v.countFailed[e.Name] {
			ics[i] = ItemCheck{Entity: e.Name, Problems: v.problems()}
			ics[i].Problems.Add(Problem{Kind: KindCheckError, Entity: e.Name,
				Message: "items not compared: the rows of entity " + e.Name + " cannot be read (see its count)"})
			mu.Lock()
			done[i] = true
			mu.Unlock()
			continue
		}
		var rs readerSet
		select {
		case rs = <-v.itemReaders:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		ectx, cancel := context.WithCancel(ctx)
		mu.Lock()
		stop := failed < i
		cancels[i] = cancel
		mu.Unlock()
		if stop {
			v.itemReaders <- rs
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { v.itemReaders <- rs }()
			ic, err := v.items(ectx, e, rs, phase.Counter(i))
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs[i] = err
				if i < failed {
					failed = i
					for _, c := range cancels[i+1:] {
						if c != nil {
							c()
						}
					}
				}
				return
			}
			phase.Counter(i).Finish()
			ics[i], done[i] = ic, true
		}()
	}
	wg.Wait()
	for _, c := range cancels {
		if c != nil {
			c()
		}
	}
	for i := range ents {
		if !done[i] {
			phase.End(false)
			if errs[i] != nil {
				return errs[i]
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			return fmt.Errorf("verify: the item check of entity %s did not run", ents[i].Name) // cannot happen
		}
		rep.Items = append(rep.Items, ics[i])
	}
	phase.End(true)
	return nil
}

// patternWorkers is how many access patterns are checked at a time.
const patternWorkers = 4

// finish sorts every problem list, and sets OK, Error and Seconds.
func (rep *Report) finish(took time.Duration, err error) {
	rep.Seconds = took.Seconds()
	rep.Stray.Sort()
	rep.OK = err == nil && rep.Stray.OK()
	for i := range rep.Counts {
		rep.Counts[i].Problems.Sort()
		rep.OK = rep.OK && rep.Counts[i].OK
	}
	for i := range rep.Items {
		rep.Items[i].Problems.Sort()
		rep.OK = rep.OK && rep.Items[i].OK
	}
	for i := range rep.Patterns {
		rep.Patterns[i].Problems.Sort()
		rep.OK = rep.OK && rep.Patterns[i].OK
	}
	if rep.Files != nil {
		rep.Files.Problems.Sort()
		rep.OK = rep.OK && rep.Files.OK
	}
	if err != nil {
		rep.Error = dynamo.Explain(err).Error() // an endpoint that refuses connections: one line, not the SDK's chain
	}
}

// FailedChecks counts the report's failed checks, and all of them (the
// stray-items check included).
func (rep *Report) FailedChecks() (failed, total int) {
	count := func(ok bool) {
		total++
		if !ok {
			failed++
		}
	}
	count(rep.Stray.OK())
	if rep.Files != nil {
		count(rep.Files.OK)
	}
	for _, c := range rep.Counts {
		count(c.OK)
	}
	for _, c := range rep.Items {
		count(c.OK)
	}
	for _, c := range rep.Patterns {
		count(c.OK)
	}
	return failed, total
}

type verifier struct {
	o Options
	r source.Reader
	// itemReaders hands out the item check's reader sets, one per entity
	// checked at a time.
	itemReaders chan readerSet
	// rmu serializes the access patterns' use of r (a reader is one
	// connection): their SQL runs one at a time, their Queries on DynamoDB
	// and the waits for a global index to settle overlap.
	rmu         sync.Mutex
	t           *mapping.Table
	settleUntil time.Time // global-index queries are repeated until then
	// countFailed names the entities whose rows could not be counted: their
	// items are not compared either.
	countFailed map[string]bool
	// keys holds every item key of the table (as digests), and which of them
	// a source row claimed; nil without the item check.
	keys *keySet
	// tableItems is the table's item count as DescribeTable gives it (for
	// the number of scan segments); itemCounts the items of each entity the
	// scan counted, in mapping order.
	tableItems int64
	itemCounts []int64
	// ownItems are the keys of remodel's own items the scan met (lock
	// items, the split plan item), left out of the checks.
	ownItems []string
	// rejSeen and rejKeys follow Options.Rejects.List: whether the item
	// check met the row, and the key of the item it renders ("" if none).
	rejSeen []bool
	rejKeys []string
}

// readerSet reads one entity's rows (r) and the child rows of its embeds
// (kr, one per embed of the mapping), from the run's snapshot.
type readerSet struct {
	r  source.Reader
	kr []source.Reader
}

// itemsComplete is true when the item check meets every source row: only
// then do unclaimed item keys prove stray items, and an accepted reject the
// check never met prove a row the source lacks. (A sampled item check must
// make this false.)
func (v *verifier) itemsComplete() bool { return !v.o.SkipItems && !v.sampled() }

// sampled is true when the item check compares only a share of the rows.
func (v *verifier) sampled() bool { return v.o.SampleRate > 0 && v.o.SampleRate < 1 }

// problems is an empty problem list with the run's cap.
func (v *verifier) problems() Problems { return Problems{Max: v.o.MaxProblems} }
