package mysql

import (
	"context"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/introspect"
)

// ScanKeys is ScanTable over the rows of t whose key is one of keys (see
// pgReader.ScanKeys).
func (r *myReader) ScanKeys(ctx context.Context, t *introspect.Table, w string, keys []source.KeyBound, fn func(row []any) error) error {
	return source.KeyBatches(keys, func(keys []source.KeyBound) error {
		cond, args, err := source.KeysCond(myDialect, t, keys)
		if err != nil {
			return err
		}
		return r.scanWhere(ctx, t, source.AndWhere(w, cond), args, " by key", fn)
	})
}
