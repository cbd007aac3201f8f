package analyze

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/remodel-dev/remodel/internal/domain/av"
	"github.com/remodel-dev/remodel/internal/domain/embedread"
	"github.com/remodel-dev/remodel/internal/domain/pricing"
	"github.com/remodel-dev/remodel/internal/domain/progress"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/mapping"
)

// Options configure one analysis.
type Options struct {
	Plan   *mapping.Plan
	Source source.Source
	// Readers is how many source connections read entities in parallel
	// (0: 4, at most one per entity), as in migrate.
	Readers int
	// SampleRate is the share of each entity's rows analysed, chosen by a
	// hash of the row's source key (the same rows every run); 0 or 1: all.
	SampleRate float64
	// RateLimit is the load's rate in write units per second into the table
	// (migrate's --rate-limit); 0: not given. It is the rate the hot
	// partition check and the provisioned load are figured at.
	RateLimit int64
	// Prices is the price table for the cost; nil: pricing.Default().
	Prices *pricing.Prices
	// Traffic are the rates of the access patterns whose month of queries
	// is priced (by name; CheckTraffic checks them).
	Traffic map[string]Traffic
	// Top is how many of the largest partitions are listed (0: 5).
	Top int
	// Progress gets an "analyze" phase: per entity, the rows read of its
	// rows (the source's estimate); nil: none.
	Progress *progress.Tracker
}

// DynamoDB's limits and constants the analysis measures against.
const (
	// ItemOverhead is the bytes DynamoDB adds to every item, of the table
	// and of each index, when it bills storage.
	ItemOverhead = 100
	// CollectionLimit is the largest item collection (the items of one
	// partition key value, with their local index entries) of a table with
	// a local index: 10 GB.
	CollectionLimit = 10 << 30
	// PartitionWriteLimit is the write units per second one partition takes.
	PartitionWriteLimit = 1000
	// DefaultProvisionedRate is the load's rate the provisioned cost is
	// figured at when no rate is given.
	DefaultProvisionedRate = 1000
	// topKeys is how many keys each Space-Saving summary watches.
	topKeys = 1024
)

// record is one row on its way from a reader to the aggregator: its item's
// measures, or why it is rejected.
type record struct {
	entity int
	src    string // source key
	reject *mapping.RowError
	size   int64
	key    string   // table key text, for the collision check
	pks    []string // per index of the table (0: the table): the partition key text, "" when the item is not in it
	sizes  []int64  // per index of the table (0: the table): the item's size as it holds it (its keys and projected attributes)
	json   int64    // bytes of its line in a DynamoDB JSON import file
	lock   bool     // the item has the lock item's key
}

// Run reads every entity of the plan (or the sample's share of its rows)
// and returns the report.
func Run(ctx context.Context, o Options) (*Report, error) {
	if o.Readers < 1 {
		o.Readers = 4
	}
	o.Readers = min(o.Readers, max(1, len(o.Plan.Entities)))
	if o.SampleRate <= 0 || o.SampleRate > 1 || math.IsNaN(o.SampleRate) {
		if o.SampleRate != 0 {
			return nil, fmt.Errorf("analyze: the sample share must be more than 0 and at most 1, got %v", o.SampleRate)
		}
		o.SampleRate = 1
	}
	if o.Prices == nil {
		o.Prices = pricing.Default()
	}
	if err := CheckTraffic(o.Plan, o.Traffic); err != nil {
		return nil, fmt.Errorf("analyze: %w", err)
	}
	if o.Top < 1 {
		o.Top = 5
	}
	snap, err := o.Source.Snapshot(ctx, o.Readers+embedread.Readers(o.Plan, o.Readers))
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	readers, pool := snap.Readers()[:o.Readers], embedread.NewPool(snap.Readers()[o.Readers:])

	a, err := newAggregate(o)
	if err != nil {
		return nil, err
	}
	defer a.close()
	tasks := make([]progress.Task, len(o.Plan.Entities))
	for i, e := range o.Plan.Entities {
		tasks[i] = progress.Task{Name: e.Name, Total: progress.Unknown}
		if o.Progress == nil {
			continue
		}
		if n, exact, known := source.RowsTotal(ctx, readers[0], e.Table, e.Where); known {
			tasks[i].Total, tasks[i].Exact = n, exact
		}
	}
	ph := o.Progress.Phase("analyze", "rows", tasks)
	records := make(chan record, 1024)
	jobs := make(chan int)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		defer close(jobs)
		for i := range o.Plan.Entities {
			select {
			case jobs <- i:
			case <-gctx.Done():
				return gctx.Err()
			}
		}
		return nil
	})
	g.Go(func() error {
		defer close(records)
		rg, rctx := errgroup.WithContext(gctx)
		for _, r := range readers {
			rg.Go(func() error {
				for i := range jobs {
					if err := readEntity(rctx, o, r, pool, i, records, ph.Counter(i)); err != nil {
						return fmt.Errorf("analyze: reading entity %s: %w", o.Plan.Entities[i].Name, err)
					}
				}
				return nil
			})
		}
		return rg.Wait()
	})
	g.Go(func() error {
		for rec := range records {
			if err := a.add(rec); err != nil {
				return err
			}
		}
		return nil
	})
	err = g.Wait()
	ph.End(err == nil)
	if err != nil {
		return nil, err
	}
	rep := a.report()
	rep.Engine = string(o.Source.Engine())
	rep.SnapshotWarning = snap.Warning()
	return rep, nil
}

