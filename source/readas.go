package source

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/remodel-dev/remodel/introspect"
)

// A column with a Read form (introspect.Column.Read) is a stored column
// (Column.From, quoted as q) selected in another form than its kind's
// default, under the column's own name:
//
//	ReadBytes, spatial     PostgreSQL ST_AsEWKB(q); MySQL/MariaDB the SRID
//	                       (4 bytes, big-endian) and ST_AsBinary(q), made
//	                       into EWKB by decodeReadAs
//	ReadBytes, text        the text's bytes as the connection receives them
//	                       (UTF-8; a PostgreSQL SQL_ASCII database's stored
//	                       bytes); MySQL text in another character set
//	                       converted as myRead does, or its stored bytes
//	                       when it does not convert
//	ReadNumeric            PostgreSQL (q)::numeric, for money
//	ReadGeoJSON            ST_AsGeoJSON(q) (PostGIS with 100 decimal digits,
//	                       the shortest exact form of each coordinate, and
//	                       options 0, without a crs of its own), with
//	                       a "crs" member {"type": "name", "properties":
//	                       {"name": "EPSG:n"}} put first when the SRID n is
//	                       not 0, the engine's text kept as it is; on PostGIS
//	                       a value GeoJSON has no form for (curves, TIN,
//	                       polyhedral surfaces, M coordinates, which
//	                       ST_AsGeoJSON refuses or drops) selects the name
//	                       of its type instead, an error value here

// pgReadAs is the select-list expression of column c with a Read form.
func pgReadAs(c *introspect.Column, q string) string {
	expr := q
	switch {
	case c.Read == introspect.ReadBytes && c.Kind == introspect.KindGeometry:
		expr = "ST_AsEWKB((" + q + ")::geometry)" // geography has no ST_AsEWKB
	case c.Read == introspect.ReadGeoJSON:
		expr = pgGeoJSON(q)
	case c.Read == introspect.ReadNumeric:
		expr = "(" + q + ")::numeric"
	}
	return expr + " AS " + pgIdent(c.Name)
}

// myReadAs is the select-list expression of column c with a Read form.
func myReadAs(c *introspect.Column, q string) string {
	expr := q
	switch {
	case c.Read == introspect.ReadBytes && c.Kind == introspect.KindGeometry:
		expr = "CONCAT(UNHEX(LPAD(HEX(ST_SRID(" + q + ")), 8, '0')), ST_AsBinary(" + q + "))"
	case c.Read == introspect.ReadGeoJSON:
		expr = "IF(ST_SRID(" + q + ") = 0, ST_AsGeoJSON(" + q + "), " + withCRS("ST_SRID("+q+")", "ST_AsGeoJSON("+q+")", "CONCAT", "SUBSTRING") + ")"
	case c.Read == introspect.ReadBytes && c.Charset != "" && isCharsetName(c.Charset):
		expr = myConverted(c, q)
	}
	return expr + " AS " + myIdent(c.Name)
}

// pgGeoJSON is the GeoJSON of the PostGIS geometry or geography q, or the
// name of its type where GeoJSON has no form for it: ST_AsGeoJSON fails
// the whole statement on curves and polyhedral surfaces, drops M
// coordinates and turns a TIN into polygons. A geometry is written when
// its type and every part ST_Dump finds (none for an empty one) is a
// point, line string or polygon, or a collection of them, without M.
func pgGeoJSON(q string) string {
	g := "(" + q + ")::geometry"
	ok := "ST_Zmflag(" + g + ") IN (0, 2) AND ST_AsText(" + g + ", 0) !~ 'CURVE|CIRCULAR|SURFACE|TIN|TRIANGLE'"
	js := "ST_AsGeoJSON(" + g + ", 100, 0)" // options 0: no crs of PostGIS's own, no bbox
	return "CASE WHEN " + q + " IS NULL THEN NULL WHEN NOT (" + ok + ") THEN GeometryType(" + g + ")" +
		" WHEN ST_SRID(" + g + ") = 0 THEN " + js + " ELSE " + withCRS("ST_SRID("+g+")", js, "concat", "substr") + " END"
}

// withCRS is the SQL that puts a "crs" member naming EPSG:srid first in
// the GeoJSON object js (text that starts with "{" and has a member), with
// the engine's concatenation and substring functions: the rest of the text
// is kept as the engine wrote it.
func withCRS(srid, js, concat, substr string) string {
	return concat + `('{"crs": {"type": "name", "properties": {"name": "EPSG:', ` + srid + `, '"}}, ', ` + substr + "(" + js + ", 2))"
}

// decodeReadAs decodes the value of a column with a Read form (never NULL
// here).
func decodeReadAs(c *introspect.Column, raw []byte, engine introspect.Engine) any {
	switch c.Read {
	case introspect.ReadNumeric:
		return string(raw)
	case introspect.ReadGeoJSON:
		if len(raw) == 0 || raw[0] != '{' {
			return fmt.Errorf("a spatial value of type %s has no GeoJSON form (GeoJSON has no curves, TINs, polyhedral surfaces or M coordinates): type it S (WKT) or B (WKB)", strings.ToUpper(string(raw)))
		}
		return bytes.Clone(raw) // checked as JSON by mapping.ConvertAs
	case introspect.ReadBytes:
		switch {
		case c.Kind == introspect.KindGeometry && engine == introspect.Postgres:
			rest, ok := strings.CutPrefix(string(raw), `\x`)
			if !ok {
				return fmt.Errorf("ST_AsEWKB did not return bytea in hex output format")
			}
			b, err := hex.DecodeString(rest)
			if err != nil {
				return fmt.Errorf("bad bytea text: %v", err)
			}
			return b
		case c.Kind == introspect.KindGeometry:
			if len(raw) < 4 {
				return fmt.Errorf("spatial value of %d bytes has no SRID", len(raw))
			}
			return ewkb(raw[4:], binary.BigEndian.Uint32(raw[:4]))
		case engine == introspect.MySQL && c.Charset != "" && len(raw) > 0 && raw[0] == 0xff:
			return bytes.Clone(raw[1:]) // text that does not convert: its stored bytes
		}
		return bytes.Clone(raw)
	}
	return fmt.Errorf("source: unknown read form %q", c.Read)
}

// ewkb is the WKB of a geometry with its SRID, in PostGIS's extended form
// when srid is not 0: the type gets the flag 0x20000000 and the SRID
// follows it, in the byte order the WKB states. With srid 0 it is the WKB
// itself (a copy). A value too short to be WKB is an error value.
func ewkb(wkb []byte, srid uint32) any {
	if len(wkb) < 5 || wkb[0] > 1 {
		return fmt.Errorf("spatial value is not WKB (%d bytes)", len(wkb))
	}
	if srid == 0 {
		return bytes.Clone(wkb)
	}
	var order interface {
		binary.ByteOrder
		binary.AppendByteOrder
	} = binary.BigEndian
	if wkb[0] == 1 {
		order = binary.LittleEndian
	}
	out := make([]byte, 0, len(wkb)+4)
	out = append(out, wkb[0])
	out = order.AppendUint32(out, order.Uint32(wkb[1:5])|0x20000000)
	out = order.AppendUint32(out, srid)
	return append(out, wkb[5:]...)
}
