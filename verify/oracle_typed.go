package verify

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
)

// Typed attributes (attributes.types) are compared with the engine's JSON
// rendering of their column by what the type means: a unixms number
// against the instant, a set against the array or SET as a set, a BOOL
// against the column's 0/1 or word, B against the bytes, JSON text against
// the document by value. Where the engine's plain rendering does not show
// what the attribute holds, the oracle asks the engine for another
// rendering of the stored column (never remodel's decoding):
//
//	money as N              PostgreSQL (m)::numeric
//	text as B               PostgreSQL textsend (the stored bytes; convert_to
//	                        UTF8 in a database that is neither UTF8 nor
//	                        SQL_ASCII); MySQL the text and HEX of its bytes
//	spatial as B            the SRID and the hex of the WKB, "4326:0101…":
//	                        MySQL ST_AsBinary; PostGIS ST_AsEWKB of the
//	                        value with its SRID set to 0 (EWKB's Z and M
//	                        flags, where ST_AsBinary writes ISO WKB codes)
//	spatial as M            the engine's GeoJSON as a JSON value, with a
//	                        "crs" member naming EPSG:n added by the engine's
//	                        JSON functions (jsonb ||, JSON_INSERT) when the
//	                        SRID n is not 0; JSON null on PostGIS for a
//	                        value GeoJSON has no form for (migrate rejects
//	                        its row)
//
// A PostGIS column without a type is rendered as ST_AsEWKT with 100
// decimal digits (to_jsonb writes geometry as GeoJSON cut to 9 digits and
// geography as hex EWKB); the MySQL one as its WKT (introspect.Dialect.OracleRow
// renders both).

// typedValue compares a typed attribute with its column's JSON value.
func (o *oracle) typedValue(a mapping.ColumnAttribute, jv any, sqlNull bool, got types.AttributeValue, f finding) (finding, bool) {
	c := a.Column
	if c.From != "" {
		f.column = c.From
	}
	if jv == nil && (sqlNull || c.Kind != introspect.KindJSON) {
		f.want = "nothing (NULL)"
		return f, got != nil
	}
	if empty, ok := emptyCollection(c, jv); ok && empty && (a.Type == mapping.TypeSS || a.Type == mapping.TypeNS || a.Type == mapping.TypeBS) {
		f.want = "nothing (an empty set: " + jsonText(jv) + ")"
		return f, got != nil
	}
	if got == nil {
		return f, true
	}
	agree, note := o.sameTyped(a, jv, got)
	if note != "" {
		f.note = note
		return f, true
	}
	return f, !agree
}

// emptyCollection reports whether jv is an empty array, or the empty text
// of a MySQL SET; ok is false for other values.
func emptyCollection(c *introspect.Column, jv any) (empty, ok bool) {
	switch x := jv.(type) {
	case []any:
		return len(x) == 0, true
	case string:
		if c.Kind == introspect.KindSet {
			return x == "", true
		}
	}
	return false, false
}

// sameTyped reports whether the JSON value jv of a typed attribute's column
// means the stored value got; note says why jv cannot be interpreted.
func (o *oracle) sameTyped(a mapping.ColumnAttribute, jv any, got types.AttributeValue) (bool, string) {
	c := a.Column
	switch a.Type {
	case mapping.TypeN:
		return o.sameTypedN(c, jv, got)
	case mapping.TypeS:
		return o.sameTypedS(c, jv, got)
	case mapping.TypeBOOL:
		return sameTypedBool(jv, got)
	case mapping.TypeB:
		g, ok := got.(*types.AttributeValueMemberB)
		if !ok {
			return false, ""
		}
		return o.sameBytes(c, jv, g.Value)
	case mapping.TypeSS, mapping.TypeNS, mapping.TypeBS:
		return o.sameSetTyped(c, a.Type, jv, got)
	case mapping.TypeL:
		return o.sameTypedL(c, jv, got)
	case mapping.TypeM:
		return sameJSON(jv, got), ""
	case mapping.TypeJSON:
		g, ok := got.(*types.AttributeValueMemberS)
		return ok && jsonTextMeans(g.Value, jv), ""
	case mapping.TypeUnix, mapping.TypeUnixMS:
		return sameTypedEpoch(c, a.Type, jv, got)
	case mapping.TypeISO:
		return sameTypedISO(c, jv, got)
	}
	return false, "the oracle does not know type " + string(a.Type)
}

