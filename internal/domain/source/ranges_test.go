package source_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/internal/domain/source/sourcetest"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/introspect"
)

// Key ranges: for every row's key as a bound, the rows up to it and the
// rows after it are exactly the table's rows in scan order, cut there, on
// both engines, with composite keys of text (in a case-insensitive MySQL
// collation), numbers, decimals, timestamps, dates and bytes.
var rangesSQL = map[string]string{
	"postgres": `
CREATE TABLE r_text (g varchar(20), n integer, v text, PRIMARY KEY (g, n));
INSERT INTO r_text VALUES ('b', 2, 'x'), ('B', 1, 'x'), ('a', 10, 'x'), ('a', 9, 'x'), ('Zoë', 1, 'x'), ('é', 0, 'x'), ('a b', 1, 'x');
CREATE TABLE r_time (d numeric(10,2), at timestamp(3), v text, PRIMARY KEY (d, at));
INSERT INTO r_time VALUES (1.50, '2024-01-01 00:00:00.5', 'x'), (1.5, '2024-01-01 00:00:00.25', 'x'), (-3, '1999-12-31 23:59:59.999', 'x'), (12345678.99, '2000-01-01', 'x');
CREATE TABLE r_bytes (b bytea, day date, at_tz timestamptz(3), v text, PRIMARY KEY (b, day, at_tz));
INSERT INTO r_bytes VALUES ('\x00ff', '2020-02-29', '2020-01-01 00:00:00+00', 'x'), ('\x00', '2020-01-01', '2020-01-01 00:00:00.001+00', 'x'), ('\xff', '1999-01-01', '2020-01-01 00:00:00+05:30', 'x'), ('\x00', '2020-01-01', '2020-01-01 00:00:00+00', 'x');
`,
	"mysql": `
CREATE TABLE r_text (g varchar(20), n int, v text, PRIMARY KEY (g, n)) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;
INSERT INTO r_text VALUES ('b', 2, 'x'), ('B', 1, 'x'), ('a', 10, 'x'), ('a', 9, 'x'), ('Zoë', 1, 'x'), ('é', 0, 'x'), ('a b', 1, 'x');
CREATE TABLE r_time (d decimal(10,2), at datetime(3), v text, PRIMARY KEY (d, at));
INSERT INTO r_time VALUES (1.50, '2024-01-01 00:00:00.5', 'x'), (1.5, '2024-01-01 00:00:00.25', 'x'), (-3, '1999-12-31 23:59:59.999', 'x'), (12345678.99, '2000-01-01', 'x');
CREATE TABLE r_bytes (b varbinary(8), day date, at_tz timestamp(3), v text, PRIMARY KEY (b, day, at_tz));
INSERT INTO r_bytes VALUES (X'00ff', '2020-02-29', '2020-01-01 00:00:00', 'x'), (X'00', '2020-01-01', '2020-01-01 00:00:00.001', 'x'), (X'ff', '1999-01-01', '2020-01-01 00:00:01', 'x'), (X'00', '2020-01-01', '2020-01-01 00:00:00', 'x');
`,
}

func TestScanRange(t *testing.T) {
	for _, e := range testenv.Engines {
		t.Run(e.Name, func(t *testing.T) {
			dsn := e.Fresh(t)
			e.Exec(t, dsn, rangesSQL[e.Name])
			ctx := sourcetest.Context(t)
			src := sourcetest.Open(t, ctx, dsn)
			r := sourcetest.Reader(t, ctx, src)
			for _, name := range []string{"r_text", "r_time", "r_bytes"} {
				tab := sourcetest.InspectTable(t, ctx, src, name)
				all := sourcetest.Scan(t, ctx, r, tab, "", 0)
				if len(all) < 4 {
					t.Fatalf("%s: %d rows", name, len(all))
				}
				checkRanges(t, src.Engine(), r, tab, "", all)
				// With the entity's own condition besides.
				checkRanges(t, src.Engine(), r, tab, "v = 'x'", all)
				checkBoundaries(t, r, tab, all)
			}

			// A query whose key may be NULL: the NULL rows sort last on
			// PostgreSQL and first on MySQL, and are in exactly one range.
			tab := sourcetest.InspectTable(t, ctx, src, "r_text")
			q := *tab
			q.Query = "SELECT g, n, v FROM r_text UNION ALL SELECT NULL, 5, 'x' UNION ALL SELECT 'b', NULL, 'x'"
			q.Schema, q.Name = "", "nullable"
			q.Columns = nil
			for _, c := range tab.Columns {
				c := *c
				c.Nullable = true
				q.Columns = append(q.Columns, &c)
			}
			all := sourcetest.Scan(t, ctx, r, &q, "", 0)
			if len(all) != 9 {
				t.Fatalf("nullable query: %d rows, want 9", len(all))
			}
			checkRanges(t, src.Engine(), r, &q, "", all)
		})
	}
}

