package mapping

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/introspect"
)

// MaxDepth is DynamoDB's limit on nested lists and maps.
const MaxDepth = 32

// Convert turns one canonical value of column c into an attribute value.
// A nil result with a nil error means the attribute is left out (NULL).
func Convert(c *introspect.Column, v any) (types.AttributeValue, error) {
	if v == nil {
		return nil, nil
	}
	if err, ok := v.(error); ok {
		return nil, err
	}
	switch c.Kind {
	case introspect.KindJSON:
		var raw []byte
		switch x := v.(type) {
		case []byte:
			raw = x
		case string:
			raw = []byte(x)
		default:
			return nil, fmt.Errorf("json column holds a %T", v)
		}
		return jsonToAV(raw)
	case introspect.KindArray:
		elems, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("array column holds a %T", v)
		}
		return arrayToAV(&introspect.Column{Name: c.Name, Kind: c.Elem, Precision: c.Precision}, elems, 1)
	case introspect.KindSet:
		members, ok := v.([]string)
		if !ok {
			return nil, fmt.Errorf("set column holds a %T", v)
		}
		if len(members) == 0 {
			return nil, nil // DynamoDB has no empty set: an empty SET is left out like NULL
		}
		return &types.AttributeValueMemberSS{Value: members}, nil
	}
	return scalarToAV(c, v)
}

func scalarToAV(c *introspect.Column, v any) (types.AttributeValue, error) {
	switch x := v.(type) {
	case int64:
		return &types.AttributeValueMemberN{Value: strconv.FormatInt(x, 10)}, nil
	case float64:
		s, err := formatFloat(x)
		if err != nil {
			return nil, err
		}
		return &types.AttributeValueMemberN{Value: s}, nil
	case bool:
		return &types.AttributeValueMemberBOOL{Value: x}, nil
	case []byte:
		return &types.AttributeValueMemberB{Value: x}, nil
	case time.Time:
		return &types.AttributeValueMemberS{Value: formatTime(c, x)}, nil
	case string:
		if c.Kind == introspect.KindDecimal || c.Kind == introspect.KindInt {
			s, err := normalizeNumber(x)
			if err != nil {
				return nil, err
			}
			return &types.AttributeValueMemberN{Value: s}, nil
		}
		return &types.AttributeValueMemberS{Value: x}, nil
	}
	return nil, fmt.Errorf("unexpected %T value for a %s column", v, c.Kind)
}