// sameTypedN: a column typed N, a number exactly (a float column's as
// the float it is).
func (o *oracle) sameTypedN(c *introspect.Column, jv any, got types.AttributeValue) (bool, string) {
	g, ok := got.(*types.AttributeValueMemberN)
	if !ok {
		return false, ""
	}
	switch x := jv.(type) {
	case json.Number:
		if c.Kind == introspect.KindFloat {
			return o.same(c, c.Kind, jv, got)
		}
		return sameDecimal(string(x), g.Value), ""
	case string: // text holding a number
		return sameDecimal(x, g.Value), ""
	}
	return false, "a column typed N rendered as JSON " + jsonKind(jv)
}

// sameTypedS: a column typed S, the text of its value as the column's
// kind writes it.
func (o *oracle) sameTypedS(c *introspect.Column, jv any, got types.AttributeValue) (bool, string) {
	g, ok := got.(*types.AttributeValueMemberS)
	if !ok {
		return false, ""
	}
	if x, ok := jv.(string); ok && notANumber[x] && (c.Kind == introspect.KindDecimal || c.Kind == introspect.KindFloat) {
		// PostgreSQL renders NaN and the infinities of numeric and
		// floats as JSON strings, spelled as S keeps them.
		return g.Value == x, ""
	}
	switch c.Kind {
	case introspect.KindInt, introspect.KindDecimal:
		n, ok := jv.(json.Number)
		if !ok {
			return false, "a number column rendered as JSON " + jsonKind(jv)
		}
		return sameDecimalText(string(n), g.Value), ""
	case introspect.KindFloat:
		return o.same(c, c.Kind, jv, &types.AttributeValueMemberN{Value: g.Value})
	case introspect.KindBool:
		return o.same(c, c.Kind, jv, boolOf(g.Value))
	case introspect.KindBytes:
		return o.same(c, c.Kind, jv, &types.AttributeValueMemberB{Value: []byte(g.Value)})
	case introspect.KindJSON:
		return jsonTextMeans(g.Value, jv), ""
	}
	return o.same(c, c.Kind, jv, got) // the kind's default is S
}

// sameTypedBool: a column typed BOOL, from a boolean, 0 or 1, or one of
// the words docs/mapping.md lists.
func sameTypedBool(jv any, got types.AttributeValue) (bool, string) {
	g, ok := got.(*types.AttributeValueMemberBOOL)
	if !ok {
		return false, ""
	}
	switch x := jv.(type) {
	case bool:
		return x == g.Value, ""
	case json.Number:
		return string(x) == "1" && g.Value || string(x) == "0" && !g.Value, ""
	case string:
		w, ok := oracleBoolWords[strings.ToLower(strings.TrimRight(x, " "))]
		return ok && w == g.Value, ""
	}
	return false, "a column typed BOOL rendered as JSON " + jsonKind(jv)
}

// sameTypedL: a column typed L; a MySQL SET's members in order, a JSON
// column's array as JSON, else the column's list.
func (o *oracle) sameTypedL(c *introspect.Column, jv any, got types.AttributeValue) (bool, string) {
	if s, ok := jv.(string); ok && c.Kind == introspect.KindSet {
		g, ok := got.(*types.AttributeValueMemberL)
		members := strings.Split(s, ",")
		if s == "" {
			members = nil
		}
		if !ok || len(g.Value) != len(members) {
			return false, ""
		}
		for i, m := range members {
			if e, ok := g.Value[i].(*types.AttributeValueMemberS); !ok || e.Value != m {
				return false, ""
			}
		}
		return true, ""
	}
	if c.Kind == introspect.KindJSON {
		return sameJSON(jv, got), ""
	}
	return o.same(c, c.Kind, jv, got)
}

// columnInstant is the instant the JSON value jv of a date or timestamp
// column means; note says why it cannot be read.
func columnInstant(c *introspect.Column, jv any) (want time.Time, note string, ok bool) {
	s, ok := jv.(string)
	if !ok {
		return time.Time{}, "a " + string(c.Kind) + " column rendered as JSON " + jsonKind(jv), false
	}
	want, err := sourceInstant(c.Kind, s)
	if err != nil {
		return time.Time{}, err.Error(), false
	}
	return want, "", true
}

