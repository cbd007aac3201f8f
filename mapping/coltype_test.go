package mapping

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping/parse"
)

// TestConvertAs pins, per type, what each kind of canonical value becomes
// and which values reject the row, with the reason.
func TestConvertAs(t *testing.T) {
	text := &introspect.Column{Name: "c", Type: "text", Kind: introspect.KindString}
	char := &introspect.Column{Name: "c", Type: "character(5)", Kind: introspect.KindString}
	integer := &introspect.Column{Name: "c", Type: "integer", Kind: introspect.KindInt}
	dec := &introspect.Column{Name: "c", Type: "numeric(6,2)", Kind: introspect.KindDecimal}
	float := &introspect.Column{Name: "c", Type: "double precision", Kind: introspect.KindFloat}
	boolean := &introspect.Column{Name: "c", Type: "boolean", Kind: introspect.KindBool}
	ts := &introspect.Column{Name: "c", Type: "timestamp(3)", Kind: introspect.KindTimestamp, Precision: 3}
	tstz := &introspect.Column{Name: "c", Type: "timestamp(6) with time zone", Kind: introspect.KindTimestampTZ, Precision: 6}
	date := &introspect.Column{Name: "c", Type: "date", Kind: introspect.KindDate}
	js := &introspect.Column{Name: "c", Type: "jsonb", Kind: introspect.KindJSON}
	set := &introspect.Column{Name: "c", Type: "set('a','b')", Kind: introspect.KindSet}
	textArr := &introspect.Column{Name: "c", Type: "text[]", Kind: introspect.KindArray, Elem: introspect.KindString}
	numArr := &introspect.Column{Name: "c", Type: "numeric[]", Kind: introspect.KindArray, Elem: introspect.KindDecimal}
	intArr := &introspect.Column{Name: "c", Type: "integer[]", Kind: introspect.KindArray, Elem: introspect.KindInt}
	byteArr := &introspect.Column{Name: "c", Type: "bytea[]", Kind: introspect.KindArray, Elem: introspect.KindBytes}
	bytesCol := &introspect.Column{Name: "c", Type: "bytea", Kind: introspect.KindBytes}
	at := time.Date(2024, 1, 2, 3, 4, 5, 123_000_000, time.UTC)

	N := func(s string) types.AttributeValue { return &types.AttributeValueMemberN{Value: s} }
	S := func(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }
	BOOL := func(b bool) types.AttributeValue { return &types.AttributeValueMemberBOOL{Value: b} }
	for _, tc := range []struct {
		name string
		col  *introspect.Column
		typ  ColType
		v    any
		want types.AttributeValue // nil: left out (with no error)
		err  string
	}{
		{"N from int", integer, TypeN, int64(-7), N("-7"), ""},
		{"N from decimal keeps the value", dec, TypeN, "0012.50", N("12.5"), ""},
		{"N from float", float, TypeN, 0.1, N("0.1"), ""},
		{"N from NaN float", float, TypeN, 0.0 / zero(), nil, "NaN cannot be stored as a DynamoDB number"},
		{"N from text", text, TypeN, "1e3", N("1000"), ""},
		{"N from text not a number", text, TypeN, "12 apples", nil, `text "12 apples" is not a number`},
		{"N from text with 39 digits", text, TypeN, strings.Repeat("9", 39), nil, "has 39 significant digits; DynamoDB keeps at most 38"},
		{"N from money read as numeric", dec, TypeN, "-1234.56", N("-1234.56"), ""},
		{"S from decimal as a template renders it", dec, TypeS, "1.50", S("1.5"), ""},
		{"S from NaN decimal", dec, TypeS, "NaN", S("NaN"), ""},
		{"S from infinite decimal", dec, TypeS, "-Infinity", S("-Infinity"), ""},
		{"S from 45 digits", dec, TypeS, "123456789012345678901234567890.123456789012345000", S("123456789012345678901234567890.123456789012345"), ""},
		{"S from a decimal N cannot hold", dec, TypeS, "1e-200", S("1E-200"), ""},
		{"S from a tiny float", float, TypeS, 1e-200, S("1E-200"), ""},
		{"S from NaN float", float, TypeS, 0.0 / zero(), S("NaN"), ""},
		{"S from text that is no number", dec, TypeS, "12 apples", nil, `"12 apples" is not a number`},
		{"S from int", integer, TypeS, int64(42), S("42"), ""},
		{"S from float", float, TypeS, 1e21, S("1000000000000000000000"), ""},
		{"S from bool", boolean, TypeS, true, S("true"), ""},
		{"S from timestamp", ts, TypeS, at, S("2024-01-02T03:04:05.123"), ""},
		{"S from JSON keeps its text", js, TypeS, []byte(`{"b": 1, "a": [2]}`), S(`{"b": 1, "a": [2]}`), ""},
		{"S from bytes that are UTF-8", bytesCol, TypeS, []byte("héllo"), S("héllo"), ""},
		{"S from bytes that are not", bytesCol, TypeS, []byte("caf\xe9"), nil, "bytes are not valid UTF-8 text (byte 0xe9 at offset 3)"},
		{"BOOL from bool", boolean, TypeBOOL, false, BOOL(false), ""},
		{"BOOL from 1", integer, TypeBOOL, int64(1), BOOL(true), ""},
		{"BOOL from 0", integer, TypeBOOL, int64(0), BOOL(false), ""},
		{"BOOL from 2", integer, TypeBOOL, int64(2), nil, "2 is not a boolean (BOOL takes 0 or 1)"},
		{"BOOL from -1", integer, TypeBOOL, int64(-1), nil, "-1 is not a boolean (BOOL takes 0 or 1)"},
		{"BOOL from Y", text, TypeBOOL, "Y", BOOL(true), ""},
		{"BOOL from n", text, TypeBOOL, "n", BOOL(false), ""},
		{"BOOL from TRUE", text, TypeBOOL, "TRUE", BOOL(true), ""},
		{"BOOL from f", text, TypeBOOL, "f", BOOL(false), ""},
		{"BOOL from No", text, TypeBOOL, "No", BOOL(false), ""},
		{"BOOL from padded char", char, TypeBOOL, "yes  ", BOOL(true), ""},
		{"BOOL from leading space", text, TypeBOOL, " y", nil, `text " y" is not a boolean`},
		{"BOOL from empty text", text, TypeBOOL, "", nil, `text "" is not a boolean`},
		{"BOOL from maybe", text, TypeBOOL, "maybe", nil, `text "maybe" is not a boolean`},
		{"B from bytes", bytesCol, TypeB, []byte{0, 0xff}, &types.AttributeValueMemberB{Value: []byte{0, 0xff}}, ""},
		{"B from text read as bytes", text, TypeB, []byte("caf\xe9"), &types.AttributeValueMemberB{Value: []byte("caf\xe9")}, ""},
		{"B from empty text", text, TypeB, []byte{}, &types.AttributeValueMemberB{Value: []byte{}}, ""},
		{"SS from SET", set, TypeSS, []string{"a", "b"}, &types.AttributeValueMemberSS{Value: []string{"a", "b"}}, ""},
		{"SS from empty SET", set, TypeSS, []string{}, nil, ""},
		{"SS from text array", textArr, TypeSS, []any{"x", "", "y"}, &types.AttributeValueMemberSS{Value: []string{"x", "", "y"}}, ""},
		{"SS from empty array", textArr, TypeSS, []any{}, nil, ""},
		{"SS with a duplicate", textArr, TypeSS, []any{"x", "y", "x"}, nil, `elements 1 and 3 are both "x": a set (SS) holds each member once`},
		{"SS with a NULL", textArr, TypeSS, []any{"x", nil}, nil, "element 2 is NULL, which a set (SS) cannot hold"},
		{"SS from 2-D array", textArr, TypeSS, []any{[]any{"x"}}, nil, "a multi-dimensional array cannot be a set (SS)"},
		{"NS from numeric array", numArr, TypeNS, []any{"1.50", "-0.000001"}, &types.AttributeValueMemberNS{Value: []string{"1.5", "-0.000001"}}, ""},
		{"NS duplicate by value", numArr, TypeNS, []any{"1.50", "1.5"}, nil, "elements 1 and 2 are both 1.5: a set (NS) holds each member once"},
		{"NS from int array", intArr, TypeNS, []any{int64(3), int64(-3)}, &types.AttributeValueMemberNS{Value: []string{"3", "-3"}}, ""},
		{"NS with NaN", numArr, TypeNS, []any{"NaN"}, nil, "element 1: NaN cannot be stored as a DynamoDB number"},
		{"BS from bytea array", byteArr, TypeBS, []any{[]byte{1}, []byte{}}, &types.AttributeValueMemberBS{Value: [][]byte{{1}, {}}}, ""},
		{"BS duplicate", byteArr, TypeBS, []any{[]byte{1}, []byte{1}}, nil, "elements 1 and 2 are both 0x01: a set (BS) holds each member once"},
		{"L from SET", set, TypeL, []string{"b", "a"}, &types.AttributeValueMemberL{Value: []types.AttributeValue{S("b"), S("a")}}, ""},
		{"L from empty SET", set, TypeL, []string{}, &types.AttributeValueMemberL{Value: []types.AttributeValue{}}, ""},
		{"L from JSON array", js, TypeL, []byte(`[1, "x"]`), &types.AttributeValueMemberL{Value: []types.AttributeValue{N("1"), S("x")}}, ""},
		{"L from JSON object", js, TypeL, []byte(`{"a": 1}`), nil, "json: the document is an object, not a list (type L)"},
		{"L from array", intArr, TypeL, []any{int64(1), nil}, &types.AttributeValueMemberL{Value: []types.AttributeValue{N("1"), &types.AttributeValueMemberNULL{Value: true}}}, ""},
		{"M from JSON object", js, TypeM, []byte(`{"a": 1}`), &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"a": N("1")}}, ""},
		{"M from JSON array", js, TypeM, []byte(`[1]`), nil, "json: the document is a list, not an object (type M)"},
		{"M from JSON string", js, TypeM, []byte(`"x"`), nil, "json: the document is a string, not an object (type M)"},
		{"M from JSON with an empty key", js, TypeM, []byte(`{"": 1}`), nil, "json: the object at $ has an empty key"},
		{"JSON verbatim", js, TypeJSON, []byte(`{"a":1,  "a":2}`), S(`{"a":1,  "a":2}`), ""},
		{"JSON null document", js, TypeJSON, []byte(`null`), S(`null`), ""},
		{"JSON not UTF-8", js, TypeJSON, []byte("\"\xff\""), nil, "json: not valid UTF-8 (byte offset 1)"},
		{"unix from whole second", ts, TypeUnix, at.Truncate(time.Second), N("1704164645"), ""},
		{"unix from a fraction", ts, TypeUnix, at, nil, "2024-01-02T03:04:05.123Z has a fraction of a second, which unix cannot hold (unixms keeps milliseconds)"},
		{"unix before 1970", date, TypeUnix, time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC), N("-86400"), ""},
		{"unixms", ts, TypeUnixMS, at, N("1704164645123"), ""},
		{"unixms before 1970", ts, TypeUnixMS, time.Date(1969, 12, 31, 23, 59, 59, 999_000_000, time.UTC), N("-1"), ""},
		{"unixms far future", ts, TypeUnixMS, time.Date(9999, 12, 31, 23, 59, 59, 999_000_000, time.UTC), N("253402300799999"), ""},
		{"unixms from a microsecond", ts, TypeUnixMS, at.Add(time.Microsecond), nil, "2024-01-02T03:04:05.123001Z has a fraction of a millisecond, which unixms cannot hold"},
		{"iso", ts, TypeISO, at, S("2024-01-02T03:04:05.123000Z"), ""},
		{"iso of a timestamp with a zone is UTC", tstz, TypeISO, time.Date(2024, 1, 2, 4, 4, 5, 123_456_000, time.FixedZone("CET", 3600)), S("2024-01-02T03:04:05.123456Z"), ""},
		{"iso of a timestamp without a zone keeps its wall clock", ts, TypeISO, time.Date(2024, 7, 1, 23, 30, 0, 0, time.UTC), S("2024-07-01T23:30:00.000000Z"), ""},
		{"iso of a date is its midnight UTC", date, TypeISO, time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC), S("1969-12-31T00:00:00.000000Z"), ""},
		{"iso of year 10000", ts, TypeISO, time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), nil, "year 10000 does not fit a fixed-width timestamp"},
		{"iso of text", text, TypeISO, "2024-01-02", nil, "type iso cannot hold a string value"},
		{"NULL", integer, TypeBOOL, nil, nil, ""},
		{"a value the source could not decode", text, TypeB, errors.New("broken"), nil, "broken"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ConvertAs(tc.col, tc.typ, tc.v)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one saying %q", err, tc.err)
				}
				if got != nil {
					t.Errorf("a value %v with the error", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %#v, want %#v", got, tc.want)
			}
		})
	}
}

