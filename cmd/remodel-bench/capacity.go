package main

// The capacity mode (-capacity, CAPACITY=1 in scripts/bench.sh): remodel
// migrate into DynamoDB Local behind the fault proxy's capacity model of
// DynamoDB's limits (internal/testsupport/faultproxy/capacity.go), on an even dataset
// (one item per partition key) and a skewed one (one item collection of a
// fifth of the rows, read first, beside single items: 200 000 items at a
// million rows), each reported as items/s and as the share of what the
// model allows (faultproxy.Capacity.Share), target >= 0.85.

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/internal/testsupport/faultproxy"
	"github.com/remodel-dev/remodel/introspect"
)

type capacityOptions struct {
	on   bool
	rows int
}

// capacityModel is DynamoDB's limits (1 000 WU/s a key, a new on-demand
// table's 4 000 WU/s, held fixed) slowed to a quarter in time, so that
// the table's 1 000 WU/s of real time stay below what DynamoDB Local
// takes on a shared machine and the model, not the emulator, is the limit.
var capacityModel = faultproxy.Capacity{PartitionKey: "PK", KeyLimit: 1000, TableLimit: 4000, Scale: 0.25}

// capacitySet is one dataset: rows rows, the first hot of them on one
// partition key.
type capacitySet struct {
	name      string
	rows, hot int
}

func capacitySets(rows int) []capacitySet {
	return []capacitySet{{"even", rows, 0}, {"skewed", rows, max(1, rows/5)}}
}

// table is the source table of the set.
func (s capacitySet) table() string { return "remodel_capacity_" + s.name }

// capacitySQL makes the set's source table: id, grp (the partition key:
// HOT for the first hot rows, G<id> for the others), a 100-byte payload.
func capacitySQL(engine introspect.Engine, s capacitySet) []string {
	t := s.table()
	create := fmt.Sprintf("CREATE TABLE %s (id int PRIMARY KEY, grp varchar(20) NOT NULL, payload varchar(200) NOT NULL)", t)
	return []string{"DROP TABLE IF EXISTS " + t, create, benchEngineOf(engine).fillCapacity(t, s)}
}

func capacityMapping(s capacitySet) string {
	return fmt.Sprintf(`version: 1
table:
  name: %s
  key: {pk: PK, sk: SK}
entities:
  event:
    from: %s
    pk: "{grp}"
    sk: "E#{id|pad:10}"
`, s.table(), s.table())
}

// capacityResult is one set's run.
type capacityResult struct {
	set   capacitySet
	wall  time.Duration
	stats faultproxy.CapacityStats
	share float64
}

// writeCapacity prints the results.
func writeCapacity(w io.Writer, m faultproxy.Capacity, res []capacityResult) {
	fmt.Fprintf(w, "\nCapacity model (internal/testsupport/faultproxy/capacity.go): %.0f WU/s a partition key, %.0f WU/s the table, time x%g (real time: %.0f and %.0f WU/s)\n",
		m.KeyLimit, m.TableLimit, m.Scale, m.KeyLimit*m.Scale, m.TableLimit*m.Scale)
	fmt.Fprintf(w, "%-8s %10s %10s %12s %12s %8s %s\n", "dataset", "items", "hot key", "items/s", "throttled", "share", "target >= 0.85")
	for _, r := range res {
		rate := 0.0
		if r.stats.Elapsed > 0 {
			rate = float64(r.stats.Admitted) / (r.stats.Elapsed.Seconds() / m.Scale)
		}
		verdict := "ok"
		if r.share < 0.85 {
			verdict = "BELOW"
		}
		fmt.Fprintf(w, "%-8s %10d %10d %12.0f %12d %8.2f %s\n", r.set.name, r.stats.Admitted, r.set.hot, rate, r.stats.Throttled, r.share, verdict)
	}
	fmt.Fprintln(w, "share: the least time the model needs for the units admitted (the table's at its limit, the hot key's at the key limit) over the time from the first admitted write to the last; items/s in real time")
}

// runCapacity is the capacity mode.
func runCapacity(ctx context.Context, o options, stdout, stderr io.Writer) error {
	src, err := source.Open(ctx, o.source) // which engine the DSN names
	if err != nil {
		return err
	}
	engine := src.Engine()
	src.Close()
	db, err := openSQL(ctx, engine, o.source)
	if err != nil {
		return err
	}
	defer db.close()
	work, err := os.MkdirTemp("", "remodel-bench-capacity-")
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	defer os.RemoveAll(work)
	var res []capacityResult
	for i, s := range capacitySets(o.capacity.rows) {
		fmt.Fprintf(stderr, "bench: capacity: %s dataset, %d rows (%d on one key)\n", s.name, s.rows, s.hot)
		for _, q := range capacitySQL(engine, s) {
			if err := db.exec(ctx, q); err != nil {
				return fmt.Errorf("bench: capacity: making %s: %w", s.table(), err)
			}
		}
		mp := filepath.Join(work, s.name+".yaml")
		if err := os.WriteFile(mp, []byte(capacityMapping(s)), 0o644); err != nil {
			return err
		}
		proxy, err := faultproxy.New(o.endpoint, 1)
		if err != nil {
			return err
		}
		if err := proxy.SetCapacity(&capacityModel); err != nil {
			return err
		}
		url, stop, err := serve(proxy)
		if err != nil {
			return err
		}
		m := migrateRun{bin: o.remodel, source: o.source, mapPth: mp, reads: o.readers, writes: o.writers, work: work,
			endpt: url, table: fmt.Sprintf("bench_capacity_%s_%d_%d", s.name, time.Now().Unix(), i), extra: []string{"--create-table"}}
		r, _, err := m.run(ctx, "remodel -> capacity model ("+s.name+")")
		stop()
		proxy.Close()
		if err != nil {
			return err
		}
		st := proxy.CapacityStats()
		res = append(res, capacityResult{set: s, wall: r.Wall, stats: st, share: capacityModel.Share(st)})
		_ = db.exec(ctx, "DROP TABLE "+s.table())
	}
	writeCapacity(stdout, capacityModel, res)
	return nil
}

// execer runs one SQL statement on the bench database.
type execer struct {
	exec  func(ctx context.Context, q string) error
	close func()
}

func openSQL(ctx context.Context, engine introspect.Engine, dsn string) (*execer, error) {
	return benchEngineOf(engine).openSQL(ctx, dsn)
}
