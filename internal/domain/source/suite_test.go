package source_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/internal/domain/source/sourcetest"
	"github.com/remodel-dev/remodel/internal/testsupport/canon"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/introspect"
)

// The shared suite: one logical table, spelled in each engine's SQL, must
// read back as the same canonical values from both.

func TestSharedSuite(t *testing.T) {
	for _, e := range testenv.Engines {
		t.Run(e.Name, func(t *testing.T) {
			dsn := e.Fresh(t)
			e.Exec(t, dsn, sourcetest.ItemsSQL[e.Name])
			ctx := sourcetest.Context(t)
			src := sourcetest.Open(t, ctx, dsn)
			tab := sourcetest.InspectTable(t, ctx, src, "items")
			checkItemsColumns(t, tab)
			if !reflect.DeepEqual(tab.PrimaryKey, []string{"id"}) {
				t.Fatalf("items primary key = %v, want [id]", tab.PrimaryKey)
			}
			r := sourcetest.Reader(t, ctx, src)

			t.Run("ScanTable", func(t *testing.T) {
				rows := sourcetest.Scan(t, ctx, r, tab, "", 0)
				if len(rows) != len(sourcetest.ItemsRows) {
					t.Fatalf("ScanTable read %d rows, want %d: ids %v", len(rows), len(sourcetest.ItemsRows), sourcetest.IDs(rows))
				}
				for i, want := range sourcetest.ItemsRows {
					sourcetest.CheckRow(t, "row "+canon.Show(want[0]), tab.Columns, rows[i], want)
				}
			})

			t.Run("limit and where", func(t *testing.T) {
				for _, tc := range []struct {
					where string
					limit int
					want  []any
				}{
					{"", 2, []any{int64(1), int64(2)}},
					{"", 1, []any{int64(1)}},
					{"", 5, []any{int64(1), int64(2), int64(3), int64(4), int64(5)}},
					{"", 99, []any{int64(1), int64(2), int64(3), int64(4), int64(5)}},
					{"big > 3", 0, []any{int64(1), int64(4), int64(5)}},
					{"big > 3", 2, []any{int64(1), int64(4)}},
					{"name = 'four' OR id = 2", 0, []any{int64(2), int64(4)}},
					{"note IS NULL", 0, []any{int64(2)}},
					{"1 = 0", 0, []any{}},
				} {
					got := sourcetest.IDs(sourcetest.Scan(t, ctx, r, tab, tc.where, tc.limit))
					if !reflect.DeepEqual(got, tc.want) {
						t.Errorf("ScanTable(where %q, limit %d) ids = %v, want %v", tc.where, tc.limit, got, tc.want)
					}
				}
			})

			t.Run("ScanTable stops on the callback's error", func(t *testing.T) {
				stop := errors.New("stop here")
				calls := 0
				err := r.ScanTable(ctx, tab, "", 0, func([]any) error {
					calls++
					return stop
				})
				if !errors.Is(err, stop) || calls != 1 {
					t.Fatalf("ScanTable = %v after %d calls, want the callback's error after 1", err, calls)
				}
				// The reader is still usable.
				if n := len(sourcetest.Scan(t, ctx, r, tab, "", 0)); n != len(sourcetest.ItemsRows) {
					t.Fatalf("ScanTable after a stopped scan read %d rows", n)
				}
			})

			t.Run("Count", func(t *testing.T) {
				emptyBytes := map[string]string{"postgres": `payload = '\x'`, "mysql": "payload = ''"}[e.Name]
				for _, tc := range []struct {
					where string
					want  int64
				}{
					{"", 5},
					{"big > 3", 3},
					{"note = 'x'", 2},
					{"active", 2},
					{emptyBytes, 1},
					{"1 = 0", 0},
				} {
					where, want := tc.where, tc.want
					n, err := r.Count(ctx, tab, where)
					if err != nil {
						t.Fatalf("Count(%q): %v", where, err)
					}
					if n != want {
						t.Errorf("Count(%q) = %d, want %d", where, n, want)
					}
				}
			})

			t.Run("Sample", func(t *testing.T) { testSample(t, ctx, r, tab) })

			t.Run("Sample is fixed by its seed", func(t *testing.T) {
				sample := func(seed int64) string {
					got, err := r.Sample(ctx, tab, []string{"name", "active"}, "", 2, seed)
					if err != nil {
						t.Fatalf("Sample(seed %d): %v", seed, err)
					}
					return fmt.Sprint(got)
				}
				picks := map[string]bool{}
				for seed := range int64(12) {
					first := sample(seed)
					if again := sample(seed); again != first {
						t.Fatalf("seed %d sampled %s, then %s", seed, first, again)
					}
					picks[first] = true
				}
				// 4 tuples, 2 drawn: 12 seeds must not all draw the same pair
				// (or the seed changes nothing).
				if len(picks) < 2 {
					t.Fatalf("12 seeds all sampled %v", picks)
				}
			})

			t.Run("Guard keeps the reader usable after a failing statement", func(t *testing.T) {
				err := r.Guard(ctx, func() error {
					_, err := r.Count(ctx, tab, "no_such_column = 1")
					return err
				})
				if err == nil || !strings.Contains(err.Error(), "no_such_column") {
					t.Fatalf("Guard(a bad where) = %v, want the statement's error", err)
				}
				// Without the guard PostgreSQL would answer "current transaction
				// is aborted" from here on.
				n, err := r.Count(ctx, tab, "")
				if err != nil || n != int64(len(sourcetest.ItemsRows)) {
					t.Fatalf("Count after a guarded failure = %d, %v; want %d", n, err, len(sourcetest.ItemsRows))
				}
				if err := r.Guard(ctx, func() error { return nil }); err != nil {
					t.Fatalf("Guard(success) = %v", err)
				}
			})

			t.Run("Query", func(t *testing.T) { testQuery(t, ctx, r, tab) })
		})
	}
}