func zero() float64 { return 0 }

// TestColTypeFits: every type takes what the documentation says, and
// nothing else, for each column kind.
func TestColTypeFits(t *testing.T) {
	kinds := []*introspect.Column{
		{Kind: introspect.KindInt}, {Kind: introspect.KindDecimal}, {Kind: introspect.KindFloat},
		{Kind: introspect.KindBool}, {Kind: introspect.KindString}, {Kind: introspect.KindBytes},
		{Kind: introspect.KindDate}, {Kind: introspect.KindTime}, {Kind: introspect.KindTimestamp},
		{Kind: introspect.KindTimestampTZ}, {Kind: introspect.KindJSON}, {Kind: introspect.KindSet},
		{Kind: introspect.KindGeometry},
		{Kind: introspect.KindArray, Elem: introspect.KindString}, {Kind: introspect.KindArray, Elem: introspect.KindInt},
		{Kind: introspect.KindArray, Elem: introspect.KindBytes}, {Kind: introspect.KindArray, Elem: introspect.KindJSON},
	}
	name := func(c *introspect.Column) string {
		if c.Elem != "" {
			return string(c.Elem) + "[]"
		}
		return string(c.Kind)
	}
	want := map[ColType]string{
		TypeN:      "int decimal float string",
		TypeS:      "int decimal float bool string bytes date time timestamp timestamptz json geometry",
		TypeBOOL:   "int bool string",
		TypeB:      "string bytes geometry",
		TypeSS:     "set string[]",
		TypeNS:     "int[]",
		TypeBS:     "bytes[]",
		TypeL:      "json set string[] int[] bytes[] json[]",
		TypeM:      "json geometry",
		TypeJSON:   "json",
		TypeUnix:   "date timestamp timestamptz",
		TypeUnixMS: "date timestamp timestamptz",
		TypeISO:    "date timestamp timestamptz",
	}
	for _, typ := range ColTypes {
		var got []string
		for _, c := range kinds {
			if typ.fits(introspect.Postgres, c) {
				got = append(got, name(c))
			}
		}
		if strings.Join(got, " ") != want[typ] {
			t.Errorf("%s fits %q, want %q", typ, strings.Join(got, " "), want[typ])
		}
	}
	// A MySQL tinyint(1) is a boolean holding an integer: N takes it there.
	tinyint := &introspect.Column{Name: "t", Type: "tinyint(1)", Kind: introspect.KindBool}
	if !TypeN.fits(introspect.MySQL, tinyint) || TypeN.fits(introspect.Postgres, &introspect.Column{Type: "boolean", Kind: introspect.KindBool}) {
		t.Error("N must fit a MySQL tinyint(1) and no PostgreSQL boolean")
	}
}

