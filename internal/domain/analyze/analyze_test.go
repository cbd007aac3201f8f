package analyze_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/remodel-dev/remodel/internal/domain/analyze"
	"github.com/remodel-dev/remodel/internal/domain/dynamo"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/mapping"
	"github.com/remodel-dev/remodel/migrate"
)

// The skewed table: 600 of its 800 events belong to tenant acme, the other
// 200 to one tenant each; kind has two values; some bodies are over 1 KB
// (two or three write units); one row has no tenant (a NULL in the key:
// rejected).
const (
	skewRows   = 800
	skewHot    = 600
	skewSchema = `CREATE TABLE events (
  id INT NOT NULL PRIMARY KEY,
  tenant VARCHAR(20),
  kind VARCHAR(10) NOT NULL,
  body VARCHAR(3000) NOT NULL
);
`
	skewMapping = `version: 1
table:
  name: events
  key: {pk: PK, sk: SK}
  indexes:
    - {name: ByKind, pk: kind, sk: SK}
    - {name: ByLocal, local: true, sk: LSK}
entities:
  event:
    from: events
    pk: "TENANT#{tenant}"
    sk: "EVENT#{id|pad:6}"
    attributes:
      set: {LSK: "{kind}#{id|pad:6}"}
`
)

// skewData is the INSERT statements of the skewed table, the same for
// both engines.
func skewData() string {
	var b strings.Builder
	for i := 1; i <= skewRows; i++ {
		tenant := "'acme'"
		switch {
		case i == 7:
			tenant = "NULL"
		case i > skewHot:
			tenant = fmt.Sprintf("'t%d'", i)
		}
		kind := []string{"'click'", "'view'"}[i%2]
		body := strings.Repeat("x", (i*37)%2600)
		fmt.Fprintf(&b, "INSERT INTO events VALUES (%d, %s, %s, '%s');\n", i, tenant, kind, body)
	}
	return b.String()
}

