package sourcetest

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"reflect"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/testsupport/canon"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/introspect"
)

// Context is a context for a test, ended after two minutes or with the
// test.
func Context(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// Open opens dsn and closes it when the test ends.
func Open(t *testing.T, ctx context.Context, dsn string) source.Source {
	t.Helper()
	src, err := source.Open(ctx, dsn)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { src.Close() })
	return src
}

// InspectTable reads the schema through src and returns the named table.
func InspectTable(t *testing.T, ctx context.Context, src source.Source, name string) *introspect.Table {
	t.Helper()
	s, err := src.Inspect(ctx)
	if err != nil {
		t.Fatalf("Inspect: %v", err)
	}
	if s.Engine != src.Engine() {
		t.Fatalf("Inspect: schema of engine %q from a %q source", s.Engine, src.Engine())
	}
	tab, err := s.Table(name)
	if err != nil {
		t.Fatalf("Inspect: %v (tables: %v)", err, s.TableNames())
	}
	return tab
}

// OpenSnapshot opens a snapshot of n readers, closed when the test ends.
func OpenSnapshot(t *testing.T, ctx context.Context, src source.Source, n int) source.Snapshot {
	t.Helper()
	snap, err := src.Snapshot(ctx, n)
	if err != nil {
		t.Fatalf("Snapshot(%d): %v", n, err)
	}
	t.Cleanup(func() { snap.Close() })
	if got := len(snap.Readers()); got != n {
		t.Fatalf("Snapshot(%d) has %d readers", n, got)
	}
	return snap
}

// Reader is the one reader of a fresh snapshot.
func Reader(t *testing.T, ctx context.Context, src source.Source) source.Reader {
	t.Helper()
	return OpenSnapshot(t, ctx, src, 1).Readers()[0]
}

// Scan reads t with ScanTable, copying each row (the row slice is reused).
func Scan(t *testing.T, ctx context.Context, r source.Reader, tab *introspect.Table, where string, limit int) [][]any {
	t.Helper()
	var rows [][]any
	err := r.ScanTable(ctx, tab, where, limit, func(row []any) error {
		if len(row) != len(tab.Columns) {
			t.Fatalf("ScanTable row has %d values for %d columns", len(row), len(tab.Columns))
		}
		rows = append(rows, append([]any(nil), row...))
		return nil
	})
	if err != nil {
		t.Fatalf("ScanTable(%s, where %q, limit %d): %v", tab.Name, where, limit, err)
	}
	return rows
}

// Query runs sql with Query, decoding columns by tab's columns, and returns
// the column names and copied rows.
func Query(t *testing.T, ctx context.Context, r source.Reader, tab *introspect.Table, sql string, args ...any) ([]string, [][]any) {
	t.Helper()
	var names []string
	var rows [][]any
	err := r.Query(ctx, sql, args, tab.Column, func(n []string, row []any) error {
		names = append([]string(nil), n...)
		rows = append(rows, append([]any(nil), row...))
		return nil
	})
	if err != nil {
		t.Fatalf("Query(%s, %v): %v", sql, args, err)
	}
	return names, rows
}

// SameJSON reports whether two JSON texts are the same document, numbers
// compared by their exact text.
func SameJSON(a, b []byte) bool {
	decode := func(b []byte) (any, bool) {
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			return nil, false
		}
		if _, err := d.Token(); err != io.EOF {
			return nil, false
		}
		return v, true
	}
	va, oka := decode(a)
	vb, okb := decode(b)
	return oka && okb && reflect.DeepEqual(va, vb)
}

// CheckRow compares one row with its expected canonical values, column by
// column: JSON as documents (and as []byte), everything else with
// canonEqual.
func CheckRow(t *testing.T, what string, cols []*introspect.Column, got, want []any) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d values, want %d", what, len(got), len(want))
		return
	}
	for i, c := range cols {
		if _, isErr := want[i].(error); c.Kind == introspect.KindJSON && want[i] != nil && !isErr {
			g, ok := got[i].([]byte)
			if !ok || !SameJSON(g, want[i].([]byte)) {
				t.Errorf("%s: column %s = %s, want the JSON document %s", what, c.Name, canon.Show(got[i]), want[i])
			}
			continue
		}
		if !canon.Equal(got[i], want[i]) {
			t.Errorf("%s: column %s (%s) = %s, want %s", what, c.Name, c.Kind, canon.Show(got[i]), canon.Show(want[i]))
		}
	}
}

// CheckSameRows compares rows read two ways: identical canonical values,
// JSON byte for byte.
func CheckSameRows(t *testing.T, what string, cols []*introspect.Column, got, want [][]any) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d rows, want %d", what, len(got), len(want))
		return
	}
	for i := range want {
		for j, c := range cols {
			if !canon.Equal(got[i][j], want[i][j]) {
				t.Errorf("%s: row %d column %s = %s, want %s", what, i, c.Name, canon.Show(got[i][j]), canon.Show(want[i][j]))
			}
		}
	}
}

// IDs returns the first value of each row, which the tests make the id.
func IDs(rows [][]any) []any {
	out := make([]any, len(rows))
	for i, r := range rows {
		out[i] = r[0]
	}
	return out
}

// ColumnIndex is the index of the column name in tab, failing the test
// when there is none.
func ColumnIndex(t *testing.T, tab *introspect.Table, name string) int {
	t.Helper()
	for i, c := range tab.Columns {
		if c.Name == name {
			return i
		}
	}
	t.Fatalf("table %s has no column %s", tab.Name, name)
	return -1
}

// RootDB opens the database at a mysql:// DSN as its user, for checks that
// go around the source.
func RootDB(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("mysql", testenv.MySQLConfig(t, dsn).FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