// sameTypedEpoch: a date or timestamp column typed unix or unixms, the
// instant in seconds or milliseconds.
func sameTypedEpoch(c *introspect.Column, typ mapping.ColType, jv any, got types.AttributeValue) (bool, string) {
	want, note, ok := columnInstant(c, jv)
	if !ok {
		return false, note
	}
	g, ok := got.(*types.AttributeValueMemberN)
	if !ok {
		return false, ""
	}
	n, err := strconv.ParseInt(g.Value, 10, 64)
	if err != nil {
		return false, ""
	}
	if typ == mapping.TypeUnix {
		return time.Unix(n, 0).Equal(want), ""
	}
	return time.UnixMilli(n).Equal(want), ""
}

// sameTypedISO: a date or timestamp column typed iso, the instant and the
// fixed-width text with Z that iso writes.
func sameTypedISO(c *introspect.Column, jv any, got types.AttributeValue) (bool, string) {
	want, note, ok := columnInstant(c, jv)
	if !ok {
		return false, note
	}
	g, ok := got.(*types.AttributeValueMemberS)
	if !ok {
		return false, ""
	}
	at, err := time.Parse(mapping.ISOLayout, g.Value)
	return err == nil && at.Equal(want) && at.Format(mapping.ISOLayout) == g.Value, ""
}

// oracleBoolWords are the texts a BOOL attribute may come from, as
// docs/mapping.md lists them (lower case; trailing spaces do not count).
var oracleBoolWords = map[string]bool{"true": true, "t": true, "yes": true, "y": true, "1": true,
	"false": false, "f": false, "no": false, "n": false, "0": false}

func boolOf(s string) types.AttributeValue {
	switch s {
	case "true":
		return &types.AttributeValueMemberBOOL{Value: true}
	case "false":
		return &types.AttributeValueMemberBOOL{Value: false}
	}
	return &types.AttributeValueMemberS{Value: s}
}

// sameDecimalText: a number kept as S has the value of the engine's JSON
// number, written as a template writes it: no sign on zero, no leading
// zeros, no trailing zeros after the point (1.50 is "1.5").
func sameDecimalText(want, got string) bool {
	return sameDecimal(want, got) && canonicalDecimal.MatchString(got)
}

var canonicalDecimal = regexp.MustCompile(`^(0|-?[1-9][0-9]*(\.[0-9]*[1-9])?|-?0\.[0-9]*[1-9]|-?[1-9](\.[0-9]*[1-9])?E-?[1-9][0-9]*)$`)

// notANumber are the texts PostgreSQL renders (as JSON strings) for the
// values of numeric and float columns that are not numbers.
var notANumber = map[string]bool{"NaN": true, "Infinity": true, "-Infinity": true}

// jsonTextMeans reports whether s is JSON text of the value jv.
func jsonTextMeans(s string, jv any) bool {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return false
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return false
	}
	return sameJSONValue(jv, v)
}

// sameJSONValue compares two decoded JSON values, numbers by value.
func sameJSONValue(a, b any) bool {
	switch x := a.(type) {
	case json.Number:
		y, ok := b.(json.Number)
		return ok && sameDecimal(string(x), string(y))
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameJSONValue(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !sameJSONValue(v, w) {
				return false
			}
		}
		return true
	}
	return a == b
}