// TestRenderTyped: a typed attribute is written with its type, a value
// that does not fit rejects the row naming the column, the type and the
// value, and templates still see the column's own value.
func TestRenderTyped(t *testing.T) {
	p := compileString(t, `version: 1
table:
  name: things
  key: {pk: PK, sk: SK}
  indexes: [{name: ByPrice, pk: {name: cost, type: S}}]
entities:
  thing:
    from: things
    pk: "THING#{id}"
    sk: "AT#{ts|iso}"
    attributes:
      include: [code, price, ts, opts]
      rename: {price: cost}
      types: {code: BOOL, price: S, ts: unixms, opts: L}
`, testSchema())
	e := p.Entity("thing")
	at := time.Date(2024, 1, 2, 3, 4, 5, 6_000_000, time.UTC)
	item, err := e.Render(thingsRow(e, map[string]any{"id": int64(1), "code": "Y", "price": "1.50", "ts": at, "opts": []string{"c"}}))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "THING#1"}, "SK": &types.AttributeValueMemberS{Value: "AT#2024-01-02T03:04:05.006000Z"},
		"_type": &types.AttributeValueMemberS{Value: "thing"},
		"code":  &types.AttributeValueMemberBOOL{Value: true},
		"cost":  &types.AttributeValueMemberS{Value: "1.5"},
		"ts":    &types.AttributeValueMemberN{Value: "1704164645006"},
		"opts":  &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberS{Value: "c"}}},
	}
	if !reflect.DeepEqual(&types.AttributeValueMemberM{Value: item}, &types.AttributeValueMemberM{Value: want}) {
		t.Fatalf("item %#v\nwant %#v", item, want)
	}
	_, err = e.Render(thingsRow(e, map[string]any{"id": int64(2), "code": "maybe", "price": "1", "ts": at}))
	wantErr := `entity thing, row id=2: column code (text) as BOOL: text "maybe" is not a boolean (BOOL takes true/false, t/f, yes/no, y/n or 1/0, in any case)`
	if err == nil || err.Error() != wantErr {
		t.Fatalf("error %v\nwant %s", err, wantErr)
	}
	_, err = e.Render(thingsRow(e, map[string]any{"id": int64(3), "price": "", "ts": at}))
	wantErr = `entity thing, row id=3: column price (numeric) as S: "" is not a number`
	if err == nil || err.Error() != wantErr {
		t.Fatalf("error %v\nwant %s", err, wantErr)
	}
}

