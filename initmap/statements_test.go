package initmap

import (
	"slices"
	"strings"
	"testing"
)

func TestParseStatement(t *testing.T) {
	for _, c := range []struct {
		sql   string
		table string
		cols  []string
	}{
		{"SELECT * FROM film WHERE film_id = $1", "film", []string{"film_id"}},
		{"select f.title from public.film f where f.language_id = $1 and f.rating = $2", "film", []string{"language_id", "rating"}},
		{"SELECT * FROM `order items` WHERE `user id` = ? AND `order` > ?", "order items", []string{"user id"}},
		{`SELECT a FROM "we.ird" AS w WHERE w."a""b" = $3 ORDER BY a`, "we.ird", []string{`a"b`}},
		{"SELECT `Name` FROM `Chinook` . `Track` WHERE `AlbumId` = ? LIMIT ?", "Track", []string{"AlbumId"}},
		{"SELECT * FROM a JOIN b ON a.id = b.id WHERE a.x = $1", "", nil},
		{"SELECT * FROM (SELECT 1) s WHERE s.x = $1", "", nil},
		{"SELECT count(*) FROM film", "", nil},
		{"SELECT * FROM film WHERE title LIKE $1", "", nil},
		{"UPDATE film SET title = $1 WHERE film_id = $2", "", nil},
	} {
		table, cols, ok := parseStatement(c.sql)
		if ok != (c.table != "") || table != c.table || !slices.Equal(cols, c.cols) {
			t.Errorf("parseStatement(%q) = %q, %q, %v; want %q, %q", c.sql, table, cols, ok, c.table, c.cols)
		}
	}
}

// FuzzParseStatement: any text is parsed without a panic, and what is
// found is in the text.
func FuzzParseStatement(f *testing.F) {
	for _, s := range []string{"SELECT * FROM film WHERE film_id = $1", "SELECT * FROM `a``b` WHERE `c` = ?", `select x from "a"."b" t where t."c" = $2`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		table, cols, ok := parseStatement(sql)
		if !ok {
			return
		}
		if table == "" || len(cols) == 0 {
			t.Fatalf("ok with table %q and columns %q", table, cols)
		}
		if !strings.Contains(sql, strings.ReplaceAll(strings.ReplaceAll(table, `"`, `""`), "`", "``")) && !strings.Contains(sql, table) {
			t.Fatalf("table %q is not in %q", table, sql)
		}
	})
}
