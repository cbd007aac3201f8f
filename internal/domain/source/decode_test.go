package source

import (
	"bytes"
	"errors"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/testsupport/canon"
	"github.com/remodel-dev/remodel/introspect"
)

func col(kind introspect.Kind, typ string) *introspect.Column {
	return &introspect.Column{Name: "c", Type: typ, Kind: kind, Nullable: true}
}

func arrayCol(elem introspect.Kind, typ string) *introspect.Column {
	return &introspect.Column{Name: "c", Type: typ, Kind: introspect.KindArray, Elem: elem, Nullable: true}
}

// boxArray is a box[] column: its elements are separated by ';'.
func boxArray() *introspect.Column {
	c := arrayCol(introspect.KindString, "box[]")
	c.Delim = ";"
	return c
}

type decodeCase struct {
	name string
	col  *introspect.Column
	raw  string
	want any
}

func runDecodeText(t *testing.T, engine introspect.Engine, cases []decodeCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			raw := []byte(tc.raw)
			got := DecodeText(tc.col, raw, engine.Dialect())
			if !canon.Equal(got, tc.want) {
				t.Fatalf("decodeText(%s %q) = %s, want %s", tc.col.Kind, tc.raw, canon.Show(got), canon.Show(tc.want))
			}
			// raw belongs to the driver and is reused: nothing decoded may alias it.
			for i := range raw {
				raw[i] = '#'
			}
			if !canon.Equal(got, tc.want) {
				t.Fatalf("decodeText(%s %q) kept a reference to the driver's buffer: now %s", tc.col.Kind, tc.raw, canon.Show(got))
			}
		})
	}
}