// TestCompileTypedReads: a type that needs its column in another form adds
// a column the source reads that way, after the stored ones, and leaves the
// stored column for templates.
func TestCompileTypedReads(t *testing.T) {
	s := testSchema()
	things, _ := s.Table("things")
	things.Columns = append(things.Columns,
		&introspect.Column{Name: "amount", Type: "money", Kind: introspect.KindString, Nullable: true},
		&introspect.Column{Name: "shape", Type: "geometry", Kind: introspect.KindGeometry, Nullable: true})
	p := compileString(t, `version: 1
table: {name: things, key: {pk: PK, sk: SK}}
entities:
  thing:
    from: things
    pk: "THING#{code}"
    sk: "T"
    attributes:
      include: [code, amount, shape]
      types: {code: B, amount: N, shape: B}
`, s)
	e := p.Entity("thing")
	var got []string
	for _, c := range e.Columns[len(things.Columns):] {
		got = append(got, c.Name+"="+c.Read+"("+c.From+")/"+string(c.Kind))
	}
	want := "remodel_bytes_code=bytes(code)/string remodel_numeric_amount=numeric(amount)/decimal remodel_bytes_shape=bytes(shape)/geometry"
	if strings.Join(got, " ") != want {
		t.Fatalf("added columns %q, want %q", strings.Join(got, " "), want)
	}
	for _, a := range e.ColumnAttributes() {
		if a.Column.From != a.Attr || e.Columns[a.Index] != a.Column {
			t.Errorf("attribute %s reads %+v at %d", a.Attr, a.Column, a.Index)
		}
	}
	// The pk template reads the stored column, as text.
	row := make([]any, len(e.Columns))
	row[1] = "abc"
	row[len(things.Columns)] = []byte("abc")
	item, err := e.Render(row)
	if err != nil {
		t.Fatal(err)
	}
	if pk := item["PK"].(*types.AttributeValueMemberS).Value; pk != "THING#abc" {
		t.Errorf("PK %q", pk)
	}
	if b, ok := item["code"].(*types.AttributeValueMemberB); !ok || string(b.Value) != "abc" {
		t.Errorf("code %#v", item["code"])
	}
}

