package source

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"reflect"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/introspect"
)

func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// openSource opens dsn and closes it when the test ends.
func openSource(t *testing.T, ctx context.Context, dsn string) Source {
	t.Helper()
	src, err := Open(ctx, dsn)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { src.Close() })
	return src
}

// inspectTable reads the schema through src and returns the named table.
func inspectTable(t *testing.T, ctx context.Context, src Source, name string) *introspect.Table {
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

// openSnapshot opens a snapshot of n readers, closed when the test ends.
func openSnapshot(t *testing.T, ctx context.Context, src Source, n int) Snapshot {
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

// reader is the one reader of a fresh snapshot.
func reader(t *testing.T, ctx context.Context, src Source) Reader {
	t.Helper()
	return openSnapshot(t, ctx, src, 1).Readers()[0]
}

// scan reads t with ScanTable, copying each row (the row slice is reused).
func scan(t *testing.T, ctx context.Context, r Reader, tab *introspect.Table, where string, limit int) [][]any {
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

// query runs sql with Query, decoding columns by tab's columns, and returns
// the column names and copied rows.
func query(t *testing.T, ctx context.Context, r Reader, tab *introspect.Table, sql string, args ...any) ([]string, [][]any) {
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

// sameJSON reports whether two JSON texts are the same document, numbers
// compared by their exact text.
func sameJSON(a, b []byte) bool {
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

// checkRow compares one row with its expected canonical values, column by
// column: JSON as documents (and as []byte), everything else with
// canonEqual.
func checkRow(t *testing.T, what string, cols []*introspect.Column, got, want []any) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d values, want %d", what, len(got), len(want))
		return
	}
	for i, c := range cols {
		if _, isErr := want[i].(error); c.Kind == introspect.KindJSON && want[i] != nil && !isErr {
			g, ok := got[i].([]byte)
			if !ok || !sameJSON(g, want[i].([]byte)) {
				t.Errorf("%s: column %s = %s, want the JSON document %s", what, c.Name, show(got[i]), want[i])
			}
			continue
		}
		if !canonEqual(got[i], want[i]) {
			t.Errorf("%s: column %s (%s) = %s, want %s", what, c.Name, c.Kind, show(got[i]), show(want[i]))
		}
	}
}

// checkSameRows compares rows read two ways: identical canonical values,
// JSON byte for byte.
func checkSameRows(t *testing.T, what string, cols []*introspect.Column, got, want [][]any) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d rows, want %d", what, len(got), len(want))
		return
	}
	for i := range want {
		for j, c := range cols {
			if !canonEqual(got[i][j], want[i][j]) {
				t.Errorf("%s: row %d column %s = %s, want %s", what, i, c.Name, show(got[i][j]), show(want[i][j]))
			}
		}
	}
}

// ids returns the first value of each row, which the tests make the id.
func ids(rows [][]any) []any {
	out := make([]any, len(rows))
	for i, r := range rows {
		out[i] = r[0]
	}
	return out
}
