package mapping

import (
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/introspect"
)

// The design's rule, proven here as a property: for pad, desc and the
// timestamp formats, sorting the rendered strings gives the same order as
// sorting the source values (desc: the reverse order). Formats that drop
// precision (date, unix, iso's nanoseconds, a timestamp column's declared
// precision) may render different values alike, but only values that are
// equal at that precision, and never out of order.

const propertyN = 5000

func newRand() *rand.Rand { return rand.New(rand.NewPCG(20240229, 7)) }

// checkOrder renders every value, sorts the values by cmp and checks that the
// rendered strings come out sorted too (reversed when desc), and that two
// values render alike exactly when key says they are equal.
func checkOrder[V any](t *testing.T, vals []V, cmp func(a, b V) int, key func(V) string, render func(V) (string, error), desc bool) {
	t.Helper()
	slices.SortStableFunc(vals, cmp)
	out := make([]string, len(vals))
	for i, v := range vals {
		s, err := render(v)
		if err != nil {
			t.Fatalf("rendering %v: %v", v, err)
		}
		out[i] = s
	}
	for i := 1; i < len(vals); i++ {
		a, b := out[i-1], out[i]
		if desc {
			a, b = b, a
		}
		sameKey := key(vals[i-1]) == key(vals[i])
		switch {
		case a > b:
			t.Fatalf("order broken: %v renders %q but %v renders %q", vals[i-1], out[i-1], vals[i], out[i])
		case a == b && !sameKey:
			t.Fatalf("%v and %v differ but both render %q", vals[i-1], vals[i], a)
		case a != b && sameKey:
			t.Fatalf("%v and %v are equal at the format's precision but render %q and %q", vals[i-1], vals[i], a, b)
		}
	}
	// The same property stated as in the design: sorting the rendered
	// strings gives the rendered strings of the sorted values.
	sorted := slices.Clone(out)
	slices.Sort(sorted)
	if desc {
		slices.Reverse(sorted)
	}
	if !slices.Equal(sorted, out) {
		t.Fatalf("sorting the rendered strings changes their order")
	}
}

func formatter1(t *testing.T, c *introspect.Column, src string) func(any) (string, error) {
	t.Helper()
	tm, err := ParseTemplate(src)
	if err != nil {
		t.Fatal(err)
	}
	b, err := tm.bind([]*introspect.Column{c})
	if err != nil {
		t.Fatal(err)
	}
	return func(v any) (string, error) { return b.render([]any{v}) }
}

// randInt64 spreads values over every magnitude from 0 to MaxInt64.
func randInt64(r *rand.Rand) int64 {
	switch r.IntN(10) {
	case 0:
		return int64(r.IntN(10))
	case 1:
		return math.MaxInt64 - int64(r.IntN(3))
	default: // a random number of digits, then a random value of that many digits
		digits := 1 + r.IntN(19)
		lo, hi := int64(math.Pow10(digits-1)), int64(math.MaxInt64)
		if digits < 19 {
			hi = int64(math.Pow10(digits)) - 1
		}
		return lo + r.Int64N(hi-lo+1)
	}
}

func TestOrderPadInt(t *testing.T) {
	r := newRand()
	vals := []int64{0, 1, 9, 10, 99, 100, math.MaxInt64}
	for range propertyN {
		vals = append(vals, randInt64(r))
	}
	render := formatter1(t, col("n", "bigint", introspect.KindInt), "{n|pad:19}")
	checkOrder(t, vals, func(a, b int64) int { return cmpInt(a, b) },
		func(v int64) string { return strconv.FormatInt(v, 10) },
		func(v int64) (string, error) { return render(v) }, false)
}

func TestOrderDescInt(t *testing.T) {
	r := newRand()
	for _, n := range []int{1, 4, 19, 25} {
		max := int64(math.MaxInt64)
		if n < 19 {
			max = int64(math.Pow10(n)) - 1
		}
		vals := []int64{0, max}
		for range propertyN / 4 {
			v := randInt64(r)
			if v > max {
				v %= max + 1
			}
			vals = append(vals, v)
		}
		render := formatter1(t, col("n", "bigint", introspect.KindInt), "{n|desc:"+strconv.Itoa(n)+"}")
		checkOrder(t, vals, func(a, b int64) int { return cmpInt(a, b) },
			func(v int64) string { return strconv.FormatInt(v, 10) },
			func(v int64) (string, error) {
				s, err := render(v)
				if err == nil && len(s) != n {
					t.Fatalf("desc:%d of %d is %q, not %d wide", n, v, s, n)
				}
				return s, err
			}, true)
	}
}

