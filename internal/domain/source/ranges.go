package source

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/remodel-dev/remodel/internal/domain/introspect"
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

// ScanRange is ScanTable restricted to the rows of one key range; rows come
// in key order.
func (r *pgReader) ScanRange(ctx context.Context, t *introspect.Table, w string, kr KeyRange, fn func(row []any) error) error {
	cond, args, err := pgDialect.RangeCond(t, kr.After, kr.UpTo)
	if err != nil {
		return err
	}
	return r.scanWhere(ctx, t, andWhere(w, cond), args, "", fn)
}

// scanWhere is ScanTable with a condition that has parameters (a key
// range's, keys'); how names the read in errors ("" or " by key").
func (r *pgReader) scanWhere(ctx context.Context, t *introspect.Table, w string, args []any, how string, fn func(row []any) error) error {
	q := scanSQL(t, w, 0, pgIdent, pgDialect.ReadColumn, pgTable(t))
	err := r.query(ctx, q, args, func(_ []pgconn.FieldDescription, raw [][]byte, row []any) error {
		decodeRow(t.Columns, raw, row, pgDialect)
		return fn(row)
	})
	if err != nil {
		return fmt.Errorf("source: reading %s%s: %w", pgLabel(t), how, err)
	}
	return nil
}

// ScanRange is ScanTable restricted to the rows of one key range; rows come
// in key order.
func (r *myReader) ScanRange(ctx context.Context, t *introspect.Table, w string, kr KeyRange, fn func(row []any) error) error {
	cond, args, err := myDialect.RangeCond(t, kr.After, kr.UpTo)
	if err != nil {
		return err
	}
	return r.scanWhere(ctx, t, andWhere(w, cond), args, "", fn)
}

// scanWhere is ScanTable with a condition that has parameters (a key
// range's, keys'); how names the read in errors ("" or " by key").
func (r *myReader) scanWhere(ctx context.Context, t *introspect.Table, w string, args []any, how string, fn func(row []any) error) error {
	q := scanSQL(t, w, 0, myIdent, myDialect.ReadColumn, myTable(t))
	err := r.query(ctx, q, args, func(_ []string, vals []any, row []any) error {
		for i, c := range t.Columns {
			row[i] = decodeBinary(c, unconvertible(c, vals[i]), myDialect)
		}
		return fn(row)
	})
	if err != nil {
		return fmt.Errorf("source: reading %s%s: %w", myLabel(t), how, err)
	}
	return nil
}

// andWhere joins an entity's condition and a range's.
func andWhere(w, cond string) string {
	switch {
	case cond == "":
		return w
	case strings.TrimSpace(w) == "":
		return cond
	}
	return "(" + w + ") AND " + cond
}

// KeyBoundaries splits the rows of t matching where into up to n key
// ranges of about the same number of rows, inside the reader's snapshot:
// it returns the boundaries, ascending (the last key of each range but the
// last), for KeyRange{After: b[i-1], UpTo: b[i]}. It reads every key once
// (row_number over the key order). A boundary whose key cannot bound a
// range (BoundValueOK) is left out, merging two ranges.
func (r *pgReader) KeyBoundaries(ctx context.Context, t *introspect.Table, w string, n int) ([]KeyBound, error) {
	q, cols, ok := boundariesSQL(t, w, n, pgIdent, pgTable(t), "/")
	if !ok {
		return nil, nil
	}
	var out []KeyBound
	err := r.query(ctx, q, nil, func(_ []pgconn.FieldDescription, raw [][]byte, _ []any) error {
		k := make(KeyBound, len(cols))
		for i, c := range cols {
			k[i] = decodeText(c, raw[i], pgDialect)
		}
		if boundOK(pgDialect, cols, k) {
			out = append(out, k)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("source: splitting %s into key ranges: %w", pgLabel(t), err)
	}
	return out, nil
}

// KeyBoundaries: see pgReader.KeyBoundaries.
func (r *myReader) KeyBoundaries(ctx context.Context, t *introspect.Table, w string, n int) ([]KeyBound, error) {
	q, cols, ok := boundariesSQL(t, w, n, myIdent, myTable(t), "DIV")
	if !ok {
		return nil, nil
	}
	var out []KeyBound
	err := r.query(ctx, q, nil, func(_ []string, vals []any, _ []any) error {
		k := make(KeyBound, len(cols))
		for i, c := range cols {
			k[i] = decodeBinary(c, unconvertible(c, vals[i]), myDialect)
		}
		if boundOK(myDialect, cols, k) {
			out = append(out, k)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("source: splitting %s into key ranges: %w", myLabel(t), err)
	}
	return out, nil
}

func boundOK(d introspect.Dialect, cols []*introspect.Column, k KeyBound) bool {
	for i, c := range cols {
		if _, _, ok := d.KeyArg(c, k[i]); !ok {
			return false
		}
	}
	return true
}

// boundariesSQL selects every per-th key in key order (per = the row count
// divided by n, rounded up), the last row's aside. div is the engine's
// integer division.
func boundariesSQL(t *introspect.Table, w string, n int, ident func(string) string, table, div string) (string, []*introspect.Column, bool) {
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
		table + where(w) + ") s WHERE MOD(remodel_rn, " + per + ") = 0 AND remodel_rn < remodel_n ORDER BY " + list, cols, true
}