// readEntity streams entity i's rows with their embedded child rows
// (embedread.Stream, as migrate reads them: child rows by readers from
// pool), renders the sampled ones and sends their records on.
func readEntity(ctx context.Context, o Options, r source.Reader, pool embedread.Pool, i int, out chan<- record, read *progress.Counter) error {
	e := o.Plan.Entities[i]
	t := &o.Plan.Table
	return embedread.Stream(ctx, r, pool, e, func(row []any, kids [][][]any, dup *mapping.RowError) error {
		read.Add(1)
		src := e.SourceKey(row)
		rec := record{entity: i, src: src}
		if o.SampleRate < 1 && !Sampled(src, o.SampleRate) {
			rec.entity = -1 - i // read, not sampled
		} else {
			item, size, err := e.RenderRead(row, kids, dup)
			var re *mapping.RowError
			switch {
			case errors.As(err, &re):
				rec.reject = re
			case err != nil:
				return err
			default:
				if err := measure(t, item, size, &rec); err != nil {
					return err
				}
			}
		}
		select {
		case out <- rec:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
}

// measure fills in the record of an item that renders.
func measure(t *mapping.Table, item mapping.Item, size int, rec *record) error {
	rec.size = int64(size)
	rec.key = t.KeyString(item)
	rec.lock = t.IsLock(item)
	rec.pks = make([]string, 1+len(t.Indexes))
	rec.sizes = make([]int64, 1+len(t.Indexes))
	rec.pks[0] = av.KeyText(item[t.PK.Name])
	rec.sizes[0] = rec.size
	for j, ix := range t.Indexes {
		rec.pks[1+j] = indexPK(ix, item)
		if rec.pks[1+j] != "" {
			rec.sizes[1+j] = int64(ix.ItemSize(item, size))
		}
	}
	line, ok := av.AppendImportLine(nil, item)
	if !ok {
		return fmt.Errorf("analyze: encoding item %s as DynamoDB JSON: a value of a type remodel does not write", rec.key)
	}
	rec.json = int64(len(line)) // the line with its newline
	return nil
}

// indexPK is the text of the item's partition key in the index, or "" when
// the item is not in it: an index holds the items that have every one of
// its key attributes (a local index: its sort key).
func indexPK(ix *mapping.Index, item mapping.Item) string {
	if !ix.Holds(item) {
		return ""
	}
	parts := make([]string, len(ix.PK))
	for i, k := range ix.PK {
		parts[i] = av.KeyText(item[k.Name])
	}
	return strings.Join(parts, ", ")
}

// Sampled reports whether the row with this source key is in a sample of
// the given share: the first 8 bytes of the key's SHA-256, as a fraction of
// 2^64, are below it (verify's --sample-rate chooses rows the same way).
func Sampled(key string, share float64) bool {
	sum := sha256.Sum256([]byte(key))
	return float64(binary.BigEndian.Uint64(sum[:8])) < share*math.MaxUint64
}
