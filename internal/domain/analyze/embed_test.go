package analyze_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/remodel-dev/remodel/internal/domain/analyze"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/migrate"
)

// TestEmbeddedRows analyses the game-profile example (a profile's
// inventory and achievements embedded in its item) on both engines: the
// embedded rows are read with their parent's, so the analysis's item count
// and item bytes equal what migrate writes into DynamoDB Local (before,
// the analysis stopped: the rows of an embed were not read with the row).
func TestEmbeddedRows(t *testing.T) {
	yaml, err := os.ReadFile(filepath.Join("..", "..", "..", "examples", "game-profile", "mapping.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			dsn := eng.Fresh(t)
			testenv.LoadExample(t, eng.Name, dsn, filepath.Join("..", "..", "..", "examples", "game-profile"))
			p, src := compile(t, dsn, string(yaml))
			embeds := 0
			for _, e := range p.Entities {
				embeds += len(e.Embeds())
			}
			if embeds == 0 {
				t.Fatal("the game-profile mapping has no embeds: this test tests nothing")
			}
			ctx := context.Background()
			rep, err := analyze.Run(ctx, analyze.Options{Plan: p, Source: src, Readers: 2})
			if err != nil {
				t.Fatal(err)
			}
			db, name := testenv.DynamoDBTable(t)
			mrep, err := migrate.Run(ctx, migrate.Options{Plan: p, Source: src, DB: db, Table: name, CreateTable: true, Writers: 4})
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
