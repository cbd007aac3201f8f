package mapping

import (
	"testing"
	"time"

	"github.com/remodel-dev/remodel/introspect"
)

// FuzzFormatTime: formatTime writes what time.Format writes with the
// column's layout, for every kind, precision and time, years outside
// 0–9999 and zones other than UTC included.
func FuzzFormatTime(f *testing.F) {
	f.Add(int64(0), int64(0), uint8(0), int32(0))
	f.Add(int64(1700000000), int64(123456789), uint8(6), int32(3600))
	f.Add(int64(-62135596800), int64(999999999), uint8(9), int32(-34200)) // year 1
	f.Add(int64(253402300799), int64(1), uint8(3), int32(50400))          // 9999-12-31T23:59:59, +14:00: year 10000
	f.Add(int64(-62167219200-86400), int64(5e8), uint8(1), int32(0))      // year -1
	f.Add(int64(-62167219200), int64(0), uint8(12), int32(-1))            // year 0, precision over 9
	f.Fuzz(func(t *testing.T, sec, nsec int64, prec uint8, offset int32) {
		tm := time.Unix(sec, nsec%1e9).In(time.FixedZone("z", int(offset%(26*3600))))
		for _, kind := range []introspect.Kind{introspect.KindDate, introspect.KindTimestamp, introspect.KindTimestampTZ} {
			c := &introspect.Column{Kind: kind, Precision: int(prec % 12)}
			p := min(max(c.Precision, 0), 9)
			var want string
			switch kind {
			case introspect.KindDate:
				want = tm.Format("2006-01-02")
			case introspect.KindTimestampTZ:
				want = tm.UTC().Format(timeLayout(p) + "Z")
			default:
				want = tm.Format(timeLayout(p))
			}
			if got := formatTime(c, tm); got != want {
				t.Fatalf("%s, kind %v, precision %d: %q, time.Format gives %q", tm, kind, c.Precision, got, want)
			}
		}
	})
}
