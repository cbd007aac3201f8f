// Package canon compares the canonical values a source decodes a column
// into (mapping's doc lists them) in tests: Equal, with markers for an
// expected decoding error and NaN, and Show for failure messages.
package canon

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"time"
)

// ErrValue marks an expected error value: the source could not decode the
// value and the row is to be rejected.
type ErrValue struct{}

// NaN marks an expected NaN (NaN never equals itself).
type NaN struct{}

// Equal reports whether got is the canonical value want: same Go type
// and same value. time.Time values must also be in UTC, floats compare
// exactly (NaN matches NaN{}), and ErrValue{} matches any error.
func Equal(got, want any) bool {
	switch w := want.(type) {
	case ErrValue:
		_, ok := got.(error)
		return ok
	case NaN:
		g, ok := got.(float64)
		return ok && math.IsNaN(g)
	case time.Time:
		g, ok := got.(time.Time)
		return ok && g.Location() == time.UTC && g.Equal(w)
	case error:
		g, ok := got.(error)
		return ok && g.Error() == w.Error()
	case float64:
		g, ok := got.(float64)
		if math.IsNaN(w) {
			return ok && math.IsNaN(g)
		}
		return ok && g == w && math.Signbit(g) == math.Signbit(w)
	case []byte:
		g, ok := got.([]byte)
		return ok && bytes.Equal(g, w) && (g == nil) == (w == nil)
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) || g == nil {
			return false
		}
		for i := range w {
			if !Equal(g[i], w[i]) {
				return false
			}
		}
		return true
	case []string:
		g, ok := got.([]string)
		return ok && g != nil && reflect.DeepEqual(g, w)
	}
	return reflect.DeepEqual(got, want)
}

// Show prints a value with its type, for failure messages.
func Show(v any) string {
	if t, ok := v.(time.Time); ok {
		return fmt.Sprintf("time.Time(%s %s)", t.Format(time.RFC3339Nano), t.Location())
	}
	if e, ok := v.(error); ok {
		return fmt.Sprintf("error(%v)", e)
	}
	return fmt.Sprintf("%T(%#v)", v, v)
}

// UTC is the time at that date and time of day in UTC.
func UTC(y int, m time.Month, d, h, mi, s, ns int) time.Time {
	return time.Date(y, m, d, h, mi, s, ns, time.UTC)
}
