package verify

import (
	"encoding/json"
	"maps"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/av"
	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
)

// These tests need no service: they pin how the oracle reads each kind of
// JSON value the engines render and compares it with a stored attribute.

func n(s string) types.AttributeValue { return &types.AttributeValueMemberN{Value: s} }
func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func b(v bool) types.AttributeValue   { return &types.AttributeValueMemberBOOL{Value: v} }
func l(v ...types.AttributeValue) types.AttributeValue {
	return &types.AttributeValueMemberL{Value: v}
}
func m(kv map[string]types.AttributeValue) types.AttributeValue {
	return &types.AttributeValueMemberM{Value: kv}
}

var null types.AttributeValue = &types.AttributeValueMemberNULL{Value: true}

func TestOracleValue(t *testing.T) {
	pg, my := introspect.Postgres, introspect.MySQL
	col := func(k introspect.Kind, typ string, precision int) *introspect.Column {
		return &introspect.Column{Name: "c", Type: typ, Kind: k, Precision: precision}
	}
	arr := func(elem introspect.Kind, typ string, precision int) *introspect.Column {
		return &introspect.Column{Name: "c", Type: typ, Kind: introspect.KindArray, Elem: elem, Precision: precision}
	}
	var (
		bigint  = col(introspect.KindInt, "bigint", 0)
		numeric = col(introspect.KindDecimal, "numeric(20,6)", 0)
		double  = col(introspect.KindFloat, "double precision", 0)
		real    = col(introspect.KindFloat, "real", 0)
		myFloat = col(introspect.KindFloat, "float", 0)
		myDbl   = col(introspect.KindFloat, "double", 0)
		boolean = col(introspect.KindBool, "boolean", 0)
		text    = col(introspect.KindString, "text", 0)
		bytea   = col(introspect.KindBytes, "bytea", 0)
		date    = col(introspect.KindDate, "date", 0)
		ts3     = col(introspect.KindTimestamp, "timestamp(3)", 3)
		tstz3   = col(introspect.KindTimestampTZ, "timestamptz(3)", 3)
		tstz0   = col(introspect.KindTimestampTZ, "timestamp", 0)
		tm      = col(introspect.KindTime, "time(2)", 2)
		jsonb   = col(introspect.KindJSON, "jsonb", 0)
		set     = col(introspect.KindSet, "set('a','b','c')", 0)
	)
	const agree, differ = "", "differ"
	for _, tc := range []struct {
		engine  introspect.Engine
		col     *introspect.Column
		json    string
		sqlNull bool
		got     types.AttributeValue
		want    string // agree, differ, or a part of the note
	}{
		{pg, bigint, `42`, false, n("42"), agree},
		{pg, bigint, `9007199254740993`, false, n("9007199254740993"), agree},
		{pg, bigint, `9007199254740993`, false, n("9007199254740992"), differ},
		{my, bigint, `18446744073709551615`, false, n("18446744073709551615"), agree},
		{pg, bigint, `42`, false, s("42"), differ},
		{pg, bigint, `"42"`, false, n("42"), "a int column rendered as JSON string \"42\", not as a number"},
		{pg, numeric, `12345678901234.123456`, false, n("12345678901234.123456"), agree},
		{pg, numeric, `4.500000`, false, n("4.5"), agree},
		{pg, numeric, `4.500000`, false, n("4.50001"), differ},
		{pg, numeric, `12345678901234.123456`, false, n("12345678901234.123457"), differ},
		{pg, numeric, `1E+3`, false, n("1000"), agree},
		{pg, numeric, `"NaN"`, false, n("0"), "not as a number"},
		{pg, double, `0.30000000000000004`, false, n("0.30000000000000004"), agree},
		{pg, double, `0.30000000000000004`, false, n("0.3"), differ},
		{pg, double, `1.5e100`, false, n("1.5E+100"), agree},
		{pg, real, `1.100000023841858`, false, n("1.1"), agree},
		{pg, real, `1.1`, false, n("1.1"), agree},
		{pg, real, `1.1`, false, n("1.2"), differ},
		{my, myFloat, `16777216`, false, n("16777216"), agree},
		{my, myFloat, `1.100000023841858`, false, n("1.1"), agree},
		{my, myDbl, `1.100000023841858`, false, n("1.1"), differ},
		{pg, boolean, `true`, false, b(true), agree},
		{pg, boolean, `true`, false, b(false), differ},
		{my, boolean, `1`, false, b(true), agree},
		{my, boolean, `0`, false, b(true), differ},
		{my, boolean, `2`, false, b(true), "neither 0 nor 1"},
		{pg, boolean, `true`, false, s("true"), differ},
		{pg, text, `"Zoë 東京 🚀"`, false, s("Zoë 東京 🚀"), agree},
		{pg, text, `"Zoë"`, false, s("ZOË"), differ},
		{pg, text, `""`, false, s(""), agree},
		{pg, text, `{"a": 1}`, false, s("(1)"), `a column read as text (text) rendered as JSON object {"a":1}, which does not say what its text is`},
		{pg, bytea, `"\\x0001ff"`, false, &types.AttributeValueMemberB{Value: []byte{0, 1, 0xff}}, agree},
		{pg, bytea, `"\\x"`, false, &types.AttributeValueMemberB{Value: []byte{}}, agree},
		{pg, bytea, `"\\x0001ff"`, false, &types.AttributeValueMemberB{Value: []byte{0, 1, 0xfe}}, differ},
		{pg, bytea, `"0001ff"`, false, &types.AttributeValueMemberB{Value: []byte{0, 1, 0xff}}, `without the \x hex prefix`},
		{my, bytea, `"0001FF"`, false, &types.AttributeValueMemberB{Value: []byte{0, 1, 0xff}}, agree},
		{my, bytea, `"0001FF"`, false, s("0001FF"), differ},
		{pg, date, `"2024-01-02"`, false, s("2024-01-02"), agree},
		{pg, date, `"2024-01-02"`, false, s("2024-01-03"), differ},
		{pg, date, `"2024-01-02"`, false, s("2024-01-02T00:00:00"), differ},
		{pg, ts3, `"2024-01-02T03:04:05.123"`, false, s("2024-01-02T03:04:05.123"), agree},
		{my, ts3, `"2024-01-02 03:04:05.123"`, false, s("2024-01-02T03:04:05.123"), agree},
		{my, ts3, `"2024-01-02 03:04:05.123000"`, false, s("2024-01-02T03:04:05.123"), agree},
		{pg, ts3, `"2024-01-02T03:04:05.123"`, false, s("2024-01-02T03:04:06.123"), differ},
		{pg, ts3, `"2024-01-02T03:04:05.123"`, false, s("2024-01-02T03:04:05.123Z"), differ},
		{pg, ts3, `"2024-01-02T03:04:05.123"`, false, s("2024-01-02T03:04:05.12"), differ},
		{pg, ts3, `"infinity"`, false, s("infinity"), `the source's timestamp "infinity" is not one the oracle reads`},
		{pg, tstz3, `"2024-01-02T08:34:05.123+05:30"`, false, s("2024-01-02T03:04:05.123Z"), agree},
		{pg, tstz3, `"2024-01-02T03:04:05.123+00:00"`, false, s("2024-01-02T03:04:05.123Z"), agree},
		{pg, tstz3, `"2024-01-02T03:04:05.123+00"`, false, s("2024-01-02T03:04:05.123Z"), agree},
		{pg, tstz3, `"2024-01-02T03:04:05.123+00:00"`, false, s("2024-01-02T04:04:05.123Z"), differ},
		{my, tstz3, `"2024-01-02 03:04:05.500"`, false, s("2024-01-02T03:04:05.500Z"), agree},
		{my, tstz0, `"2024-01-02 03:04:05"`, false, s("2024-01-02T03:04:05Z"), agree},
		{my, tstz0, `"2024-01-02 03:04:05"`, false, s("2024-01-02T03:04:06Z"), differ},
		{pg, tm, `"12:34:56.78"`, false, s("12:34:56.78"), agree},
		{my, tm, `"12:34:56.780000"`, false, s("12:34:56.78"), agree},
		{my, tm, `"-838:59:59.00"`, false, s("-838:59:59"), agree},
		{pg, tm, `"12:34:56+02"`, false, s("12:34:56+02"), agree},
		{pg, tm, `"12:34:56+02"`, false, s("12:34:56+03"), differ},
		{pg, tm, `"12:34:56.78"`, false, s("12:34:57.78"), differ},
		{pg, jsonb, `{"a": [1, 2.50, "x"], "b": {"c": null}, "t": true}`, false,
			m(map[string]types.AttributeValue{"a": l(n("1"), n("2.5"), s("x")), "b": m(map[string]types.AttributeValue{"c": null}), "t": b(true)}), agree},
		{pg, jsonb, `{"a": [1, 2.50, "x"]}`, false, m(map[string]types.AttributeValue{"a": l(n("1"), n("2.6"), s("x"))}), differ},
		{pg, jsonb, `{"a": 1}`, false, m(map[string]types.AttributeValue{"a": n("1"), "b": n("1")}), differ},
		{pg, jsonb, `{"a": 1}`, false, m(map[string]types.AttributeValue{}), differ},
		{pg, jsonb, `"1"`, false, n("1"), differ},
		{pg, jsonb, `12345678901234567890`, false, n("12345678901234567890"), agree},
		{pg, jsonb, `[]`, false, l(), agree},
		{pg, arr(introspect.KindInt, "integer[]", 0), `[1, null, 3]`, false, l(n("1"), null, n("3")), agree},
		{pg, arr(introspect.KindInt, "integer[]", 0), `[1, null, 3]`, false, l(n("1"), n("3")), differ},
		{pg, arr(introspect.KindInt, "integer[]", 0), `[[1, 2], [3, 4]]`, false, l(l(n("1"), n("2")), l(n("3"), n("4"))), agree},
		{pg, arr(introspect.KindInt, "integer[]", 0), `[[1, 2], [3, 4]]`, false, l(l(n("1"), n("2")), l(n("3"), n("5"))), differ},
		{pg, arr(introspect.KindTimestampTZ, "timestamp with time zone[]", 6), `["2024-01-02T03:04:05+00:00"]`, false, l(s("2024-01-02T03:04:05.000000Z")), agree},
		{pg, arr(introspect.KindJSON, "jsonb[]", 0), `[{"a": 1}, [2]]`, false, l(m(map[string]types.AttributeValue{"a": n("1")}), l(n("2"))), agree},
		{pg, arr(introspect.KindString, "text[]", 0), `["a", {"x": 1}]`, false, l(s("a"), s("(1)")), "element 2: a column read as text"},
		{pg, arr(introspect.KindFloat, "real[]", 0), `[1.1]`, false, l(n("1.1")), agree},
		{pg, arr(introspect.KindInt, "integer[]", 0), `"{1}"`, false, l(n("1")), "an array column rendered as JSON string"},
		{my, set, `"a,c"`, false, &types.AttributeValueMemberSS{Value: []string{"c", "a"}}, agree},
		{my, set, `"a,c"`, false, &types.AttributeValueMemberSS{Value: []string{"a"}}, differ},
		{my, set, `""`, false, nil, agree},
		{my, set, `""`, false, &types.AttributeValueMemberSS{Value: []string{"a"}}, differ},
		{pg, text, `null`, true, nil, agree},
		{pg, text, `null`, true, s("x"), differ},
		{pg, text, `"x"`, false, nil, differ},
		{pg, jsonb, `null`, false, null, agree}, // the JSON document null
		{pg, jsonb, `null`, false, nil, differ},
		{pg, jsonb, `null`, true, nil, agree}, // SQL NULL
		{pg, jsonb, `null`, true, null, differ},
	} {
		dec := json.NewDecoder(strings.NewReader(tc.json))
		dec.UseNumber()
		var jv any
		if err := dec.Decode(&jv); err != nil {
			t.Fatalf("%s: %v", tc.json, err)
		}
		o := &oracle{engine: tc.engine}
		f, bad := o.value(mapping.ColumnAttribute{Attr: "a", Column: tc.col}, jv, tc.sqlNull, tc.got)
		var got string
		switch {
		case bad && f.note != "":
			got = f.note
		case bad:
			got = differ
		}
		if tc.want == agree || tc.want == differ {
			if got != tc.want {
				t.Errorf("%s %s: JSON %s vs %s: got %q, want %q", tc.engine, tc.col.Type, tc.json, av.Text(tc.got), got, tc.want)
			}
		} else if !strings.Contains(got, tc.want) {
			t.Errorf("%s %s: JSON %s vs %s: got %q, want a note containing %q", tc.engine, tc.col.Type, tc.json, av.Text(tc.got), got, tc.want)
		}
	}
}

func TestSampled(t *testing.T) {
	counts := map[float64]int{}
	for _, rate := range []float64{0.01, 0.1, 0.5, 0.9} {
		in := 0
		for i := range 20000 {
			key := "id=" + strconv.Itoa(i)
			if sampled(key, rate) {
				in++
			} else if rate > 0.01 && sampled(key, 0.01) {
				t.Fatalf("row %s is in the sample at rate 0.01 but not at %v", key, rate)
			}
		}
		if share := float64(in) / 20000; share < rate*0.85-0.002 || share > rate*1.15+0.002 {
			t.Errorf("rate %v chose %.4f of the rows", rate, share)
		}
		counts[rate] = in
	}
	// The choice is part of the contract (the same rows on every run, and
	// in every version): pinned.
	if want := map[float64]int{0.01: 213, 0.1: 2019, 0.5: 10030, 0.9: 18077}; !maps.Equal(counts, want) {
		t.Errorf("rows chosen per rate %v, want %v", counts, want)
	}
	if !sampled("anything", 1) {
		t.Error("rate 1 left a row out")
	}
}
