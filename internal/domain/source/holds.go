package source

import (
	"fmt"
)

// HoldsCheck validates HoldsByte's byte: an ASCII byte other than a space
// or a control character, so that a value holds it exactly when it holds
// that character (UTF-8 and every PostgreSQL server encoding keep ASCII
// bytes out of other characters) and a CHAR column's padding, which
// casts and drivers treat differently, does not matter.
func HoldsCheck(b byte) error {
	if b <= ' ' || b >= 0x7f {
		return fmt.Errorf("source: HoldsByte looks for a printable ASCII byte, not %#x", b)
	}
	return nil
}

// WhereAnd renders a WHERE clause of an optional condition w and cond.
func WhereAnd(w, cond string) string {
	if s := WhereClause(w); s != "" {
		return s + " AND (" + cond + ")"
	}
	return " WHERE (" + cond + ")"
}
