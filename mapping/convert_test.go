package mapping

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/av"
	"github.com/remodel-dev/remodel/introspect"
)

// TestConvert covers every kind of the canonical-value contract in doc.go.
// want is the attribute value in wire JSON; "" means the attribute is left
// out; wantErr is the exact error text.
func TestConvert(t *testing.T) {
	var (
		intC   = col("i", "bigint", introspect.KindInt)
		decC   = col("d", "numeric", introspect.KindDecimal)
		floatC = col("f", "double precision", introspect.KindFloat)
		boolC  = col("b", "boolean", introspect.KindBool)
		strC   = col("s", "text", introspect.KindString)
		timeC  = col("tm", "time", introspect.KindTime)
		bytesC = col("y", "bytea", introspect.KindBytes)
		dateC  = col("dt", "date", introspect.KindDate)
		ts0    = precision(col("ts", "timestamp(0)", introspect.KindTimestamp), 0)
		ts3    = precision(col("ts", "timestamp(3)", introspect.KindTimestamp), 3)
		ts6    = precision(col("ts", "timestamp(6)", introspect.KindTimestamp), 6)
		tstz0  = precision(col("tz", "timestamptz(0)", introspect.KindTimestampTZ), 0)
		tstz3  = precision(col("tz", "timestamptz(3)", introspect.KindTimestampTZ), 3)
		tstz6  = precision(col("tz", "timestamptz(6)", introspect.KindTimestampTZ), 6)
		jsonC  = col("j", "jsonb", introspect.KindJSON)
		setC   = col("set", "set('a','b')", introspect.KindSet)
		arr    = func(elem introspect.Kind, p int) *introspect.Column {
			return &introspect.Column{Name: "a", Type: "x[]", Kind: introspect.KindArray, Elem: elem, Precision: p}
		}
	)
	kst := time.FixedZone("KST", 9*3600)
	instant := time.Date(2024, 2, 29, 13, 14, 15, 123456789, time.UTC)
	tests := []struct {
		name    string
		c       *introspect.Column
		v       any
		want    string
		wantErr string
	}{
		{"NULL of any kind", intC, nil, "", ""},
		{"NULL json", jsonC, nil, "", ""},
		{"undecodable value", strC, errors.New("bad bytes in column s"), "", "bad bytes in column s"},

		{"int", intC, int64(-42), `{"N":"-42"}`, ""},
		{"int zero", intC, int64(0), `{"N":"0"}`, ""},
		{"int min", intC, int64(math.MinInt64), `{"N":"-9223372036854775808"}`, ""},
		{"int beyond int64", intC, "18446744073709551615", `{"N":"18446744073709551615"}`, ""},
		{"int below int64", intC, "-9223372036854775809", `{"N":"-9223372036854775809"}`, ""},

		{"decimal", decC, "12.34", `{"N":"12.34"}`, ""},
		{"decimal leading and trailing zeros", decC, "0012.3400", `{"N":"12.34"}`, ""},
		{"decimal integer with trailing zeros", decC, "1200", `{"N":"1200"}`, ""},
		{"decimal .5", decC, ".5", `{"N":"0.5"}`, ""},
		{"decimal 5.", decC, "5.", `{"N":"5"}`, ""},
		{"decimal zero", decC, "0.000", `{"N":"0"}`, ""},
		{"decimal minus zero", decC, "-0", `{"N":"0"}`, ""},
		{"decimal minus zero fraction", decC, "-0.00", `{"N":"0"}`, ""},
		{"decimal plus sign", decC, "+7", `{"N":"7"}`, ""},
		{"decimal negative", decC, "-0.0100", `{"N":"-0.01"}`, ""},
		{"decimal exponent", decC, "1.5e3", `{"N":"1500"}`, ""},
		{"decimal exponent plus", decC, "1.5E+3", `{"N":"1500"}`, ""},
		{"decimal negative exponent", decC, "15e-4", `{"N":"0.0015"}`, ""},
		{"decimal 38 digits", decC, "12345678901234567890123456789012345678", `{"N":"12345678901234567890123456789012345678"}`, ""},
		{"decimal 38 digits with zeros around", decC, "000.1234567890123456789012345678901234567800", `{"N":"0.12345678901234567890123456789012345678"}`, ""},
		{"decimal 39 digits", decC, "123456789012345678901234567890123456789", "",
			"123456789012345678901234567890123456789 has 39 significant digits; DynamoDB keeps at most 38"},
		{"decimal smallest", decC, "1E-130", `{"N":"1E-130"}`, ""},
		{"decimal smallest plain", decC, "0." + strings.Repeat("0", 129) + "1", `{"N":"1E-130"}`, ""},
		{"decimal too small", decC, "1E-131", "", "1E-131 is too small for a DynamoDB number (at least 1E-130)"},
		{"decimal too small negative", decC, "-0.99E-130", "", "-0.99E-130 is too small for a DynamoDB number (at least 1E-130)"},
		{"decimal largest", decC, "9.9999999999999999999999999999999999999E+125", `{"N":"9.9999999999999999999999999999999999999E125"}`, ""},
		{"decimal too large", decC, "1E+126", "", "1E+126 is too large for a DynamoDB number (at most 9.99…E+125)"},
		{"decimal plain up to 60 digits", decC, "1E59", `{"N":"100000000000000000000000000000000000000000000000000000000000"}`, ""},
		{"decimal E notation beyond 60 digits", decC, "1.5E60", `{"N":"1.5E60"}`, ""},
		{"decimal small plain", decC, "1.5E-50", `{"N":"0.000000000000000000000000000000000000000000000000015"}`, ""},
		{"decimal small E notation", decC, "1.5E-60", `{"N":"1.5E-60"}`, ""},
		{"decimal NaN", decC, "NaN", "", "NaN cannot be stored as a DynamoDB number"},
		{"decimal Infinity", decC, "Infinity", "", "Infinity cannot be stored as a DynamoDB number"},
		{"decimal -Infinity", decC, "-Infinity", "", "-Infinity cannot be stored as a DynamoDB number"},
		{"decimal garbage", decC, "12abc", "", `"12abc" is not a number`},
		{"decimal empty", decC, "", "", `"" is not a number`},
		{"decimal dot", decC, ".", "", `"." is not a number`},
		{"decimal bad exponent", decC, "1e", "", `"1e" is not a number`},
		{"decimal two signs", decC, "--1", "", `"--1" is not a number`},

		{"float", floatC, 0.1, `{"N":"0.1"}`, ""},
		{"float shortest round trip", floatC, 1.0 / 3, `{"N":"0.3333333333333333"}`, ""},
		{"float large", floatC, 1e21, `{"N":"1000000000000000000000"}`, ""},
		{"float small", floatC, -2.5e-7, `{"N":"-0.00000025"}`, ""},
		{"float negative zero", floatC, math.Copysign(0, -1), `{"N":"0"}`, ""},
		{"float max int", floatC, float64(1 << 53), `{"N":"9007199254740992"}`, ""},
		{"float NaN", floatC, math.NaN(), "", "NaN cannot be stored as a DynamoDB number"},
		{"float +Inf", floatC, math.Inf(1), "", "+Inf cannot be stored as a DynamoDB number"},
		{"float -Inf", floatC, math.Inf(-1), "", "-Inf cannot be stored as a DynamoDB number"},
		{"float too large", floatC, math.MaxFloat64, "", "1.7976931348623157e+308 is too large for a DynamoDB number (at most 9.99…E+125)"},
		{"float too small", floatC, 5e-324, "", "5e-324 is too small for a DynamoDB number (at least 1E-130)"},

		{"bool true", boolC, true, `{"BOOL":true}`, ""},
		{"bool false", boolC, false, `{"BOOL":false}`, ""},

		{"string", strC, "héllo", `{"S":"héllo"}`, ""},
		{"empty string", strC, "", `{"S":""}`, ""},
		{"time of day", timeC, "13:14:15.123", `{"S":"13:14:15.123"}`, ""},

		{"bytes", bytesC, []byte{0, 0xff, 'a'}, `{"B":"AP9h"}`, ""},
		{"empty bytes", bytesC, []byte{}, `{"B":""}`, ""},

		{"date", dateC, time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC), `{"S":"2024-02-29"}`, ""},
		{"date of year 1", dateC, time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), `{"S":"0001-01-01"}`, ""},
		{"timestamp precision 0", ts0, instant, `{"S":"2024-02-29T13:14:15"}`, ""},
		{"timestamp precision 3", ts3, instant, `{"S":"2024-02-29T13:14:15.123"}`, ""},
		{"timestamp precision 6", ts6, instant, `{"S":"2024-02-29T13:14:15.123456"}`, ""},
		{"timestamp precision 6 whole second", ts6, instant.Truncate(time.Second), `{"S":"2024-02-29T13:14:15.000000"}`, ""},
		{"timestamp precision 3 trailing zero", ts3, instant.Truncate(100 * time.Millisecond), `{"S":"2024-02-29T13:14:15.100"}`, ""},
		{"timestamptz precision 0", tstz0, instant, `{"S":"2024-02-29T13:14:15Z"}`, ""},
		{"timestamptz precision 3", tstz3, instant, `{"S":"2024-02-29T13:14:15.123Z"}`, ""},
		{"timestamptz precision 6", tstz6, instant, `{"S":"2024-02-29T13:14:15.123456Z"}`, ""},
		{"timestamptz in another zone is written in UTC", tstz0, time.Date(2024, 3, 1, 8, 0, 0, 0, kst), `{"S":"2024-02-29T23:00:00Z"}`, ""},

		{"json object", jsonC, []byte(`{"a":{"b":[1,2.50,"x",true,null]},"big":123456789012345678901234567890}`),
			`{"M":{"a":{"M":{"b":{"L":[{"N":"1"},{"N":"2.5"},{"S":"x"},{"BOOL":true},{"NULL":true}]}}},"big":{"N":"123456789012345678901234567890"}}}`, ""},
		{"json as string", jsonC, `[1e2, -0.0]`, `{"L":[{"N":"100"},{"N":"0"}]}`, ""},
		{"json scalar string", jsonC, []byte(`"x"`), `{"S":"x"}`, ""},
		{"json scalar number", jsonC, []byte(`-12.50`), `{"N":"-12.5"}`, ""},
		{"json null", jsonC, []byte(`null`), `{"NULL":true}`, ""},
		{"json empty containers", jsonC, []byte(`{"l":[],"m":{}}`), `{"M":{"l":{"L":[]},"m":{"M":{}}}}`, ""},
		{"json 31 levels", jsonC, []byte(strings.Repeat(`{"a":`, 30) + "[]" + strings.Repeat("}", 30)),
			`{"M":{"a":` + strings.Repeat(`{"M":{"a":`, 29) + `{"L":[]}` + strings.Repeat("}}", 30), ""},
		{"json 32 levels", jsonC, []byte(strings.Repeat(`{"a":`, 31) + "[]" + strings.Repeat("}", 31)), "", tooDeep},
		{"json 31 levels of lists around a scalar", jsonC, []byte(strings.Repeat("[", 31) + "1" + strings.Repeat("]", 31)),
			strings.Repeat(`{"L":[`, 31) + `{"N":"1"}` + strings.Repeat("]}", 31), ""},
		{"json 32 levels of lists around a scalar", jsonC, []byte(strings.Repeat("[", 32) + "1" + strings.Repeat("]", 32)), "", tooDeep},
		{"json 32 levels, mixed", jsonC, []byte(strings.Repeat(`[{"a":`, 16) + "1" + strings.Repeat("}]", 16)), "", tooDeep},
		{"json 32 levels in one branch only", jsonC, []byte(`{"flat":1,"deep":` + strings.Repeat("[", 31) + strings.Repeat("]", 31) + `}`), "", tooDeep},
		{"json empty key", jsonC, []byte(`{"a":{"b":[1,{"":true}]}}`), "",
			"json: the object at $.a.b[1] has an empty key (DynamoDB refuses an empty attribute name)"},
		{"json empty key at the top", jsonC, []byte(`{"":1}`), "",
			"json: the object at $ has an empty key (DynamoDB refuses an empty attribute name)"},
		{"json key of 65535 bytes", jsonC, []byte(`{"` + strings.Repeat("k", 65535) + `":1}`),
			`{"M":{"` + strings.Repeat("k", 65535) + `":{"N":"1"}}}`, ""},
		{"json key of 65536 bytes", jsonC, []byte(`{"x":{"` + strings.Repeat("é", 32768) + `":1}}`), "",
			"json: the object at $.x has a key of 65536 bytes (DynamoDB allows attribute names of at most 65535)"},
		{"json duplicate key", jsonC, []byte(`{"a":1,"a":2}`), "",
			`json: the object at $ has the key "a" twice (a DynamoDB map keeps one value per key)`},
		{"json duplicate key, nested, escaped", jsonC, []byte(`{"x y":[{"k\"":1,"b":{},"k\u0022":2}]}`), "",
			`json: the object at $."x y"[0] has the key "k\"" twice (a DynamoDB map keeps one value per key)`},
		{"json same key in different objects", jsonC, []byte(`{"a":{"a":1},"b":{"a":2}}`),
			`{"M":{"a":{"M":{"a":{"N":"1"}}},"b":{"M":{"a":{"N":"2"}}}}}`, ""},
		{"json keys differing in case", jsonC, []byte(`{"a":1,"A":2}`), `{"M":{"A":{"N":"2"},"a":{"N":"1"}}}`, ""},
		{"json minus zero", jsonC, []byte(`{"i":-0,"f":-0.0,"e":-0e5,"E":-0.000E-3}`),
			`{"M":{"E":{"N":"0"},"e":{"N":"0"},"f":{"N":"0"},"i":{"N":"0"}}}`, ""},
		{"json surrogate pair and an escaped backslash", jsonC, []byte(`"\ud83d\ude00 \\ud800"`), `{"S":"😀 \\ud800"}`, ""},
		{"json lone high surrogate", jsonC, []byte(`{"a":"x\ud800y"}`), "",
			`json: lone UTF-16 surrogate \ud800 at byte offset 7 (not a Unicode character)`},
		{"json high surrogate before a non-surrogate", jsonC, []byte(`["\uD800\u0041"]`), "",
			`json: lone UTF-16 surrogate \uD800 at byte offset 2 (not a Unicode character)`},
		{"json lone low surrogate", jsonC, []byte(`["\udc00"]`), "",
			`json: lone UTF-16 surrogate \udc00 at byte offset 2 (not a Unicode character)`},
		{"json high surrogate at the end", jsonC, []byte(`"\ud800"`), "",
			`json: lone UTF-16 surrogate \ud800 at byte offset 1 (not a Unicode character)`},
		{"json invalid UTF-8", jsonC, []byte("{\"a\":\"x\xff\"}"), "", "json: not valid UTF-8 (byte offset 7)"},
		{"json replacement character is kept", jsonC, []byte(`"\ufffd\uFFFD�"`), `{"S":"���"}`, ""},
		{"json too many digits", jsonC, []byte(`[1234567890123456789012345678901234567890]`), "",
			"json: $[0]: 1234567890123456789012345678901234567890 has 39 significant digits; DynamoDB keeps at most 38"},
		{"json invalid", jsonC, []byte(`{"a" 1}`), "", "json: invalid character '1' after object key"},
		{"json empty text", jsonC, []byte(``), "", "json: unexpected EOF"},
		{"json of the wrong type", jsonC, 12, "", "json column holds a int"},

		{"array of ints with NULL", arr(introspect.KindInt, 0), []any{int64(1), nil, int64(3)},
			`{"L":[{"N":"1"},{"NULL":true},{"N":"3"}]}`, ""},
		{"array of NULLs", arr(introspect.KindString, 0), []any{nil, nil}, `{"L":[{"NULL":true},{"NULL":true}]}`, ""},
		{"empty array", arr(introspect.KindInt, 0), []any{}, `{"L":[]}`, ""},
		{"nested array", arr(introspect.KindInt, 0), []any{[]any{int64(1), int64(2)}, []any{int64(3), nil}},
			`{"L":[{"L":[{"N":"1"},{"N":"2"}]},{"L":[{"N":"3"},{"NULL":true}]}]}`, ""},
		{"array of decimals", arr(introspect.KindDecimal, 0), []any{"1.50", "-0"}, `{"L":[{"N":"1.5"},{"N":"0"}]}`, ""},
		{"array of bytes", arr(introspect.KindBytes, 0), []any{[]byte("hi")}, `{"L":[{"B":"aGk="}]}`, ""},
		{"array of timestamptz keeps precision", arr(introspect.KindTimestampTZ, 3), []any{instant},
			`{"L":[{"S":"2024-02-29T13:14:15.123Z"}]}`, ""},
		{"array of dates", arr(introspect.KindDate, 0), []any{instant}, `{"L":[{"S":"2024-02-29"}]}`, ""},
		{"array with a bad element", arr(introspect.KindDecimal, 0), []any{"1", "NaN"}, "", "element 2: NaN cannot be stored as a DynamoDB number"},
		{"array of the wrong type", arr(introspect.KindInt, 0), "{1,2}", "", "array column holds a string"},
		{"array nested 31 deep", arr(introspect.KindInt, 0), nestArray(31), strings.Repeat(`{"L":[`, 31) + `{"N":"1"}` + strings.Repeat("]}", 31), ""},
		{"array nested 32 deep", arr(introspect.KindInt, 0), nestArray(32), "", strings.Repeat("element 1: ", 31) + "array: " + strings.TrimPrefix(tooDeep, "json: ")},

		{"set", setC, []string{"a", "b"}, `{"SS":["a","b"]}`, ""},
		{"empty set is left out", setC, []string{}, "", ""},
		{"set of the wrong type", setC, "a,b", "", "set column holds a string"},

		{"unexpected Go type", boolC, struct{}{}, "", "unexpected struct {} value for a bool column"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			av, err := Convert(tt.c, tt.v)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				if av != nil {
					t.Errorf("value %v with the error", av)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == "" {
				if av != nil {
					t.Fatalf("got %s, want the attribute left out", compactJSON(t, av))
				}
				return
			}
			if av == nil {
				t.Fatalf("attribute left out, want %s", tt.want)
			}
			if got := compactJSON(t, av); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// tooDeep is the error for JSON nested beyond DynamoDB's limit.
const tooDeep = "json: maps and lists nested more than 31 deep (DynamoDB allows 32 levels, counting the item)"

// nestArray is [[[...[1]...]]] with depth lists.
func nestArray(depth int) []any {
	v := []any{int64(1)}
	for i := 1; i < depth; i++ {
		v = []any{v}
	}
	return v
}

func TestNormalizeNumberIdempotent(t *testing.T) {
	for _, s := range []string{"0", "1", "-1", "0.5", "1E-130", "1.5E60", "9.9999999999999999999999999999999999999E125", "123.456", "100000"} {
		n, err := normalizeNumber(s)
		if err != nil {
			t.Fatal(err)
		}
		if n != s {
			t.Errorf("normalizeNumber(%q) = %q, want it unchanged", s, n)
		}
	}
}

func TestKeyValue(t *testing.T) {
	av, err := KeyValue(KeyAttr{"score", "N"}, "007.50")
	if err != nil || compactJSON(t, av) != `{"N":"7.5"}` {
		t.Errorf("N key: %v %v", av, err)
	}
	av, err = KeyValue(KeyAttr{"PK", "S"}, "007.50")
	if err != nil || compactJSON(t, av) != `{"S":"007.50"}` {
		t.Errorf("S key: %v %v", av, err)
	}
	if _, err := KeyValue(KeyAttr{"score", "N"}, "x"); err == nil || err.Error() != `key score must be a number: "x" is not a number` {
		t.Errorf("bad N key: %v", err)
	}
}

// TestItemSize checks sizes computed by hand with the rules of "DynamoDB
// item sizes and formats": names and values in UTF-8 bytes; numbers 1 byte
// per two significant digits (leading and trailing zeros trimmed) plus 1;
// binary raw bytes; BOOL and NULL 1; lists and maps 3 plus 1 per element.
func TestItemSize(t *testing.T) {
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	n := func(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }
	tests := []struct {
		name string
		item Item
		want int
	}{
		{"empty", Item{}, 0},
		{"string", Item{"PK": s("USER#1")}, 2 + 6},
		{"multi-byte string and name", Item{"é": s("日本")}, 2 + 6},
		{"empty string", Item{"a": s("")}, 1},
		{"number, odd digits", Item{"n": n("12345")}, 1 + 3 + 1},
		{"number, even digits", Item{"n": n("1234")}, 1 + 2 + 1},
		{"number, one digit", Item{"n": n("7")}, 1 + 1 + 1},
		{"number, trailing zeros trimmed", Item{"n": n("1000000")}, 1 + 1 + 1},
		{"number, leading zeros trimmed", Item{"n": n("0.00012")}, 1 + 1 + 1},
		{"number, inner zeros kept", Item{"n": n("-100.001")}, 1 + 3 + 1},
		{"number, zero", Item{"n": n("0")}, 1 + 0 + 1},
		{"number, E notation", Item{"n": n("1.2345E-70")}, 1 + 3 + 1},
		{"number, 38 digits", Item{"n": n("12345678901234567890123456789012345678")}, 1 + 19 + 1},
		{"binary", Item{"b": &types.AttributeValueMemberB{Value: []byte{1, 2, 3}}}, 1 + 3},
		{"bool and null", Item{"t": &types.AttributeValueMemberBOOL{Value: true}, "z": &types.AttributeValueMemberNULL{Value: true}}, 1 + 1 + 1 + 1},
		{"empty list", Item{"l": &types.AttributeValueMemberL{}}, 1 + 3},
		{"empty map", Item{"m": &types.AttributeValueMemberM{}}, 1 + 3},
		{"list", Item{"l": &types.AttributeValueMemberL{Value: []types.AttributeValue{s("ab"), n("12")}}}, 1 + 3 + (1 + 2) + (1 + 2)},
		{"map", Item{"m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"key": s("v"), "k": n("5")}}}, 1 + 3 + (1 + 3 + 1) + (1 + 1 + 2)},
		{"nested", Item{"m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
			"l": &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberNULL{Value: true}}},
		}}}, 1 + 3 + (1 + 1 + (3 + 1 + 1))},
		{"string set", Item{"ss": &types.AttributeValueMemberSS{Value: []string{"a", "bc"}}}, 2 + 3},
		{"number set", Item{"ns": &types.AttributeValueMemberNS{Value: []string{"1", "100", "12.5"}}}, 2 + 2 + 2 + 3},
		{"binary set", Item{"bs": &types.AttributeValueMemberBS{Value: [][]byte{{1}, {2, 3}}}}, 2 + 3},
		{"item", Item{"PK": s("USER#1"), "SK": s("USER#"), "_type": s("user"), "user_id": n("1"), "isActive": &types.AttributeValueMemberBOOL{Value: true}},
			(2 + 6) + (2 + 5) + (5 + 4) + (7 + 2) + (8 + 1)},
	}
	for _, tt := range tests {
		if got := ItemSize(tt.item); got != tt.want {
			t.Errorf("%s: ItemSize = %d, want %d", tt.name, got, tt.want)
		}
	}
}