func compile(t *testing.T, dsn, yaml string) (*mapping.Plan, source.Source) {
	t.Helper()
	ctx := context.Background()
	src, err := source.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	schema, err := src.Inspect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	f, err := mapping.Parse("mapping.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	p, err := mapping.Compile(f, schema)
	if err != nil {
		t.Fatal(err)
	}
	return p, src
}

// TestSkewedTable analyses the skewed table on both engines: the analysis
// names the hot partition, the low-cardinality index key and the rejected
// row; then the same rows are migrated into DynamoDB Local, and the
// analysis's item count and sizes must match what DynamoDB Local stores.
func TestSkewedTable(t *testing.T) {
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			dsn := eng.Fresh(t)
			eng.Exec(t, dsn, skewSchema)
			eng.Exec(t, dsn, skewData())
			p, src := compile(t, dsn, skewMapping)
			ctx := context.Background()
			rep, err := analyze.Run(ctx, analyze.Options{Plan: p, Source: src, RateLimit: 2000})
			if err != nil {
				t.Fatal(err)
			}

			e := rep.Entities[0]
			if e.Rows != skewRows || e.Items != skewRows-1 || e.Rejected != 1 {
				t.Errorf("entity: %d rows, %d items, %d rejected; want %d, %d, 1", e.Rows, e.Items, e.Rejected, skewRows, skewRows-1)
			}
			if len(e.Rejects) != 1 || e.Rejects[0].Examples[0] != "id=7" || !strings.Contains(e.Rejects[0].Reason, "NULL") {
				t.Errorf("rejects: %+v; want row id=7 for its NULL tenant", e.Rejects)
			}

			table := rep.Indexes[0]
			if got := table.ByItems[0]; got.Key != "TENANT#acme" || got.Weight != skewHot-1 || got.Error != 0 {
				t.Errorf("largest partition of the table: %+v; want TENANT#acme with %d items", got, skewHot-1)
			}
			if table.Partitions != 1+skewRows-skewHot {
				t.Errorf("table partitions: %d; want %d", table.Partitions, 1+skewRows-skewHot)
			}
			if !hasWarning(rep, "hot-partition", "events", "TENANT#acme") {
				t.Errorf("no hot-partition warning naming TENANT#acme on the table: %+v", rep.Warnings)
			}
			// 2000 units a second into the table, spread evenly: acme's write
			// units (its local index's included) per unit into the table.
			acme := table.ByWriteUnits[0]
			if want := 2000 * float64(acme.Weight) / float64(table.WriteUnits); math.Abs(table.PeakRate-want) > 1e-6 {
				t.Errorf("peak partition rate %v; want %v", table.PeakRate, want)
			}
			if table.PeakRate <= analyze.PartitionWriteLimit || !hasWarning(rep, "hot-partition", "events", "over the 1000") {
				t.Errorf("at 2000 units a second acme should be over 1000: %v, %+v", table.PeakRate, rep.Warnings)
			}
			// acme's rows come first in key order, one after another (but the
			// rejected id=7): one run of 599 items, which at 2000 units a
			// second is a burst over what one partition takes.
			if r := table.LongestRun; r == nil || r.Key != "TENANT#acme" || r.Items != skewHot-1 || r.WriteUnits != acme.Weight {
				t.Errorf("longest run of the table %+v; want TENANT#acme, %d items, %d units", r, skewHot-1, acme.Weight)
			}
			if !hasWarning(rep, "load-burst", "events", "599 items of entity event with PK = TENANT#acme come one after another") {
				t.Errorf("no load-burst warning for acme's run: %+v", rep.Warnings)
			}
			byKind := rep.Indexes[1]
			if r := byKind.LongestRun; r == nil || r.Items != 1 || hasWarning(rep, "load-burst", "ByKind", "") {
				t.Errorf("ByKind's kinds alternate in key order: longest run %+v, warnings %+v", r, rep.Warnings)
			}
			if byKind.Partitions != 2 || !hasWarning(rep, "low-cardinality", "ByKind", "2 partition key values") {
				t.Errorf("ByKind: %d partitions, warnings %+v; want 2 and a low-cardinality warning", byKind.Partitions, rep.Warnings)
			}
			if byKind.Amplification == nil || byKind.Amplification.Items != 1 || byKind.Amplification.WriteUnits != 1 {
				t.Errorf("ByKind amplification %+v; want 1 item and 1 unit per table write", byKind.Amplification)
			}
			if rep.Collections == nil || rep.Collections.Largest[0].Key != "TENANT#acme" {
				t.Errorf("item collections %+v; want TENANT#acme the largest", rep.Collections)
			}
			if s := e.Sizes; !(s.P50 <= s.P99 && s.P99 <= s.Max && s.Max > 2600) {
				t.Errorf("sizes %+v: want p50 <= p99 <= max, max over the longest body", s)
			}

			// The same rows into DynamoDB Local.
			db, name := testenv.DynamoDBTable(t)
			mrep, err := migrate.Run(ctx, migrate.Options{Plan: p, Source: src, DB: dynamo.New(db), Table: name, CreateTable: true, MaxRejects: 10, Writers: 4})
			if err != nil {
				t.Fatalf("migrate: %v", err)
			}
			if mrep.ItemsWritten != rep.Totals.Items || mrep.Rejected != rep.Totals.Rejected {
				t.Errorf("migrate wrote %d items and rejected %d; the analysis said %d and %d", mrep.ItemsWritten, mrep.Rejected, rep.Totals.Items, rep.Totals.Rejected)
			}
			count, size := describe(t, db, name)
			t.Logf("DynamoDB Local: %d items, %d bytes; the analysis: %d items, %d bytes of items", count, size, rep.Totals.Items, rep.Totals.DataBytes)
			if count != rep.Totals.Items {
				t.Errorf("DynamoDB Local holds %d items; the analysis says %d", count, rep.Totals.Items)
			}
			if d := math.Abs(float64(size-rep.Totals.DataBytes)) / float64(size); d > 0.01 {
				t.Errorf("DynamoDB Local's TableSizeBytes is %d; the analysis's item bytes %d (%.2f%% apart, more than 1%%)", size, rep.Totals.DataBytes, 100*d)
			}
		})
	}
}

func hasWarning(rep *analyze.Report, kind, index, text string) bool {
	for _, w := range rep.Warnings {
		if w.Kind == kind && w.Index == index && strings.Contains(w.Message, text) {
			return true
		}
	}
	return false
}

// describe returns DescribeTable's ItemCount and TableSizeBytes.
func describe(t *testing.T, db dynamo.API, name string) (int64, int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	return aws.ToInt64(out.Table.ItemCount), aws.ToInt64(out.Table.TableSizeBytes)
}
