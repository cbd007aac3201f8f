package source

import (
	"context"
	"testing"

	"github.com/remodel-dev/remodel/internal/domain/introspect"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// TestWritebackInsertTwice: an insert applied again (a change replayed
// after a crash, before its position was saved) finds its row as it
// leaves it: Applied, counted as already there, on both engines (MySQL
// refuses the key with an error, PostgreSQL's insert does nothing); an
// insert whose key holds other values is Deferred, nothing written.
func TestWritebackInsertTwice(t *testing.T) {
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			ctx := testContext(t)
			dsn := eng.Fresh(t)
			eng.Exec(t, dsn, "CREATE TABLE w (id int PRIMARY KEY, name varchar(20) NOT NULL)")
			src := openSource(t, ctx, dsn)
			tab := inspectTable(t, ctx, src, "w")
			wb, err := OpenWriteback(ctx, src)
			if err != nil {
				t.Fatal(err)
			}
			defer wb.Close()
			row := func(id int64, name string) []RowWrite {
				cvs := []ColumnValue{{tab.Columns[0], id}, {tab.Columns[1], name}}
				return []RowWrite{{Op: WriteInsert, Table: tab, Key: cvs[:1], New: cvs, Row: "id=1"}}
			}
			for i, want := range []struct {
				name    string
				kind    OutcomeKind
				already int
			}{{"a", Applied, 0}, {"a", Applied, 1}, {"b", Deferred, 0}} {
				out, err := wb.Apply(ctx, row(1, want.name))
				if err != nil {
					t.Fatal(err)
				}
				if out.Kind != want.kind || out.Already != want.already {
					t.Errorf("insert %d (%s): %+v, want kind %d, already %d", i+1, want.name, out, want.kind, want.already)
				}
			}
			if got := scanByIDAny(t, ctx, src, tab); len(got) != 1 || got[0] != "a" {
				t.Errorf("the table holds %v, want the one row a", got)
			}
		})
	}
}

// scanByIDAny is the name column of tab's rows.
func scanByIDAny(t *testing.T, ctx context.Context, src Source, tab *introspect.Table) []string {
	t.Helper()
	snap, err := src.Snapshot(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	var out []string
	for _, r := range scan(t, ctx, snap.Readers()[0], tab, "", 0) {
		out = append(out, r[1].(string))
	}
	return out
}
