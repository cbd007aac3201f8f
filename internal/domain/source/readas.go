package source

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/remodel-dev/remodel/introspect"
)

// DecodeReadAs decodes the value of a column with a Read form (never NULL
// here).
func DecodeReadAs(c *introspect.Column, raw []byte, d introspect.Dialect) any {
	switch c.Read {
	case introspect.ReadNumeric:
		return string(raw)
	case introspect.ReadInteger:
		if i, ok := parseDecimalInt(raw); ok {
			return i
		}
		return fmt.Errorf("%q is not an integer", raw)
	case introspect.ReadGeoJSON:
		if len(raw) == 0 || raw[0] != '{' {
			return fmt.Errorf("a spatial value of type %s has no GeoJSON form (GeoJSON has no curves, TINs, polyhedral surfaces or M coordinates): type it S (WKT) or B (WKB)", strings.ToUpper(string(raw)))
		}
		return bytes.Clone(raw) // checked as JSON by mapping.ConvertAs
	case introspect.ReadBytes:
		switch {
		case c.Kind == introspect.KindGeometry && d.BytesAsHexText():
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
		case d.MarksUnconvertibleText() && c.Charset != "" && len(raw) > 0 && raw[0] == 0xff:
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