// TestRenderTypedIndexKey: a typed attribute that feeds an index key is
// held to the key's limits: an empty value rejects the row.
func TestRenderTypedIndexKey(t *testing.T) {
	p := compileString(t, `version: 1
table:
  name: things
  key: {pk: PK, sk: SK}
  indexes: [{name: ByCode, pk: {name: code, type: B}}]
entities:
  thing:
    from: things
    pk: "THING#{id}"
    sk: "T"
    attributes:
      include: [code]
      types: {code: B}
`, testSchema())
	e := p.Entity("thing")
	row := make([]any, len(e.Columns))
	row[0], row[1], row[len(e.Columns)-1] = int64(1), "", []byte{}
	_, err := e.Render(row)
	want := "entity thing, row id=1: column code is empty but attribute code is an index key (an empty key value is not allowed)"
	if err == nil || err.Error() != want {
		t.Fatalf("error %v\nwant %s", err, want)
	}
	row[1], row[len(e.Columns)-1] = "x", []byte("x")
	item, err := e.Render(row)
	if err != nil {
		t.Fatal(err)
	}
	if b, ok := item["code"].(*types.AttributeValueMemberB); !ok || string(b.Value) != "x" {
		t.Errorf("code %#v", item["code"])
	}
}

// TestColTypesAreTheParsersNames: the parser checks attributes.types
// against parse.ColTypeNames, the names of ColTypes in the same order.
func TestColTypesAreTheParsersNames(t *testing.T) {
	names := make([]string, len(ColTypes))
	for i, c := range ColTypes {
		names[i] = string(c)
	}
	if !reflect.DeepEqual(names, parse.ColTypeNames) {
		t.Errorf("ColTypes %v, parse.ColTypeNames %v", names, parse.ColTypeNames)
	}
}
