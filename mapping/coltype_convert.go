package mapping

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/introspect"
)

// ConvertAs turns one canonical value of column c into an attribute value
// of type t (attributes.types). A nil result with a nil error means the
// attribute is left out: a NULL, and an empty set (DynamoDB has none). A
// value t cannot hold exactly is an error, which rejects the row.
func ConvertAs(c *introspect.Column, t ColType, v any) (types.AttributeValue, error) {
	if v == nil {
		return nil, nil
	}
	if err, ok := v.(error); ok {
		return nil, err
	}
	switch t {
	case TypeN:
		return asNumber(c, v)
	case TypeS:
		return asString(c, v)
	case TypeBOOL:
		return asBool(c, v)
	case TypeB:
		switch x := v.(type) {
		case []byte:
			return &types.AttributeValueMemberB{Value: x}, nil
		case string:
			return &types.AttributeValueMemberB{Value: []byte(x)}, nil
		}
	case TypeSS, TypeNS, TypeBS:
		return asSet(c, t, v)
	case TypeL:
		switch x := v.(type) {
		case []string: // MySQL SET: its members in their stored order
			l := make([]types.AttributeValue, len(x))
			for i, s := range x {
				l[i] = &types.AttributeValueMemberS{Value: s}
			}
			return &types.AttributeValueMemberL{Value: l}, nil
		case []any:
			return Convert(c, x)
		default:
			return asDocument(c, v, "L", "a list")
		}
	case TypeM:
		return asDocument(c, v, "M", "an object")
	case TypeJSON:
		raw, err := jsonText(v)
		if err != nil {
			return nil, err
		}
		if !utf8.Valid(raw) {
			return nil, fmt.Errorf("json: not valid UTF-8 (byte offset %d)", invalidUTF8At(raw))
		}
		return &types.AttributeValueMemberS{Value: string(raw)}, nil
	case TypeUnix, TypeUnixMS:
		tm, ok := v.(time.Time)
		if !ok {
			break
		}
		return epoch(tm, t == TypeUnixMS)
	case TypeISO:
		tm, ok := v.(time.Time)
		if !ok {
			break
		}
		// A timestamp with a zone in UTC; one without is taken as UTC (the
		// source reads its wall clock as a UTC time); a date at midnight.
		s, err := timeFormat(tm, "iso")
		if err != nil {
			return nil, err
		}
		return &types.AttributeValueMemberS{Value: s}, nil
	}
	return nil, fmt.Errorf("type %s cannot hold a %T value of a %s column", t, v, c.Kind)
}

func asNumber(c *introspect.Column, v any) (types.AttributeValue, error) {
	var s string
	var err error
	switch x := v.(type) {
	case int64:
		s = strconv.FormatInt(x, 10)
	case float64:
		s, err = formatFloat(x)
	case string:
		s, err = normalizeNumber(x)
		if err != nil && c.Kind == introspect.KindString && strings.HasSuffix(err.Error(), "is not a number") {
			err = fmt.Errorf("text %s is not a number", strconv.Quote(x))
		}
	default:
		return nil, fmt.Errorf("type N cannot hold a %T value", v)
	}
	if err != nil {
		return nil, err
	}
	return &types.AttributeValueMemberN{Value: s}, nil
}

// asString renders a scalar as S: the text the column renders as in a
// template ({column}), so that an index key fed by a typed column and an
// access pattern's template agree; bytes and JSON as their text.
func asString(c *introspect.Column, v any) (types.AttributeValue, error) {
	var s string
	switch x := v.(type) {
	case int64:
		s = strconv.FormatInt(x, 10)
	case float64: // shortest round-trip text; NaN and the infinities as PostgreSQL spells them
		switch {
		case math.IsNaN(x):
			s = "NaN"
		case math.IsInf(x, 1):
			s = "Infinity"
		case math.IsInf(x, -1):
			s = "-Infinity"
		default:
			f, err := decimalText(strconv.FormatFloat(x, 'g', -1, 64), false)
			if err != nil {
				return nil, err
			}
			s = f
		}
	case bool:
		s = strconv.FormatBool(x)
	case time.Time:
		s = formatTime(c, x)
	case string: // text; a decimal as a template renders it (1.50 is 1.5)
		if (c.Kind == introspect.KindDecimal || c.Kind == introspect.KindInt) && !specialDecimal(x) {
			// An S is no DynamoDB number: more than 38 digits, or a
			// magnitude N cannot hold, are kept.
			n, err := decimalText(x, false)
			if err != nil {
				return nil, err
			}
			x = n
		}
		s = x
	case []byte: // bytes and JSON documents: their text, which must be UTF-8
		if !utf8.Valid(x) {
			return nil, fmt.Errorf("bytes are not valid UTF-8 text (byte 0x%02x at offset %d)", x[invalidUTF8At(x)], invalidUTF8At(x))
		}
		s = string(x)
	default:
		return nil, fmt.Errorf("type S cannot hold a %T value", v)
	}
	return &types.AttributeValueMemberS{Value: s}, nil
}

// specialDecimal reports whether s is a decimal value that is not a
// number, as PostgreSQL's numeric prints it: NaN, Infinity, -Infinity.
func specialDecimal(s string) bool {
	return s == "NaN" || s == "Infinity" || s == "-Infinity"
}

// BoolText reads the texts type BOOL takes, ignoring case: true/false,
// t/f, yes/no, y/n, 1/0. Trailing spaces are ignored (a char(n) column pads
// its value with them); anything else is not a boolean.
func BoolText(s string) (value, ok bool) {
	switch strings.ToLower(strings.TrimRight(s, " ")) {
	case "true", "t", "yes", "y", "1":
		return true, true
	case "false", "f", "no", "n", "0":
		return false, true
	}
	return false, false
}

