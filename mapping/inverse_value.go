package mapping

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/introspect"
)

// invertibleKind says why the attribute of column c, converted by type t
// ("" for the default of the column's kind), cannot be read back into a
// column value, or "" when it can.
func invertibleKind(c *introspect.Column, t ColType) string {
	if c.Expr != "" || c.From != "" || c.Read != "" {
		return fmt.Sprintf("column %s is read in another form (%s), which is not written back", storedName(c), orNoneText(string(t)))
	}
	if t == "" || t == TypeL && c.Kind == introspect.KindArray {
		switch c.Kind {
		case introspect.KindArray:
			return arrayInvertible(c)
		}
		return ""
	}
	switch t {
	case TypeN:
		if c.Kind == introspect.KindInt || c.Kind == introspect.KindDecimal || c.Kind == introspect.KindFloat {
			return ""
		}
	case TypeBOOL:
		if c.Kind == introspect.KindBool {
			return ""
		}
	case TypeISO, TypeUnix, TypeUnixMS:
		return ""
	case TypeJSON:
		return ""
	case TypeSS:
		if c.Kind == introspect.KindSet {
			return ""
		}
	}
	if c.Kind == introspect.KindArray && (t == TypeSS || t == TypeNS || t == TypeBS) {
		return fmt.Sprintf("column %s (%s) as type %s: a set keeps neither the array's order nor its duplicates, so the array is not written back (type L, or the default, is)", c.Name, c.Type, t)
	}
	return fmt.Sprintf("column %s (%s) as type %s is not read back into the column", c.Name, c.Type, t)
}

// arrayInvertible says why the list of array column c cannot be read back
// into the array, or "" when it can: its elements are read back as the
// scalars (or JSON documents) they were converted from.
func arrayInvertible(c *introspect.Column) string {
	if c.Type == "json[]" {
		return fmt.Sprintf("column %s is an array of json (%s), which has no equality to guard an update with (jsonb[] has)", c.Name, c.Type)
	}
	switch c.Elem {
	case introspect.KindString, introspect.KindInt, introspect.KindDecimal, introspect.KindFloat, introspect.KindBool,
		introspect.KindBytes, introspect.KindDate, introspect.KindTimestamp, introspect.KindTimestampTZ, introspect.KindTime, introspect.KindJSON:
		return ""
	}
	return fmt.Sprintf("column %s is an array of %s (%s), whose elements follow-back does not write back", c.Name, elemKindText(c.Elem), c.Type)
}

func elemKindText(k introspect.Kind) string {
	if k == "" {
		return "an unknown kind"
	}
	return string(k)
}

func orNoneText(s string) string {
	if s == "" {
		return "its kind's default"
	}
	return "type " + s
}

// ValueOf reads an attribute value back into the canonical value of
// column c that Convert (ConvertAs with t, when t is set) makes av of: the
// inverse of the conversion, checked by converting the value again. A nil
// av (the attribute is absent) or a NULL is the SQL NULL.
func ValueOf(c *introspect.Column, t ColType, av types.AttributeValue) (any, error) {
	if av == nil {
		return nil, nil
	}
	if _, ok := av.(*types.AttributeValueMemberNULL); ok {
		return nil, nil
	}
	if why := invertibleKind(c, t); why != "" {
		return nil, fmt.Errorf("%s", why)
	}
	v, err := undoConvert(c, t, av)
	if err != nil {
		return nil, err
	}
	var back types.AttributeValue
	if t != "" {
		back, err = ConvertAs(c, t, v)
	} else {
		back, err = Convert(c, v)
	}
	if err != nil || back == nil || !EqualValue(back, av) {
		return nil, fmt.Errorf("%s is not a value column %s (%s) becomes", describeAV(av), c.Name, c.Type)
	}
	if !fitsColumn(c, v) {
		return nil, fmt.Errorf("%s is finer than column %s (%s) keeps", describeAV(av), c.Name, c.Type)
	}
	return v, nil
}