func arrayToAV(elem *introspect.Column, elems []any, depth int) (types.AttributeValue, error) {
	if depth > MaxDepth {
		return nil, fmt.Errorf("array nested deeper than %d levels", MaxDepth)
	}
	out := make([]types.AttributeValue, len(elems))
	for i, e := range elems {
		var av types.AttributeValue
		var err error
		switch x := e.(type) {
		case nil:
			av = &types.AttributeValueMemberNULL{Value: true}
		case []any:
			av, err = arrayToAV(elem, x, depth+1)
		default:
			if elem.Kind == introspect.KindJSON { // json[]: each element is a document
				av, err = Convert(elem, x)
				if err == nil && depth+avDepth(av) > MaxDepth {
					err = fmt.Errorf("nested deeper than %d levels", MaxDepth)
				}
			} else {
				av, err = scalarToAV(elem, x)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("element %d: %w", i+1, err)
		}
		out[i] = av
	}
	return &types.AttributeValueMemberL{Value: out}, nil
}

// avDepth is how many list and map levels an attribute value nests.
func avDepth(av types.AttributeValue) int {
	d := 0
	switch x := av.(type) {
	case *types.AttributeValueMemberL:
		for _, e := range x.Value {
			d = max(d, avDepth(e))
		}
		return d + 1
	case *types.AttributeValueMemberM:
		for _, e := range x.Value {
			d = max(d, avDepth(e))
		}
		return d + 1
	}
	return 0
}

// jsonToAV converts JSON text into M/L/S/N/BOOL/NULL, keeping numbers exact.
func jsonToAV(raw []byte) (types.AttributeValue, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	av, err := jsonValue(dec, 0)
	if err != nil {
		return nil, fmt.Errorf("json: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("json: trailing data after the value")
	}
	return av, nil
}

func jsonValue(dec *json.Decoder, depth int) (types.AttributeValue, error) {
	tok, err := dec.Token()
	if errors.Is(err, io.EOF) {
		return nil, io.ErrUnexpectedEOF // the text ends where a value should be
	}
	if err != nil {
		return nil, err
	}
	switch x := tok.(type) {
	case json.Delim:
		if depth+1 > MaxDepth {
			return nil, fmt.Errorf("nested deeper than %d levels", MaxDepth)
		}
		if x == '[' {
			list := []types.AttributeValue{}
			for dec.More() {
				v, err := jsonValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				list = append(list, v)
			}
			_, err := dec.Token()
			return &types.AttributeValueMemberL{Value: list}, err
		}
		m := map[string]types.AttributeValue{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			k := kt.(string)
			v, err := jsonValue(dec, depth+1)
			if err != nil {
				return nil, err
			}
			m[k] = v
		}
		_, err := dec.Token()
		return &types.AttributeValueMemberM{Value: m}, err
	case json.Number:
		s, err := normalizeNumber(string(x))
		if err != nil {
			return nil, err
		}
		return &types.AttributeValueMemberN{Value: s}, nil
	case string:
		return &types.AttributeValueMemberS{Value: x}, nil
	case bool:
		return &types.AttributeValueMemberBOOL{Value: x}, nil
	case nil:
		return &types.AttributeValueMemberNULL{Value: true}, nil
	}
	return nil, fmt.Errorf("unexpected token %v", tok)
}

// formatFloat renders a float64 in the shortest text that reads back to the
// same value, as a DynamoDB number.
func formatFloat(f float64) (string, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "", fmt.Errorf("%v cannot be stored as a DynamoDB number", f)
	}
	return normalizeNumber(strconv.FormatFloat(f, 'g', -1, 64))
}

// NormalizeNumber is the one text remodel writes for a decimal number (see
// normalizeNumber); two texts of the same value normalize equally.
func NormalizeNumber(s string) (string, error) { return normalizeNumber(s) }

// normalizeNumber checks decimal text against DynamoDB's number rules (at
// most 38 significant digits, magnitude 1E-130 to below 1E+126) and returns
// it without leading or trailing zeros, in plain notation where that is at
// most 60 characters long and in E notation otherwise.
func normalizeNumber(s string) (string, error) {
	orig := s
	neg := false
	switch {
	case strings.HasPrefix(s, "-"):
		neg, s = true, s[1:]
	case strings.HasPrefix(s, "+"):
		s = s[1:]
	}
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(s[i+1:])
		if err != nil {
			return "", fmt.Errorf("%q is not a number", orig)
		}
		mant, exp = s[:i], e
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	if intPart == "" && frac == "" || !allDigits(intPart) || !allDigits(frac) {
		lower := strings.ToLower(orig)
		if strings.Contains(lower, "nan") || strings.Contains(lower, "inf") {
			return "", fmt.Errorf("%s cannot be stored as a DynamoDB number", orig)
		}
		return "", fmt.Errorf("%q is not a number", orig)
	}
	digits := strings.TrimLeft(intPart+frac, "0")
	point := len(intPart) + exp - (len(intPart+frac) - len(digits)) // digits before the point
	digits = strings.TrimRight(digits, "0")
	if digits == "" {
		return "0", nil
	}
	if len(digits) > 38 {
		return "", fmt.Errorf("%s has %d significant digits; DynamoDB keeps at most 38", orig, len(digits))
	}
	// value = 0.digits × 10^point
	if point > 126 {
		return "", fmt.Errorf("%s is too large for a DynamoDB number (at most 9.99…E+125)", orig)
	}
	if point < -129 {
		return "", fmt.Errorf("%s is too small for a DynamoDB number (at least 1E-130)", orig)
	}
	var out string
	switch {
	case point >= len(digits) && point <= 60:
		out = digits + strings.Repeat("0", point-len(digits))
	case point > 0 && point < len(digits):
		out = digits[:point] + "." + digits[point:]
	case point <= 0 && len(digits)-point <= 60:
		out = "0." + strings.Repeat("0", -point) + digits
	default:
		out = digits[:1]
		if len(digits) > 1 {
			out += "." + digits[1:]
		}
		out += "E" + strconv.Itoa(point-1)
	}
	if neg {
		out = "-" + out
	}
	return out, nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// formatTime renders a date or timestamp at fixed width: dates as
// YYYY-MM-DD, timestamps as YYYY-MM-DDThh:mm:ss with exactly the column's
// fractional digits, and "Z" where the zone is known (UTC).
func formatTime(c *introspect.Column, t time.Time) string {
	switch c.Kind {
	case introspect.KindDate:
		return t.Format("2006-01-02")
	case introspect.KindTimestampTZ:
		return t.UTC().Format(timeLayout(c.Precision) + "Z")
	default:
		return t.Format(timeLayout(c.Precision))
	}
}

func timeLayout(precision int) string {
	l := "2006-01-02T15:04:05"
	if precision > 0 {
		if precision > 9 {
			precision = 9
		}
		l += "." + strings.Repeat("0", precision)
	}
	return l
}

// ItemSize is the size DynamoDB counts for an item: attribute names plus
// values, with DynamoDB's overheads for numbers, lists and maps.
func ItemSize(item map[string]types.AttributeValue) int {
	n := 0
	for k, v := range item {
		n += len(k) + avSize(v)
	}
	return n
}

func avSize(v types.AttributeValue) int {
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		return len(x.Value)
	case *types.AttributeValueMemberN:
		return numberSize(x.Value)
	case *types.AttributeValueMemberB:
		return len(x.Value)
	case *types.AttributeValueMemberBOOL, *types.AttributeValueMemberNULL:
		return 1
	case *types.AttributeValueMemberSS:
		n := 0
		for _, s := range x.Value {
			n += len(s)
		}
		return n
	case *types.AttributeValueMemberNS:
		n := 0
		for _, s := range x.Value {
			n += numberSize(s)
		}
		return n
	case *types.AttributeValueMemberBS:
		n := 0
		for _, b := range x.Value {
			n += len(b)
		}
		return n
	case *types.AttributeValueMemberL:
		n := 3
		for _, e := range x.Value {
			n += 1 + avSize(e)
		}
		return n
	case *types.AttributeValueMemberM:
		n := 3
		for k, e := range x.Value {
			n += 1 + len(k) + avSize(e)
		}
		return n
	}
	return 0
}

// numberSize is 1 byte per two significant digits plus 1; leading and
// trailing zeros are not significant.
func numberSize(s string) int {
	mant, _, _ := strings.Cut(strings.TrimLeft(s, "-+"), "E")
	mant = strings.Trim(strings.Replace(mant, ".", "", 1), "0")
	sig := 0
	for _, r := range mant {
		if r >= '0' && r <= '9' {
			sig++
		}
	}
	return (sig+1)/2 + 1
}