// A json[] array is a list of documents, not of bytes.
func TestConvertJSONArray(t *testing.T) {
	c := &introspect.Column{Name: "docs", Type: "jsonb[]", Kind: introspect.KindArray, Elem: introspect.KindJSON}
	v, err := Convert(c, []any{[]byte(`{"a": 1}`), nil, []byte(`[true]`)})
	if err != nil {
		t.Fatal(err)
	}
	l, ok := v.(*types.AttributeValueMemberL)
	if !ok || len(l.Value) != 3 {
		t.Fatalf("got %#v, want a list of 3", v)
	}
	if m, ok := l.Value[0].(*types.AttributeValueMemberM); !ok || av.KeyText(m.Value["a"]) != "1" {
		t.Errorf("element 1 = %#v, want the map {a: 1}", l.Value[0])
	}
	if _, ok := l.Value[1].(*types.AttributeValueMemberNULL); !ok {
		t.Errorf("element 2 = %#v, want NULL", l.Value[1])
	}
	if _, ok := l.Value[2].(*types.AttributeValueMemberL); !ok {
		t.Errorf("element 3 = %#v, want a list", l.Value[2])
	}

	// The array's lists count towards DynamoDB's nesting limit.
	doc := func(levels int) []byte { return []byte(strings.Repeat("[", levels) + strings.Repeat("]", levels)) }
	for _, tt := range []struct {
		name    string
		v       []any
		wantErr string
	}{
		{"30 levels in a list", []any{doc(30)}, ""},
		{"31 levels in a list", []any{doc(31)}, "element 1: " + tooDeep},
		{"29 levels in two lists", []any{[]any{doc(29)}}, ""},
		{"30 levels in two lists", []any{nil, []any{doc(1), doc(30)}}, "element 2: element 2: " + tooDeep},
		{"empty key in an element", []any{doc(1), []byte(`{"a":[{"":1}]}`)}, "element 2: json: the object at $.a[0] has an empty key (DynamoDB refuses an empty attribute name)"},
		{"key twice in an element", []any{[]byte(`{"a":1,"a":1}`)}, `element 1: json: the object at $ has the key "a" twice (a DynamoDB map keeps one value per key)`},
	} {
		av, err := Convert(c, tt.v)
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.wantErr == "" && avNest(av) != MaxDepth-1:
			t.Errorf("%s: nests %d deep, want %d", tt.name, avNest(av), MaxDepth-1)
		case tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr):
			t.Errorf("%s: err %v, want %q", tt.name, err, tt.wantErr)
		}
	}
}

// avNest is how many maps and lists an attribute value nests.
func avNest(av types.AttributeValue) int {
	d := 0
	switch x := av.(type) {
	case *types.AttributeValueMemberL:
		for _, e := range x.Value {
			d = max(d, avNest(e))
		}
		return d + 1
	case *types.AttributeValueMemberM:
		for _, e := range x.Value {
			d = max(d, avNest(e))
		}
		return d + 1
	}
	return 0
}