func TestDecodeTextPostgres(t *testing.T) {
	runDecodeText(t, introspect.Postgres, []decodeCase{
		{"bool t", col(introspect.KindBool, "boolean"), "t", true},
		{"bool f", col(introspect.KindBool, "boolean"), "f", false},
		{"bool garbage", col(introspect.KindBool, "boolean"), "yes please", canon.ErrValue{}},

		{"int", col(introspect.KindInt, "integer"), "42", int64(42)},
		{"int negative", col(introspect.KindInt, "bigint"), "-9223372036854775808", int64(math.MinInt64)},
		{"int max", col(introspect.KindInt, "bigint"), "9223372036854775807", int64(math.MaxInt64)},
		{"int beyond int64 stays exact text", col(introspect.KindInt, "numeric"), "9223372036854775808", "9223372036854775808"},
		{"int garbage", col(introspect.KindInt, "integer"), "4x2", canon.ErrValue{}},
		{"int not bit on postgres", col(introspect.KindInt, "bit(8)"), "\x01", canon.ErrValue{}},

		{"decimal", col(introspect.KindDecimal, "numeric(20,6)"), "12345678901234.123456", "12345678901234.123456"},
		{"decimal negative", col(introspect.KindDecimal, "numeric"), "-0.000001", "-0.000001"},
		{"decimal 40 digits", col(introspect.KindDecimal, "numeric"), "1234567890123456789012345678901234567890", "1234567890123456789012345678901234567890"},
		{"decimal NaN", col(introspect.KindDecimal, "numeric"), "NaN", "NaN"},
		{"decimal Infinity", col(introspect.KindDecimal, "numeric"), "Infinity", "Infinity"},
		{"decimal -Infinity", col(introspect.KindDecimal, "numeric"), "-Infinity", "-Infinity"},

		{"float", col(introspect.KindFloat, "double precision"), "1.5", 1.5},
		{"float shortest round trip", col(introspect.KindFloat, "double precision"), "0.30000000000000004", 0.30000000000000004},
		{"float exponent", col(introspect.KindFloat, "double precision"), "-1.5e+300", -1.5e300},
		{"float denormal", col(introspect.KindFloat, "double precision"), "5e-324", 5e-324},
		{"float negative zero", col(introspect.KindFloat, "double precision"), "-0", math.Copysign(0, -1)},
		{"float real", col(introspect.KindFloat, "real"), "3.1415927", 3.1415927},
		{"float NaN", col(introspect.KindFloat, "double precision"), "NaN", canon.NaN{}},
		{"float Infinity", col(introspect.KindFloat, "double precision"), "Infinity", math.Inf(1)},
		{"float -Infinity", col(introspect.KindFloat, "double precision"), "-Infinity", math.Inf(-1)},
		{"float garbage", col(introspect.KindFloat, "double precision"), "1.5.5", canon.ErrValue{}},

		{"bytea hex", col(introspect.KindBytes, "bytea"), `\x0102`, []byte{1, 2}},
		{"bytea all bytes", col(introspect.KindBytes, "bytea"), `\x00ff7f80`, []byte{0, 0xff, 0x7f, 0x80}},
		{"bytea empty", col(introspect.KindBytes, "bytea"), `\x`, []byte{}},
		{"bytea odd hex", col(introspect.KindBytes, "bytea"), `\x012`, canon.ErrValue{}},
		{"bytea escape format", col(introspect.KindBytes, "bytea"), `ab\000`, canon.ErrValue{}},

		{"string", col(introspect.KindString, "text"), "Zoë 東京 🚀", "Zoë 東京 🚀"},
		{"string empty", col(introspect.KindString, "text"), "", ""},
		{"uuid", col(introspect.KindString, "uuid"), "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"},
		{"time of day", col(introspect.KindTime, "time(2)"), "03:04:05.5", "03:04:05.5"},
		{"nil column reads text", nil, "7", "7"},

		{"date", col(introspect.KindDate, "date"), "2024-01-02", canon.UTC(2024, 1, 2, 0, 0, 0, 0)},
		{"date leap day", col(introspect.KindDate, "date"), "2024-02-29", canon.UTC(2024, 2, 29, 0, 0, 0, 0)},
		{"date year 1", col(introspect.KindDate, "date"), "0001-01-01", canon.UTC(1, 1, 1, 0, 0, 0, 0)},
		{"date infinity", col(introspect.KindDate, "date"), "infinity", canon.ErrValue{}},
		{"date -infinity", col(introspect.KindDate, "date"), "-infinity", canon.ErrValue{}},
		{"date BC", col(introspect.KindDate, "date"), "0044-03-15 BC", canon.ErrValue{}},
		{"date beyond 9999", col(introspect.KindDate, "date"), "10000-01-01", canon.ErrValue{}},
		{"date SQL style is not ISO", col(introspect.KindDate, "date"), "01/02/2024", canon.ErrValue{}},

		{"timestamp", col(introspect.KindTimestamp, "timestamp(3) without time zone"), "2024-01-02 03:04:05.123", canon.UTC(2024, 1, 2, 3, 4, 5, 123e6)},
		{"timestamp no fraction", col(introspect.KindTimestamp, "timestamp without time zone"), "2024-01-02 03:04:05", canon.UTC(2024, 1, 2, 3, 4, 5, 0)},
		{"timestamp micros", col(introspect.KindTimestamp, "timestamp without time zone"), "1999-12-31 23:59:59.999999", canon.UTC(1999, 12, 31, 23, 59, 59, 999999e3)},
		{"timestamp infinity", col(introspect.KindTimestamp, "timestamp without time zone"), "infinity", canon.ErrValue{}},
		{"timestamp BC", col(introspect.KindTimestamp, "timestamp without time zone"), "2024-01-02 03:04:05 BC", canon.ErrValue{}},

		{"timestamptz utc", col(introspect.KindTimestampTZ, "timestamp with time zone"), "2024-01-02 03:04:05.123+00", canon.UTC(2024, 1, 2, 3, 4, 5, 123e6)},
		{"timestamptz +05:30 to utc", col(introspect.KindTimestampTZ, "timestamp with time zone"), "2024-01-02 03:04:05+05:30", canon.UTC(2024, 1, 1, 21, 34, 5, 0)},
		{"timestamptz -08 to utc", col(introspect.KindTimestampTZ, "timestamp with time zone"), "2024-01-02 03:04:05.5-08", canon.UTC(2024, 1, 2, 11, 4, 5, 5e8)},
		{"timestamptz seconds offset", col(introspect.KindTimestampTZ, "timestamp with time zone"), "1900-01-01 00:00:00+00:53:28", canon.UTC(1899, 12, 31, 23, 6, 32, 0)},
		{"timestamptz no zone", col(introspect.KindTimestampTZ, "timestamp with time zone"), "2024-01-02 03:04:05", canon.ErrValue{}},
		{"timestamptz infinity", col(introspect.KindTimestampTZ, "timestamp with time zone"), "infinity", canon.ErrValue{}},
		{"timestamptz -infinity", col(introspect.KindTimestampTZ, "timestamp with time zone"), "-infinity", canon.ErrValue{}},
		{"timestamptz BC", col(introspect.KindTimestampTZ, "timestamp with time zone"), "0044-03-15 12:00:00+00 BC", canon.ErrValue{}},

		{"json", col(introspect.KindJSON, "json"), `{"a": [1, 2.50]}`, []byte(`{"a": [1, 2.50]}`)},

		{"array text with NULL", arrayCol(introspect.KindString, "text[]"), `{"a,b","c\"d",NULL,"NULL","",plain}`, []any{"a,b", `c"d`, nil, "NULL", "", "plain"}},
		{"array int 2-D", arrayCol(introspect.KindInt, "integer[]"), `{{1,2},{3,NULL}}`, []any{[]any{int64(1), int64(2)}, []any{int64(3), nil}}},
		// A list cannot say where it starts: an array that does not start at
		// 1 is rejected, never silently renumbered.
		{"array int bounds", arrayCol(introspect.KindInt, "integer[]"), `[0:1]={1,2}`,
			errors.New("array bounds [0:1] do not start at 1: a list cannot say where it starts")},
		{"array int 2-D bounds", arrayCol(introspect.KindInt, "integer[]"), `[1:2][0:0]={{1},{2}}`,
			errors.New("array bounds [1:2][0:0] do not start at 1: a list cannot say where it starts")},
		{"array box", boxArray(), `{(1,1),(0,0);NULL;(3,3),(2,2)}`, []any{"(1,1),(0,0)", nil, "(3,3),(2,2)"}},
		{"array box 2-D", boxArray(), `{{(1,1),(0,0);(2,2),(1,1)};{(5,5),(4,4);(3,3),(2,2)}}`,
			[]any{[]any{"(1,1),(0,0)", "(2,2),(1,1)"}, []any{"(5,5),(4,4)", "(3,3),(2,2)"}}},
		{"array empty", arrayCol(introspect.KindInt, "integer[]"), `{}`, []any{}},
		{"array bool", arrayCol(introspect.KindBool, "boolean[]"), `{t,f}`, []any{true, false}},
		{"array bytea", arrayCol(introspect.KindBytes, "bytea[]"), `{"\\x0102","\\x"}`, []any{[]byte{1, 2}, []byte{}}},
		{"array timestamptz", arrayCol(introspect.KindTimestampTZ, "timestamp with time zone[]"), `{"2024-01-02 03:04:05+05:30"}`, []any{canon.UTC(2024, 1, 1, 21, 34, 5, 0)}},
		{"array bad element", arrayCol(introspect.KindInt, "integer[]"), `{1,x}`, canon.ErrValue{}},
		{"array infinite date element", arrayCol(introspect.KindDate, "date[]"), `{2024-01-02,infinity}`, canon.ErrValue{}},
		{"array malformed", arrayCol(introspect.KindInt, "integer[]"), `{1,2`, canon.ErrValue{}},
	})
}

