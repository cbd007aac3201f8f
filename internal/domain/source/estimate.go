package source

import (
	"context"

	"github.com/remodel-dev/remodel/introspect"
)

// RowsTotal is a total for progress of the rows of t matching where: the
// table statistics' row count (exact or estimated) for a table read whole,
// or else the planner's estimate (a where, a view, a query), with exact
// false; known is false when neither gives one. A failed estimate is not
// an error: the total is then unknown.
func RowsTotal(ctx context.Context, r Reader, t *introspect.Table, where string) (n int64, exact, known bool) {
	if n, exact, known := t.Size.Rows(); known && where == "" {
		return n, exact, true
	}
	if n, ok, err := r.Estimate(ctx, t, where); err == nil && ok {
		return n, false, true
	}
	if n, _, known := t.Size.Rows(); known {
		return n, false, true // the table's rows: more than the where keeps
	}
	return 0, false, false
}
