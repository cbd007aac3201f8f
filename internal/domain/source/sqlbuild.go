package source

import (
	"strconv"
	"strings"

	"github.com/remodel-dev/remodel/introspect"
)

// ScanStatement builds the query that reads every column of t in primary-key
// order; read gives the select-list expression of each column, and a
// column with an Expr is that condition, as a boolean never NULL. table is
// what to read from (pgTable, myTable): for a query, a derived table q.
func ScanStatement(t *introspect.Table, w string, limit int, ident func(string) string, read func(*introspect.Column, string) string, table string) string {
	cols := scanColumns(t, ident, read)
	q := "SELECT " + strings.Join(cols, ", ") + " FROM " + table + WhereClause(w)
	if len(t.PrimaryKey) > 0 {
		// Qualified, so that ORDER BY sorts by the column and not by the
		// select-list expression of the same name that read puts there.
		qual := table
		if t.Query != "" {
			qual = "q"
		}
		pk := make([]string, len(t.PrimaryKey))
		for i, c := range t.PrimaryKey {
			pk[i] = qual + "." + ident(c)
			if i < len(t.KeyDesc) && t.KeyDesc[i] {
				pk[i] += " DESC"
			}
		}
		q += " ORDER BY " + strings.Join(pk, ", ")
	}
	if limit > 0 {
		q += " LIMIT " + strconv.Itoa(limit)
	}
	return q
}

// scanColumns are the select-list expressions a scan reads t's columns
// with: each column as read says, an Expr column as its condition.
func scanColumns(t *introspect.Table, ident func(string) string, read func(*introspect.Column, string) string) []string {
	cols := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		if c.Expr != "" {
			cols[i] = "((" + c.Expr + "\n) IS TRUE) AS " + ident(c.Name)
			continue
		}
		if c.From != "" { // a stored column read in another form, under c.Name
			cols[i] = read(c, ident(c.From))
			continue
		}
		cols[i] = read(c, ident(c.Name))
	}
	return cols
}

// SampleStatement builds the query that samples distinct non-NULL tuples, each
// column read as read says (as a table scan reads it). The order is the MD5
// hash of the seed and the tuple's text, then the tuple itself for the rare
// tie: it looks random, but the same seed on the same data picks the same
// tuples, whatever order the engine happens to produce them in.
func SampleStatement(t *introspect.Table, cols []string, w string, n int, ident func(string) string, read func(*introspect.Column, string) string, table string, seed int64) (string, []*introspect.Column) {
	q := make([]string, len(cols))
	outer := make([]string, len(cols))
	kinds := make([]*introspect.Column, len(cols))
	conds := make([]string, 0, len(cols)+1)
	if strings.TrimSpace(w) != "" {
		conds = append(conds, "("+w+")")
	}
	for i, c := range cols {
		q[i] = ident(c)
		kinds[i] = t.Column(c)
		outer[i] = read(kinds[i], q[i])
		conds = append(conds, q[i]+" IS NOT NULL")
	}
	list := strings.Join(q, ", ")
	order := "MD5(CONCAT_WS('/', '" + strconv.FormatInt(seed, 10) + "', " + list + "))"
	return "SELECT " + strings.Join(outer, ", ") + " FROM (SELECT DISTINCT " + list + " FROM " + table +
		" WHERE " + strings.Join(conds, " AND ") + ") s ORDER BY " + order + ", " + list + " LIMIT " + strconv.Itoa(n), kinds
}