func TestDecodeTextMySQL(t *testing.T) {
	runDecodeText(t, introspect.MySQL, []decodeCase{
		{"tinyint(1) 1", col(introspect.KindBool, "tinyint(1)"), "1", true},
		{"tinyint(1) 0", col(introspect.KindBool, "tinyint(1)"), "0", false},

		{"int", col(introspect.KindInt, "int(11)"), "-5", int64(-5)},
		{"year", col(introspect.KindInt, "year(4)"), "2024", int64(2024)},
		{"unsigned bigint max", col(introspect.KindInt, "bigint(20) unsigned"), "18446744073709551615", "18446744073709551615"},
		{"unsigned bigint in int64", col(introspect.KindInt, "bigint(20) unsigned"), "9223372036854775807", int64(math.MaxInt64)},

		// bit(n) arrives as n/8 big-endian bytes, which may look like digits.
		{"bit(1) one", col(introspect.KindInt, "bit(1)"), "\x01", int64(1)},
		{"bit(1) zero", col(introspect.KindInt, "bit(1)"), "\x00", int64(0)},
		{"bit(8) looks like digit 1", col(introspect.KindInt, "bit(8)"), "1", int64(0x31)},
		{"bit(16) looks like 12", col(introspect.KindInt, "bit(16)"), "12", int64(0x3132)},
		{"bit(8) looks like minus", col(introspect.KindInt, "bit(8)"), "-", int64('-')},
		{"bit(64) max", col(introspect.KindInt, "bit(64)"), "\xff\xff\xff\xff\xff\xff\xff\xff", "18446744073709551615"},
		{"bit(64) max int64", col(introspect.KindInt, "bit(64)"), "\x7f\xff\xff\xff\xff\xff\xff\xff", int64(math.MaxInt64)},
		{"bigint is not bit", col(introspect.KindInt, "bigint(20)"), "12", int64(12)},

		{"decimal", col(introspect.KindDecimal, "decimal(20,6)"), "12345678901234.123456", "12345678901234.123456"},
		{"float", col(introspect.KindFloat, "double"), "0.30000000000000004", 0.30000000000000004},

		{"set two", col(introspect.KindSet, "set('a','b','c')"), "a,b", []string{"a", "b"}},
		{"set one", col(introspect.KindSet, "set('a','b','c')"), "c", []string{"c"}},
		{"set empty", col(introspect.KindSet, "set('a','b','c')"), "", []string{}},
		{"enum", col(introspect.KindString, "enum('happy','sad')"), "happy", "happy"},

		{"varbinary", col(introspect.KindBytes, "varbinary(8)"), "\x00\x01\xff", []byte{0, 1, 0xff}},
		{"varbinary looks like hex", col(introspect.KindBytes, "varbinary(8)"), `\x01`, []byte(`\x01`)},
		{"varbinary empty", col(introspect.KindBytes, "varbinary(8)"), "", []byte{}},
		{"json", col(introspect.KindJSON, "longtext"), `{"a":1}`, []byte(`{"a":1}`)},

		{"date", col(introspect.KindDate, "date"), "2024-01-02", canon.UTC(2024, 1, 2, 0, 0, 0, 0)},
		{"zero date", col(introspect.KindDate, "date"), "0000-00-00", canon.ErrValue{}},
		{"zero month", col(introspect.KindDate, "date"), "2024-00-00", canon.ErrValue{}},
		{"datetime", col(introspect.KindTimestamp, "datetime(3)"), "2024-01-02 03:04:05.123", canon.UTC(2024, 1, 2, 3, 4, 5, 123e6)},
		{"zero datetime", col(introspect.KindTimestamp, "datetime"), "0000-00-00 00:00:00", canon.ErrValue{}},
		{"zero datetime(3)", col(introspect.KindTimestamp, "datetime(3)"), "0000-00-00 00:00:00.000", canon.ErrValue{}},
		{"timestamp read as utc", col(introspect.KindTimestampTZ, "timestamp"), "2024-01-02 03:04:05", canon.UTC(2024, 1, 2, 3, 4, 5, 0)},
		{"zero timestamp", col(introspect.KindTimestampTZ, "timestamp"), "0000-00-00 00:00:00", canon.ErrValue{}},
		{"time", col(introspect.KindTime, "time"), "-838:59:59", "-838:59:59"},
	})
}

