package migrate_test

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/testenv"
	"github.com/remodel-dev/remodel/migrate"
)

// farEventsSQL: 1 500 rows of tenant 1, then tenant 2 repeating ids 7, 300
// and 1 200 of tenant 1 (hundreds to a thousand rows back: beyond the
// collision check's recent keys, so it must find them in its file), then
// tenant 2's own ids.
func farEventsSQL() string {
	var vals []string
	add := func(tenant, id int) {
		vals = append(vals, fmt.Sprintf("(%d, %d, 'note %d/%d')", tenant, id, tenant, id))
	}
	for id := 1; id <= 1500; id++ {
		add(1, id)
	}
	for _, id := range []int{7, 300, 1200, 5000, 5001} {
		add(2, id)
	}
	return `CREATE TABLE events (
    tenant INT NOT NULL,
    id     INT NOT NULL,
    note   VARCHAR(50) NOT NULL,
    PRIMARY KEY (tenant, id)
);
INSERT INTO events (tenant, id, note) VALUES ` + strings.Join(vals, ", ") + ";\n"
}

// TestKeyCheck: a mapping whose keys leave out the tenant is not proven,
// and its collisions with rows far back are each rejected while every
// other row is written (the report says the check was on, and why); the
// same rows under a key with the tenant are proven distinct, the check is
// skipped, and every row is written.
func TestKeyCheck(t *testing.T) {
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			t.Parallel()
			endpoint := testenv.DynamoDB(t)
			db := newDB(t, endpoint)
			ctx := testContext(t)

			dsn := eng.Fresh(t)
			eng.Exec(t, dsn, farEventsSQL())
			fx := open(t, dsn, "mapping.yaml", eventsMapping)
			table := tableName(t, db)
			o := fx.options(db, table)
			o.CreateTable, o.MaxRejects = true, 100
			rep, err := migrate.Run(ctx, o)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			var rows []string
			for _, r := range rep.Rejections {
				rows = append(rows, r.Row)
				if !strings.HasPrefix(r.Reason, "key collision: renders the same key PK=EVENT#") || !strings.HasSuffix(r.Reason, " as an earlier row") {
					t.Errorf("rejection %+v: want a key collision with an earlier row", r)
				}
			}
			if want := []string{"tenant=2, id=7", "tenant=2, id=300", "tenant=2, id=1200"}; !slices.Equal(rows, want) {
				t.Errorf("rejected %v, want %v", rows, want)
			}
			n, _ := scan(t, db, table)
			if rep.ItemsWritten != fx.total-3 || n != rep.ItemsWritten {
				t.Errorf("%d rows: %d items written, %d in the table; want %d", fx.total, rep.ItemsWritten, n, fx.total-3)
			}
			var text bytes.Buffer
			rep.WriteText(&text)
			if rep.KeysDistinct || !strings.Contains(text.String(), "key collision check: on (the keys are not proven distinct):\n    entity event: the key column tenant is not in the key") {
				t.Errorf("keys distinct %v; report:\n%s", rep.KeysDistinct, text.String())
			}

			proven := strings.Replace(eventsMapping, `pk: "EVENT#{id}"`, `pk: "EVENT#{tenant}#{id}"`, 1)
			fx = open(t, dsn, "mapping.yaml", proven)
			o = fx.options(db, tableName(t, db))
			o.CreateTable = true
			rep, err = migrate.Run(ctx, o)
			if err != nil {
				t.Fatalf("Run (proven): %v", err)
			}
			n, _ = scan(t, db, o.Table)
			text.Reset()
			rep.WriteText(&text)
			if !rep.KeysDistinct || rep.ItemsWritten != fx.total || n != fx.total || rep.Rejected != 0 ||
				!strings.Contains(text.String(), "key collision check: skipped, proven unnecessary:\n    entity event: the primary key (tenant, id)") {
				t.Errorf("proven: keys distinct %v, %d items written, %d in the table, of %d rows; report:\n%s", rep.KeysDistinct, rep.ItemsWritten, n, fx.total, text.String())
			}
		})
	}
}
