package source

import (
	"strconv"
	"strings"

	"github.com/remodel-dev/remodel/introspect"
)

// KeyBound is a position in a table's key order: one canonical value (as
// ScanTable reads it) per column of t.PrimaryKey, in that order, or per
// column of a prefix of it (a bound between the rows whose keys start with
// it and the others). A bound is usable only when every value is one
// BoundValueOK accepts.
type KeyBound []any

// KeyRange selects the rows of a table by their key: the rows after After
// (nil: from the first row) and up to UpTo, inclusive (nil: to the last).
// "After" is the table's scan order, ORDER BY the key in the engine's
// collation, NULLs where the engine sorts them (PostgreSQL last, MySQL
// first); every row of the table is in exactly one of the ranges a bound
// splits it into.
type KeyRange struct {
	After, UpTo KeyBound
}

// BoundValueOK says whether v, the value of key column c, can bound a key
// range on engine e: the value is not NULL nor an error value, and the
// engine compares a parameter of this kind with the column in the order it
// sorts the column (a MySQL ENUM sorts by its members' order but compares
// as text, so it cannot; nor can a MySQL column in a character set other
// than UTF-8, JSON, arrays, sets or spatial values).
func BoundValueOK(e introspect.Engine, c *introspect.Column, v any) bool {
	_, _, ok := e.Dialect().KeyArg(c, v)
	return ok
}

// AndWhere joins an entity's condition and a range's.
func AndWhere(w, cond string) string {
	switch {
	case cond == "":
		return w
	case strings.TrimSpace(w) == "":
		return cond
	}
	return "(" + w + ") AND " + cond
}

// BoundOK reports whether every value of the key bound k can be given to
// dialect d as a parameter for its key column in cols (Dialect.KeyArg).
func BoundOK(d introspect.Dialect, cols []*introspect.Column, k KeyBound) bool {
	for i, c := range cols {
		if _, _, ok := d.KeyArg(c, k[i]); !ok {
			return false
		}
	}
	return true
}

// BoundariesStatement selects every per-th key in key order (per = the row count
// divided by n, rounded up), the last row's aside. div is the engine's
// integer division.
func BoundariesStatement(t *introspect.Table, w string, n int, ident func(string) string, table, div string) (string, []*introspect.Column, bool) {
	if n < 2 || len(t.PrimaryKey) == 0 {
		return "", nil, false
	}
	cols := make([]*introspect.Column, len(t.PrimaryKey))
	keys := make([]string, len(t.PrimaryKey))
	for i, name := range t.PrimaryKey {
		if cols[i] = t.Column(name); cols[i] == nil {
			return "", nil, false
		}
		keys[i] = ident(name)
	}
	list := strings.Join(keys, ", ")
	per := "GREATEST((remodel_n + " + strconv.Itoa(n-1) + ") " + div + " " + strconv.Itoa(n) + ", 1)"
	return "SELECT " + list + " FROM (SELECT " + list + ", row_number() OVER (ORDER BY " + list + ") AS remodel_rn, count(*) OVER () AS remodel_n FROM " +
		table + WhereClause(w) + ") s WHERE MOD(remodel_rn, " + per + ") = 0 AND remodel_rn < remodel_n ORDER BY " + list, cols, true
}
