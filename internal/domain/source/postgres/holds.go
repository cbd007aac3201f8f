package postgres

import (
	"context"
	"fmt"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/introspect"
)

// HoldsByte on PostgreSQL: strpos over the value as text under the "C"
// collation (a nondeterministic collation refuses substring searches and
// might equate other characters with it).
func (r *pgReader) HoldsByte(ctx context.Context, t *introspect.Table, w, col string, b byte) (bool, error) {
	if err := source.HoldsCheck(b); err != nil {
		return false, err
	}
	cond := fmt.Sprintf(`strpos(CAST(%s AS text) COLLATE "C", $1) > 0`, pgIdent(col))
	q := "SELECT EXISTS (SELECT 1 FROM " + pgTable(t) + source.WhereAnd(w, cond) + ")"
	var found bool
	if err := r.conn.QueryRow(ctx, q, string([]byte{b})).Scan(&found); err != nil {
		return false, fmt.Errorf("source: looking for %q in column %s of %s: %w", string([]byte{b}), col, pgLabel(t), err)
	}
	return found, nil
}
