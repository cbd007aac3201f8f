package av

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// ParseImportLine reads one line of ImportTable's DYNAMODB_JSON format,
// strictly as AWS documents it: an object with the one member "Item",
// whose members are attributes, each an object with exactly one type
// descriptor (S, N, B, BOOL, NULL, SS, NS, BS, L, M) and its value; N a
// number, B and BS base64, NULL true, sets not empty. Anything else is an
// error, not a guess.
//
// A line as AppendImportLine writes it is read by a scanner of its own
// (readImportLine: no reflection, one allocation a value); a line it does
// not take (a name twice, text after the object, an escape it leaves to
// encoding/json, a nesting too deep) is read by encoding/json, which
// gives the same item or the error (FuzzParseImportLine holds the two to
// the same answer).
func ParseImportLine(line []byte) (map[string]types.AttributeValue, error) {
	if item, ok := readImportLine(line); ok {
		return item, nil
	}
	return parseImportLineJSON(line)
}

// parseImportLineJSON is ParseImportLine with encoding/json: the reference,
// and the reader of what readImportLine leaves.
func parseImportLineJSON(line []byte) (map[string]types.AttributeValue, error) {
	d := json.NewDecoder(bytes.NewReader(line))
	d.UseNumber()
	var top map[string]json.RawMessage
	if err := d.Decode(&top); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	if d.More() {
		return nil, fmt.Errorf("more than one JSON value on the line")
	}
	raw, ok := top["Item"]
	if !ok || len(top) != 1 {
		return nil, fmt.Errorf(`the line must be {"Item": {...}} and nothing else`)
	}
	var attrs map[string]json.RawMessage
	if err := json.Unmarshal(raw, &attrs); err != nil || attrs == nil {
		return nil, fmt.Errorf("the Item member is not an object of attributes")
	}
	item := make(map[string]types.AttributeValue, len(attrs))
	for name, v := range attrs {
		av, err := parseValue(v)
		if err != nil {
			return nil, fmt.Errorf("attribute %q: %w", name, err)
		}
		item[name] = av
	}
	return item, nil
}

func parseValue(raw json.RawMessage) (types.AttributeValue, error) {
	var v map[string]json.RawMessage
	if err := json.Unmarshal(raw, &v); err != nil || len(v) != 1 {
		return nil, fmt.Errorf("a value must be an object with one type descriptor")
	}
	for typ, x := range v {
		return parseTyped(typ, x)
	}
	panic("unreachable")
}

// parseTyped reads the value x of type descriptor typ.
func parseTyped(typ string, x json.RawMessage) (types.AttributeValue, error) {
	switch typ {
	case "S":
		var s string
		if err := json.Unmarshal(x, &s); err != nil {
			return nil, fmt.Errorf("type S: %w", err)
		}
		return &types.AttributeValueMemberS{Value: s}, nil
	case "N":
		n, err := number(x)
		if err != nil {
			return nil, err
		}
		return &types.AttributeValueMemberN{Value: n}, nil
	case "B":
		b, err := blob(x)
		if err != nil {
			return nil, err
		}
		return &types.AttributeValueMemberB{Value: b}, nil
	case "BOOL":
		var b bool
		if err := json.Unmarshal(x, &b); err != nil {
			return nil, fmt.Errorf("type BOOL: %w", err)
		}
		return &types.AttributeValueMemberBOOL{Value: b}, nil
	case "NULL":
		var b bool
		if err := json.Unmarshal(x, &b); err != nil || !b {
			return nil, fmt.Errorf("type NULL must be true")
		}
		return &types.AttributeValueMemberNULL{Value: true}, nil
	case "SS", "NS", "BS":
		return parseSet(typ, x)
	case "L":
		var raws []json.RawMessage
		if err := json.Unmarshal(x, &raws); err != nil || raws == nil {
			return nil, fmt.Errorf("type L must be a list")
		}
		out := make([]types.AttributeValue, len(raws))
		for i, r := range raws {
			av, err := parseValue(r)
			if err != nil {
				return nil, fmt.Errorf("type L[%d]: %w", i, err)
			}
			out[i] = av
		}
		return &types.AttributeValueMemberL{Value: out}, nil
	case "M":
		var m map[string]json.RawMessage
		if err := json.Unmarshal(x, &m); err != nil || m == nil {
			return nil, fmt.Errorf("type M must be an object")
		}
		out := make(map[string]types.AttributeValue, len(m))
		for k, r := range m {
			av, err := parseValue(r)
			if err != nil {
				return nil, fmt.Errorf("type M.%s: %w", k, err)
			}
			out[k] = av
		}
		return &types.AttributeValueMemberM{Value: out}, nil
	}
	return nil, fmt.Errorf("unknown type descriptor %q", typ)
}

