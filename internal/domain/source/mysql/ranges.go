package mysql

import (
	"context"
	"fmt"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/introspect"
)

// ScanRange is ScanTable restricted to the rows of one key range; rows come
// in key order.
func (r *myReader) ScanRange(ctx context.Context, t *introspect.Table, w string, kr source.KeyRange, fn func(row []any) error) error {
	cond, args, err := myDialect.RangeCond(t, kr.After, kr.UpTo)
	if err != nil {
		return err
	}
	return r.scanWhere(ctx, t, source.AndWhere(w, cond), args, "", fn)
}

// scanWhere is ScanTable with a condition that has parameters (a key
// range's, keys'); how names the read in errors ("" or " by key").
func (r *myReader) scanWhere(ctx context.Context, t *introspect.Table, w string, args []any, how string, fn func(row []any) error) error {
	q := source.ScanStatement(t, w, 0, myIdent, myDialect.ReadColumn, myTable(t))
	err := r.query(ctx, q, args, func(_ []string, vals []any, row []any) error {
		for i, c := range t.Columns {
			row[i] = source.DecodeBinary(c, unconvertible(c, vals[i]), myDialect)
		}
		return fn(row)
	})
	if err != nil {
		return fmt.Errorf("source: reading %s%s: %w", myLabel(t), how, err)
	}
	return nil
}

// KeyBoundaries: see pgReader.KeyBoundaries.
func (r *myReader) KeyBoundaries(ctx context.Context, t *introspect.Table, w string, n int) ([]source.KeyBound, error) {
	q, cols, ok := source.BoundariesStatement(t, w, n, myIdent, myTable(t), "DIV")
	if !ok {
		return nil, nil
	}
	var out []source.KeyBound
	err := r.query(ctx, q, nil, func(_ []string, vals []any, _ []any) error {
		k := make(source.KeyBound, len(cols))
		for i, c := range cols {
			k[i] = source.DecodeBinary(c, unconvertible(c, vals[i]), myDialect)
		}
		if source.BoundOK(myDialect, cols, k) {
			out = append(out, k)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("source: splitting %s into key ranges: %w", myLabel(t), err)
	}
	return out, nil
}
