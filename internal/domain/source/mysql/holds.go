package mysql

import (
	"context"
	"fmt"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/introspect"
)

// HoldsByte on MySQL/MariaDB: LOCATE over the value's bytes (CAST AS
// BINARY: no collation, no LIKE escapes), the byte a hex literal.
func (r *myReader) HoldsByte(ctx context.Context, t *introspect.Table, w, col string, b byte) (bool, error) {
	if err := source.HoldsCheck(b); err != nil {
		return false, err
	}
	cond := fmt.Sprintf(`LOCATE(X'%02X', CAST(%s AS BINARY)) > 0`, b, myIdent(col))
	q := "SELECT EXISTS (SELECT 1 FROM " + myTable(t) + source.WhereAnd(w, cond) + ")"
	var found bool
	if err := r.conn.QueryRowContext(ctx, q).Scan(&found); err != nil {
		return false, fmt.Errorf("source: looking for %q in column %s of %s: %w", string([]byte{b}), col, myLabel(t), err)
	}
	return found, nil
}