func checkItemsColumns(t *testing.T, tab *introspect.Table) {
	t.Helper()
	if len(tab.Columns) != len(itemsColumns) {
		t.Fatalf("items has %d columns, want %d", len(tab.Columns), len(itemsColumns))
	}
	for i, want := range itemsColumns {
		c := tab.Columns[i]
		if c.Name != want.name || c.Kind != want.kind || c.Precision != want.precision {
			t.Fatalf("items column %d = %s %s (precision %d), want %s %s (precision %d)",
				i, c.Name, c.Kind, c.Precision, want.name, want.kind, want.precision)
		}
	}
}

func testSample(t *testing.T, ctx context.Context, r source.Reader, tab *introspect.Table) {
	colIndex := func(name string) int {
		for i, c := range tab.Columns {
			if c.Name == name {
				return i
			}
		}
		t.Fatalf("no column %s", name)
		return -1
	}
	for _, tc := range []struct {
		cols  []string
		where string
		n     int
		want  int // number of tuples
	}{
		{[]string{"active"}, "", 10, 2},
		{[]string{"note"}, "", 10, 3}, // first, third, x twice; NULL left out
		{[]string{"note"}, "", 2, 2},
		{[]string{"name", "active"}, "", 10, 4},
		{[]string{"name", "active"}, "", 3, 3},
		{[]string{"name"}, "id >= 4", 10, 2},
		{[]string{"at_tz", "amount", "payload"}, "", 10, 4},
		{[]string{"note"}, "1 = 0", 10, 0},
	} {
		got, err := r.Sample(ctx, tab, tc.cols, tc.where, tc.n, 1)
		if err != nil {
			t.Fatalf("Sample(%v, %q, %d): %v", tc.cols, tc.where, tc.n, err)
		}
		if len(got) != tc.want {
			t.Errorf("Sample(%v, %q, %d) = %d tuples, want %d: %v", tc.cols, tc.where, tc.n, len(got), tc.want, got)
		}
		for i, tuple := range got {
			if len(tuple) != len(tc.cols) {
				t.Fatalf("Sample(%v) tuple of %d values", tc.cols, len(tuple))
			}
			// Each tuple is the canonical value of some matching row, never NULL.
			found := false
			for _, row := range sourcetest.ItemsRows {
				match := true
				for j, c := range tc.cols {
					if tuple[j] == nil || !canon.Equal(tuple[j], row[colIndex(c)]) {
						match = false
						break
					}
				}
				if match {
					found = true
					break
				}
			}
			if !found {
				t.Errorf("Sample(%v) tuple %v is no row's values", tc.cols, sourcetest.ShowAll(tuple))
			}
			for _, other := range got[:i] {
				if sourcetest.CanonEqualAll(tuple, other) {
					t.Errorf("Sample(%v) returned %v twice", tc.cols, sourcetest.ShowAll(tuple))
				}
			}
		}
	}
}