// checkRanges cuts all (the rows matching where, in scan order) at every
// row whose key can bound a range, and at every pair of them.
func checkRanges(t *testing.T, eng introspect.Engine, r source.Reader, tab *introspect.Table, where string, all [][]any) {
	t.Helper()
	ctx := sourcetest.Context(t)
	keyOf := func(row []any) source.KeyBound {
		var k source.KeyBound
		for _, name := range tab.PrimaryKey {
			for i, c := range tab.Columns {
				if c.Name == name {
					k = append(k, row[i])
				}
			}
		}
		return k
	}
	usable := func(k source.KeyBound) bool {
		for i, name := range tab.PrimaryKey {
			if !source.BoundValueOK(eng, tab.Column(name), k[i]) {
				return false
			}
		}
		return true
	}
	read := func(kr source.KeyRange) [][]any {
		var rows [][]any
		err := r.ScanRange(ctx, tab, where, kr, func(row []any) error {
			rows = append(rows, append([]any(nil), row...))
			return nil
		})
		if err != nil {
			t.Fatalf("%s: ScanRange(%v): %v", tab.Label(), kr, err)
		}
		return rows
	}
	same := func(what string, got, want [][]any) {
		t.Helper()
		if !reflect.DeepEqual(show2(got), show2(want)) {
			t.Errorf("%s %s (where %q): got\n%s\nwant\n%s", tab.Label(), what, where, show2(got), show2(want))
		}
	}
	cuts := 0
	for i, row := range all {
		k := keyOf(row)
		if !usable(k) {
			continue
		}
		cuts++
		same(fmt.Sprintf("up to row %d %v", i, k), read(source.KeyRange{UpTo: k}), all[:i+1])
		same(fmt.Sprintf("after row %d %v", i, k), read(source.KeyRange{After: k}), all[i+1:])
		for j := i; j < len(all); j++ {
			k2 := keyOf(all[j])
			if !usable(k2) {
				continue
			}
			same(fmt.Sprintf("after row %d up to row %d", i, j), read(source.KeyRange{After: k, UpTo: k2}), all[i+1:j+1])
		}
	}
	if cuts < 3 {
		t.Errorf("%s: only %d rows could bound a range", tab.Label(), cuts)
	}
}

// checkBoundaries splits the table into 2, 3 and 10 ranges: read one
// after another they are all its rows in scan order, none empty, and
// the ranges hold about as many rows each.
func checkBoundaries(t *testing.T, r source.Reader, tab *introspect.Table, all [][]any) {
	t.Helper()
	ctx := sourcetest.Context(t)
	for _, n := range []int{2, 3, 10} {
		bs, err := r.KeyBoundaries(ctx, tab, "", n)
		if err != nil {
			t.Fatalf("%s: KeyBoundaries(%d): %v", tab.Label(), n, err)
		}
		per := (len(all) + n - 1) / n
		wantRanges := (len(all) + per - 1) / per
		if len(bs) != wantRanges-1 {
			t.Errorf("%s: KeyBoundaries(%d) = %d boundaries, want %d", tab.Label(), n, len(bs), wantRanges-1)
		}
		var got [][]any
		var prev source.KeyBound
		for i := 0; i <= len(bs); i++ {
			var upTo source.KeyBound
			if i < len(bs) {
				upTo = bs[i]
			}
			var part [][]any
			err := r.ScanRange(ctx, tab, "", source.KeyRange{After: prev, UpTo: upTo}, func(row []any) error {
				part = append(part, append([]any(nil), row...))
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(part) == 0 || i < len(bs) && len(part) != per {
				t.Errorf("%s: range %d of %d holds %d rows (of %d)", tab.Label(), i+1, len(bs)+1, len(part), len(all))
			}
			got = append(got, part...)
			prev = upTo
		}
		if show2(got) != show2(all) {
			t.Errorf("%s: the %d ranges read\n%s\nwant\n%s", tab.Label(), len(bs)+1, show2(got), show2(all))
		}
	}
}

func show2(rows [][]any) string {
	var b strings.Builder
	for _, r := range rows {
		for _, v := range r {
			switch x := v.(type) {
			case time.Time:
				fmt.Fprintf(&b, "%s ", x.UTC().Format(time.RFC3339Nano))
			case []byte:
				fmt.Fprintf(&b, "%x ", x)
			default:
				fmt.Fprintf(&b, "%v ", x)
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func TestBoundValueOK(t *testing.T) {
	for _, tc := range []struct {
		e    introspect.Engine
		c    introspect.Column
		v    any
		want bool
	}{
		{introspect.Postgres, introspect.Column{Kind: introspect.KindInt}, int64(1), true},
		{introspect.Postgres, introspect.Column{Kind: introspect.KindInt}, nil, false},
		{introspect.MySQL, introspect.Column{Kind: introspect.KindInt}, "18446744073709551615", true},
		{introspect.MySQL, introspect.Column{Kind: introspect.KindInt}, "x", false},
		{introspect.MySQL, introspect.Column{Kind: introspect.KindString, Values: []string{"a", "b"}}, "a", false},
		{introspect.Postgres, introspect.Column{Kind: introspect.KindString, Values: []string{"a", "b"}}, "a", true},
		{introspect.MySQL, introspect.Column{Kind: introspect.KindString, Charset: "latin1"}, "a", false},
		{introspect.MySQL, introspect.Column{Kind: introspect.KindDecimal, Type: "decimal(10,2) unsigned"}, "1.5", true},
		{introspect.MySQL, introspect.Column{Kind: introspect.KindDecimal, Type: "weird"}, "1.5", false},
		{introspect.Postgres, introspect.Column{Kind: introspect.KindJSON}, []byte("{}"), false},
		{introspect.Postgres, introspect.Column{Kind: introspect.KindString}, fmt.Errorf("bad"), false},
		{introspect.Postgres, introspect.Column{Kind: introspect.KindDate}, time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC), false},
	} {
		if got := source.BoundValueOK(tc.e, &tc.c, tc.v); got != tc.want {
			t.Errorf("BoundValueOK(%s, %+v, %v) = %v, want %v", tc.e, tc.c, tc.v, got, tc.want)
		}
	}
}
