package source

import (
	"errors"
	"testing"

	"github.com/remodel-dev/remodel/internal/testsupport/canon"
	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
)

// TestDecodeInvalidUTF8: text whose bytes are not UTF-8 becomes an error
// value naming the first bad byte, in every kind that holds text; it is
// never passed on to be turned into U+FFFD.
func TestDecodeInvalidUTF8(t *testing.T) {
	bad := errors.New("text is not valid UTF-8 (byte 0xe9 at offset 3)")
	for _, engine := range []introspect.Engine{introspect.Postgres, introspect.MySQL} {
		t.Run(string(engine), func(t *testing.T) {
			runDecodeText(t, engine, []decodeCase{
				{"text", col(introspect.KindString, "text"), "caf\xe9", bad},
				{"text at offset 0", col(introspect.KindString, "text"), "\xff", errors.New("text is not valid UTF-8 (byte 0xff at offset 0)")},
				{"truncated sequence", col(introspect.KindString, "text"), "ab\xe6\x9d", errors.New("text is not valid UTF-8 (byte 0xe6 at offset 2)")},
				{"surrogate encoded in UTF-8", col(introspect.KindString, "text"), "x\xed\xa0\x80", errors.New("text is not valid UTF-8 (byte 0xed at offset 1)")},
				{"valid", col(introspect.KindString, "text"), "café 東京 🚀", "café 東京 🚀"},
				{"no column", nil, "caf\xe9", bad},
				{"enum", col(introspect.KindString, "enum('a')"), "caf\xe9", bad},
				{"set member", col(introspect.KindSet, "set('a','b')"), "a,caf\xe9", errors.New("text is not valid UTF-8 (byte 0xe9 at offset 5)")},
				// JSON is passed on as its bytes: mapping.Convert checks
				// UTF-8 and surrogate escapes where it decodes the document
				// (TestJSONTextIsCheckedWhereDecoded).
				{"json", col(introspect.KindJSON, "json"), `{"s": "caf` + "\xe9" + `"}`, []byte(`{"s": "caf` + "\xe9" + `"}`)},
				{"geometry", col(introspect.KindGeometry, "geometry"), "POINT(1 2)\xe9", errors.New("text is not valid UTF-8 (byte 0xe9 at offset 10)")},
			})
		})
	}
	// Array elements (PostgreSQL only).
	runDecodeText(t, introspect.Postgres, []decodeCase{
		{"array element", arrayCol(introspect.KindString, "text[]"), "{ok,caf\xe9}", errors.New("array element 2: " + bad.Error())},
		{"array element quoted", arrayCol(introspect.KindString, "text[]"), "{\"a b\",\"caf\xe9\"}", errors.New("array element 2: " + bad.Error())},
		{"2-D array element", arrayCol(introspect.KindString, "text[]"), "{{a},{caf\xe9}}", errors.New("array element 1: " + bad.Error())},
		{"json array element", arrayCol(introspect.KindJSON, "json[]"), `{"[\"caf` + "\xe9" + `\"]"}`,
			[]any{[]byte(`["caf` + "\xe9" + `"]`)}},
	})
}

// TestJSONTextIsCheckedWhereDecoded: the JSON documents the source passes
// on as bytes are rejected by mapping.Convert, not turned into U+FFFD.
func TestJSONTextIsCheckedWhereDecoded(t *testing.T) {
	c := col(introspect.KindJSON, "json")
	for _, doc := range []string{`{"s": "caf` + "\xe9" + `"}`, `{"caf` + "\xe9" + `": 1}`, `{"s": "\ud800x"}`, `["\uDC00"]`, `["\ud83d\ud83d"]`} {
		v := DecodeText(c, []byte(doc), introspect.Postgres.Dialect())
		if av, err := mapping.Convert(c, v); err == nil {
			t.Errorf("Convert(%q) = %v, want an error", doc, av)
		}
	}
	a := arrayCol(introspect.KindJSON, "json[]")
	v := DecodeText(a, []byte(`{"[\"caf`+"\xe9"+`\"]"}`), introspect.Postgres.Dialect())
	if av, err := mapping.Convert(a, v); err == nil {
		t.Errorf("Convert(json[] with invalid UTF-8) = %v, want an error", av)
	}
}

func TestInvalidUTF8ErrorKeepsTheText(t *testing.T) {
	got := DecodeText(col(introspect.KindString, "text"), []byte("caf\xe9"), introspect.Postgres.Dialect())
	var e *InvalidUTF8Error
	if err, ok := got.(error); !ok || !errors.As(err, &e) {
		t.Fatalf("decodeText = %s, want an *InvalidUTF8Error", canon.Show(got))
	}
	if e.Text != "caf\xe9" || e.Offset != 3 || e.KeyText() != `"caf\xe9"` {
		t.Errorf("text %q, offset %d, key text %s; want %q, 3, \"caf\\xe9\"", e.Text, e.Offset, e.KeyText(), "caf\xe9")
	}
	u := &UnconvertibleTextError{Charset: "cp1251", Text: "\xd0\x98 \"q\\"}
	if got := u.KeyText(); got != `"\xd0\x98 \"q\\"` {
		t.Errorf("KeyText = %s", got)
	}
}

func TestDecodeGeometry(t *testing.T) {
	g := col(introspect.KindGeometry, "geometry")
	g.Name = "shape"
	notText := errors.New("spatial value arrives in the engine's binary form, not as text: select ST_AsText(shape) AS shape to read it as WKT")
	for _, engine := range []introspect.Engine{introspect.Postgres, introspect.MySQL} {
		runDecodeText(t, engine, []decodeCase{
			{"point", g, "POINT(1.5 -2)", "POINT(1.5 -2)"},
			{"empty collection", g, "GEOMETRYCOLLECTION EMPTY", "GEOMETRYCOLLECTION EMPTY"},
			{"with SRID", g, "SRID=4326;POINT(0.1 1e20)", "SRID=4326;POINT(0.1 1e20)"},
			// What a free query returns without ST_AsText: PostGIS's hex
			// EWKB, MySQL's SRID-prefixed WKB, or WKB from ST_AsBinary.
			{"hex EWKB", g, "0101000020E6100000000000000000F03F0000000000000040", notText},
			{"MySQL internal", g, "\x00\x00\x00\x00\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\xf8\x3f\x00\x00\x00\x00\x00\x00\x00\xc0", notText},
			{"WKB", g, "\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\xf8\x3f\x00\x00\x00\x00\x00\x00\x00\xc0", notText},
			{"SRID without WKT", g, "SRID=4326;", notText},
			{"empty", g, "", notText},
		})
	}
}
