package source_test

import (
	"context"
	"testing"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/internal/domain/source/sourcetest"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/introspect"
)

// TestWritebackInsertTwice: an insert applied again (a change replayed
// after a crash, before its position was saved) finds its row as it
// leaves it: Applied, counted as already there, on both engines (MySQL
// refuses the key with an error, PostgreSQL's insert does nothing); an
// insert whose key holds other values is Deferred, nothing written.
func TestWritebackInsertTwice(t *testing.T) {
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			ctx := sourcetest.Context(t)
			dsn := eng.Fresh(t)
			eng.Exec(t, dsn, "CREATE TABLE w (id int PRIMARY KEY, name varchar(20) NOT NULL)")
			src := sourcetest.Open(t, ctx, dsn)
			tab := sourcetest.InspectTable(t, ctx, src, "w")
			wb, err := source.OpenWriteback(ctx, src)
			if err != nil {
				t.Fatal(err)
			}
			defer wb.Close()
			row := func(id int64, name string) []source.RowWrite {
				cvs := []source.ColumnValue{{tab.Columns[0], id}, {tab.Columns[1], name}}
				return []source.RowWrite{{Op: source.WriteInsert, Table: tab, Key: cvs[:1], New: cvs, Row: "id=1"}}
			}
			for i, want := range []struct {
				name    string
				kind    source.OutcomeKind
				already int
			}{{"a", source.Applied, 0}, {"a", source.Applied, 1}, {"b", source.Deferred, 0}} {
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
func scanByIDAny(t *testing.T, ctx context.Context, src source.Source, tab *introspect.Table) []string {
	t.Helper()
	snap, err := src.Snapshot(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	var out []string
	for _, r := range sourcetest.Scan(t, ctx, snap.Readers()[0], tab, "", 0) {
		out = append(out, r[1].(string))
	}
	return out
}

// TestWritebackJSONGuard: an update of a JSON column is guarded by the
// document's value, not its text: a row stored with other spacing, key
// order and number forms is found and updated; a row holding another
// document is a Conflict, nothing written. On both engines (MariaDB's JSON
// is text, compared through JSON_NORMALIZE; MySQL's CAST AS JSON,
// PostgreSQL's jsonb).
func TestWritebackJSONGuard(t *testing.T) {
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			ctx := sourcetest.Context(t)
			dsn := eng.Fresh(t)
			typ := map[string]string{"postgres": "jsonb", "mysql": "json"}[eng.Name]
			eng.Exec(t, dsn, "CREATE TABLE w (id int PRIMARY KEY, doc "+typ+")")
			eng.Exec(t, dsn, `INSERT INTO w VALUES (1, '{"b": 1.50,  "a": [1, {}]}')`)
			src := sourcetest.Open(t, ctx, dsn)
			tab := sourcetest.InspectTable(t, ctx, src, "w")
			wb, err := source.OpenWriteback(ctx, src)
			if err != nil {
				t.Fatal(err)
			}
			defer wb.Close()
			update := func(old, new string) source.OutcomeKind {
				t.Helper()
				key := []source.ColumnValue{{tab.Columns[0], int64(1)}}
				out, err := wb.Apply(ctx, []source.RowWrite{{Op: source.WriteUpdate, Table: tab, Key: key, Row: "id=1",
					Old: append(key, source.ColumnValue{tab.Columns[1], []byte(old)}), New: []source.ColumnValue{{tab.Columns[1], []byte(new)}}}})
				if err != nil {
					t.Fatal(err)
				}
				return out.Kind
			}
			if k := update(`{"a":[1,{}],"b":1.5}`, `{"c":true}`); k != source.Applied {
				t.Errorf("update guarded by the same document in another text: outcome %d, want Applied", k)
			}
			if k := update(`{"a":[1,{}],"b":1.5}`, `{"d":1}`); k != source.Conflict {
				t.Errorf("update guarded by a document the row no longer holds: outcome %d, want Conflict", k)
			}
			if k := update(`{"c": true}`, `{"e":null}`); k != source.Applied {
				t.Errorf("update guarded by the document written: outcome %d, want Applied", k)
			}
		})
	}
}