func testQuery(t *testing.T, ctx context.Context, r source.Reader, tab *introspect.Table) {
	scanned := sourcetest.Scan(t, ctx, r, tab, "", 0)
	p1, p2 := r.Placeholder(1), r.Placeholder(2)
	colNames := make([]string, len(tab.Columns))
	for i, c := range tab.Columns {
		colNames[i] = c.Name
	}

	// One row at a time by a bound key: the same values as ScanTable.
	for _, want := range scanned {
		names, rows := sourcetest.Query(t, ctx, r, tab, "SELECT * FROM items WHERE id = "+p1, want[0])
		if !reflect.DeepEqual(names, colNames) {
			t.Fatalf("Query column names = %v, want %v", names, colNames)
		}
		if len(rows) != 1 {
			t.Fatalf("Query of id %v returned %d rows", want[0], len(rows))
		}
		sourcetest.CheckSameRows(t, "Query vs ScanTable, id "+canon.Show(want[0]), tab.Columns, rows, [][]any{want})
	}

	// Without parameters too (MySQL: another protocol).
	_, all := sourcetest.Query(t, ctx, r, tab, "SELECT * FROM items ORDER BY id")
	sourcetest.CheckSameRows(t, "Query without parameters vs ScanTable", tab.Columns, all, scanned)

	// Canonical values bound back as parameters find their rows, as verify
	// does with sampled values.
	for i, c := range tab.Columns {
		if c.Kind == introspect.KindJSON {
			continue // no equality operator for json in PostgreSQL
		}
		v := sourcetest.ItemsRows[0][i]
		var want []any
		for _, row := range sourcetest.ItemsRows {
			if canon.Equal(row[i], v) {
				want = append(want, row[0])
			}
		}
		_, rows := sourcetest.Query(t, ctx, r, tab, "SELECT id FROM items WHERE "+c.Name+" = "+p1+" ORDER BY id", v)
		if got := sourcetest.IDs(rows); !reflect.DeepEqual(got, want) {
			t.Errorf("Query where %s = %s: ids %v, want %v", c.Name, canon.Show(v), got, want)
		}
	}

	// Two parameters, in order.
	_, rows := sourcetest.Query(t, ctx, r, tab, "SELECT id, name FROM items WHERE note = "+p1+" AND id > "+p2+" ORDER BY id", "x", int64(4))
	sourcetest.CheckSameRows(t, "Query with two parameters", tab.Columns[:1], rows, [][]any{{int64(5), "five"}})
	if len(rows) == 1 && rows[0][1] != "five" {
		t.Errorf("Query with two parameters: name = %s", canon.Show(rows[0][1]))
	}

	// A value is bound, never pasted into the SQL.
	const inject = `x' OR '1'='1`
	if _, rows := sourcetest.Query(t, ctx, r, tab, "SELECT id FROM items WHERE name = "+p1, inject); len(rows) != 0 {
		t.Errorf("Query with %q as a parameter returned %d rows, want 0", inject, len(rows))
	}
	// (Pasted, it would have matched every row: the check above can fail.)
	if _, rows := sourcetest.Query(t, ctx, r, tab, "SELECT id FROM items WHERE name = '"+inject+"'"); len(rows) != len(sourcetest.ItemsRows) {
		t.Fatalf("pasted injection matched %d rows, want all %d", len(rows), len(sourcetest.ItemsRows))
	}
	// Non-ASCII values are bound exactly.
	if _, rows := sourcetest.Query(t, ctx, r, tab, "SELECT id FROM items WHERE name = "+p1, "Zoë 東京 🚀"); !reflect.DeepEqual(sourcetest.IDs(rows), []any{int64(1)}) {
		t.Errorf("Query by a non-ASCII name: ids %v, want [1]", sourcetest.IDs(rows))
	}

	// A column kindOf does not know is read as text.
	var got []any
	err := r.Query(ctx, "SELECT id, COUNT(*) AS n FROM items WHERE id = "+p1+" GROUP BY id", []any{int64(4)},
		func(name string) *introspect.Column {
			if name == "id" {
				return tab.Column("id")
			}
			return nil
		},
		func(names []string, row []any) error {
			got = append([]any(nil), row...)
			return nil
		})
	if err != nil {
		t.Fatalf("Query with an unknown column: %v", err)
	}
	if !reflect.DeepEqual(got, []any{int64(4), "1"}) {
		t.Errorf("Query with an unknown column = %v, want [4 \"1\"]", sourcetest.ShowAll(got))
	}

	// An error in the SQL is returned, not swallowed.
	if err := r.Query(ctx, "SELECT no_such_column FROM items", nil, tab.Column, func([]string, []any) error { return nil }); err == nil {
		t.Errorf("Query with a bad column succeeded")
	}
}