// parseSet reads a set of type SS, NS or BS: at least one value.
func parseSet(typ string, x json.RawMessage) (types.AttributeValue, error) {
	var raws []json.RawMessage
	if err := json.Unmarshal(x, &raws); err != nil || len(raws) == 0 {
		return nil, fmt.Errorf("%s must be a list of at least one value", typ)
	}
	switch typ {
	case "SS":
		out := make([]string, len(raws))
		for i, r := range raws {
			if err := json.Unmarshal(r, &out[i]); err != nil {
				return nil, fmt.Errorf("type SS: %w", err)
			}
		}
		return &types.AttributeValueMemberSS{Value: out}, nil
	case "NS":
		out := make([]string, len(raws))
		for i, r := range raws {
			n, err := number(r)
			if err != nil {
				return nil, err
			}
			out[i] = n
		}
		return &types.AttributeValueMemberNS{Value: out}, nil
	}
	out := make([][]byte, len(raws))
	for i, r := range raws {
		b, err := blob(r)
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return &types.AttributeValueMemberBS{Value: out}, nil
}

// number reads N's value: a JSON string holding a number.
func number(x json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(x, &s); err != nil {
		return "", fmt.Errorf("type N must be a string: %w", err)
	}
	if !isNumber(s) {
		return "", fmt.Errorf("type N %q is not a number", s)
	}
	return s, nil
}

// isNumber says whether s is N's text: not empty, and a number to
// big.Rat (plain decimals are seen at once).
func isNumber(s string) bool {
	if s == "" {
		return false
	}
	if plainDecimal(s) {
		return true
	}
	_, ok := new(big.Rat).SetString(s)
	return ok
}

// plainDecimal says whether s is -?digits(.digits)?, which big.Rat reads.
func plainDecimal(s string) bool {
	i := 0
	if s[0] == '-' {
		i++
	}
	digits := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		digits++
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		frac := 0
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			frac++
		}
		if frac == 0 {
			return false
		}
	}
	return i == len(s)
}

func blob(x json.RawMessage) ([]byte, error) {
	var s string
	if err := json.Unmarshal(x, &s); err != nil {
		return nil, fmt.Errorf("type B must be a base64 string: %w", err)
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("type B: %w", err)
	}
	return b, nil
}

// readImportLine is ParseImportLine's own scanner: ok only for a line it
// reads whole, to the item encoding/json would read from it; anything
// else (an error too) is left to parseImportLineJSON.
func readImportLine(line []byte) (map[string]types.AttributeValue, bool) {
	s := &lineScanner{b: line}
	s.space()
	if !s.lit(`{`) {
		return nil, false
	}
	s.space()
	if !s.lit(`"Item"`) {
		return nil, false
	}
	s.space()
	if !s.lit(`:`) {
		return nil, false
	}
	s.space()
	item, ok := s.attrs(0)
	if !ok {
		return nil, false
	}
	s.space()
	if !s.lit(`}`) {
		return nil, false
	}
	s.space()
	return item, s.i == len(s.b)
}

// maxDepth is how deep readImportLine follows L and M; deeper lines are
// encoding/json's.
const maxDepth = 64

type lineScanner struct {
	b []byte
	i int
}