func TestDecodeTextNull(t *testing.T) {
	kinds := []introspect.Kind{
		introspect.KindInt, introspect.KindDecimal, introspect.KindFloat, introspect.KindBool,
		introspect.KindString, introspect.KindBytes, introspect.KindDate, introspect.KindTime,
		introspect.KindTimestamp, introspect.KindTimestampTZ, introspect.KindJSON, introspect.KindArray,
		introspect.KindSet, introspect.KindGeometry,
	}
	for _, e := range []introspect.Engine{introspect.Postgres, introspect.MySQL} {
		for _, k := range kinds {
			if got := DecodeText(col(k, "x"), nil, e.Dialect()); got != nil {
				t.Errorf("%s: decodeText(%s, NULL) = %s, want nil", e, k, canon.Show(got))
			}
			if got := DecodeBinary(col(k, "x"), nil, e.Dialect()); got != nil {
				t.Errorf("%s: decodeBinary(%s, NULL) = %s, want nil", e, k, canon.Show(got))
			}
		}
	}
}

// TestDecodeBinaryMySQL covers the typed values go-sql-driver returns (the
// binary protocol of prepared statements, and integers and floats of the
// text protocol).
func TestDecodeBinaryMySQL(t *testing.T) {
	f32 := func(f float32) float64 { // the shortest text that reads back as f
		v, _ := strconv.ParseFloat(strconv.FormatFloat(float64(f), 'g', -1, 32), 64)
		return v
	}
	india := time.FixedZone("IST", 5*3600+1800)
	cases := []struct {
		name string
		col  *introspect.Column
		v    any
		want any
	}{
		{"nil", col(introspect.KindInt, "int"), nil, nil},
		{"int64", col(introspect.KindInt, "int"), int64(-42), int64(-42)},
		{"uint64 small", col(introspect.KindInt, "bigint unsigned"), uint64(5), int64(5)},
		{"uint64 max", col(introspect.KindInt, "bigint unsigned"), uint64(math.MaxUint64), "18446744073709551615"},
		{"unsigned max as bytes", col(introspect.KindInt, "bigint(20) unsigned"), []byte("18446744073709551615"), "18446744073709551615"},
		{"tinyint(1) 1", col(introspect.KindBool, "tinyint(1)"), int64(1), true},
		{"tinyint(1) 0", col(introspect.KindBool, "tinyint(1)"), int64(0), false},
		{"bool", col(introspect.KindBool, "tinyint(1)"), true, true},
		{"bit(8) bytes", col(introspect.KindInt, "bit(8)"), []byte{0x31}, int64(0x31)},
		{"bit(1) bytes", col(introspect.KindInt, "bit(1)"), []byte{1}, int64(1)},
		{"float32 pi", col(introspect.KindFloat, "float"), float32(math.Pi), 3.1415927},
		{"float32 1.1", col(introspect.KindFloat, "float"), float32(1.1), 1.1},
		{"float32 2^24", col(introspect.KindFloat, "float"), float32(16777216), 16777216.0},
		{"float32 tiny", col(introspect.KindFloat, "float"), float32(1e-7), f32(1e-7)},
		{"float32 max", col(introspect.KindFloat, "float"), float32(math.MaxFloat32), f32(math.MaxFloat32)},
		{"float64", col(introspect.KindFloat, "double"), 0.30000000000000004, 0.30000000000000004},
		{"float64 max", col(introspect.KindFloat, "double"), math.MaxFloat64, math.MaxFloat64},
		{"float64 denormal", col(introspect.KindFloat, "double"), 5e-324, 5e-324},
		{"decimal bytes", col(introspect.KindDecimal, "decimal(20,6)"), []byte("-0.000001"), "-0.000001"},
		{"string", col(introspect.KindString, "varchar(8)"), "héllo", "héllo"},
		{"bytes", col(introspect.KindBytes, "blob"), []byte{0, 1}, []byte{0, 1}},
		{"set bytes", col(introspect.KindSet, "set('a','b')"), []byte(""), []string{}},
		{"datetime bytes", col(introspect.KindTimestamp, "datetime(3)"), []byte("2024-01-02 03:04:05.120"), canon.UTC(2024, 1, 2, 3, 4, 5, 120e6)},
		{"zero datetime bytes", col(introspect.KindTimestamp, "datetime(3)"), []byte("0000-00-00 00:00:00.000"), canon.ErrValue{}},
		{"zero date bytes", col(introspect.KindDate, "date"), []byte("0000-00-00"), canon.ErrValue{}},
		{"time.Time to UTC", col(introspect.KindTimestampTZ, "timestamp"), time.Date(2024, 1, 2, 8, 34, 5, 0, india), canon.UTC(2024, 1, 2, 3, 4, 5, 0)},
		{"int64 without column is text", nil, int64(7), "7"},
		{"unexpected type", col(introspect.KindString, "text"), struct{}{}, canon.ErrValue{}},
		{"error value stays", col(introspect.KindGeometry, "point"), SpatialNotText("p"), SpatialNotText("p")},
		{"invalid UTF-8 bytes", col(introspect.KindString, "varchar(8)"), []byte("caf\xe9"), errors.New("text is not valid UTF-8 (byte 0xe9 at offset 3)")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := DecodeBinary(tc.col, tc.v, introspect.MySQL.Dialect())
			if !canon.Equal(got, tc.want) {
				t.Fatalf("decodeBinary(%s) = %s, want %s", canon.Show(tc.v), canon.Show(got), canon.Show(tc.want))
			}
		})
	}
}

