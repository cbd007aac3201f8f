package introspect

import (
	"reflect"
	"testing"
	"time"
)

// TestDialects: each engine's quoting, table names, placeholders and key
// range conditions (a nullable key column, a key of two NOT NULL columns,
// a bound the engine cannot compare).
func TestDialects(t *testing.T) {
	users := &Table{Schema: "app", Name: `we"ird`, PrimaryKey: []string{"id"},
		Columns: []*Column{{Name: "id", Type: "bigint", Kind: KindInt, Nullable: true}}}
	pair := &Table{Schema: "public", Name: "pairs", PrimaryKey: []string{"a", "b"},
		Columns: []*Column{{Name: "a", Type: "varchar(10)", Kind: KindString}, {Name: "b", Type: "date", Kind: KindDate}}}
	day := time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		engine      Engine
		ident       string
		quoted      string
		table       string
		ph          string
		rangeSQL    string
		rangeArgs   []any
		pairSQL     string
		pairArgs    []any
		decimalWrap string
	}{{
		engine:    Postgres,
		ident:     `a"b`,
		quoted:    `"a""b"`,
		table:     `"app"."we""ird"`,
		ph:        "$2",
		rangeSQL:  `((("id" > $1 OR "id" IS NULL))) AND (((("id" > $2 OR "id" IS NULL))) IS NOT TRUE)`,
		rangeArgs: []any{"5", "9"},
		pairSQL:   `(("a", "b") > ($1, $2))`,
		pairArgs:  []any{"x", "2024-01-02"},
	}, {
		engine:      MySQL,
		ident:       "a`b",
		quoted:      "`a``b`",
		table:       "`we\"ird`",
		ph:          "?",
		rangeSQL:    "((`id` > ?)) AND (((`id` > ?)) IS NOT TRUE)",
		rangeArgs:   []any{int64(5), int64(9)},
		pairSQL:     "((`a` > ?) OR (`a` = ? AND `b` > ?))",
		pairArgs:    []any{"x", "x", day},
		decimalWrap: "CAST(%s AS DECIMAL(10,2))",
	}} {
		t.Run(string(tc.engine), func(t *testing.T) {
			d := tc.engine.Dialect()
			if d.Engine() != tc.engine {
				t.Errorf("Engine() = %s", d.Engine())
			}
			if got := d.QuoteIdent(tc.ident); got != tc.quoted {
				t.Errorf("QuoteIdent(%s) = %s, want %s", tc.ident, got, tc.quoted)
			}
			if got := d.TableRef(users); got != tc.table {
				t.Errorf("TableRef = %s, want %s", got, tc.table)
			}
			if got := d.Placeholder(2); got != tc.ph {
				t.Errorf("Placeholder(2) = %s, want %s", got, tc.ph)
			}
			sql, args, err := d.RangeCond(users, []any{int64(5)}, []any{int64(9)})
			if err != nil || sql != tc.rangeSQL || !reflect.DeepEqual(args, tc.rangeArgs) {
				t.Errorf("RangeCond = %s %#v %v,\nwant %s %#v", sql, args, err, tc.rangeSQL, tc.rangeArgs)
			}
			sql, args, err = d.RangeCond(pair, []any{"x", day}, nil)
			if err != nil || sql != tc.pairSQL || !reflect.DeepEqual(args, tc.pairArgs) {
				t.Errorf("RangeCond(pair) = %s %#v %v,\nwant %s %#v", sql, args, err, tc.pairSQL, tc.pairArgs)
			}
			if _, _, err := d.RangeCond(users, []any{nil}, nil); err == nil {
				t.Error("RangeCond with a NULL bound: no error")
			}
			if _, wrap, ok := d.KeyArg(&Column{Name: "p", Type: "decimal(10,2)", Kind: KindDecimal}, "1.50"); !ok || wrap != tc.decimalWrap {
				t.Errorf("KeyArg(decimal) wrap = %q %v, want %q", wrap, ok, tc.decimalWrap)
			}
		})
	}
	if Engine("").Dialect().Engine() != Postgres {
		t.Error("an unknown engine does not get PostgreSQL's dialect")
	}
}