// undoConvert is the value of column c that av holds, unchecked.
func undoConvert(c *introspect.Column, t ColType, av types.AttributeValue) (any, error) {
	switch t {
	case TypeISO, TypeUnix, TypeUnixMS, TypeJSON:
		return undoTyped(c, t, av)
	}
	return undoKind(c, av)
}

// undoTyped is the value an attribute of a type that names its own form
// (iso, unix, unixms, json) holds.
func undoTyped(c *introspect.Column, t ColType, av types.AttributeValue) (any, error) {
	switch t {
	case TypeISO:
		s, ok := av.(*types.AttributeValueMemberS)
		if !ok {
			return nil, wrongType(c, av, "S")
		}
		tm, err := time.Parse(ISOLayout, s.Value)
		if err != nil {
			return nil, fmt.Errorf("%s is not an ISO-8601 UTC timestamp as iso writes it", describeAV(av))
		}
		return tm.UTC(), nil
	case TypeUnix, TypeUnixMS:
		n, ok := av.(*types.AttributeValueMemberN)
		if !ok {
			return nil, wrongType(c, av, "N")
		}
		x, err := strconv.ParseInt(n.Value, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s is not whole epoch %s", describeAV(av), map[bool]string{true: "milliseconds", false: "seconds"}[t == TypeUnixMS])
		}
		if t == TypeUnixMS {
			return time.UnixMilli(x).UTC(), nil
		}
		return time.Unix(x, 0).UTC(), nil
	}
	s, ok := av.(*types.AttributeValueMemberS) // TypeJSON
	if !ok {
		return nil, wrongType(c, av, "S")
	}
	return []byte(s.Value), nil
}

// undoKind is the value of column c, by its kind, that av holds.
func undoKind(c *introspect.Column, av types.AttributeValue) (any, error) {
	switch c.Kind {
	case introspect.KindArray:
		return undoArray(&introspect.Column{Name: c.Name, Type: c.Type, Kind: c.Elem, Precision: c.Precision}, av, 1)
	case introspect.KindInt:
		n, ok := av.(*types.AttributeValueMemberN)
		if !ok {
			return nil, wrongType(c, av, "N")
		}
		norm, err := normalizeNumber(n.Value)
		if err != nil {
			return nil, err
		}
		v, ok := parseIntText(norm)
		if !ok {
			return nil, fmt.Errorf("%s is not an integer, as column %s (%s) holds", describeAV(av), c.Name, c.Type)
		}
		return v, nil
	case introspect.KindDecimal:
		n, ok := av.(*types.AttributeValueMemberN)
		if !ok {
			return nil, wrongType(c, av, "N")
		}
		return normalizeNumber(n.Value)
	case introspect.KindFloat:
		n, ok := av.(*types.AttributeValueMemberN)
		if !ok {
			return nil, wrongType(c, av, "N")
		}
		return strconv.ParseFloat(n.Value, 64)
	case introspect.KindBool:
		b, ok := av.(*types.AttributeValueMemberBOOL)
		if !ok {
			return nil, wrongType(c, av, "BOOL")
		}
		return b.Value, nil
	case introspect.KindString, introspect.KindTime, introspect.KindGeometry: // a spatial value as its (E)WKT
		s, ok := av.(*types.AttributeValueMemberS)
		if !ok {
			return nil, wrongType(c, av, "S")
		}
		return s.Value, nil
	case introspect.KindDate, introspect.KindTimestamp, introspect.KindTimestampTZ:
		s, ok := av.(*types.AttributeValueMemberS)
		if !ok {
			return nil, wrongType(c, av, "S")
		}
		v, ok := parseTimeText(c, s.Value)
		if !ok {
			return nil, fmt.Errorf("%s is not a time as column %s (%s) is written", describeAV(av), c.Name, c.Type)
		}
		return v, nil
	case introspect.KindBytes:
		b, ok := av.(*types.AttributeValueMemberB)
		if !ok {
			return nil, wrongType(c, av, "B")
		}
		return b.Value, nil
	case introspect.KindJSON:
		var buf bytes.Buffer
		if err := writeJSON(&buf, av); err != nil {
			return nil, fmt.Errorf("column %s (%s): %w", c.Name, c.Type, err)
		}
		return buf.Bytes(), nil
	case introspect.KindSet:
		ss, ok := av.(*types.AttributeValueMemberSS)
		if !ok {
			return nil, wrongType(c, av, "SS")
		}
		return slices.Clone(ss.Value), nil
	}
	return nil, fmt.Errorf("column %s is %s, which is not read back", c.Name, c.Kind)
}

