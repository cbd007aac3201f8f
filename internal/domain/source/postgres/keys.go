package postgres

import (
	"context"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/introspect"
)

// ScanKeys is ScanTable over the rows of t whose key is one of keys (a key
// may be a prefix of t's key: the rows whose key starts with it, as an
// embed's child rows are named by their parent's key); rows come in key
// order within each statement of up to maxKeysPerStatement keys.
func (r *pgReader) ScanKeys(ctx context.Context, t *introspect.Table, w string, keys []source.KeyBound, fn func(row []any) error) error {
	return source.KeyBatches(keys, func(keys []source.KeyBound) error {
		cond, args, err := source.KeysCond(pgDialect, t, keys)
		if err != nil {
			return err
		}
		return r.scanWhere(ctx, t, source.AndWhere(w, cond), args, " by key", fn)
	})
}
