package migrate_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/app/report"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/migrate"
)

// accounts: 15 rows, 3 of them with a NULL in the column the sort key
// template reads.
const accountsSQL = `
CREATE TABLE accounts (
    id     INT NOT NULL PRIMARY KEY,
    region VARCHAR(16),
    name   VARCHAR(50) NOT NULL
);
INSERT INTO accounts (id, region, name) VALUES
(1, 'eu', 'a'), (2, 'us', 'b'), (3, NULL, 'c'), (4, 'eu', 'd'), (5, 'ap', 'e'),
(6, 'eu', 'f'), (7, NULL, 'g'), (8, 'us', 'h'), (9, 'us', 'i'), (10, 'eu', 'j'),
(11, 'ap', 'k'), (12, NULL, 'l'), (13, 'eu', 'm'), (14, 'us', 'n'), (15, 'eu', 'o');
`

const accountsMapping = `version: 1
table:
  name: accounts
  key: {pk: PK, sk: SK}
entities:
  account:
    from: accounts
    pk: "ACCOUNT#{id}"
    sk: "REGION#{region}"
`

var nullRows = []string{"id=3", "id=7", "id=12"}

// TestRejects: rows with a NULL in a key template are rejected, never
// written with a broken key; MaxRejects decides whether the run fails; the
// rejects file has one JSON line per rejected row.
func TestRejects(t *testing.T) {
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			t.Parallel()
			endpoint := testenv.DynamoDB(t)
			fx := load(t, eng, accountsSQL, accountsMapping)
			db := newDB(t, endpoint)
			ctx := testContext(t)
			run := func(maxRejects int64) (*migrate.Report, string, string, error) {
				table := tableName(t, db)
				o := fx.options(db, table)
				o.CreateTable = true
				o.MaxRejects = maxRejects
				o.RejectsPath = filepath.Join(t.TempDir(), "rejects.jsonl")
				rep, err := migrate.Run(ctx, o)
				return rep, o.RejectsPath, table, err
			}

			// MaxRejects 0 stops at the first rejected row, id=3.
			rep, path, _, err := run(0)
			if err == nil {
				t.Fatal("MaxRejects 0: Run succeeded with NULL keys in the source")
			}
			if !strings.HasPrefix(err.Error(), "migrate: stopped: rejected rows exceeded --max-rejects 0 (1 rejected; ") { // not the source's "reading table"
				t.Errorf("MaxRejects 0: error %q does not say the run stopped on its rejects", err)
			}
			for _, part := range []string{"entity account", "row id=3", "region is NULL"} {
				if !strings.Contains(err.Error(), part) {
					t.Errorf("MaxRejects 0: error %q does not say %q", err, part)
				}
			}
			lines := rejectLines(t, path)
			if len(lines) != 1 || lines[0].Entity != "account" || lines[0].Row != "id=3" || !strings.Contains(lines[0].Reason, "column region is NULL") {
				t.Errorf("MaxRejects 0: rejects file %+v, want the row id=3 with its reason", lines)
			}
			if rep.Rejected != 1 {
				t.Errorf("MaxRejects 0: report says %d rejected, want 1", rep.Rejected)
			}

			// One fewer than the bad rows still fails.
			if _, _, _, err := run(int64(len(nullRows) - 1)); err == nil || !strings.HasPrefix(err.Error(), "migrate: stopped: rejected rows exceeded --max-rejects 2 (3 rejected; ") {
				t.Errorf("MaxRejects 2 with 3 bad rows: %v", err)
			}

			// Enough: the good rows are written, the bad ones listed.
			rep, path, table, err := run(int64(len(nullRows)))
			if err != nil {
				t.Fatalf("MaxRejects 3: %v", err)
			}
			good := fx.total - int64(len(nullRows))
			if rep.RowsRead != fx.total || rep.ItemsWritten != good || rep.Rejected != int64(len(nullRows)) {
				t.Errorf("report: %d read, %d written, %d rejected; want %d, %d, %d", rep.RowsRead, rep.ItemsWritten, rep.Rejected, fx.total, good, len(nullRows))
			}
			if e := rep.Entities[0]; e.Rows != fx.total || e.Items != good || e.Rejected != int64(len(nullRows)) {
				t.Errorf("report, entity: %+v", e)
			}
			if n, _ := scan(t, db, table); n != good {
				t.Errorf("the table holds %d items, want the %d good rows", n, good)
			}
			if rep.RejectsFile != path || len(rep.Rejections) != len(nullRows) {
				t.Errorf("report names rejects file %q (want %q) and %d rejections", rep.RejectsFile, path, len(rep.Rejections))
			}
			var rows []string
			for _, r := range rejectLines(t, path) {
				rows = append(rows, r.Row)
				if r.Entity != "account" || !strings.Contains(r.Reason, "rendering SK") || !strings.Contains(r.Reason, "column region is NULL") {
					t.Errorf("rejection %+v: want entity account and the NULL region in the reason", r)
				}
			}
			if !slices.Equal(rows, nullRows) {
				t.Errorf("rejects file lists rows %v, want %v", rows, nullRows)
			}
			var text strings.Builder
			report.Write(&text, report.Text, rep)
			if !strings.Contains(text.String(), "rejected: entity account, row id=7") || !strings.Contains(text.String(), path) {
				t.Errorf("the text report does not list the rejections:\n%s", text.String())
			}
		})
	}
}