// bigDecimal is a decimal source value: its text, as the source reads it,
// and its exact value.
type bigDecimal struct {
	text string
	rat  *big.Rat
}

func (d bigDecimal) String() string { return d.text }

func newBigDecimal(s string) bigDecimal {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		panic(s)
	}
	return bigDecimal{s, r}
}

// randDecimal is non-negative decimal text with up to intDigits integer and
// up to 8 fractional digits, with random leading and trailing zeros, and now
// and then in E notation or very small.
func randDecimal(r *rand.Rand, intDigits int) string {
	var b strings.Builder
	b.WriteString(strings.Repeat("0", r.IntN(3)))
	n := r.IntN(intDigits + 1)
	for i := range n {
		if i == 0 {
			b.WriteByte(byte('1' + r.IntN(9)))
		} else {
			b.WriteByte(byte('0' + r.IntN(10)))
		}
	}
	if n == 0 {
		b.WriteByte('0')
	}
	if f := r.IntN(9); f > 0 {
		b.WriteByte('.')
		for range f {
			b.WriteByte(byte('0' + r.IntN(10)))
		}
	}
	switch r.IntN(20) {
	case 0: // tiny, in E notation after normalization
		return strconv.Itoa(1+r.IntN(99)) + "E-" + strconv.Itoa(61+r.IntN(60))
	case 1:
		return b.String() + "E-" + strconv.Itoa(r.IntN(5))
	}
	return b.String()
}

func TestOrderPadDecimal(t *testing.T) {
	r := newRand()
	var vals []bigDecimal
	for _, s := range []string{"0", "0.0", "-0", "0.5", "0.05", "1", "1.5", "1.50", "10", "9.999", "999999999999.99999999", "1E-130", "2E-130", "1E-61", "0.000001"} {
		vals = append(vals, newBigDecimal(s))
	}
	for range propertyN {
		vals = append(vals, newBigDecimal(randDecimal(r, 12)))
	}
	render := formatter1(t, col("n", "numeric", introspect.KindDecimal), "{n|pad:12}")
	checkOrder(t, vals, func(a, b bigDecimal) int { return a.rat.Cmp(b.rat) },
		func(v bigDecimal) string { return v.rat.RatString() },
		func(v bigDecimal) (string, error) { return render(v.text) }, false)
}

func TestOrderPadBigInt(t *testing.T) {
	// KindInt values beyond int64 arrive as text.
	r := newRand()
	var vals []bigDecimal
	for range propertyN {
		digits := 1 + r.IntN(30)
		var b strings.Builder
		b.WriteByte(byte('1' + r.IntN(9)))
		for range digits - 1 {
			b.WriteByte(byte('0' + r.IntN(10)))
		}
		vals = append(vals, newBigDecimal(b.String()))
	}
	vals = append(vals, newBigDecimal("18446744073709551615"), newBigDecimal("9223372036854775808"), newBigDecimal("0"))
	render := formatter1(t, col("n", "numeric(30)", introspect.KindInt), "{n|pad:30}")
	checkOrder(t, vals, func(a, b bigDecimal) int { return a.rat.Cmp(b.rat) },
		func(v bigDecimal) string { return v.rat.RatString() },
		func(v bigDecimal) (string, error) { return render(v.text) }, false)

	var small []bigDecimal
	for _, v := range vals {
		if len(v.text) <= 25 {
			small = append(small, v)
		}
	}
	desc := formatter1(t, col("n", "numeric(25)", introspect.KindInt), "{n|desc:25}")
	checkOrder(t, small, func(a, b bigDecimal) int { return a.rat.Cmp(b.rat) },
		func(v bigDecimal) string { return v.rat.RatString() },
		func(v bigDecimal) (string, error) { return desc(v.text) }, true)
}

// randTime is an instant between 1970 and 2200, with sub-second digits most
// of the time, in a random zone.
func randTime(r *rand.Rand) time.Time {
	lo := time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	hi := time.Date(2200, 12, 31, 23, 59, 59, 0, time.UTC).Unix()
	sec := lo + r.Int64N(hi-lo+1)
	var nsec int64
	switch r.IntN(4) {
	case 0: // whole seconds
	case 1:
		nsec = int64(r.IntN(1000)) * 1e6
	default:
		nsec = r.Int64N(1e9)
	}
	zone := time.FixedZone("z", (r.IntN(27)-12)*3600+r.IntN(2)*1800)
	return time.Unix(sec, nsec).In(zone)
}