func asBool(c *introspect.Column, v any) (types.AttributeValue, error) {
	switch x := v.(type) {
	case bool:
		return &types.AttributeValueMemberBOOL{Value: x}, nil
	case int64:
		if x != 0 && x != 1 {
			return nil, fmt.Errorf("%d is not a boolean (BOOL takes 0 or 1)", x)
		}
		return &types.AttributeValueMemberBOOL{Value: x == 1}, nil
	case string:
		if c.Kind == introspect.KindString {
			b, ok := BoolText(x)
			if !ok {
				return nil, fmt.Errorf("text %s is not a boolean (BOOL takes true/false, t/f, yes/no, y/n or 1/0, in any case)", strconv.Quote(x))
			}
			return &types.AttributeValueMemberBOOL{Value: b}, nil
		}
		return nil, fmt.Errorf("%s is not a boolean (BOOL takes 0 or 1)", x) // an integer beyond int64
	}
	return nil, fmt.Errorf("type BOOL cannot hold a %T value", v)
}

// asSet converts a MySQL SET or a one-dimensional array to SS, NS or BS.
// DynamoDB refuses an empty set and a set that repeats a member: an empty
// one leaves the attribute out, a repeated member (by value for NS) or a
// NULL element rejects the row.
func asSet(c *introspect.Column, t ColType, v any) (types.AttributeValue, error) {
	var elems []any
	switch x := v.(type) {
	case []string:
		for _, s := range x {
			elems = append(elems, s)
		}
	case []any:
		elems = x
	default:
		return nil, fmt.Errorf("type %s cannot hold a %T value", t, v)
	}
	if len(elems) == 0 {
		return nil, nil
	}
	seen := map[string]int{}
	var ss []string
	var bs [][]byte
	for i, e := range elems {
		var key string
		switch x := e.(type) {
		case nil:
			return nil, fmt.Errorf("element %d is NULL, which a set (%s) cannot hold", i+1, t)
		case []any:
			return nil, fmt.Errorf("a multi-dimensional array cannot be a set (%s)", t)
		case string:
			key = x
			if t == TypeNS {
				n, err := normalizeNumber(x)
				if err != nil {
					return nil, fmt.Errorf("element %d: %w", i+1, err)
				}
				key = n
			}
		case int64:
			key = strconv.FormatInt(x, 10)
		case float64:
			n, err := formatFloat(x)
			if err != nil {
				return nil, fmt.Errorf("element %d: %w", i+1, err)
			}
			key = n
		case []byte:
			key = string(x)
			bs = append(bs, x)
		default:
			return nil, fmt.Errorf("element %d: type %s cannot hold a %T value", i+1, t, e)
		}
		if j, dup := seen[key]; dup {
			shown := strconv.Quote(key)
			if t == TypeBS {
				shown = fmt.Sprintf("0x%x", key)
			} else if t == TypeNS {
				shown = key
			}
			return nil, fmt.Errorf("elements %d and %d are both %s: a set (%s) holds each member once", j+1, i+1, shown, t)
		}
		seen[key] = i
		if t != TypeBS {
			ss = append(ss, key)
		}
	}
	switch t {
	case TypeNS:
		return &types.AttributeValueMemberNS{Value: ss}, nil
	case TypeBS:
		return &types.AttributeValueMemberBS{Value: bs}, nil
	}
	return &types.AttributeValueMemberSS{Value: ss}, nil
}

// asDocument converts a JSON document that must be a list (L) or an object
// (M).
func asDocument(c *introspect.Column, v any, want, what string) (types.AttributeValue, error) {
	raw, err := jsonText(v)
	if err != nil {
		return nil, err
	}
	av, err := jsonToAV(raw, 0)
	if err != nil {
		return nil, err
	}
	ok := false
	switch av.(type) {
	case *types.AttributeValueMemberL:
		ok = want == "L"
	case *types.AttributeValueMemberM:
		ok = want == "M"
	}
	if !ok {
		return nil, fmt.Errorf("json: the document is %s, not %s (type %s)", docKind(av), what, want)
	}
	return av, nil
}

func docKind(av types.AttributeValue) string {
	switch av.(type) {
	case *types.AttributeValueMemberL:
		return "a list"
	case *types.AttributeValueMemberM:
		return "an object"
	case *types.AttributeValueMemberS:
		return "a string"
	case *types.AttributeValueMemberN:
		return "a number"
	case *types.AttributeValueMemberBOOL:
		return "a boolean"
	case *types.AttributeValueMemberNULL:
		return "null"
	}
	return "something else"
}

// epoch is an instant as epoch seconds or milliseconds. A fraction the
// unit cannot hold rejects the row rather than being cut off.
func epoch(t time.Time, ms bool) (types.AttributeValue, error) {
	sec, nanos := t.Unix(), int64(t.Nanosecond())
	if ms {
		if nanos%1e6 != 0 {
			return nil, fmt.Errorf("%s has a fraction of a millisecond, which unixms cannot hold", t.Format("2006-01-02T15:04:05.999999999Z"))
		}
		return &types.AttributeValueMemberN{Value: strconv.FormatInt(sec*1000+nanos/1e6, 10)}, nil
	}
	if nanos != 0 {
		return nil, fmt.Errorf("%s has a fraction of a second, which unix cannot hold (unixms keeps milliseconds)", t.Format("2006-01-02T15:04:05.999999999Z"))
	}
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(sec, 10)}, nil
}
