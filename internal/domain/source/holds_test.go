package source_test

import (
	"testing"

	"github.com/remodel-dev/remodel/internal/domain/source/sourcetest"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/introspect"
)

// TestHoldsByte: HoldsByte finds a byte in a text column exactly, on both
// engines: under a case- and accent-insensitive collation (which must not
// take a fullwidth "＃" for "#"), with LIKE's wildcards as the byte, within
// a where filter, and in a query entity's derived table.
func TestHoldsByte(t *testing.T) {
	schema := map[string]string{
		string(introspect.Postgres): `
CREATE COLLATION holds_ci (provider = icu, locale = 'und-u-ks-level1', deterministic = false);
CREATE TABLE h (id int PRIMARY KEY, grp int NOT NULL, s varchar(32) COLLATE holds_ci, c char(8), n text);`,
		string(introspect.MySQL): `
CREATE TABLE h (id int PRIMARY KEY, grp int NOT NULL, s varchar(32) COLLATE utf8mb4_unicode_ci, c char(8), n text)
  DEFAULT CHARSET=utf8mb4;`,
	}
	const rows = `INSERT INTO h VALUES
 (1, 1, 'a#b', 'x%y', NULL),
 (2, 2, 'FULL＃WIDTH', 'p_q', 'plain'),
 (3, 2, 'ÉCOLE', 'c', NULL),
 (4, 3, NULL, NULL, NULL);`
	cases := []struct {
		name  string
		query string // a query entity's statement instead of table h
		where string
		col   string
		b     byte
		want  bool
	}{
		{"in a value", "", "", "s", '#', true},
		{"a where leaves it out", "", "grp <> 1", "s", '#', false},
		{"fullwidth is another character", "", "grp = 2", "s", '#', false},
		{"percent is not a wildcard", "", "grp = 2", "c", '%', false},
		{"percent found", "", "", "c", '%', true},
		{"underscore is not a wildcard", "", "grp = 1", "c", '_', false},
		{"no case folding", "", "", "s", 'e', false},
		{"NULLs hold nothing", "", "", "n", '#', false},
		{"a query entity", "SELECT id, s AS label FROM h WHERE grp = 2", "", "label", '#', false},
		{"a query entity that has it", "SELECT id, s AS label FROM h", "id < 3", "label", '#', true},
	}
	for _, engine := range []introspect.Engine{introspect.Postgres, introspect.MySQL} {
		t.Run(string(engine), func(t *testing.T) {
			ctx := sourcetest.Context(t)
			var dsn string
			if engine == introspect.Postgres {
				dsn = testenv.Postgres(t)
				testenv.ExecPostgres(t, dsn, schema[string(engine)]+rows)
			} else {
				dsn = testenv.MySQL(t)
				testenv.ExecMySQL(t, dsn, schema[string(engine)]+rows)
			}
			src := sourcetest.Open(t, ctx, dsn)
			tab := sourcetest.InspectTable(t, ctx, src, "h")
			r := sourcetest.Reader(t, ctx, src)
			for _, tc := range cases {
				from := tab
				if tc.query != "" {
					from = &introspect.Table{Name: "q", Query: tc.query, PrimaryKey: []string{"id"}}
				}
				got, err := r.HoldsByte(ctx, from, tc.where, tc.col, tc.b)
				if err != nil || got != tc.want {
					t.Errorf("%s: HoldsByte(%q, %q) = %v, %v; want %v", tc.name, tc.col, tc.b, got, err, tc.want)
				}
			}
			if _, err := r.HoldsByte(ctx, tab, "", "s", ' '); err == nil {
				t.Errorf("HoldsByte of a space: no error")
			}
		})
	}
}