// TestDecodeErrorsSayWhy checks that an error value names the value, so a
// rejected row's reason is useful.
func TestDecodeErrorsSayWhy(t *testing.T) {
	for _, tc := range []struct {
		col    *introspect.Column
		engine introspect.Engine
		raw    string
		want   string
	}{
		{col(introspect.KindDate, "date"), introspect.MySQL, "0000-00-00", `"0000-00-00"`},
		{col(introspect.KindDate, "date"), introspect.Postgres, "infinity", `"infinity"`},
		{col(introspect.KindTimestamp, "timestamp"), introspect.Postgres, "2024-01-02 03:04:05 BC", `"2024-01-02 03:04:05 BC"`},
		{col(introspect.KindInt, "integer"), introspect.Postgres, "x", `"x"`},
		{arrayCol(introspect.KindInt, "integer[]"), introspect.Postgres, "{1,x}", `element 2`},
	} {
		got := DecodeText(tc.col, []byte(tc.raw), tc.engine.Dialect())
		err, ok := got.(error)
		if !ok {
			t.Errorf("decodeText(%q) = %s, want an error", tc.raw, canon.Show(got))
			continue
		}
		if !bytes.Contains([]byte(err.Error()), []byte(tc.want)) {
			t.Errorf("decodeText(%q) error %q does not mention %s", tc.raw, err, tc.want)
		}
		if errors.Unwrap(err) == nil && tc.col.Kind == introspect.KindArray {
			t.Errorf("array element error %q does not wrap the element's error", err)
		}
	}
}
