package av

import (
	"encoding/base64"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// AppendItem appends an item (or any map of attribute values) as DynamoDB
// JSON, {"name":{"S":"…"},…}, byte for byte as the AWS SDK writes it for the
// same map order, or returns false when it holds a value of a type it does
// not know (or nil): then the SDK must write it.
func AppendItem(b []byte, item map[string]types.AttributeValue) ([]byte, bool) {
	return appendItemMap(b, item)
}

// AppendString appends s as a JSON string, escaped as the SDK escapes it.
func AppendString(b []byte, s string) []byte { return appendString(b, s) }

// AppendValue appends one attribute value as the SDK writes it, {"S":"…"}.
func AppendValue(b []byte, v types.AttributeValue) ([]byte, bool) {
	return appendAV(b, v, false)
}

// AppendItemSorted is AppendItem with the names of every map, nested ones
// too, in sorted order: the same item gives the same bytes, for output and
// files. It returns false for a value of a type it does not know.
func AppendItemSorted(b []byte, item map[string]types.AttributeValue) ([]byte, bool) {
	names := make([]string, 0, len(item))
	for k := range item {
		names = append(names, k)
	}
	slices.Sort(names)
	b = append(b, '{')
	for i, k := range names {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, ':')
		var ok bool
		if b, ok = appendAV(b, item[k], true); !ok {
			return nil, false
		}
	}
	return append(b, '}'), true
}

// MarshalItem is the item as DynamoDB JSON with sorted names, for a field
// of a JSON document (a json.RawMessage); an item with a value of a type
// this package does not know is null.
func MarshalItem(item map[string]types.AttributeValue) []byte {
	b, ok := AppendItemSorted(nil, item)
	if !ok {
		return []byte("null")
	}
	return b
}

// MarshalValue is one attribute value as DynamoDB JSON ({"S":"…"}, names of
// maps sorted); null for a type this package does not know.
func MarshalValue(v types.AttributeValue) []byte {
	b, ok := appendAV(nil, v, true)
	if !ok {
		return []byte("null")
	}
	return b
}

// AppendImportLine appends the line DynamoDB's ImportTable reads for one
// item in DYNAMODB_JSON format: {"Item":{…}} and a newline, names sorted.
func AppendImportLine(b []byte, item map[string]types.AttributeValue) ([]byte, bool) {
	b = append(b, `{"Item":`...)
	b, ok := AppendItemSorted(b, item)
	if !ok {
		return nil, false
	}
	return append(b, "}\n"...), true
}

// Text is a value as reports show it, briefly: its type and value, S
// quoted (S "x", N 12, B <base64>, L [...], M {...} with sorted names), cut
// to 120 characters.
func Text(v types.AttributeValue) string {
	s := text(v)
	if len(s) > textMax {
		s = s[:textMax-3] + "..."
	}
	return s
}

// textMax is the longest Text.
const textMax = 120

// Cut reports whether Text(v) is cut short.
func Cut(v types.AttributeValue) bool { return len(text(v)) > textMax }

func text(av types.AttributeValue) string {
	switch x := av.(type) {
	case *types.AttributeValueMemberS:
		return "S " + strconv.Quote(x.Value)
	case *types.AttributeValueMemberN:
		return "N " + x.Value
	case *types.AttributeValueMemberB:
		return "B " + base64.StdEncoding.EncodeToString(x.Value)
	case *types.AttributeValueMemberBOOL:
		return "BOOL " + strconv.FormatBool(x.Value)
	case *types.AttributeValueMemberNULL:
		return "NULL"
	case *types.AttributeValueMemberSS:
		return "SS " + strings.Join(x.Value, ",")
	case *types.AttributeValueMemberNS:
		return "NS " + strings.Join(x.Value, ",")
	case *types.AttributeValueMemberBS:
		parts := make([]string, len(x.Value))
		for i, b := range x.Value {
			parts[i] = base64.StdEncoding.EncodeToString(b)
		}
		return "BS " + strings.Join(parts, ",")
	case *types.AttributeValueMemberL:
		parts := make([]string, len(x.Value))
		for i, e := range x.Value {
			parts[i] = text(e)
		}
		return "L [" + strings.Join(parts, ", ") + "]"
	case *types.AttributeValueMemberM:
		keys := make([]string, 0, len(x.Value))
		for k := range x.Value {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + ": " + text(x.Value[k])
		}
		return "M {" + strings.Join(parts, ", ") + "}"
	case nil:
		return "nothing"
	}
	return fmt.Sprintf("%T", av)
}

