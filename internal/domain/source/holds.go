package source

import (
	"context"
	"fmt"

	"github.com/remodel-dev/remodel/internal/domain/introspect"
)

// holdsCheck validates HoldsByte's byte: an ASCII byte other than a space
// or a control character, so that a value holds it exactly when it holds
// that character (UTF-8 and every PostgreSQL server encoding keep ASCII
// bytes out of other characters) and a CHAR column's padding, which
// casts and drivers treat differently, does not matter.
func holdsCheck(b byte) error {
	if b <= ' ' || b >= 0x7f {
		return fmt.Errorf("source: HoldsByte looks for a printable ASCII byte, not %#x", b)
	}
	return nil
}

// HoldsByte on PostgreSQL: strpos over the value as text under the "C"
// collation (a nondeterministic collation refuses substring searches and
// might equate other characters with it).
func (r *pgReader) HoldsByte(ctx context.Context, t *introspect.Table, w, col string, b byte) (bool, error) {
	if err := holdsCheck(b); err != nil {
		return false, err
	}
	cond := fmt.Sprintf(`strpos(CAST(%s AS text) COLLATE "C", $1) > 0`, pgIdent(col))
	q := "SELECT EXISTS (SELECT 1 FROM " + pgTable(t) + whereAnd(w, cond) + ")"
	var found bool
	if err := r.conn.QueryRow(ctx, q, string([]byte{b})).Scan(&found); err != nil {
		return false, fmt.Errorf("source: looking for %q in column %s of %s: %w", string([]byte{b}), col, pgLabel(t), err)
	}
	return found, nil
}

// HoldsByte on MySQL/MariaDB: LOCATE over the value's bytes (CAST AS
// BINARY: no collation, no LIKE escapes), the byte a hex literal.
func (r *myReader) HoldsByte(ctx context.Context, t *introspect.Table, w, col string, b byte) (bool, error) {
	if err := holdsCheck(b); err != nil {
		return false, err
	}
	cond := fmt.Sprintf(`LOCATE(X'%02X', CAST(%s AS BINARY)) > 0`, b, myIdent(col))
	q := "SELECT EXISTS (SELECT 1 FROM " + myTable(t) + whereAnd(w, cond) + ")"
	var found bool
	if err := r.conn.QueryRowContext(ctx, q).Scan(&found); err != nil {
		return false, fmt.Errorf("source: looking for %q in column %s of %s: %w", string([]byte{b}), col, myLabel(t), err)
	}
	return found, nil
}

// whereAnd renders a WHERE clause of an optional condition w and cond.
func whereAnd(w, cond string) string {
	if s := where(w); s != "" {
		return s + " AND (" + cond + ")"
	}
	return " WHERE (" + cond + ")"
}
