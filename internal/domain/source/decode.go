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

	"github.com/remodel-dev/remodel/internal/domain/introspect"
)

// decodeText turns the text form of a value into its canonical value (see
// package mapping). A value that cannot be decoded becomes an error value:
// the row is rejected, the run goes on. raw may be reused by the driver, so
// nothing here keeps it.
func decodeText(c *introspect.Column, raw []byte, d introspect.Dialect) any {
	if raw == nil {
		return nil
	}
	if c != nil && c.Read != "" {
		return decodeReadAs(c, raw, d)
	}
	kind := introspect.KindString
	if c != nil {
		kind = c.Kind
	}
	// The kinds read most often are decoded from raw without making a
	// string of it first (the copy was an allocation per value).
	switch kind {
	case introspect.KindInt:
		if !d.IntAsBytes(c) {
			if i, ok := parseDecimalInt(raw); ok {
				return i
			}
		}
	case introspect.KindBool:
		if len(raw) == 1 {
			switch raw[0] {
			case 't', '1':
				return true
			case 'f', '0':
				return false
			}
		}
	case introspect.KindTimestamp, introspect.KindTimestampTZ:
		if t, ok := parseTimestamp(raw, kind == introspect.KindTimestampTZ && d.ZonedTimestampText()); ok {
			return t
		}
	case introspect.KindDate:
		if t, ok := parseDate(raw); ok {
			return t
		}
	}
	s := string(raw)
	switch kind {
	case introspect.KindInt:
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
	case introspect.KindFloat:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return fmt.Errorf("%q is not a number", s)
		}
		return f
	case introspect.KindBool:
		switch s {
		case "t", "true", "1":
			return true
		case "f", "false", "0":
			return false
		}
		return fmt.Errorf("%q is not a boolean", s)
	case introspect.KindBytes:
		if d.BytesAsHexText() {
			if rest, ok := strings.CutPrefix(s, `\x`); ok {
				b, err := hex.DecodeString(rest)
				if err != nil {
					return fmt.Errorf("bad bytea text: %v", err)
				}
				return b
			}
			return fmt.Errorf("bytea is not in hex output format")
		}
		return bytes.Clone(raw) // not nil when empty, like PostgreSQL's '\x'
	case introspect.KindDate:
		return parseTime(s, false, dateLayouts)
	case introspect.KindTimestamp:
		return parseTime(s, false, timestampLayouts)
	case introspect.KindTimestampTZ:
		if !d.ZonedTimestampText() { // the session time zone is UTC
			return parseTime(s, false, timestampLayouts)
		}
		return parseTime(s, true, timestampTZLayouts)
	case introspect.KindJSON:
		// Checked where it is decoded (mapping.Convert): UTF-8, surrogate
		// escapes, nesting, keys.
		return bytes.Clone(raw)
	case introspect.KindArray:
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
	case introspect.KindSet:
		if err := checkText(s); err != nil {
			return err
		}
		if s == "" {
			return []string{}
		}
		return strings.Split(s, ",")
	case introspect.KindGeometry:
		if !isWKT(s) {
			return spatialNotText(c.Name)
		}
		if err := checkText(s); err != nil {
			return err
		}
		return s
	case introspect.KindDecimal, introspect.KindTime:
		return s // the engine's own ASCII text
	}
	if err := checkText(s); err != nil {
		return err
	}
	return s
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
			dv := decodeText(elem, []byte(x), d)
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

// decodeBinary handles the typed values go-sql-driver returns for prepared
// statements (binary protocol): integers and floats arrive as numbers.
func decodeBinary(c *introspect.Column, v any, d introspect.Dialect) any {
	switch x := v.(type) {
	case nil:
		return nil
	case []byte:
		return decodeText(c, x, d)
	case string:
		return decodeText(c, []byte(x), d)
	case int64:
		if c != nil && c.Kind == introspect.KindInt && c.Read == "" && !strings.HasPrefix(c.Type, "bit") {
			return x // what decoding its decimal text gives
		}
		return decodeText(c, strconv.AppendInt(nil, x, 10), d)
	case uint64:
		return decodeText(c, strconv.AppendUint(nil, x, 10), d)
	case float64:
		return decodeText(c, strconv.AppendFloat(nil, x, 'g', -1, 64), d)
	case float32:
		return decodeText(c, strconv.AppendFloat(nil, float64(x), 'g', -1, 32), d)
	case time.Time:
		return x.UTC()
	case bool:
		return x
	case error: // a value the reader already knows it cannot decode
		return x
	}
	return fmt.Errorf("unexpected driver value %T", v)
}