func timeVals(r *rand.Rand) []time.Time {
	base := time.Date(2024, 2, 29, 23, 59, 59, 999999999, time.UTC)
	vals := []time.Time{
		time.Unix(0, 0).UTC(), time.Unix(0, 1).UTC(), base, base.Add(1), base.Add(-1), base.Add(time.Microsecond),
		base.Add(time.Millisecond), base.Truncate(time.Second), time.Date(2200, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(1999, 12, 31, 23, 59, 59, 0, time.UTC), time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC),
	}
	for range propertyN {
		t := randTime(r)
		vals = append(vals, t)
		if r.IntN(10) == 0 { // neighbours that share a second or a day
			vals = append(vals, t.Add(time.Duration(r.Int64N(int64(time.Second)))), t.Add(time.Duration(r.Int64N(int64(24*time.Hour)))))
		}
	}
	return vals
}

func TestOrderTimeFormats(t *testing.T) {
	r := newRand()
	tstz := precision(col("t", "timestamptz(6)", introspect.KindTimestampTZ), 6)
	ts := precision(col("t", "timestamp(6)", introspect.KindTimestamp), 6)
	date := col("t", "date", introspect.KindDate)
	utcKey := func(layout string) func(time.Time) string {
		return func(v time.Time) string { return v.UTC().Format(layout) }
	}
	tests := []struct {
		name    string
		c       *introspect.Column
		src     string
		utcOnly bool // the column holds UTC wall clock times
		key     func(time.Time) string
		width   int
	}{
		{"iso", tstz, "{t|iso}", false, func(v time.Time) string { return strconv.FormatInt(v.UnixMicro(), 10) }, 27},
		{"iso of timestamp", ts, "{t|iso}", true, func(v time.Time) string { return strconv.FormatInt(v.UnixMicro(), 10) }, 27},
		{"date", tstz, "{t|date}", false, utcKey("2006-01-02"), 10},
		{"date of date", date, "{t|date}", true, utcKey("2006-01-02"), 10},
		{"unix", tstz, "{t|unix}", false, func(v time.Time) string { return strconv.FormatInt(v.Unix(), 10) }, 10},
		{"unixms", tstz, "{t|unixms}", false, func(v time.Time) string { return strconv.FormatInt(v.UnixMilli(), 10) }, 13},
		{"date column", date, "{t}", true, utcKey("2006-01-02"), 10},
	}
	for _, p := range []int{0, 3, 6} {
		unit := time.Duration(math.Pow10(9 - p))
		trunc := func(v time.Time) string { return strconv.FormatInt(v.UnixNano()/int64(unit), 10) }
		tests = append(tests,
			struct {
				name    string
				c       *introspect.Column
				src     string
				utcOnly bool
				key     func(time.Time) string
				width   int
			}{"timestamptz(" + strconv.Itoa(p) + ") column", precision(col("t", "timestamptz", introspect.KindTimestampTZ), p), "{t}", false, trunc, 20 + p + min(p, 1)},
			struct {
				name    string
				c       *introspect.Column
				src     string
				utcOnly bool
				key     func(time.Time) string
				width   int
			}{"timestamp(" + strconv.Itoa(p) + ") column", precision(col("t", "timestamp", introspect.KindTimestamp), p), "{t}", true, trunc, 19 + p + min(p, 1)},
		)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vals := timeVals(r)
			if tt.utcOnly {
				for i := range vals {
					vals[i] = vals[i].UTC()
				}
			}
			if tt.c.Kind == introspect.KindDate {
				for i, v := range vals {
					vals[i] = time.Date(v.Year(), v.Month(), v.Day(), 0, 0, 0, 0, time.UTC)
				}
			}
			render := formatter1(t, tt.c, tt.src)
			checkOrder(t, vals, func(a, b time.Time) int { return a.Compare(b) }, tt.key,
				func(v time.Time) (string, error) {
					s, err := render(v)
					if err == nil && len(s) != tt.width {
						t.Fatalf("%s renders %v as %q, not %d wide", tt.src, v, s, tt.width)
					}
					return s, err
				}, false)
		})
	}
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestOrderDescTime: desc on dates and timestamps sorts newest first, at
// fixed width, from year 1 to 9999, and renders two values alike exactly
// when they are the same day (dates) or microsecond (timestamps).
func TestOrderDescTime(t *testing.T) {
	r := newRand()
	extremes := []time.Time{
		time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(1, 1, 1, 0, 0, 0, 1000, time.UTC),
		time.Date(1969, 12, 31, 23, 59, 59, 999999000, time.UTC), time.Date(9999, 12, 31, 23, 59, 59, 999999000, time.UTC),
	}
	for _, tt := range []struct {
		name  string
		c     *introspect.Column
		width int
	}{
		{"timestamptz", precision(col("t", "timestamptz(6)", introspect.KindTimestampTZ), 6), 18},
		{"timestamp", precision(col("t", "timestamp(6)", introspect.KindTimestamp), 6), 18},
		{"date", col("t", "date", introspect.KindDate), 7},
	} {
		t.Run(tt.name, func(t *testing.T) {
			vals := append(timeVals(r), extremes...)
			for i, v := range vals {
				v = v.Truncate(time.Microsecond) // what PostgreSQL and MySQL hold
				if tt.c.Kind != introspect.KindTimestampTZ {
					v = v.UTC()
				}
				if tt.c.Kind == introspect.KindDate {
					v = time.Date(v.Year(), v.Month(), v.Day(), 0, 0, 0, 0, time.UTC)
				}
				vals[i] = v
			}
			key := func(v time.Time) string { return strconv.FormatInt(v.UnixMicro(), 10) }
			render := formatter1(t, tt.c, "{t|desc}")
			checkOrder(t, vals, func(a, b time.Time) int { return a.Compare(b) }, key,
				func(v time.Time) (string, error) {
					s, err := render(v)
					if err == nil && len(s) != tt.width {
						t.Fatalf("desc renders %v as %q, not %d wide", v, s, tt.width)
					}
					return s, err
				}, true)
		})
	}
	render := formatter1(t, precision(col("t", "timestamptz(6)", introspect.KindTimestampTZ), 6), "{t|desc}")
	if _, err := render(time.Date(2024, 1, 1, 0, 0, 0, 1, time.UTC)); err == nil || !strings.Contains(err.Error(), "finer than microseconds") {
		t.Errorf("a nanosecond timestamp: error %v, want finer than microseconds", err)
	}
}