// eventsSQL builds rows whose keys collide under a template that ignores
// the tenant: tenant 2's ids 1-10 repeat tenant 1's, 50 rows earlier (in
// other batches); tenant 3's id 100 repeats tenant 2's, the row before it
// (in the same batch).
func eventsSQL() string {
	var vals []string
	add := func(tenant, id int) {
		vals = append(vals, fmt.Sprintf("(%d, %d, 'note %d/%d')", tenant, id, tenant, id))
	}
	for id := 1; id <= 50; id++ {
		add(1, id)
	}
	for id := 1; id <= 10; id++ {
		add(2, id)
	}
	for id := 100; id <= 104; id++ {
		add(2, id)
	}
	add(3, 100)
	return `CREATE TABLE events (
    tenant INT NOT NULL,
    id     INT NOT NULL,
    note   VARCHAR(50) NOT NULL,
    PRIMARY KEY (tenant, id)
);
INSERT INTO events (tenant, id, note) VALUES ` + strings.Join(vals, ", ") + ";\n"
}

const eventsMapping = `version: 1
table:
  name: events
  key: {pk: PK, sk: SK}
entities:
  event:
    from: events
    pk: "EVENT#{id}"
    sk: "EVENT#"
`

// TestCollisions: rows that render the same key are rejected as key
// collisions, whether they fall in one batch or far apart; none is lost
// silently by one put replacing another.
func TestCollisions(t *testing.T) {
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			t.Parallel()
			endpoint := testenv.DynamoDB(t)
			fx := load(t, eng, eventsSQL(), eventsMapping)
			db := newDB(t, endpoint)
			ctx := testContext(t)

			var want []string
			for id := 1; id <= 10; id++ {
				want = append(want, fmt.Sprintf("tenant=2, id=%d", id))
			}
			want = append(want, "tenant=3, id=100")

			table := tableName(t, db)
			o := fx.options(db, table)
			o.CreateTable = true
			o.MaxRejects = 100
			o.RejectsPath = filepath.Join(t.TempDir(), "rejects.jsonl")
			rep, err := migrate.Run(ctx, o)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			n, _ := scan(t, db, table)
			t.Logf("%d rows: %d items written, %d rejected, %d in the table", rep.RowsRead, rep.ItemsWritten, rep.Rejected, n)
			if rep.RowsRead != fx.total || rep.ItemsWritten+rep.Rejected != fx.total {
				t.Errorf("%d rows read, %d items written + %d rejected: a row is unaccounted for", rep.RowsRead, rep.ItemsWritten, rep.Rejected)
			}
			if n != rep.ItemsWritten {
				t.Errorf("the report counts %d items written, the table holds %d: rows replaced one another silently", rep.ItemsWritten, n)
			}
			if rep.Rejected != int64(len(want)) {
				t.Errorf("%d rejected, want the %d colliding rows", rep.Rejected, len(want))
			}
			var rows []string
			for _, r := range rejectLines(t, o.RejectsPath) {
				rows = append(rows, r.Row)
				if r.Entity != "event" || !strings.Contains(r.Reason, "key collision") || !strings.Contains(r.Reason, "PK=EVENT#") {
					t.Errorf("rejection %+v: want a key collision naming the key", r)
				}
			}
			if !slices.Equal(rows, want) {
				t.Errorf("rejected rows %v, want %v", rows, want)
			}

			// MaxRejects 0: the first collision stops the run.
			o.Table, o.MaxRejects, o.RejectsPath = tableName(t, db), 0, ""
			_, err = migrate.Run(ctx, o)
			if err == nil || !strings.Contains(err.Error(), "key collision") || !strings.Contains(err.Error(), "tenant=2, id=1") {
				t.Errorf("MaxRejects 0: %v, want the first collision", err)
			}
		})
	}
}
