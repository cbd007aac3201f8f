package source

import (
	"context"
	"encoding/hex"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

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
	_, _, ok := keyArg(e, c, v)
	return ok
}

// ScanRange is ScanTable restricted to the rows of one key range; rows come
// in key order.
func (r *pgReader) ScanRange(ctx context.Context, t *introspect.Table, w string, kr KeyRange, fn func(row []any) error) error {
	cond, args, err := rangeCond(introspect.Postgres, t, kr, pgIdent, r.Placeholder)
	if err != nil {
		return err
	}
	return r.scanWhere(ctx, t, andWhere(w, cond), args, "", fn)
}

// scanWhere is ScanTable with a condition that has parameters (a key
// range's, keys'); how names the read in errors ("" or " by key").
func (r *pgReader) scanWhere(ctx context.Context, t *introspect.Table, w string, args []any, how string, fn func(row []any) error) error {
	q := scanSQL(t, w, 0, pgIdent, pgRead, pgTable(t))
	err := r.query(ctx, q, args, func(_ []pgconn.FieldDescription, raw [][]byte, row []any) error {
		decodeRow(t.Columns, raw, row, introspect.Postgres)
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
	cond, args, err := rangeCond(introspect.MySQL, t, kr, myIdent, r.Placeholder)
	if err != nil {
		return err
	}
	return r.scanWhere(ctx, t, andWhere(w, cond), args, "", fn)
}

// scanWhere is ScanTable with a condition that has parameters (a key
// range's, keys'); how names the read in errors ("" or " by key").
func (r *myReader) scanWhere(ctx context.Context, t *introspect.Table, w string, args []any, how string, fn func(row []any) error) error {
	q := scanSQL(t, w, 0, myIdent, myRead, myTable(t))
	err := r.query(ctx, q, args, func(_ []string, vals []any, row []any) error {
		for i, c := range t.Columns {
			row[i] = decodeBinary(c, unconvertible(c, vals[i]), introspect.MySQL)
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

// rangeCond is the condition selecting the rows of kr, with its
// parameters.
func rangeCond(e introspect.Engine, t *introspect.Table, kr KeyRange, ident func(string) string, ph func(int) string) (string, []any, error) {
	var args []any
	var conds []string
	for _, b := range []struct {
		bound KeyBound
		after bool
	}{{kr.After, true}, {kr.UpTo, false}} {
		if b.bound == nil {
			continue
		}
		c, err := afterCond(e, t, b.bound, ident, func(v any) (string, error) {
			args = append(args, v)
			return ph(len(args)), nil
		})
		if err != nil {
			return "", nil, err
		}
		if b.after {
			conds = append(conds, "("+c+")")
		} else {
			conds = append(conds, "(("+c+") IS NOT TRUE)")
		}
	}
	return strings.Join(conds, " AND "), args, nil
}

// afterCond is the condition "the row's key comes after k" in the scan's
// order. k may hold fewer values than the key has columns: then the first
// len(k) columns are compared (the rows whose key starts after k: the child
// rows of the parents after k, in an embed's scan, which is ordered by the
// parent's key first). With key columns that cannot be NULL, PostgreSQL compares rows
// ((a, b) > ($1, $2), which its indexes serve); otherwise, and on MySQL,
// the comparison is spelled out column by column:
// a > ? OR (a = ? AND b > ?), and on PostgreSQL, where NULLs sort last, a
// NULL counts as after any value.
func afterCond(e introspect.Engine, t *introspect.Table, k KeyBound, ident func(string) string, param func(any) (string, error)) (string, error) {
	if len(k) > len(t.PrimaryKey) || len(k) == 0 {
		return "", fmt.Errorf("source: a key bound of %d values for %s, whose key has %d columns", len(k), t.Label(), len(t.PrimaryKey))
	}
	cols := make([]*introspect.Column, len(k))
	nullable := false
	for i, name := range t.PrimaryKey[:len(k)] {
		if cols[i] = t.Column(name); cols[i] == nil {
			return "", fmt.Errorf("source: %s has no key column %s", t.Label(), name)
		}
		nullable = nullable || cols[i].Nullable
	}
	// value renders the i-th bound value as a parameter (a cast around it
	// where the engine needs one).
	value := func(i int) (string, error) {
		arg, wrap, ok := keyArg(e, cols[i], k[i])
		if !ok {
			return "", fmt.Errorf("source: %s: the value %v of key column %s cannot bound a key range", t.Label(), k[i], cols[i].Name)
		}
		p, err := param(arg)
		if err != nil {
			return "", err
		}
		if wrap != "" {
			p = fmt.Sprintf(wrap, p)
		}
		return p, nil
	}
	if e == introspect.Postgres && !nullable {
		l := make([]string, len(k))
		r := make([]string, len(k))
		for i := range k {
			l[i] = ident(cols[i].Name)
			v, err := value(i)
			if err != nil {
				return "", err
			}
			r[i] = v
		}
		if len(k) == 1 {
			return l[0] + " > " + r[0], nil
		}
		return "(" + strings.Join(l, ", ") + ") > (" + strings.Join(r, ", ") + ")", nil
	}
	var ors []string
	for i := range k {
		var ands []string
		for j := 0; j < i; j++ {
			v, err := value(j)
			if err != nil {
				return "", err
			}
			ands = append(ands, ident(cols[j].Name)+" = "+v)
		}
		v, err := value(i)
		if err != nil {
			return "", err
		}
		gt := ident(cols[i].Name) + " > " + v
		if e == introspect.Postgres && cols[i].Nullable {
			gt = "(" + gt + " OR " + ident(cols[i].Name) + " IS NULL)"
		}
		ands = append(ands, gt)
		ors = append(ors, "("+strings.Join(ands, " AND ")+")")
	}
	return strings.Join(ors, " OR "), nil
}

var myDecimalType = regexp.MustCompile(`^(?i)(decimal|numeric)\((\d+)(?:,\s*(\d+))?\)`)

// keyArg turns the canonical value v of key column c into the parameter
// engine e compares with the column, and a format (with one %s for the
// placeholder) that casts it when the engine needs that, or ok false.
// PostgreSQL gets every value as text (pgx sends a string in text format,
// and the server reads it as the column's type): the text PostgreSQL itself
// prints, so nothing is lost. MySQL gets typed values.
func keyArg(e introspect.Engine, c *introspect.Column, v any) (arg any, wrap string, ok bool) {
	if v == nil || c == nil || c.Expr != "" {
		return nil, "", false
	}
	if _, isErr := v.(error); isErr {
		return nil, "", false
	}
	switch c.Kind {
	case introspect.KindInt:
		switch x := v.(type) {
		case int64:
			if e == introspect.Postgres {
				return strconv.FormatInt(x, 10), "", true
			}
			return x, "", true
		case string:
			if e == introspect.Postgres {
				return x, "", true
			}
			u, err := strconv.ParseUint(x, 10, 64)
			return u, "", err == nil
		}
	case introspect.KindDecimal:
		x, ok := v.(string)
		if !ok {
			return nil, "", false
		}
		if e == introspect.Postgres {
			return x, "", true
		}
		m := myDecimalType.FindStringSubmatch(c.Type)
		if m == nil {
			return nil, "", false
		}
		scale := m[3]
		if scale == "" {
			scale = "0"
		}
		return x, "CAST(%s AS DECIMAL(" + m[2] + "," + scale + "))", true
	case introspect.KindFloat:
		x, ok := v.(float64)
		if !ok {
			return nil, "", false
		}
		if e == introspect.Postgres {
			switch {
			case math.IsNaN(x):
				return "NaN", "", true
			case math.IsInf(x, 1):
				return "Infinity", "", true
			case math.IsInf(x, -1):
				return "-Infinity", "", true
			}
			return strconv.FormatFloat(x, 'g', -1, 64), "", true
		}
		return x, "", !math.IsNaN(x) && !math.IsInf(x, 0)
	case introspect.KindBool:
		x, ok := v.(bool)
		if !ok {
			return nil, "", false
		}
		if e == introspect.Postgres {
			return strconv.FormatBool(x), "", true
		}
		return x, "", true
	case introspect.KindString, introspect.KindTime:
		x, ok := v.(string)
		if !ok {
			return nil, "", false
		}
		if e == introspect.MySQL && (c.Values != nil || c.Charset != "") {
			return nil, "", false // an ENUM sorts by member, compares as text; other charsets: conversions
		}
		return x, "", true
	case introspect.KindBytes:
		x, ok := v.([]byte)
		if !ok {
			return nil, "", false
		}
		if e == introspect.Postgres {
			return `\x` + hex.EncodeToString(x), "", true
		}
		return x, "", true
	case introspect.KindDate, introspect.KindTimestamp, introspect.KindTimestampTZ:
		x, ok := v.(time.Time)
		if !ok || x.Year() < 1 || x.Year() > 9999 {
			return nil, "", false
		}
		x = x.UTC()
		if e == introspect.MySQL {
			return x, "", true
		}
		switch c.Kind {
		case introspect.KindDate:
			return x.Format("2006-01-02"), "", true
		case introspect.KindTimestamp:
			return x.Format("2006-01-02 15:04:05.999999999"), "", true
		}
		return x.Format("2006-01-02 15:04:05.999999999") + "+00", "", true
	}
	return nil, "", false
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
			k[i] = decodeText(c, raw[i], introspect.Postgres)
		}
		if boundOK(introspect.Postgres, cols, k) {
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
			k[i] = decodeBinary(c, unconvertible(c, vals[i]), introspect.MySQL)
		}
		if boundOK(introspect.MySQL, cols, k) {
			out = append(out, k)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("source: splitting %s into key ranges: %w", myLabel(t), err)
	}
	return out, nil
}

func boundOK(e introspect.Engine, cols []*introspect.Column, k KeyBound) bool {
	for i, c := range cols {
		if !BoundValueOK(e, c, k[i]) {
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
