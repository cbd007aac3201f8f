package source

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/remodel-dev/remodel/introspect"
)

// DecodeText turns the text form of a value into its canonical value (see
// package mapping). A value that cannot be decoded becomes an error value:
// the row is rejected, the run goes on. raw may be reused by the driver, so
// nothing here keeps it.
func DecodeText(c *introspect.Column, raw []byte, d introspect.Dialect) any {
	if raw == nil {
		return nil
	}
	if c != nil && c.Read != "" {
		return DecodeReadAs(c, raw, d)
	}
	kind := introspect.KindString
	if c != nil {
		kind = c.Kind
	}
	if v, ok := decodeFast(c, kind, raw, d); ok {
		return v
	}
	return decodeString(c, kind, raw, d)
}

// decodeFast decodes the kinds read most often from raw without making a
// string of it first (the copy was an allocation per value); ok is false
// when raw is not in the form it reads, for decodeString to decide.
func decodeFast(c *introspect.Column, kind introspect.Kind, raw []byte, d introspect.Dialect) (any, bool) {
	switch kind {
	case introspect.KindInt:
		if !d.IntAsBytes(c) {
			if i, ok := parseDecimalInt(raw); ok {
				return i, true
			}
		}
	case introspect.KindBool:
		if len(raw) == 1 {
			switch raw[0] {
			case 't', '1':
				return true, true
			case 'f', '0':
				return false, true
			}
		}
	case introspect.KindTimestamp, introspect.KindTimestampTZ:
		if t, ok := parseTimestamp(raw, kind == introspect.KindTimestampTZ && d.ZonedTimestampText()); ok {
			return t, true
		}
	case introspect.KindDate:
		if t, ok := parseDate(raw); ok {
			return t, true
		}
	}
	return nil, false
}

// decodeString decodes raw, as a string, by the column's kind.
func decodeString(c *introspect.Column, kind introspect.Kind, raw []byte, d introspect.Dialect) any {
	s := string(raw)
	switch kind {
	case introspect.KindInt:
		return decodeInt(c, raw, s, d)
	case introspect.KindFloat:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return fmt.Errorf("%q is not a number", s)
		}
		return f
	case introspect.KindBool:
		return decodeBool(s)
	case introspect.KindBytes:
		return decodeBytes(raw, s, d)
	case introspect.KindDate, introspect.KindTimestamp, introspect.KindTimestampTZ:
		return decodeTime(kind, s, d)
	case introspect.KindJSON:
		// Checked where it is decoded (mapping.Convert): UTF-8, surrogate
		// escapes, nesting, keys.
		return bytes.Clone(raw)
	case introspect.KindArray:
		return decodeArray(c, s, d)
	case introspect.KindSet:
		return decodeSet(s)
	case introspect.KindGeometry:
		if !isWKT(s) {
			return SpatialNotText(c.Name)
		}
	case introspect.KindDecimal, introspect.KindTime:
		return s // the engine's own ASCII text
	}
	if err := checkText(s); err != nil {
		return err
	}
	return s
}

// decodeInt decodes an integer's text, or bit(n)'s bytes.
func decodeInt(c *introspect.Column, raw []byte, s string, d introspect.Dialect) any {
	// bit(n) arrives as big-endian bytes, which may happen to be digits
	// (b'00110001' is "1"): decide by the type before parsing text.
	if d.IntAsBytes(c) {
		var u uint64
		for _, b := range raw {
			u = u<<8 | uint64(b)
		}
		if u <= math.MaxInt64 {
			return int64(u)
		}
		return strconv.FormatUint(u, 10)
	}
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return i
	}
	if _, err := strconv.ParseUint(s, 10, 64); err == nil {
		return s // beyond int64, kept as exact text
	}
	return fmt.Errorf("%q is not an integer", s)
}

// decodeBool decodes a boolean's text.
func decodeBool(s string) any {
	switch s {
	case "t", "true", "1":
		return true
	case "f", "false", "0":
		return false
	}
	return fmt.Errorf("%q is not a boolean", s)
}

// decodeBytes decodes binary data: bytea's hex text, or the bytes as they
// are.
func decodeBytes(raw []byte, s string, d introspect.Dialect) any {
	if !d.BytesAsHexText() {
		return bytes.Clone(raw) // not nil when empty, like PostgreSQL's '\x'
	}
	rest, ok := strings.CutPrefix(s, `\x`)
	if !ok {
		return fmt.Errorf("bytea is not in hex output format")
	}
	b, err := hex.DecodeString(rest)
	if err != nil {
		return fmt.Errorf("bad bytea text: %v", err)
	}
	return b
}

