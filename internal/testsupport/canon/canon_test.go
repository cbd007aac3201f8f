package canon

import (
	"errors"
	"math"
	"testing"
	"time"
)

// TestEqual: what Equal holds equal, and what not (the other type, the
// other zone, the sign of zero, nil against empty).
func TestEqual(t *testing.T) {
	at := UTC(2024, 1, 2, 3, 4, 5, 6)
	for _, c := range []struct {
		got, want any
		equal     bool
	}{
		{int64(1), int64(1), true},
		{int64(1), 1, false},
		{at, at, true},
		{at.In(time.FixedZone("x", 3600)), at, false},
		{math.NaN(), NaN{}, true},
		{math.NaN(), math.NaN(), true},
		{1.5, NaN{}, false},
		{math.Copysign(0, -1), 0.0, false},
		{errors.New("x"), ErrValue{}, true},
		{"x", ErrValue{}, false},
		{[]byte{}, []byte(nil), false},
		{[]any{int64(1), "a"}, []any{int64(1), "a"}, true},
		{[]any{int64(1)}, []any{1.0}, false},
		{[]string(nil), []string{}, false},
	} {
		if got := Equal(c.got, c.want); got != c.equal {
			t.Errorf("Equal(%s, %s) = %v, want %v", Show(c.got), Show(c.want), got, c.equal)
		}
	}
}
