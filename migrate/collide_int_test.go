package migrate_test

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/app/report"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
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
			// The rows are rejected in any order (render workers); the
			// earlier row is named when it is among the last keys of its
			// shard of the check.
			var rows []string
			for _, r := range rep.Rejections {
				rows = append(rows, r.Row)
				id := strings.TrimPrefix(r.Row, "tenant=2, id=")
				prefix := "key collision: renders the same key PK=EVENT#" + id + " SK=EVENT# as "
				if r.Reason != prefix+"an earlier row" && r.Reason != prefix+"entity event row tenant=1, id="+id {
					t.Errorf("rejection %+v: want a key collision with an earlier row, tenant 1's", r)
				}
			}
			slices.Sort(rows)
			if want := []string{"tenant=2, id=1200", "tenant=2, id=300", "tenant=2, id=7"}; !slices.Equal(rows, want) {
				t.Errorf("rejected %v, want %v", rows, want)
			}
			n, _ := scan(t, db, table)
			if rep.ItemsWritten != fx.total-3 || n != rep.ItemsWritten {
				t.Errorf("%d rows: %d items written, %d in the table; want %d", fx.total, rep.ItemsWritten, n, fx.total-3)
			}
			var text bytes.Buffer
			report.Write(&text, report.Text, rep)
			if rep.KeysDistinct || !strings.Contains(text.String(), "key collision check: on (the keys are not proven distinct): ") ||
				!strings.HasPrefix(strings.Join(rep.KeyProof, "\n"), "entity event: the key column tenant is not in the key") {
				t.Errorf("keys distinct %v; report:\n%s", rep.KeysDistinct, text.String())
			}
			if k := rep.KeyCheck; k == nil || k.Keys != rep.ItemsWritten || k.MemoryBytes == 0 || k.DiskBytes == 0 ||
				!strings.Contains(text.String(), fmt.Sprintf(": %d keys, ", rep.ItemsWritten)) {
				t.Errorf("the check's figures %+v, want one key an item written; report:\n%s", k, text.String())
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
			report.Write(&text, report.Text, rep)
			if !rep.KeysDistinct || rep.ItemsWritten != fx.total || n != fx.total || rep.Rejected != 0 ||
				!strings.Contains(text.String(), "key collision check: skipped, proven unnecessary (") ||
				!strings.HasPrefix(strings.Join(rep.KeyProof, "\n"), "entity event: the primary key (tenant, id)") {
				t.Errorf("proven: keys distinct %v, %d items written, %d in the table, of %d rows; report:\n%s", rep.KeysDistinct, rep.ItemsWritten, n, fx.total, text.String())
			}
			if rep.KeyCheck != nil {
				t.Errorf("proven: the check ran: %+v", rep.KeyCheck)
			}

			// --key-check always: the same proven mapping, checked anyway
			// (in the least memory): every row written, none rejected.
			o = fx.options(db, tableName(t, db))
			o.CreateTable, o.KeyCheckAlways, o.KeyCheckMemory = true, true, 1<<20
			rep, err = migrate.Run(ctx, o)
			if err != nil {
				t.Fatalf("Run (--key-check always): %v", err)
			}
			text.Reset()
			report.Write(&text, report.Text, rep)
			if rep.KeysDistinct || !rep.KeyCheckForced || rep.ItemsWritten != fx.total || rep.Rejected != 0 || rep.KeyCheck == nil || rep.KeyCheck.Keys != fx.total ||
				!strings.Contains(text.String(), "key collision check: on (--key-check always):") {
				t.Errorf("always: keys distinct %v, forced %v, %d items written of %d rows, %d rejected, check %+v; report:\n%s",
					rep.KeysDistinct, rep.KeyCheckForced, rep.ItemsWritten, fx.total, rep.Rejected, rep.KeyCheck, text.String())
			}
		})
	}
}

const settingsSQL = `CREATE TABLE settings (
    user_id INT NOT NULL,
    service VARCHAR(32) NOT NULL,
    kind    VARCHAR(32) NOT NULL,
    grp     INT NOT NULL,
    PRIMARY KEY (user_id, service, kind)
);
INSERT INTO settings (user_id, service, kind, grp) VALUES
  (1, 'mail', 'theme', 1), (1, 'mail', 'lang#x', 1), (2, 'news', 'theme', 1), (3, 'web', 'tz', 1);
`

const settingsMapping = `version: 1
table:
  name: settings
  key: {pk: PK, sk: SK}
entities:
  setting:
    from: settings
    pk: "U#{user_id}"
    sk: "S#{service}#{kind}"
`