// decodeTime decodes a date's or a timestamp's text.
func decodeTime(kind introspect.Kind, s string, d introspect.Dialect) any {
	switch {
	case kind == introspect.KindDate:
		return parseTime(s, false, dateLayouts)
	case kind == introspect.KindTimestampTZ && d.ZonedTimestampText():
		return parseTime(s, true, timestampTZLayouts)
	}
	return parseTime(s, false, timestampLayouts) // a timestamp, or zoned in the session's UTC
}

// decodeArray decodes a PostgreSQL array's text, each element by the
// element type's kind.
func decodeArray(c *introspect.Column, s string, d introspect.Dialect) any {
	if c.Elem == introspect.KindGeometry {
		return errSpatialArray
	}
	delim := byte(',')
	if c.Delim != "" {
		delim = c.Delim[0]
	}
	if d.SpaceSeparatedArray(c) { // numbers: no element is quoted
		s = "{" + strings.ReplaceAll(s, " ", ",") + "}"
	}
	a, err := parsePGArray(s, delim)
	if err != nil {
		return err
	}
	if !a.startsAtOne() {
		return fmt.Errorf("array bounds %s do not start at 1: a list cannot say where it starts", a.bounds)
	}
	elem := &introspect.Column{Name: c.Name, Type: c.Type, Kind: c.Elem, Precision: c.Precision}
	if err := decodeElems(a.elems, elem, d); err != nil {
		return err
	}
	return a.elems
}

// decodeSet decodes a MySQL SET's text: its members.
func decodeSet(s string) any {
	if err := checkText(s); err != nil {
		return err
	}
	if s == "" {
		return []string{}
	}
	return strings.Split(s, ",")
}

// The layouts of the text forms of dates and timestamps (MySQL's
// TIMESTAMP, in the session's UTC, as a timestamp).
var (
	dateLayouts        = []string{"2006-01-02"}
	timestampLayouts   = []string{"2006-01-02 15:04:05.999999999"}
	timestampTZLayouts = []string{"2006-01-02 15:04:05.999999999-07", "2006-01-02 15:04:05.999999999-07:00", "2006-01-02 15:04:05.999999999-07:00:00"}
)

// errSpatialArray is the error value of an array of PostGIS values, whose
// elements PostgreSQL writes as hex EWKB, which remodel does not convert.
var errSpatialArray = errors.New("an array of spatial values is not read (PostgreSQL writes its elements as hex EWKB): leave the column out (attributes.exclude) or select ST_AsEWKT of each element in a query entity")

func decodeElems(v []any, elem *introspect.Column, d introspect.Dialect) error {
	for i, e := range v {
		switch x := e.(type) {
		case []any:
			if err := decodeElems(x, elem, d); err != nil {
				return err
			}
		case string:
			dv := DecodeText(elem, []byte(x), d)
			if err, ok := dv.(error); ok {
				return fmt.Errorf("array element %d: %w", i+1, err)
			}
			v[i] = dv
		}
	}
	return nil
}

func parseTime(s string, zoned bool, layouts []string) any {
	if strings.HasPrefix(s, "0000-00-00") {
		return fmt.Errorf("zero date %q has no calendar value", s)
	}
	if strings.HasSuffix(s, " BC") || strings.Contains(strings.ToLower(s), "infinity") {
		return fmt.Errorf("%q cannot be written as an ISO-8601 timestamp", s)
	}
	for _, l := range layouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC()
		}
	}
	return fmt.Errorf("%q is not a date or timestamp this reader understands", s)
}

// DecodeBinary handles the typed values go-sql-driver returns for prepared
// statements (binary protocol): integers and floats arrive as numbers.
func DecodeBinary(c *introspect.Column, v any, d introspect.Dialect) any {
	switch x := v.(type) {
	case nil:
		return nil
	case []byte:
		return DecodeText(c, x, d)
	case string:
		return DecodeText(c, []byte(x), d)
	case int64:
		if c != nil && c.Kind == introspect.KindInt && c.Read == "" && !strings.HasPrefix(c.Type, "bit") {
			return x // what decoding its decimal text gives
		}
		return DecodeText(c, strconv.AppendInt(nil, x, 10), d)
	case uint64:
		return DecodeText(c, strconv.AppendUint(nil, x, 10), d)
	case float64:
		return DecodeText(c, strconv.AppendFloat(nil, x, 'g', -1, 64), d)
	case float32:
		return DecodeText(c, strconv.AppendFloat(nil, float64(x), 'g', -1, 32), d)
	case time.Time:
		return x.UTC()
	case bool:
		return x
	case error: // a value the reader already knows it cannot decode
		return x
	}
	return fmt.Errorf("unexpected driver value %T", v)
}
