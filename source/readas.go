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

// pgReadAs is the select-list expression of column c with a Read form.
func pgReadAs(c *introspect.Column, q string) string {
	expr := q
	switch {
	case c.Read == introspect.ReadBytes && c.Kind == introspect.KindGeometry:
		expr = "ST_AsEWKB(" + q + ")"
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
	case c.Read == introspect.ReadBytes && c.Charset != "" && isCharsetName(c.Charset):
		expr = myConverted(c, q)
	}
	return expr + " AS " + myIdent(c.Name)
}

// decodeReadAs decodes the value of a column with a Read form (never NULL
// here).
func decodeReadAs(c *introspect.Column, raw []byte, engine introspect.Engine) any {
	switch c.Read {
	case introspect.ReadNumeric:
		return string(raw)
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
