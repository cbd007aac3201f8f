package source_test

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/internal/domain/source/sourcetest"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/introspect"
)

const playsSQL = `CREATE TABLE plays (id INT PRIMARY KEY, user_id INT NOT NULL, week INT NOT NULL, score INT, note VARCHAR(20));
INSERT INTO plays VALUES (1, 2, 1, 10, NULL), (2, 1, 1, 30, 'x'), (3, 1, 1, 20, NULL), (4, 1, 2, 5, NULL), (5, 2, 1, 40, 'y'), (6, 3, 2, NULL, NULL);
CREATE VIEW best AS SELECT user_id, max(score) AS top FROM plays GROUP BY user_id;`

// weekly is an aggregate query: the best score per user and week.
const weekly = "SELECT user_id, week, max(score) AS top, count(*) AS n FROM plays GROUP BY user_id, week -- per week"

// TestQueryTables: a query's result columns are described by the
// database; ScanTable, Count and Sample read a query as a derived table
// (where applies outside it, rows in the order of the key the mapping
// gives), and a view with a key like a table.
func TestQueryTables(t *testing.T) {
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			ctx := sourcetest.Context(t)
			dsn := eng.Fresh(t)
			eng.Exec(t, dsn, playsSQL)
			src := sourcetest.Open(t, ctx, dsn)
			s, err := src.Inspect(ctx)
			if err != nil {
				t.Fatal(err)
			}
			cols, err := src.QueryColumns(ctx, weekly)
			if err != nil {
				t.Fatalf("QueryColumns: %v", err)
			}
			var got []string
			for _, c := range cols {
				got = append(got, c.Name+" "+string(c.Kind))
			}
			if want := []string{"user_id int", "week int", "top int", "n int"}; !reflect.DeepEqual(got, want) {
				t.Fatalf("QueryColumns = %q, want %q", got, want)
			}
			q := s.AddQuery(weekly, cols)
			if s.Query(weekly) != q || q.Label() != "query" {
				t.Fatalf("Schema.Query does not find the query (%v), or its label is %q", s.Query(weekly), q.Label())
			}
			keyed := *q
			keyed.Name, keyed.PrimaryKey = "weekly", []string{"user_id", "week"}
			r := sourcetest.Reader(t, ctx, src)

			rows := sourcetest.Scan(t, ctx, r, &keyed, "", 0)
			want := [][]any{
				{int64(1), int64(1), int64(30), int64(2)},
				{int64(1), int64(2), int64(5), int64(1)},
				{int64(2), int64(1), int64(40), int64(2)},
				{int64(3), int64(2), nil, int64(1)},
			}
			if !reflect.DeepEqual(rows, want) {
				t.Errorf("ScanTable of the query = %v, want %v (in key order)", rows, want)
			}
			if rows := sourcetest.Scan(t, ctx, r, &keyed, "top >= 30", 1); !reflect.DeepEqual(rows, want[:1]) {
				t.Errorf("ScanTable(where top >= 30, limit 1) = %v, want %v", rows, want[:1])
			}
			for where, want := range map[string]int64{"": 4, "top >= 30": 2, "n > 1 AND week = 1": 2} {
				if n, err := r.Count(ctx, &keyed, where); err != nil || n != want {
					t.Errorf("Count(where %q) = %d, %v; want %d", where, n, err, want)
				}
			}
			sample, err := r.Sample(ctx, &keyed, []string{"user_id", "top"}, "week = 1", 10, 1)
			if err != nil || len(sample) != 2 {
				t.Errorf("Sample(user_id, top where week = 1) = %v, %v; want 2 tuples", sample, err)
			}

			// A query the database refuses is an *SQLError with its message.
			var se *source.SQLError
			if _, err := src.QueryColumns(ctx, "SELECT nope FROM plays"); !errors.As(err, &se) {
				t.Errorf("QueryColumns of a bad query: %v (%T), want an *SQLError", err, err)
			}
			if err := src.Prepare(ctx, source.ScanSQL(src.Engine(), &keyed, "")); err != nil {
				t.Errorf("Prepare(ScanSQL of the query): %v", err)
			}

			// A view: listed, no key of its own; with one it reads like a table.
			v, err := s.Table("best")
			if err != nil || !v.View {
				t.Fatalf("view best: %v, %+v", err, v)
			}
			vk := *v
			vk.PrimaryKey = []string{"user_id"}
			if rows := sourcetest.Scan(t, ctx, r, &vk, "top IS NOT NULL", 0); fmt.Sprint(rows) != "[[1 30] [2 40]]" {
				t.Errorf("ScanTable of the view = %v", rows)
			}
			if n, err := r.Count(ctx, &vk, ""); err != nil || n != 3 {
				t.Errorf("Count of the view = %d, %v; want 3", n, err)
			}
		})
	}
}

// TestExprColumns: a column with an Expr is the condition evaluated by the
// database in the same scan, true or false, never NULL; on a query too.
func TestExprColumns(t *testing.T) {
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			ctx := sourcetest.Context(t)
			dsn := eng.Fresh(t)
			eng.Exec(t, dsn, playsSQL)
			src := sourcetest.Open(t, ctx, dsn)
			plays := sourcetest.InspectTable(t, ctx, src, "plays")
			withCond := *plays
			withCond.Columns = append(append([]*introspect.Column(nil), plays.Columns...),
				&introspect.Column{Name: "note", Type: "boolean", Kind: introspect.KindBool, Expr: "note IS NULL"},
				&introspect.Column{Name: "_c2", Type: "boolean", Kind: introspect.KindBool, Expr: "score > 15 -- NULL for a NULL score"},
			)
			// The first condition is named like a column: the select list
			// has the name twice, the condition still reads the column.
			r := sourcetest.Reader(t, ctx, src)
			var got []string
			err := r.ScanTable(ctx, &withCond, "", 0, func(row []any) error {
				got = append(got, fmt.Sprint(row[0], row[5], row[6]))
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			want := []string{"1 true false", "2 false true", "3 true true", "4 true false", "5 false true", "6 true false"}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("id, note IS NULL, score > 15 = %q, want %q", got, want)
			}
			if eng.Name == "postgres" {
				bad := *plays
				bad.Columns = append(append([]*introspect.Column(nil), plays.Columns...),
					&introspect.Column{Name: "_c", Kind: introspect.KindBool, Expr: "score"})
				var se *source.SQLError
				if err := src.Prepare(ctx, source.ScanSQL(src.Engine(), &bad, "")); !errors.As(err, &se) || se.Error() != "argument of IS TRUE must be type boolean, not type integer (SQLSTATE 42804)" {
					t.Errorf("Prepare of a condition that is not boolean: %v", err)
				}
			}
		})
	}
}