// undoArray is the array (its elements, nested arrays as []any) that the
// list av of an array whose elements are of column elem holds, depth
// lists deep: the inverse of arrayToAV. A NULL element is the SQL NULL; a
// list inside is the array's next dimension, but in an array of JSON
// documents, whose elements are lists and maps themselves.
func undoArray(elem *introspect.Column, av types.AttributeValue, depth int) (any, error) {
	l, ok := av.(*types.AttributeValueMemberL)
	if !ok {
		return nil, wrongType(elem, av, "L")
	}
	if depth > maxNest {
		return nil, fmt.Errorf("array: %w", errTooDeep)
	}
	out := make([]any, len(l.Value))
	for i, e := range l.Value {
		var v any
		var err error
		switch e.(type) {
		case *types.AttributeValueMemberNULL:
		case *types.AttributeValueMemberL:
			if elem.Kind != introspect.KindJSON {
				v, err = undoArray(elem, e, depth+1)
				break
			}
			v, err = undoConvert(elem, "", e)
		default:
			v, err = undoConvert(elem, "", e)
		}
		if err != nil {
			return nil, fmt.Errorf("element %d: %w", i+1, err)
		}
		out[i] = v
	}
	return out, nil
}

func wrongType(c *introspect.Column, av types.AttributeValue, want string) error {
	return fmt.Errorf("%s is not of type %s, which column %s (%s) becomes", describeAV(av), want, c.Name, c.Type)
}

// describeAV names a value for errors: "N 42", "S \"x\"", "an M".
func describeAV(av types.AttributeValue) string {
	switch x := av.(type) {
	case *types.AttributeValueMemberS:
		s := x.Value
		if len(s) > 60 {
			s = s[:60] + "…"
		}
		return "S " + strconv.Quote(s)
	case *types.AttributeValueMemberN:
		return "N " + x.Value
	case *types.AttributeValueMemberBOOL:
		return "BOOL " + strconv.FormatBool(x.Value)
	}
	return "a value of type " + AVType(av)
}

// writeJSON writes a map, list or scalar attribute value as JSON: numbers
// as their exact text, map keys sorted.
func writeJSON(b *bytes.Buffer, av types.AttributeValue) error {
	switch x := av.(type) {
	case *types.AttributeValueMemberNULL:
		b.WriteString("null")
	case *types.AttributeValueMemberBOOL:
		b.WriteString(strconv.FormatBool(x.Value))
	case *types.AttributeValueMemberN:
		b.WriteString(x.Value)
	case *types.AttributeValueMemberS:
		b.WriteString(jsonString(x.Value))
	case *types.AttributeValueMemberL:
		b.WriteByte('[')
		for i, e := range x.Value {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeJSON(b, e); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case *types.AttributeValueMemberM:
		keys := make([]string, 0, len(x.Value))
		for k := range x.Value {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(jsonString(k))
			b.WriteByte(':')
			if err := writeJSON(b, x.Value[k]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	default:
		return fmt.Errorf("a value of type %s has no JSON form", AVType(av))
	}
	return nil
}

// jsonString is s as a JSON string.
func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
