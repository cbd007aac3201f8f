package migrate_test

import (
	"maps"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/remodel-dev/remodel/internal/domain/av"
	"github.com/remodel-dev/remodel/internal/domain/dynamo"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/mapping"
	"github.com/remodel-dev/remodel/migrate"
)

// TestRenderWorkersSameTable: one render worker and several write the same
// table, item for item, and reject the same rows: with the key collision
// check on (rows far apart rendering one key) and off (the example's
// entities, shared reads, three key ranges read in parallel). On both
// engines.
func TestRenderWorkersSameTable(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			db := newDB(t, endpoint)
			dsn := eng.Fresh(t)
			eng.Exec(t, dsn, farEventsSQL())
			for _, tc := range []struct {
				name   string
				fx     *fixture
				ranges int
			}{
				{"collision check on", open(t, dsn, "mapping.yaml", eventsMapping), 1},
				{"key ranges, shared reads", personalization(t, eng), 3},
			} {
				var items []map[string]string
				var rejected [][]string
				for _, workers := range []int{1, 4} {
					table := tableName(t, db)
					o := tc.fx.options(db, table)
					o.CreateTable, o.MaxRejects, o.RenderWorkers, o.Readers, o.Ranges = true, 100, workers, 3, tc.ranges
					rep, err := migrate.Run(testContext(t), o)
					if err != nil {
						t.Fatalf("%s, %d render workers: %v", tc.name, workers, err)
					}
					var rows []string
					for _, r := range rep.Rejections {
						rows = append(rows, r.Entity+" "+r.Row)
					}
					slices.Sort(rows)
					rejected = append(rejected, rows)
					got := scanItems(t, db, table)
					if int64(len(got)) != rep.ItemsWritten || rep.ItemsWritten+rep.Rejected != tc.fx.total {
						t.Errorf("%s, %d render workers: %d items in the table, %d written, %d rejected, of %d rows", tc.name, workers, len(got), rep.ItemsWritten, rep.Rejected, tc.fx.total)
					}
					items = append(items, got)
				}
				if !maps.Equal(items[0], items[1]) {
					t.Errorf("%s: 1 render worker wrote %d items, 4 wrote %d, not the same", tc.name, len(items[0]), len(items[1]))
				}
				if !slices.Equal(rejected[0], rejected[1]) {
					t.Errorf("%s: 1 render worker rejected %v, 4 rejected %v", tc.name, rejected[0], rejected[1])
				}
				if tc.ranges == 1 && len(rejected[0]) != 3 {
					t.Errorf("%s: rejected %v, want the 3 rows of tenant 2 that repeat a key", tc.name, rejected[0])
				}
			}
		})
	}
}

// scanItems reads every item of the table, as JSON by key.
func scanItems(t *testing.T, db dynamo.API, table string) map[string]string {
	t.Helper()
	out := map[string]string{}
	p := dynamodb.NewScanPaginator(db, &dynamodb.ScanInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true)})
	for p.HasMorePages() {
		page, err := p.NextPage(testContext(t))
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page.Items {
			b := av.MarshalItem(it) // names sorted
			key := mapping.Item{"PK": it["PK"]}
			if sk, ok := it["SK"]; ok {
				key["SK"] = sk
			}
			k := av.MarshalItem(key)
			out[string(k)] = string(b)
		}
	}
	return out
}