// sameBytes compares a B attribute with its column's JSON rendering: a
// bytes column's hex, text (PostgreSQL: the bytes textsend gives, as
// "\\x…"; MySQL: [text, hex of the stored bytes]), or a spatial value's
// "srid:hex of its WKB".
func (o *oracle) sameBytes(c *introspect.Column, jv any, got []byte) (bool, string) {
	switch {
	case c.Kind == introspect.KindBytes:
		return o.same(c, c.Kind, jv, &types.AttributeValueMemberB{Value: got})
	case c.Kind == introspect.KindGeometry:
		s, ok := jv.(string)
		srid, wkbHex, ok2 := strings.Cut(s, ":")
		if !ok || !ok2 {
			return false, "a spatial column typed B rendered as JSON " + jsonKind(jv) + ", not as srid:hex"
		}
		n, err := strconv.ParseUint(srid, 10, 32)
		wkb, err2 := hex.DecodeString(wkbHex)
		if err != nil || err2 != nil {
			return false, "the spatial rendering " + jsonText(jv) + " is not srid:hex"
		}
		gotSRID, gotWKB, ok := splitEWKB(got)
		return ok && gotSRID == uint32(n) && bytes.Equal(gotWKB, wkb), ""
	case o.engine.Dialect().BytesAsHexText(): // bytea hex
		s, ok := jv.(string)
		rest, ok2 := strings.CutPrefix(s, `\x`)
		want, err := hex.DecodeString(rest)
		if !ok || !ok2 || err != nil {
			return false, "a text column typed B rendered as JSON " + jsonKind(jv) + ", not as bytea hex"
		}
		return bytes.Equal(want, got), ""
	}
	pair, ok := jv.([]any)
	if !ok || len(pair) != 2 {
		return false, "a text column typed B rendered as JSON " + jsonKind(jv) + ", not as [text, hex]"
	}
	text, ok := pair[0].(string)
	rawHex, ok2 := pair[1].(string)
	raw, err := hex.DecodeString(rawHex)
	if !ok || !ok2 || err != nil {
		return false, "a text column typed B rendered as JSON " + jsonText(jv) + ", not as [text, hex]"
	}
	if bytes.Equal(got, []byte(text)) {
		return true, ""
	}
	// Text that does not convert from its character set is stored as its
	// own bytes; the server shows its conversion with '?' in their place.
	return c.Charset != "" && bytes.Equal(got, raw) && strings.Contains(text, "?") && !bytes.Equal(raw, []byte(text)), ""
}

// splitEWKB reads the SRID out of (E)WKB: 0 for plain WKB.
func splitEWKB(b []byte) (srid uint32, wkb []byte, ok bool) {
	if len(b) < 5 || b[0] > 1 {
		return 0, nil, false
	}
	var order binary.ByteOrder = binary.BigEndian
	if b[0] == 1 {
		order = binary.LittleEndian
	}
	typ := order.Uint32(b[1:5])
	if typ&0x20000000 == 0 {
		return 0, b, true
	}
	if len(b) < 9 {
		return 0, nil, false
	}
	plain := make([]byte, 5, len(b)-4)
	plain[0] = b[0]
	order.PutUint32(plain[1:5], typ&^0x20000000)
	return order.Uint32(b[5:9]), append(plain, b[9:]...), true
}

// sameSetTyped compares a stored SS, NS or BS with a SET's text or an
// array's JSON, as sets.
func (o *oracle) sameSetTyped(c *introspect.Column, typ mapping.ColType, jv any, got types.AttributeValue) (bool, string) {
	var members []any
	switch x := jv.(type) {
	case string:
		if c.Kind != introspect.KindSet {
			return false, "a column typed " + string(typ) + " rendered as JSON " + jsonKind(jv)
		}
		for _, m := range strings.Split(x, ",") {
			members = append(members, m)
		}
	case []any:
		members = x
	default:
		return false, "a column typed " + string(typ) + " rendered as JSON " + jsonKind(jv)
	}
	var want []string // each member as a comparable key
	for _, m := range members {
		switch x := m.(type) {
		case string:
			if typ == mapping.TypeBS {
				b, err := hex.DecodeString(strings.TrimPrefix(x, `\x`))
				if err != nil {
					return false, "a bytes element rendered as " + jsonText(x)
				}
				x = string(b)
			}
			want = append(want, x)
		case json.Number:
			r, ok := new(big.Rat).SetString(string(x))
			if !ok {
				return false, "the number " + string(x) + " does not parse"
			}
			want = append(want, r.RatString())
		default:
			return false, fmt.Sprintf("a set element rendered as JSON %s", jsonKind(m))
		}
	}
	var have []string
	switch g := got.(type) {
	case *types.AttributeValueMemberSS:
		if typ != mapping.TypeSS {
			return false, ""
		}
		have = g.Value
	case *types.AttributeValueMemberNS:
		if typ != mapping.TypeNS {
			return false, ""
		}
		for _, n := range g.Value {
			r, ok := new(big.Rat).SetString(n)
			if !ok {
				return false, ""
			}
			have = append(have, r.RatString())
		}
	case *types.AttributeValueMemberBS:
		if typ != mapping.TypeBS {
			return false, ""
		}
		for _, b := range g.Value {
			have = append(have, string(b))
		}
	default:
		return false, ""
	}
	return mapping.SameSet(want, have, func(s string) string { return s }), ""
}
