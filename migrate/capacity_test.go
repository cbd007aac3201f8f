package migrate_test

import (
	"fmt"
	"testing"

	"github.com/remodel-dev/remodel/internal/testsupport/faultproxy"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/migrate"
)

const capacityMapping = `version: 1
table:
  name: events
  key: {pk: PK, sk: SK}
entities:
  event:
    from: ev
    pk: "{grp}"
    sk: "E#{id|pad:8}"
`

// capacityRun migrates rows rows (grp names each row's partition key, an
// SQL expression of g, the row's number) into DynamoDB Local behind the
// capacity model c, with writers writers, fixed or adapting, and returns
// the share of the model's allowance the run used.
func capacityRun(t *testing.T, rows int, grp string, c faultproxy.Capacity, writers int, fixed bool) (float64, faultproxy.CapacityStats, *migrate.Report) {
	t.Helper()
	endpoint := testenv.DynamoDB(t)
	script := fmt.Sprintf(`CREATE TABLE ev (id int PRIMARY KEY, grp text NOT NULL, payload text NOT NULL);
INSERT INTO ev SELECT g, %s, repeat('x', 100) FROM generate_series(1, %d) g;`, grp, rows)
	fx := load(t, testenv.Engines[0], script, capacityMapping)
	direct := newDB(t, endpoint)
	table := tableName(t, direct)
	p, _, db := proxy(t, endpoint, 1)
	o := fx.options(db, table)
	o.CreateTable = true
	o.Writers, o.FixedWriters = writers, fixed
	o.Backoff = migrate.DefaultBackoff
	if err := p.SetCapacity(&c); err != nil {
		t.Fatal(err)
	}
	rep, err := migrate.Run(testContext(t), o)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	checkLanded(t, fx, rep, direct, table)
	s := p.CapacityStats()
	share := c.Share(s)
	t.Logf("fixed %v, %d writers: %.2f of the model's allowance; %d items admitted, %d throttled (%d requests wholly), %s of model time; report: %d throttled, %d retries",
		fixed, writers, share, s.Admitted, s.Throttled, s.ThrottledRequests, s.Elapsed, rep.Throttled, rep.Retries)
	return share, s, rep
}

// TestAdaptiveConcurrency: behind the capacity model's table limit (800
// write units a second, real time: below what DynamoDB Local takes on a
// loaded machine, so the model is the bottleneck), on an even dataset (one
// item a partition key), the adapting writers use at least 0.85 of the
// model's allowance over the run (its share: the least time the model
// needs for the units admitted, over the time from the first admitted
// write to the last), and more of it than a fixed pool of as many writers,
// which pauses on every throttled answer and backs off ever longer.
func TestAdaptiveConcurrency(t *testing.T) {
	c := faultproxy.Capacity{PartitionKey: "PK", TableLimit: 800}
	share, _, _ := capacityRun(t, 4000, `'G' || g`, c, 16, false)
	fshare, _, _ := capacityRun(t, 4000, `'G' || g`, c, 16, true)
	if share < 0.85 {
		t.Errorf("the adapting writers used %.2f of the model's allowance, want ≥ 0.85", share)
	}
	if fshare >= share {
		t.Errorf("a fixed pool used %.2f of the model's allowance, the adapting writers %.2f", fshare, share)
	}
}

// TestWarmThroughputLocal: DynamoDB Local takes a CreateTable with
// WarmThroughput (it enforces no capacity at all), so --create-table
// --warm-throughput runs against it.
func TestWarmThroughputLocal(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	fx := load(t, testenv.Engines[0], `CREATE TABLE ev (id int PRIMARY KEY, grp text NOT NULL, payload text NOT NULL);
INSERT INTO ev SELECT g, 'G' || g, 'x' FROM generate_series(1, 10) g;`, capacityMapping)
	db := newDB(t, endpoint)
	table := tableName(t, db)
	o := fx.options(db, table)
	o.CreateTable = true
	o.WarmThroughput = &migrate.WarmThroughput{Write: 12000, Read: 24000}
	rep, err := migrate.Run(testContext(t), o)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	checkLanded(t, fx, rep, db, table)
}

// TestSkewedCapacity: one large item collection (1 500 items on one
// partition key, read first, whose limit is a quarter of the table's)
// beside 2 500 one-item partitions, behind the capacity model: the hot
// key's batches go on in lanes at their key's pace (batchwrite.Lanes) while the
// writers take the other keys' batches, so the run uses at least 0.85 of
// what the model allows (the least time is the hot key's: 1 500 units at
// 200 a second, less its bucket's burst). Without lanes every writer
// ends up retrying a hot batch and the others wait: about 0.8.
func TestSkewedCapacity(t *testing.T) {
	c := faultproxy.Capacity{PartitionKey: "PK", TableLimit: 800, KeyLimit: 200}
	share, s, _ := capacityRun(t, 4000, `CASE WHEN g <= 1500 THEN 'HOT' ELSE 'G' || g END`, c, 16, false)
	if s.HotKeyUnits != 1500 {
		t.Fatalf("the hot key had %.0f units, want 1500", s.HotKeyUnits)
	}
	if share < 0.85 {
		t.Errorf("skewed: the writers used %.2f of the model's allowance, want ≥ 0.85", share)
	}
}
