package source

import (
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/introspect"
)

// FuzzParseTimestamp: where the fast paths accept a text, parseTime with
// the layouts decodeText would use reads it to the very same time.Time
// (== : instant, location and monotonic reading alike).
func FuzzParseTimestamp(f *testing.F) {
	for _, s := range []string{
		"2025-06-27 17:01:14+00", "2025-06-27 17:01:14.123456+05:30", "2025-06-27 17:01:14-03:30:15",
		"2024-02-29 00:00:00", "2023-02-29 00:00:00", "2025-12-31 23:59:59.999999999",
		"0001-01-01 00:00:00+14", "9999-12-31 23:59:59-12", "2025-06-27", "0000-00-00",
		"2025-06-27 24:00:00", "2025-06-27 17:01:60", "2025-06-27 17:01:14.", "2025-06-27 17:01:14,5",
		"2025-06-27 17:01:14.1234567891", "10000-01-01 00:00:00", "2025-06-27 17:01:14 BC", "infinity",
		"2025-06-27 17:01:14+24", "2025-06-27 17:01:14+05:60", "-001-01-01",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		check := func(name string, got time.Time, zoned bool, layouts []string) {
			want, ok := parseTime(string(b), zoned, layouts).(time.Time)
			if !ok {
				t.Fatalf("%s(%q) = %v, parseTime refuses it", name, b, got)
			}
			if got != want {
				t.Fatalf("%s(%q) = %v (%#v), parseTime gives %v (%#v)", name, b, got, got, want, want)
			}
		}
		if got, ok := parseDate(b); ok {
			check("parseDate", got, false, dateLayouts)
		}
		if got, ok := parseTimestamp(b, false); ok {
			check("parseTimestamp", got, false, timestampLayouts)
		}
		if got, ok := parseTimestamp(b, true); ok {
			check("parseTimestamp zoned", got, true, timestampTZLayouts)
		}
		// decodeText gives the same with and without its fast paths.
		for _, k := range []introspect.Kind{introspect.KindDate, introspect.KindTimestamp, introspect.KindTimestampTZ} {
			for _, e := range []introspect.Engine{introspect.Postgres, introspect.MySQL} {
				c := &introspect.Column{Name: "c", Type: "t", Kind: k}
				got := DecodeText(c, b, e.Dialect())
				var want any
				switch {
				case k == introspect.KindDate:
					want = parseTime(string(b), false, dateLayouts)
				case k == introspect.KindTimestampTZ && e == introspect.Postgres:
					want = parseTime(string(b), true, timestampTZLayouts)
				default:
					want = parseTime(string(b), false, timestampLayouts)
				}
				if gt, ok := got.(time.Time); ok {
					if wt, ok := want.(time.Time); !ok || gt != wt {
						t.Fatalf("decodeText(%s, %q, %v) = %v, want %v", k, b, e, got, want)
					}
				} else if got.(error).Error() != want.(error).Error() {
					t.Fatalf("decodeText(%s, %q, %v) = %v, want %v", k, b, e, got, want)
				}
			}
		}
	})
}

// FuzzParseDecimalInt: where parseDecimalInt accepts a text,
// strconv.ParseInt reads it to the same value.
func FuzzParseDecimalInt(f *testing.F) {
	for _, s := range []string{"0", "-0", "42", "-9223372036854775808", "999999999999999999", "1000000000000000000", "+1", "007", "", "-", "1_000", "1e3"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, ok := parseDecimalInt(b); ok {
			want, err := strconv.ParseInt(string(b), 10, 64)
			if err != nil || got != want {
				t.Fatalf("parseDecimalInt(%q) = %d, strconv.ParseInt gives %d, %v", b, got, want, err)
			}
		}
		for _, typ := range []string{"bigint", "bit(8)"} {
			c := &introspect.Column{Name: "c", Type: typ, Kind: introspect.KindInt}
			for _, e := range []introspect.Engine{introspect.Postgres, introspect.MySQL} {
				got, want := DecodeText(c, b, e.Dialect()), decodeIntSlow(c, b, e)
				if gi, ok := got.(int64); ok {
					if wi, ok := want.(int64); !ok || gi != wi {
						t.Fatalf("decodeText(%s, %q, %v) = %v, want %v", typ, b, e, got, want)
					}
				}
			}
		}
	})
}

// decodeIntSlow is decodeText's general way for an integer column.
func decodeIntSlow(c *introspect.Column, b []byte, e introspect.Engine) any {
	if e == introspect.MySQL && c.Type == "bit(8)" {
		return DecodeText(c, b, e.Dialect()) // no fast path for bit
	}
	if i, err := strconv.ParseInt(string(b), 10, 64); err == nil {
		return i
	}
	return nil
}

// FuzzDecodeRow: decodeRow decodes a row as decodeText decodes each of its
// values.
func FuzzDecodeRow(f *testing.F) {
	f.Add([]byte("news"), []byte("caf\xe9"), []byte("12.50"), []byte("2025-06-27 17:01:14+00"), false, false)
	f.Add([]byte(""), []byte("x"), []byte("-1"), []byte("1"), true, false)
	f.Add([]byte("a"), []byte("b"), []byte("c"), []byte("d"), false, true)
	f.Fuzz(func(t *testing.T, a, b, c, d []byte, nullA, nullC bool) {
		if nullA {
			a = nil
		}
		if nullC {
			c = nil
		}
		cols := []*introspect.Column{
			{Name: "a", Type: "text", Kind: introspect.KindString},
			{Name: "b", Type: "text", Kind: introspect.KindString},
			{Name: "c", Type: "numeric", Kind: introspect.KindDecimal},
			{Name: "d", Type: "timestamptz", Kind: introspect.KindTimestampTZ},
			{Name: "e", Type: "time", Kind: introspect.KindTime},
			{Name: "f", Type: "bigint", Kind: introspect.KindInt},
			{Name: "g", Type: "bytea", Kind: introspect.KindString, Read: "bytes"},
		}
		raw := [][]byte{a, b, c, d, b, d, a}
		row := make([]any, len(cols))
		for _, e := range []introspect.Engine{introspect.Postgres, introspect.MySQL} {
			DecodeRow(cols, raw, row, e.Dialect())
			for i, col := range cols {
				want := DecodeText(col, raw[i], e.Dialect())
				if !reflect.DeepEqual(row[i], want) {
					t.Fatalf("column %s of %q: decodeRow %#v, decodeText %#v", col.Name, raw, row[i], want)
				}
			}
		}
	})
}