// KeyText is the text of a scalar key value: S and N as they are, B in
// hex; "<missing>" for none.
func KeyText(v types.AttributeValue) string {
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		return x.Value
	case *types.AttributeValueMemberN:
		return x.Value
	case *types.AttributeValueMemberB:
		return fmt.Sprintf("%x", x.Value)
	case nil:
		return "<missing>"
	}
	return fmt.Sprintf("%T", v)
}

// appendItemMap appends a map of attribute values, in the map's order: {"name":{"S":"…"},…}.
func appendItemMap(b []byte, item map[string]types.AttributeValue) ([]byte, bool) {
	b = append(b, '{')
	first := true
	for k, v := range item {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = appendString(b, k)
		b = append(b, ':')
		var ok bool
		if b, ok = appendAV(b, v, false); !ok {
			return nil, false
		}
	}
	return append(b, '}'), true
}

// appendAV appends one attribute value as the SDK does (the names of
// maps, nested ones too, in sorted order when sorted): a union with one
// member, {"S":"…"}.
func appendAV(b []byte, v types.AttributeValue, sorted bool) ([]byte, bool) {
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		b = append(b, `{"S":`...)
		b = appendString(b, x.Value)
	case *types.AttributeValueMemberN:
		b = append(b, `{"N":`...)
		b = appendString(b, x.Value)
	case *types.AttributeValueMemberB:
		b = append(b, `{"B":`...)
		b = appendBlob(b, x.Value)
	case *types.AttributeValueMemberBOOL:
		b = append(b, `{"BOOL":`...)
		b = appendBool(b, x.Value)
	case *types.AttributeValueMemberNULL:
		b = append(b, `{"NULL":`...)
		b = appendBool(b, x.Value)
	case *types.AttributeValueMemberSS:
		b = append(b, `{"SS":[`...)
		for i, s := range x.Value {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, s)
		}
		b = append(b, ']')
	case *types.AttributeValueMemberNS:
		b = append(b, `{"NS":[`...)
		for i, s := range x.Value {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, s)
		}
		b = append(b, ']')
	case *types.AttributeValueMemberBS:
		b = append(b, `{"BS":[`...)
		for i, s := range x.Value {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendBlob(b, s)
		}
		b = append(b, ']')
	case *types.AttributeValueMemberL:
		b = append(b, `{"L":[`...)
		for i, e := range x.Value {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = appendAV(b, e, sorted); !ok {
				return nil, false
			}
		}
		b = append(b, ']')
	case *types.AttributeValueMemberM:
		b = append(b, `{"M":`...)
		ok := true
		switch {
		case x.Value == nil:
			b = append(b, "{}"...) // the SDK writes a nil map as an empty one
		case sorted:
			b, ok = AppendItemSorted(b, x.Value)
		default:
			b, ok = appendItemMap(b, x.Value)
		}
		if !ok {
			return nil, false
		}
	default: // nil, or a type this code does not know: the SDK writes the request
		return nil, false
	}
	return append(b, '}'), true
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, "true"...)
	}
	return append(b, "false"...)
}

// appendBlob writes bytes as the SDK does: base64 in quotes, nil as null.
func appendBlob(b []byte, v []byte) []byte {
	if v == nil {
		return append(b, "null"...)
	}
	b = append(b, '"')
	b = base64.StdEncoding.AppendEncode(b, v)
	return append(b, '"')
}

const hexDigits = "0123456789abcdef"

// plain marks the ASCII bytes appendString copies as they are: printable
// ASCII but " and \.
var plain = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// appendString writes s as a JSON string exactly as the SDK's serializer
// does (smithy-go's appendEscapedString): ", \ and the control characters
// below 0x20 escaped (\n, \r, \t by name, the others as \u00XX, as is DEL
// 0x7F), U+2028 and U+2029 escaped, each byte that is not valid UTF-8
// replaced by U+FFFD, everything else as it is.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if plain[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			b = appendEscape(b, c)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, "\uFFFD"...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendEscape writes the escape of an ASCII byte that is not plain.
func appendEscape(b []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(b, '\\', c)
	case '\n':
		return append(b, '\\', 'n')
	case '\r':
		return append(b, '\\', 'r')
	case '\t':
		return append(b, '\\', 't')
	}
	return append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
}