// TestKeyCheckOnData: "S#{service}#{kind}" is not proven from the schema
// ({service} may hold "#"), so migrate asks the snapshot: while no service
// holds "#" (a kind may: it is last) the check is skipped, the report
// saying it was proven on the data of this snapshot and which column was
// checked; rows left out by the entity's where do not count; once a
// service holds "#", the check stays on and catches the real collision
// ('a', 'b#c') and ('a#b', 'c').
func TestKeyCheckOnData(t *testing.T) {
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			t.Parallel()
			endpoint := testenv.DynamoDB(t)
			db := newDB(t, endpoint)
			ctx := testContext(t)

			dsn := eng.Fresh(t)
			eng.Exec(t, dsn, settingsSQL)
			run := func(mapping string) (*migrate.Report, string) {
				t.Helper()
				fx := open(t, dsn, "mapping.yaml", mapping)
				o := fx.options(db, tableName(t, db))
				o.CreateTable, o.MaxRejects = true, 100
				rep, err := migrate.Run(ctx, o)
				if err != nil {
					t.Fatalf("Run: %v", err)
				}
				if n, _ := scan(t, db, o.Table); n != rep.ItemsWritten || rep.ItemsWritten+rep.Rejected != fx.total {
					t.Errorf("%d rows: %d items written, %d rejected, %d in the table", fx.total, rep.ItemsWritten, rep.Rejected, n)
				}
				var text bytes.Buffer
				report.Write(&text, report.Text, rep)
				return rep, text.String()
			}

			rep, text := run(settingsMapping)
			if !rep.KeysDistinct || !rep.KeysOnData || rep.Rejected != 0 || !strings.Contains(text, "key collision check: skipped, proven unnecessary on this snapshot's data (") ||
				!slices.Contains(rep.KeyProof, "proven on the data of this snapshot: entity setting: service holds no \"#\"") {
				t.Errorf("clean data: keys distinct %v, on data %v; report:\n%s", rep.KeysDistinct, rep.KeysOnData, text)
			}

			eng.Exec(t, dsn, "INSERT INTO settings (user_id, service, kind, grp) VALUES (7, 'a#b', 'c', 2), (7, 'a', 'b#c', 2);")
			filtered := strings.Replace(settingsMapping, "    from: settings\n", "    from: settings\n    where: \"grp = 1\"\n", 1)
			rep, text = run(filtered)
			if !rep.KeysOnData || rep.Rejected != 0 || rep.ItemsWritten != 4 {
				t.Errorf("where grp = 1: keys on data %v, %d written, %d rejected; report:\n%s", rep.KeysOnData, rep.ItemsWritten, rep.Rejected, text)
			}

			rep, text = run(settingsMapping)
			if rep.KeysDistinct || rep.KeysOnData || !strings.Contains(text, "key collision check: on (the keys are not proven distinct)") ||
				!slices.Contains(rep.KeyProof, "entity setting: service holds \"#\" in a value, and the key needs it not to") {
				t.Errorf("a service with \"#\": keys distinct %v; report:\n%s", rep.KeysDistinct, text)
			}
			if len(rep.Rejections) != 1 || rep.Rejections[0].Row != "user_id=7, service=a#b, kind=c" ||
				rep.Rejections[0].Reason != "key collision: renders the same key PK=U#7 SK=S#a#b#c as entity setting row user_id=7, service=a, kind=b#c" {
				t.Errorf("rejections %+v: want the second (in key order) of the two rows rendering S#a#b#c", rep.Rejections)
			}
		})
	}
}

// TestKeyCheckOnDataNeedsOneCut: a MySQL user without RELOAD gets readers
// whose snapshots are taken a moment apart (the report's snapshot
// warning). The data proof asks one reader, while the rows are read by
// others, in other snapshots: a row holding the separator could be added
// between them and collide unseen. So on such a snapshot the proof is not
// completed on the data: the collision check stays on, and the report says
// why.
func TestKeyCheckOnDataNeedsOneCut(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	db := newDB(t, endpoint)
	ctx := testContext(t)
	dsn := testenv.MySQL(t)
	testenv.ExecMySQL(t, dsn, settingsSQL)
	cfg := testenv.MySQLConfig(t, dsn)
	user := testenv.UniqueName("review_noreload")
	testenv.ExecMySQL(t, dsn, "CREATE USER '"+user+"'@'%'; GRANT ALL ON `"+cfg.DBName+"`.* TO '"+user+"'@'%';")
	t.Cleanup(func() { testenv.ExecMySQL(t, dsn, "DROP USER IF EXISTS '"+user+"'@'%'") })

	fx := open(t, "mysql://"+user+"@"+cfg.Addr+"/"+cfg.DBName, "mapping.yaml", settingsMapping)
	o := fx.options(db, tableName(t, db))
	o.CreateTable, o.Ranges = true, 2 // two readers: a snapshot that needs the global read lock
	rep, err := migrate.Run(ctx, o)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if rep.SnapshotWarning == "" {
		t.Fatalf("no snapshot warning for a user without RELOAD: the test does not test what it says")
	}
	var text bytes.Buffer
	report.Write(&text, report.Text, rep)
	if rep.KeysDistinct || rep.KeysOnData || !strings.Contains(text.String(), "key collision check: on (the keys are not proven distinct)") ||
		!slices.ContainsFunc(rep.KeyProof, func(s string) bool { return strings.Contains(s, "do not share one snapshot") }) {
		t.Errorf("readers a moment apart: keys distinct %v, on data %v; report:\n%s", rep.KeysDistinct, rep.KeysOnData, text.String())
	}
	if rep.ItemsWritten != fx.total || rep.Rejected != 0 {
		t.Errorf("%d rows: %d written, %d rejected", fx.total, rep.ItemsWritten, rep.Rejected)
	}
}