func (s *lineScanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// lit reads the bytes of t.
func (s *lineScanner) lit(t string) bool {
	if len(s.b)-s.i < len(t) || string(s.b[s.i:s.i+len(t)]) != t {
		return false
	}
	s.i += len(t)
	return true
}

// str reads a JSON string without escapes, of valid UTF-8 and no control
// characters: what encoding/json reads as the same bytes.
func (s *lineScanner) str() (string, bool) {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return "", false
	}
	start := s.i + 1
	ascii := true
	for j := start; j < len(s.b); j++ {
		switch c := s.b[j]; {
		case c == '"':
			raw := s.b[start:j]
			if !ascii && !utf8.Valid(raw) {
				return "", false
			}
			s.i = j + 1
			return string(raw), true
		case c == '\\' || c < 0x20:
			return "", false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return "", false
}

// attrs reads an object of attribute values (the item, or an M's value):
// not null, no name twice.
func (s *lineScanner) attrs(depth int) (map[string]types.AttributeValue, bool) {
	if !s.lit(`{`) {
		return nil, false
	}
	s.space()
	out := make(map[string]types.AttributeValue, 8)
	if s.lit(`}`) {
		return out, true
	}
	for {
		name, ok := s.str()
		if !ok {
			return nil, false
		}
		if _, twice := out[name]; twice {
			return nil, false
		}
		s.space()
		if !s.lit(`:`) {
			return nil, false
		}
		s.space()
		v, ok := s.value(depth)
		if !ok {
			return nil, false
		}
		out[name] = v
		s.space()
		if s.lit(`}`) {
			return out, true
		}
		if !s.lit(`,`) {
			return nil, false
		}
		s.space()
	}
}

// value reads one attribute value: an object with one type descriptor.
func (s *lineScanner) value(depth int) (types.AttributeValue, bool) {
	if depth >= maxDepth || !s.lit(`{`) {
		return nil, false
	}
	s.space()
	typ, ok := s.str()
	if !ok {
		return nil, false
	}
	s.space()
	if !s.lit(`:`) {
		return nil, false
	}
	s.space()
	v, ok := s.typed(typ, depth)
	if !ok {
		return nil, false
	}
	s.space()
	if !s.lit(`}`) {
		return nil, false
	}
	return v, true
}

// typed reads the value of type descriptor typ.
func (s *lineScanner) typed(typ string, depth int) (types.AttributeValue, bool) {
	switch typ {
	case "S":
		x, ok := s.str()
		return &types.AttributeValueMemberS{Value: x}, ok
	case "N":
		x, ok := s.str()
		return &types.AttributeValueMemberN{Value: x}, ok && isNumber(x)
	case "B":
		x, ok := s.blob()
		return &types.AttributeValueMemberB{Value: x}, ok
	case "BOOL":
		switch {
		case s.lit("true"):
			return &types.AttributeValueMemberBOOL{Value: true}, true
		case s.lit("false"):
			return &types.AttributeValueMemberBOOL{Value: false}, true
		}
		return nil, false
	case "NULL":
		return &types.AttributeValueMemberNULL{Value: true}, s.lit("true")
	case "SS", "NS", "BS":
		return s.set(typ)
	case "L":
		out := []types.AttributeValue{}
		ok := s.list(func() bool {
			x, ok := s.value(depth + 1)
			out = append(out, x)
			return ok
		})
		return &types.AttributeValueMemberL{Value: out}, ok
	case "M":
		m, ok := s.attrs(depth + 1)
		return &types.AttributeValueMemberM{Value: m}, ok
	}
	return nil, false
}

// set reads a set of type SS, NS or BS: at least one member.
func (s *lineScanner) set(typ string) (types.AttributeValue, bool) {
	if typ == "BS" {
		var out [][]byte
		ok := s.list(func() bool {
			x, ok := s.blob()
			out = append(out, x)
			return ok
		})
		return &types.AttributeValueMemberBS{Value: out}, ok && len(out) > 0
	}
	var out []string
	ok := s.list(func() bool {
		x, ok := s.str()
		if ok && typ == "NS" && !isNumber(x) {
			return false
		}
		out = append(out, x)
		return ok
	})
	if typ == "SS" {
		return &types.AttributeValueMemberSS{Value: out}, ok && len(out) > 0
	}
	return &types.AttributeValueMemberNS{Value: out}, ok && len(out) > 0
}

// list reads a JSON array, each element with each.
func (s *lineScanner) list(each func() bool) bool {
	if !s.lit(`[`) {
		return false
	}
	s.space()
	if s.lit(`]`) {
		return true
	}
	for {
		if !each() {
			return false
		}
		s.space()
		if s.lit(`]`) {
			return true
		}
		if !s.lit(`,`) {
			return false
		}
		s.space()
	}
}

// blob reads B's value: base64 in a string.
func (s *lineScanner) blob() ([]byte, bool) {
	x, ok := s.str()
	if !ok {
		return nil, false
	}
	b, err := base64.StdEncoding.DecodeString(x)
	return b, err == nil
}
