package initmap

import (
	"slices"
	"strings"
	"testing"
)

func TestParseStatement(t *testing.T) {
	for _, c := range []struct {
		sql  string
		want parsed
		why  string // the start of the reason, when it cannot be a pattern
	}{
		{sql: "SELECT * FROM film WHERE film_id = $1", want: parsed{table: "film", eq: []string{"film_id"}}},
		{sql: "select f.title from public.film f where f.language_id = $1 and f.rating = $2",
			want: parsed{schema: "public", table: "film", eq: []string{"language_id", "rating"}}},
		{sql: "SELECT * FROM `order items` WHERE `user id` = ? AND `order` > ?",
			want: parsed{table: "order items", eq: []string{"user id"}, rangeCol: "order", rangeOp: "gt"}},
		{sql: `SELECT a FROM "we.ird" AS w WHERE w."a""b" = $3 ORDER BY a`,
			want: parsed{table: "we.ird", eq: []string{`a"b`}, orderCol: "a"}},
		{sql: "SELECT `Name` FROM `Chinook` . `Track` WHERE `AlbumId` = ? LIMIT ?",
			want: parsed{schema: "Chinook", table: "Track", eq: []string{"AlbumId"}, limit: true}},
		{sql: "SELECT * FROM `posts` WHERE `category_id` = ? AND `created_at` >= (_charset) ? ORDER BY `created_at` DESC LIMIT ?",
			want: parsed{table: "posts", eq: []string{"category_id"}, rangeCol: "created_at", rangeOp: "gte", orderCol: "created_at", desc: true, limit: true}},
		{sql: "SELECT * FROM t WHERE a = $1::int4 AND b <= $2 ORDER BY b ASC LIMIT 10",
			want: parsed{table: "t", eq: []string{"a"}, rangeCol: "b", rangeOp: "lte", orderCol: "b", limit: true}},
		{sql: "SELECT * FROM a JOIN b ON a.id = b.id WHERE a.x = $1", why: "it reads more than one table"},
		{sql: "SELECT * FROM a, b WHERE a.x = $1", why: "it reads more than one table"},
		{sql: "SELECT * FROM (SELECT 1) s WHERE s.x = $1", why: "a subquery in FROM"},
		{sql: "SELECT count(*) FROM film", why: "its select list computes"},
		{sql: "SELECT * FROM film", why: "no equality condition"},
		{sql: "SELECT * FROM film WHERE title LIKE $1", why: "LIKE"},
		{sql: "SELECT * FROM film WHERE lower(title) = $1", why: "a function on a column"},
		{sql: "SELECT * FROM film WHERE a = $1 OR b = $2", why: "OR in its condition"},
		{sql: "SELECT * FROM film WHERE a IN ($1, $2)", why: "IN"},
		{sql: "SELECT * FROM film WHERE a = $1 AND b > $2 AND c < $3", why: "two range conditions"},
		{sql: "SELECT * FROM film WHERE a = $1 AND b > $2 ORDER BY c", why: "a range on b and an order by c"},
		{sql: "SELECT * FROM film WHERE a = $1 ORDER BY b, c", why: "ORDER BY two columns"},
		{sql: "SELECT * FROM film WHERE a BETWEEN $1 AND $2", why: "BETWEEN on a"},
		{sql: "SELECT * FROM film WHERE a = $1 GROUP BY a", why: "GROUP"},
		{sql: "SELECT * FROM film WHERE x.a = $1", why: "a condition on a column of another table"},
		{sql: "SELECT * FROM film WHERE a = b", why: "a is compared with something else"},
		{sql: "SELECT * FROM film WHERE a = $1 FOR UPDATE", why: "FOR UPDATE"},
		{sql: "SELECT * FROM film WHERE a = 'x", why: "an unterminated quote"},
		{sql: "UPDATE film SET title = $1 WHERE film_id = $2", why: "not a SELECT"},
	} {
		got, why := parseStatement(c.sql)
		if c.why != "" {
			if !strings.HasPrefix(why, c.why) {
				t.Errorf("parseStatement(%q): reason %q, want %q…", c.sql, why, c.why)
			}
			continue
		}
		if why != "" || got.schema != c.want.schema || got.table != c.want.table || !slices.Equal(got.eq, c.want.eq) ||
			got.rangeCol != c.want.rangeCol || got.rangeOp != c.want.rangeOp || got.orderCol != c.want.orderCol ||
			got.desc != c.want.desc || got.limit != c.want.limit {
			t.Errorf("parseStatement(%q) = %+v, %q; want %+v", c.sql, got, why, c.want)
		}
	}
}

// FuzzParseStatement: any text is parsed without a panic; a statement
// read as a pattern has a table and an equality column, each in the text.
func FuzzParseStatement(f *testing.F) {
	for _, s := range []string{"SELECT * FROM film WHERE film_id = $1", "SELECT * FROM `a``b` WHERE `c` = ? ORDER BY `d` DESC LIMIT ?",
		`select x from "a"."b" t where t."c" = $2 and t.d >= $3`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		p, why := parseStatement(sql)
		if why != "" {
			return
		}
		if p.table == "" || len(p.eq) == 0 {
			t.Fatalf("a pattern with table %q and columns %q", p.table, p.eq)
		}
		for _, name := range append([]string{p.table}, p.eq...) {
			if !strings.Contains(sql, name) && !strings.Contains(sql, strings.ReplaceAll(name, `"`, `""`)) &&
				!strings.Contains(sql, strings.ReplaceAll(name, "`", "``")) {
				t.Fatalf("%q is not in %q", name, sql)
			}
		}
	})
}
