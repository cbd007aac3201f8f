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
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/introspect"
)

// MaxDepth is DynamoDB's limit on nesting, counting the item itself as the
// first level: an attribute value may hold at most MaxDepth-1 (31) maps and
// lists inside one another. Measured on DynamoDB Local 3.3.1: an attribute
// of 31 nested maps or lists (a scalar, a set or nothing in the innermost)
// is stored; 32 are refused with "Nesting Levels have exceeded supported
// limits", whether maps, lists or both, and an empty map or list counts as
// a level.
const MaxDepth = 32

// maxNest is how many maps and lists may nest inside one attribute value.
const maxNest = MaxDepth - 1

// MaxNameLen is DynamoDB's limit, in UTF-8 bytes, on an attribute name,
// which also holds for the keys of a map.
const MaxNameLen = 65535

var errTooDeep = fmt.Errorf("maps and lists nested more than %d deep (DynamoDB allows %d levels, counting the item)", maxNest, MaxDepth)

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
		raw, err := jsonText(v)
		if err != nil {
			return nil, err
		}
		return jsonToAV(raw, 0)
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

func jsonText(v any) ([]byte, error) {
	switch x := v.(type) {
	case []byte:
		return x, nil
	case string:
		return []byte(x), nil
	}
	return nil, fmt.Errorf("json column holds a %T", v)
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

// arrayToAV converts an array whose list is depth maps and lists deep
// (1 for the column's own list).
func arrayToAV(elem *introspect.Column, elems []any, depth int) (types.AttributeValue, error) {
	if depth > maxNest {
		return nil, fmt.Errorf("array: %w", errTooDeep)
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
			if elem.Kind == introspect.KindJSON { // json[]: each element is a document inside the lists
				var raw []byte
				if raw, err = jsonText(x); err == nil {
					av, err = jsonToAV(raw, depth)
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

// jsonToAV converts JSON text into M/L/S/N/BOOL/NULL, keeping numbers
// exact; depth is how many lists already hold the document (0 for a json
// column, the array's levels for an element of json[]). Whatever DynamoDB
// would refuse, or could only store changed, is an error naming where in the
// document it is: nesting beyond MaxDepth, an empty or over-long object key,
// a key that appears twice in one object (the last would silently win), a
// lone UTF-16 surrogate escape or bytes that are not UTF-8 (both would
// silently become U+FFFD).
func jsonToAV(raw []byte, depth int) (types.AttributeValue, error) {
	if av, ok := fastJSONToAV(raw, depth); ok {
		return av, nil
	}
	return jsonTokensToAV(raw, depth)
}

// jsonTokensToAV is jsonToAV reading token by token: for every document
// fastJSONToAV leaves to it, and the one that words the errors.
func jsonTokensToAV(raw []byte, depth int) (types.AttributeValue, error) {
	if !utf8.Valid(raw) {
		return nil, fmt.Errorf("json: not valid UTF-8 (byte offset %d)", invalidUTF8At(raw))
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	r := &jsonReader{dec: dec}
	av, err := r.value(depth)
	if err != nil {
		return nil, fmt.Errorf("json: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("json: trailing data after the value")
	}
	if err := checkSurrogates(raw); err != nil {
		return nil, fmt.Errorf("json: %w", err)
	}
	return av, nil
}

// jsonReader reads one JSON value token by token and knows where in the
// document it is.
type jsonReader struct {
	dec  *json.Decoder
	path []any // object keys (string) and list indexes (int) from the root
}

func (r *jsonReader) value(depth int) (types.AttributeValue, error) {
	tok, err := r.dec.Token()
	if errors.Is(err, io.EOF) {
		return nil, io.ErrUnexpectedEOF // the text ends where a value should be
	}
	if err != nil {
		return nil, err
	}
	switch x := tok.(type) {
	case json.Delim:
		if depth+1 > maxNest {
			return nil, errTooDeep
		}
		if x == '[' {
			list := []types.AttributeValue{}
			for i := 0; r.dec.More(); i++ {
				r.path = append(r.path, i)
				v, err := r.value(depth + 1)
				if err != nil {
					return nil, err
				}
				r.path = r.path[:len(r.path)-1]
				list = append(list, v)
			}
			_, err := r.dec.Token()
			return &types.AttributeValueMemberL{Value: list}, err
		}
		m := map[string]types.AttributeValue{}
		for r.dec.More() {
			kt, err := r.dec.Token()
			if err != nil {
				return nil, err
			}
			k := kt.(string)
			switch _, dup := m[k]; {
			case k == "":
				return nil, fmt.Errorf("the object at %s has an empty key (DynamoDB refuses an empty attribute name)", r.where())
			case len(k) > MaxNameLen:
				return nil, fmt.Errorf("the object at %s has a key of %d bytes (DynamoDB allows attribute names of at most %d)", r.where(), len(k), MaxNameLen)
			case dup:
				return nil, fmt.Errorf("the object at %s has the key %s twice (a DynamoDB map keeps one value per key)", r.where(), quoteKey(k))
			}
			r.path = append(r.path, k)
			v, err := r.value(depth + 1)
			if err != nil {
				return nil, err
			}
			r.path = r.path[:len(r.path)-1]
			m[k] = v
		}
		_, err := r.dec.Token()
		return &types.AttributeValueMemberM{Value: m}, err
	case json.Number:
		s, err := normalizeNumber(string(x))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.where(), err)
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

// where is the SQL/JSON path of the current value, as PostgreSQL's
// jsonb_path_query and MySQL's JSON_EXTRACT read it: $ for the document,
// .key or ."key" for a member, [i] (from 0) for a list element.
func (r *jsonReader) where() string {
	var b strings.Builder
	b.WriteByte('$')
	for _, p := range r.path {
		switch x := p.(type) {
		case int:
			fmt.Fprintf(&b, "[%d]", x)
		case string:
			b.WriteByte('.')
			if isIdent(x) {
				b.WriteString(x)
			} else {
				b.WriteString(quoteKey(x))
			}
		}
	}
	return b.String()
}

func isIdent(s string) bool {
	for i, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

// quoteKey writes an object key as a JSON string.
func quoteKey(k string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(k) // a valid UTF-8 string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

func invalidUTF8At(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}

// checkSurrogates finds a \uXXXX escape of a UTF-16 surrogate that is not
// half of a high-low pair: it stands for no Unicode character, and Go's
// decoder would silently turn it into U+FFFD. PostgreSQL's json type keeps
// such escapes (jsonb refuses them). raw is valid JSON, where a backslash
// only ever starts an escape inside a string.
func checkSurrogates(raw []byte) error {
	for i := bytes.IndexByte(raw, '\\'); i >= 0 && i+1 < len(raw); {
		step := 2
		if raw[i+1] == 'u' {
			step = 6
			r := hex4(raw[i+2:])
			switch {
			case r >= 0xDC00 && r <= 0xDFFF:
				return fmt.Errorf("lone UTF-16 surrogate %s at byte offset %d (not a Unicode character)", raw[i:i+6], i)
			case r >= 0xD800 && r <= 0xDBFF:
				if i+12 > len(raw) || raw[i+6] != '\\' || raw[i+7] != 'u' {
					return fmt.Errorf("lone UTF-16 surrogate %s at byte offset %d (not a Unicode character)", raw[i:i+6], i)
				}
				if lo := hex4(raw[i+8:]); lo < 0xDC00 || lo > 0xDFFF {
					return fmt.Errorf("lone UTF-16 surrogate %s at byte offset %d (not a Unicode character)", raw[i:i+6], i)
				}
				step = 12
			}
		}
		j := bytes.IndexByte(raw[i+step:], '\\')
		if j < 0 {
			break
		}
		i += step + j
	}
	return nil
}

// hex4 reads four hex digits (valid JSON guarantees them after \u).
func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		}
	}
	return r
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
func normalizeNumber(s string) (string, error) { return decimalText(s, true) }

// decimalText is normalizeNumber, with DynamoDB's limits on the digits and
// the magnitude checked only when limits is set: the text type S writes of
// a number, which no DynamoDB number has to hold, is the same text by value
// without them.
func decimalText(s string, limits bool) (string, error) {
	if isNormalNumber(s) {
		return s, nil // already the text it would become: no copy
	}
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
	if limits && len(digits) > 38 {
		return "", fmt.Errorf("%s has %d significant digits; DynamoDB keeps at most 38", orig, len(digits))
	}
	// value = 0.digits × 10^point
	if limits && point > 126 {
		return "", fmt.Errorf("%s is too large for a DynamoDB number (at most 9.99…E+125)", orig)
	}
	if limits && point < -129 {
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

// isNormalNumber reports whether normalizeNumber(s) is s itself: a number
// in plain notation, no '+', no leading zero but the one before a point, no
// point without a fraction nor trailing zeros after it, no "-0", at most
// 38 significant digits, and at most 60 characters where normalizeNumber
// would otherwise write E notation (FuzzIsNormalNumber).
func isNormalNumber(s string) bool {
	t := s
	if len(t) > 0 && t[0] == '-' {
		t = t[1:]
		if t == "0" {
			return false
		}
	}
	if t == "" {
		return false
	}
	if t == "0" {
		return true
	}
	if t[0] == '0' { // 0.000ddd: every digit after the zeros is significant
		if len(t) < 3 || t[1] != '.' {
			return false
		}
		frac := t[2:]
		if !allDigits(frac) || frac[len(frac)-1] == '0' || len(frac) > 60 {
			return false
		}
		return len(strings.TrimLeft(frac, "0")) <= 38
	}
	intPart, frac, hasPoint := strings.Cut(t, ".")
	if intPart == "" || !allDigits(intPart) {
		return false
	}
	if !hasPoint {
		return len(intPart) <= 60 && len(strings.TrimRight(intPart, "0")) <= 38
	}
	return frac != "" && allDigits(frac) && frac[len(frac)-1] != '0' && len(intPart)+len(frac) <= 38
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
// fractional digits (truncated, not rounded), and "Z" where the zone is
// known (UTC). It gives what t.Format with the layout would, written
// directly for years 0 to 9999 (every row of a real table), by t.Format
// otherwise (FuzzFormatTime compares the two).
func formatTime(c *introspect.Column, t time.Time) string {
	var buf [32]byte
	return string(appendTime(buf[:0], c, t))
}

// appendTime appends formatTime(c, t) to b.
func appendTime(b []byte, c *introspect.Column, t time.Time) []byte {
	p := min(max(c.Precision, 0), 9)
	if c.Kind == introspect.KindTimestampTZ {
		t = t.UTC()
	}
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		switch c.Kind {
		case introspect.KindDate:
			return t.AppendFormat(b, "2006-01-02")
		case introspect.KindTimestampTZ:
			return t.AppendFormat(b, utcLayouts[p])
		default:
			return t.AppendFormat(b, localLayouts[p])
		}
	}
	b = append4(b, year)
	b = append(b, '-')
	b = append2(b, int(month))
	b = append(b, '-')
	b = append2(b, day)
	if c.Kind == introspect.KindDate {
		return b
	}
	hour, minute, sec := t.Clock()
	b = append(b, 'T')
	b = append2(b, hour)
	b = append(b, ':')
	b = append2(b, minute)
	b = append(b, ':')
	b = append2(b, sec)
	if p > 0 {
		b = append(b, '.')
		ns := t.Nanosecond()
		for i, div := 0, 100000000; i < p; i, div = i+1, div/10 {
			b = append(b, byte('0'+ns/div%10))
		}
	}
	if c.Kind == introspect.KindTimestampTZ {
		b = append(b, 'Z')
	}
	return b
}

func append2(b []byte, v int) []byte {
	return append(b, byte('0'+v/10), byte('0'+v%10))
}

func append4(b []byte, v int) []byte {
	return append(b, byte('0'+v/1000), byte('0'+v/100%10), byte('0'+v/10%10), byte('0'+v%10))
}

// localLayouts and utcLayouts are timeLayout(p) and timeLayout(p)+"Z" for
// p = 0..9, made once rather than for every value.
var localLayouts, utcLayouts = func() (l, u [10]string) {
	for p := range l {
		l[p] = timeLayout(p)
		u[p] = l[p] + "Z"
	}
	return l, u
}()

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
	// The digits of the mantissa without its first point, trimmed of
	// zeros at both ends, counted where they are (no copy).
	mant := strings.TrimLeft(s, "-+")
	if i := strings.IndexByte(mant, 'E'); i >= 0 {
		mant = mant[:i]
	}
	dot := strings.IndexByte(mant, '.')
	lo, hi := -1, -1
	for i := 0; i < len(mant); i++ {
		if i != dot && mant[i] != '0' {
			if lo < 0 {
				lo = i
			}
			hi = i
		}
	}
	sig := 0
	for i := lo; lo >= 0 && i <= hi; i++ {
		if i != dot && mant[i] >= '0' && mant[i] <= '9' {
			sig++
		}
	}
	return (sig+1)/2 + 1
}