// TestSnapshotConsistency shows that every reader of a snapshot keeps
// seeing the cut it was opened on while another connection writes.
func TestSnapshotConsistency(t *testing.T) {
	for _, e := range testenv.Engines {
		t.Run(e.Name, func(t *testing.T) {
			dsn := e.Fresh(t)
			e.Exec(t, dsn, `
CREATE TABLE t (id int PRIMARY KEY, v varchar(10));
INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c');`)
			ctx := sourcetest.Context(t)
			src := sourcetest.Open(t, ctx, dsn)
			tab := sourcetest.InspectTable(t, ctx, src, "t")

			snap := sourcetest.OpenSnapshot(t, ctx, src, 3)
			if w := snap.Warning(); w != "" {
				t.Errorf("Warning() = %q, want \"\" (the test user can take a consistent cut)", w)
			}

			// Another connection changes the table after the snapshot.
			e.Exec(t, dsn, `
INSERT INTO t VALUES (4, 'd'), (5, 'e');
DELETE FROM t WHERE id = 1;
UPDATE t SET v = 'changed' WHERE id = 2;`)

			want := [][]any{{int64(1), "a"}, {int64(2), "b"}, {int64(3), "c"}}
			var wg sync.WaitGroup
			var mu sync.Mutex
			results := map[int][][]any{}
			counts := map[int]int64{}
			errs := map[int]error{}
			for i, r := range snap.Readers() {
				wg.Add(1)
				go func() {
					defer wg.Done()
					n, err := r.Count(ctx, tab, "")
					var rows [][]any
					if err == nil {
						err = r.ScanTable(ctx, tab, "", 0, func(row []any) error {
							rows = append(rows, append([]any(nil), row...))
							return nil
						})
					}
					mu.Lock()
					defer mu.Unlock()
					results[i], counts[i], errs[i] = rows, n, err
				}()
			}
			wg.Wait()
			for i := range snap.Readers() {
				if errs[i] != nil {
					t.Fatalf("reader %d: %v", i, errs[i])
				}
				if counts[i] != 3 {
					t.Errorf("reader %d: Count = %d, want the snapshot's 3", i, counts[i])
				}
				if !reflect.DeepEqual(results[i], want) {
					t.Errorf("reader %d: rows %v, want the snapshot's %v", i, results[i], want)
				}
			}

			// A new snapshot sees the change, so the one above really was older.
			r := sourcetest.Reader(t, ctx, src)
			n, err := r.Count(ctx, tab, "")
			if err != nil {
				t.Fatal(err)
			}
			if n != 4 {
				t.Errorf("a new snapshot counts %d rows, want 4", n)
			}
			got := sourcetest.IDs(sourcetest.Scan(t, ctx, r, tab, "", 0))
			sort.Slice(got, func(a, b int) bool { return got[a].(int64) < got[b].(int64) })
			if !reflect.DeepEqual(got, []any{int64(2), int64(3), int64(4), int64(5)}) {
				t.Errorf("a new snapshot reads ids %v", got)
			}
		})
	}
}

