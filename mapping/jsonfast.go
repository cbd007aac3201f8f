package mapping

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// fastJSONToAV is jsonToAV for a document it accepts, in one pass over the
// text instead of encoding/json's token by token (which decodes every
// scalar through reflection): about a third of migrate's CPU went there.
// It first makes sure the text is what jsonToAV would accept without an
// error as far as the text goes (valid UTF-8, valid JSON, no lone
// surrogate escape) and then reads it assuming so. Anything jsonToAV would
// refuse or word (too deep, an empty, over-long or repeated key, a number
// DynamoDB cannot hold) makes it return false, and jsonToAV's own reading
// takes over, with its message. Its results equal jsonToAV's
// (FuzzFastJSON).
func fastJSONToAV(raw []byte, depth int) (types.AttributeValue, bool) {
	if !utf8.Valid(raw) || !json.Valid(raw) || checkSurrogates(raw) != nil {
		return nil, false
	}
	p := &fastJSON{b: raw}
	return p.value(depth)
}

// fastJSON reads valid JSON text.
type fastJSON struct {
	b []byte
	i int
	// The document's strings and numbers are allocated a few at a time,
	// not one by one; they live as long as the document's item.
	ss []types.AttributeValueMemberS
	ns []types.AttributeValueMemberN
}

func (p *fastJSON) newS(v string) *types.AttributeValueMemberS {
	if len(p.ss) == 0 {
		p.ss = make([]types.AttributeValueMemberS, 8)
	}
	a := &p.ss[0]
	p.ss = p.ss[1:]
	a.Value = v
	return a
}

func (p *fastJSON) newN(v string) *types.AttributeValueMemberN {
	if len(p.ns) == 0 {
		p.ns = make([]types.AttributeValueMemberN, 4)
	}
	a := &p.ns[0]
	p.ns = p.ns[1:]
	a.Value = v
	return a
}

func (p *fastJSON) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// value reads the value at p.i, which is depth maps and lists deep.
func (p *fastJSON) value(depth int) (types.AttributeValue, bool) {
	p.space()
	switch p.b[p.i] {
	case '{':
		if depth+1 > maxNest {
			return nil, false
		}
		p.i++
		m := map[string]types.AttributeValue{}
		p.space()
		if p.b[p.i] == '}' {
			p.i++
			return &types.AttributeValueMemberM{Value: m}, true
		}
		for {
			p.space()
			k, ok := p.str()
			if !ok || k == "" || len(k) > MaxNameLen {
				return nil, false
			}
			if _, dup := m[k]; dup {
				return nil, false
			}
			p.space()
			p.i++ // ':'
			v, ok := p.value(depth + 1)
			if !ok {
				return nil, false
			}
			m[k] = v
			p.space()
			c := p.b[p.i]
			p.i++ // ',' or '}'
			if c == '}' {
				return &types.AttributeValueMemberM{Value: m}, true
			}
		}
	case '[':
		if depth+1 > maxNest {
			return nil, false
		}
		p.i++
		list := []types.AttributeValue{}
		p.space()
		if p.b[p.i] == ']' {
			p.i++
			return &types.AttributeValueMemberL{Value: list}, true
		}
		for {
			v, ok := p.value(depth + 1)
			if !ok {
				return nil, false
			}
			list = append(list, v)
			p.space()
			c := p.b[p.i]
			p.i++ // ',' or ']'
			if c == ']' {
				return &types.AttributeValueMemberL{Value: list}, true
			}
		}
	case '"':
		s, ok := p.str()
		if !ok {
			return nil, false
		}
		return p.newS(s), true
	case 't':
		p.i += 4
		return &types.AttributeValueMemberBOOL{Value: true}, true
	case 'f':
		p.i += 5
		return &types.AttributeValueMemberBOOL{Value: false}, true
	case 'n':
		p.i += 4
		return &types.AttributeValueMemberNULL{Value: true}, true
	}
	start := p.i
	for p.i < len(p.b) && numberByte(p.b[p.i]) {
		p.i++
	}
	n, err := normalizeNumber(string(p.b[start:p.i]))
	if err != nil {
		return nil, false
	}
	return p.newN(n), true
}

// str reads the string at p.i: its bytes as they are, or, when it has an
// escape, as encoding/json decodes it.
func (p *fastJSON) str() (string, bool) {
	start := p.i
	p.i++
	escaped := false
	for c := p.b[p.i]; c != '"'; c = p.b[p.i] {
		if c == '\\' {
			escaped = true
			p.i++ // the escaped byte is never the end
		}
		p.i++
	}
	p.i++
	if !escaped {
		return string(p.b[start+1 : p.i-1]), true
	}
	var s string
	if err := json.Unmarshal(p.b[start:p.i], &s); err != nil {
		return "", false
	}
	return s, true
}

func numberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}
