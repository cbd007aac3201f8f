package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/introspect"
)

// ScanRange is ScanTable restricted to the rows of one key range; rows come
// in key order.
func (r *pgReader) ScanRange(ctx context.Context, t *introspect.Table, w string, kr source.KeyRange, fn func(row []any) error) error {
	cond, args, err := pgDialect.RangeCond(t, kr.After, kr.UpTo)
	if err != nil {
		return err
	}
	return r.scanWhere(ctx, t, source.AndWhere(w, cond), args, "", fn)
}

// scanWhere is ScanTable with a condition that has parameters (a key
// range's, keys'); how names the read in errors ("" or " by key").
func (r *pgReader) scanWhere(ctx context.Context, t *introspect.Table, w string, args []any, how string, fn func(row []any) error) error {
	q := source.ScanStatement(t, w, 0, pgIdent, pgDialect.ReadColumn, pgTable(t))
	err := r.query(ctx, q, args, func(_ []pgconn.FieldDescription, raw [][]byte, row []any) error {
		source.DecodeRow(t.Columns, raw, row, pgDialect)
		return fn(row)
	})
	if err != nil {
		return fmt.Errorf("source: reading %s%s: %w", pgLabel(t), how, err)
	}
	return nil
}

// KeyBoundaries splits the rows of t matching where into up to n key
// ranges of about the same number of rows, inside the reader's snapshot:
// it returns the boundaries, ascending (the last key of each range but the
// last), for KeyRange{After: b[i-1], UpTo: b[i]}. It reads every key once
// (row_number over the key order). A boundary whose key cannot bound a
// range (BoundValueOK) is left out, merging two ranges.
func (r *pgReader) KeyBoundaries(ctx context.Context, t *introspect.Table, w string, n int) ([]source.KeyBound, error) {
	q, cols, ok := source.BoundariesStatement(t, w, n, pgIdent, pgTable(t), "/")
	if !ok {
		return nil, nil
	}
	var out []source.KeyBound
	err := r.query(ctx, q, nil, func(_ []pgconn.FieldDescription, raw [][]byte, _ []any) error {
		k := make(source.KeyBound, len(cols))
		for i, c := range cols {
			k[i] = source.DecodeText(c, raw[i], pgDialect)
		}
		if source.BoundOK(pgDialect, cols, k) {
			out = append(out, k)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("source: splitting %s into key ranges: %w", pgLabel(t), err)
	}
	return out, nil
}