// TestQuotedIdentifiers reads a table whose names need quoting, in both
// engines.
func TestQuotedIdentifiers(t *testing.T) {
	ddl := map[string]string{
		"postgres": `CREATE SCHEMA "Odd Schema";
CREATE TABLE "Odd Schema"."We""ird Table" ("Id" integer PRIMARY KEY, "order" text, "x""y" integer);
INSERT INTO "Odd Schema"."We""ird Table" VALUES (2, 'b', 20), (1, 'a', 10), (3, NULL, 30);`,
		"mysql": "CREATE TABLE `We``ird Table` (`Id` int PRIMARY KEY, `order` text, `x\"y` int);\n" +
			"INSERT INTO `We``ird Table` VALUES (2, 'b', 20), (1, 'a', 10), (3, NULL, 30);",
	}
	names := map[string]string{"postgres": `We"ird Table`, "mysql": "We`ird Table"}
	for _, e := range testenv.Engines {
		t.Run(e.Name, func(t *testing.T) {
			dsn := e.Fresh(t)
			e.Exec(t, dsn, ddl[e.Name])
			ctx := sourcetest.Context(t)
			src := sourcetest.Open(t, ctx, dsn)
			tab := sourcetest.InspectTable(t, ctx, src, names[e.Name])
			r := sourcetest.Reader(t, ctx, src)
			want := [][]any{{int64(1), "a", int64(10)}, {int64(2), "b", int64(20)}, {int64(3), nil, int64(30)}}
			sourcetest.CheckSameRows(t, "ScanTable", tab.Columns, sourcetest.Scan(t, ctx, r, tab, "", 0), want)
			if n, err := r.Count(ctx, tab, ""); err != nil || n != 3 {
				t.Errorf("Count = %d, %v, want 3", n, err)
			}
			got, err := r.Sample(ctx, tab, []string{"order", "x\"y"}, "", 10, 1)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 2 {
				t.Errorf("Sample = %v, want 2 tuples", got)
			}
		})
	}
}

// TestSnapshotOneCutUnderWrites opens a snapshot of many readers while
// another connection inserts rows as fast as it can: every reader must see
// the same cut (readers that each took their own snapshot would count
// different numbers of rows).
func TestSnapshotOneCutUnderWrites(t *testing.T) {
	ddl := map[string]string{
		"postgres": "CREATE TABLE w (id serial PRIMARY KEY);",
		"mysql":    "CREATE TABLE w (id int AUTO_INCREMENT PRIMARY KEY) ENGINE=InnoDB;",
	}
	for _, e := range testenv.Engines {
		t.Run(e.Name, func(t *testing.T) {
			dsn := e.Fresh(t)
			e.Exec(t, dsn, ddl[e.Name])
			ctx := sourcetest.Context(t)
			src := sourcetest.Open(t, ctx, dsn)
			tab := sourcetest.InspectTable(t, ctx, src, "w")
			insert := sourcetest.Writer(t, ctx, e.Name, dsn)

			var inserted atomic.Int64
			stop := make(chan struct{})
			done := make(chan error, 1)
			go func() {
				for {
					select {
					case <-stop:
						done <- nil
						return
					default:
					}
					if err := insert(); err != nil {
						done <- err
						return
					}
					inserted.Add(1)
				}
			}()
			waitFor := func(n int64) {
				t.Helper()
				deadline := time.Now().Add(30 * time.Second)
				for inserted.Load() < n {
					if time.Now().After(deadline) {
						close(stop)
						t.Fatalf("the writer made only %d inserts: %v", inserted.Load(), <-done)
					}
					time.Sleep(time.Millisecond)
				}
			}
			waitFor(20)
			snap := sourcetest.OpenSnapshot(t, ctx, src, 8)
			waitFor(inserted.Load() + 20) // writes after the cut
			close(stop)
			if err := <-done; err != nil {
				t.Fatalf("writer: %v", err)
			}

			var counts []int64
			for _, r := range snap.Readers() {
				n, err := r.Count(ctx, tab, "")
				if err != nil {
					t.Fatal(err)
				}
				counts = append(counts, n)
			}
			for i, n := range counts {
				if n != counts[0] {
					t.Fatalf("readers of one snapshot count different rows: %v", counts)
				}
				if n >= inserted.Load() {
					t.Fatalf("reader %d counts %d rows of %d inserted: the snapshot is not older than the last writes", i, n, inserted.Load())
				}
			}
			t.Logf("%d readers count %d rows; %d inserted in all", len(counts), counts[0], inserted.Load())
		})
	}
}

var itemsColumns = []struct {
	name      string
	kind      introspect.Kind
	precision int
}{
	{"id", introspect.KindInt, 0},
	{"big", introspect.KindInt, 0},
	{"amount", introspect.KindDecimal, 0},
	{"ratio", introspect.KindFloat, 0},
	{"active", introspect.KindBool, 0},
	{"name", introspect.KindString, 0},
	{"body", introspect.KindString, 0},
	{"payload", introspect.KindBytes, 0},
	{"day", introspect.KindDate, 0},
	{"at", introspect.KindTimestamp, 3},
	{"at_tz", introspect.KindTimestampTZ, 3},
	{"doc", introspect.KindJSON, 0},
	{"note", introspect.KindString, 0},
}