// TestOrderDescDecimal: desc:N on a decimal with a declared scale sorts
// largest first at fixed width N+1+scale.
func TestOrderDescDecimal(t *testing.T) {
	r := newRand()
	for _, scale := range []int{0, 2, 8} {
		var vals []bigDecimal
		for _, s := range []string{"0", "0.0", "-0", "1", "10", "999999999999"} {
			vals = append(vals, newBigDecimal(s))
		}
		for range propertyN {
			s := randDecimal(r, 12)
			d := newBigDecimal(s)
			// keep values the column can hold: at most scale fraction
			// digits (the source's own text where it already fits)
			if f, _ := new(big.Rat).SetString(d.rat.FloatString(scale)); f.Cmp(d.rat) != 0 {
				d = newBigDecimal(d.rat.FloatString(scale))
			}
			vals = append(vals, d)
		}
		c := col("n", "numeric(20,"+strconv.Itoa(scale)+")", introspect.KindDecimal)
		render := formatter1(t, c, "{n|desc:12}")
		width := 12
		if scale > 0 {
			width += 1 + scale
		}
		checkOrder(t, vals, func(a, b bigDecimal) int { return a.rat.Cmp(b.rat) },
			func(v bigDecimal) string { return v.rat.RatString() },
			func(v bigDecimal) (string, error) {
				s, err := render(v.text)
				if err == nil && len(s) != width {
					t.Fatalf("desc:12 on numeric(20,%d) renders %s as %q, not %d wide", scale, v.text, s, width)
				}
				return s, err
			}, true)
	}
	c := col("n", "numeric(20,2)", introspect.KindDecimal)
	render := formatter1(t, c, "{n|desc:4}")
	for v, want := range map[string]string{"900.24": "9099.75", "0": "9999.99", "9999.99": "0000.00", "0.01": "9999.98"} {
		if got, err := render(v); err != nil || got != want {
			t.Errorf("desc:4 of %s = %q, %v; want %q", v, got, err, want)
		}
	}
	for v, msg := range map[string]string{"-1": "non-negative", "10000": "more than 4 integer digits", "1.234": "more than the 2 fraction digits"} {
		if _, err := render(v); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("desc:4 of %s: error %v, want %q", v, err, msg)
		}
	}
}
