package mapping

import (
	"encoding/json"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// fastJSONToAV is jsonToAV for a document it accepts, in one pass over the
// text instead of encoding/json's token by token (which decodes every
// scalar through reflection): about a third of migrate's CPU went there.
// It reads and checks the text in the same pass: valid UTF-8 (checked
// first, whole), the JSON grammar (whitespace, literals, numbers, strings
// without control characters, every escape checked by encoding/json, and
// nothing after the value), no lone surrogate escape; a document that is
// not all of that, or that jsonToAV would refuse or word (too deep, an
// empty, over-long or repeated key, a number DynamoDB cannot hold), makes
// it return false, and jsonToAV's own reading takes over, with its
// message. Its results equal jsonToAV's, and it accepts only what
// json.Valid accepts (FuzzFastJSON).
func fastJSONToAV(raw []byte, depth int) (types.AttributeValue, bool) {
	av, _, ok := fastJSONSized(raw, depth)
	return av, ok
}

// fastJSONSized is fastJSONToAV that also returns the value's size as
// DynamoDB counts it (avSize), added up while reading.
func fastJSONSized(raw []byte, depth int) (types.AttributeValue, int, bool) {
	if !utf8.Valid(raw) {
		return nil, 0, false
	}
	p := fastJSONPool.Get().(*fastJSON)
	// One string for the whole document: keys, strings and numbers are
	// parts of it rather than one allocation each.
	p.s, p.i = string(raw), 0
	p.space()
	av, n, ok := p.value(depth)
	if ok {
		p.space()
		ok = p.i == len(p.s)
	}
	p.s = ""
	p.stack, p.keys = p.stack[:0], p.keys[:0]
	fastJSONPool.Put(p)
	if !ok {
		return nil, 0, false
	}
	return av, n, true
}

// fastJSONPool keeps readers, with their stacks and the unused rest of
// their batches, from one document to the next.
var fastJSONPool = sync.Pool{New: func() any { return new(fastJSON) }}

// The scalar values every document shares: attribute values are never
// changed once made.
var (
	avTrue  types.AttributeValue = &types.AttributeValueMemberBOOL{Value: true}
	avFalse types.AttributeValue = &types.AttributeValueMemberBOOL{Value: false}
	avNull  types.AttributeValue = &types.AttributeValueMemberNULL{Value: true}
)

// fastJSON reads JSON text.
type fastJSON struct {
	s string
	i int
	// The members of the maps and lists being read, innermost last; each
	// becomes a map or slice of exactly its size when it ends.
	stack []types.AttributeValue
	keys  []string
	// The document's values are allocated a few at a time, not one by
	// one; they live as long as the document's item.
	ss slab[types.AttributeValueMemberS]
	ns slab[types.AttributeValueMemberN]
	ms slab[types.AttributeValueMemberM]
	ls slab[types.AttributeValueMemberL]
}

func (p *fastJSON) newS(v string) *types.AttributeValueMemberS {
	a := p.ss.next(16)
	a.Value = v
	return a
}

func (p *fastJSON) newN(v string) *types.AttributeValueMemberN {
	a := p.ns.next(8)
	a.Value = v
	return a
}

func (p *fastJSON) newM(v map[string]types.AttributeValue) *types.AttributeValueMemberM {
	a := p.ms.next(8)
	a.Value = v
	return a
}

func (p *fastJSON) newL(v []types.AttributeValue) *types.AttributeValueMemberL {
	a := p.ls.next(8)
	a.Value = v
	return a
}

// peek is the byte at p.i, or 0 at the end of the text.
func (p *fastJSON) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *fastJSON) space() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// value reads the value at p.i, which is depth maps and lists deep, and
// returns it with its size.
func (p *fastJSON) value(depth int) (types.AttributeValue, int, bool) {
	switch p.peek() {
	case '{':
		return p.object(depth)
	case '[':
		return p.list(depth)
	case '"':
		s, ok := p.str()
		if !ok {
			return nil, 0, false
		}
		return p.newS(s), len(s), true
	case 't':
		return p.literal("true", avTrue)
	case 'f':
		return p.literal("false", avFalse)
	case 'n':
		return p.literal("null", avNull)
	}
	return p.number()
}

// object reads the object at p.i (a '{') as a map, which is depth maps and
// lists deep; a key given twice refuses it.
func (p *fastJSON) object(depth int) (types.AttributeValue, int, bool) {
	if depth+1 > maxNest {
		return nil, 0, false
	}
	p.i++
	p.space()
	if p.peek() == '}' {
		p.i++
		return p.newM(map[string]types.AttributeValue{}), 3, true
	}
	base := len(p.stack)
	size := 3
	for {
		k, v, n, ok := p.member(depth)
		if !ok {
			return nil, 0, false
		}
		size += 1 + len(k) + n
		p.keys = append(p.keys, k)
		p.stack = append(p.stack, v)
		end, ok := p.next('}')
		if !ok {
			return nil, 0, false
		}
		if end {
			break
		}
	}
	vals, keys := p.stack[base:], p.keys[base:]
	m := make(map[string]types.AttributeValue, len(vals))
	for j, k := range keys {
		m[k] = vals[j]
		if len(m) != j+1 {
			return nil, 0, false // the key again
		}
	}
	p.stack, p.keys = p.stack[:base], p.keys[:base]
	return p.newM(m), size, true
}

// member reads one "key": value of an object that is depth deep.
func (p *fastJSON) member(depth int) (string, types.AttributeValue, int, bool) {
	if p.peek() != '"' {
		return "", nil, 0, false
	}
	k, ok := p.str()
	if !ok || k == "" || len(k) > MaxNameLen {
		return "", nil, 0, false
	}
	p.space()
	if p.peek() != ':' {
		return "", nil, 0, false
	}
	p.i++
	p.space()
	v, n, ok := p.value(depth + 1)
	return k, v, n, ok
}

// next reads what follows a member or an element: the closing byte (end
// true) or a comma; any other byte refuses the text (ok false).
func (p *fastJSON) next(closing byte) (end, ok bool) {
	p.space()
	c := p.peek()
	p.i++
	if c == closing {
		return true, true
	}
	if c != ',' {
		return false, false
	}
	p.space()
	return false, true
}

// list reads the array at p.i (a '[') as a list, which is depth maps and
// lists deep.
func (p *fastJSON) list(depth int) (types.AttributeValue, int, bool) {
	if depth+1 > maxNest {
		return nil, 0, false
	}
	p.i++
	p.space()
	if p.peek() == ']' {
		p.i++
		return p.newL([]types.AttributeValue{}), 3, true
	}
	base := len(p.stack)
	size := 3
	for {
		v, n, ok := p.value(depth + 1)
		if !ok {
			return nil, 0, false
		}
		size += 1 + n
		p.stack = append(p.stack, v)
		p.keys = append(p.keys, "") // the stacks stay level
		end, ok := p.next(']')
		if !ok {
			return nil, 0, false
		}
		if end {
			break
		}
	}
	list := make([]types.AttributeValue, len(p.stack)-base)
	copy(list, p.stack[base:])
	p.stack, p.keys = p.stack[:base], p.keys[:base]
	return p.newL(list), size, true
}

// literal reads the word at p.i (true, false, null) as av.
func (p *fastJSON) literal(word string, av types.AttributeValue) (types.AttributeValue, int, bool) {
	if !strings.HasPrefix(p.s[p.i:], word) {
		return nil, 0, false
	}
	p.i += len(word)
	return av, 1, true
}

// number reads the number at p.i:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (p *fastJSON) number() (types.AttributeValue, int, bool) {
	start := p.i
	if p.peek() == '-' {
		p.i++
	}
	switch c := p.peek(); {
	case c == '0':
		p.i++
	case c >= '1' && c <= '9':
		p.digits()
	default:
		return nil, 0, false
	}
	if p.peek() == '.' {
		p.i++
		if !p.digits() {
			return nil, 0, false
		}
	}
	if c := p.peek(); c == 'e' || c == 'E' {
		p.i++
		if c := p.peek(); c == '+' || c == '-' {
			p.i++
		}
		if !p.digits() {
			return nil, 0, false
		}
	}
	n, err := normalizeNumber(p.s[start:p.i])
	if err != nil {
		return nil, 0, false
	}
	return p.newN(n), numberSize(n), true
}

// digits reads one or more decimal digits.
func (p *fastJSON) digits() bool {
	start := p.i
	for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		p.i++
	}
	return p.i > start
}

// str reads the string at p.i (a '"'): its bytes as they are, or, when it
// has an escape, as encoding/json decodes it, which also checks the
// escapes; a lone surrogate escape refuses it (encoding/json would make it
// U+FFFD).
func (p *fastJSON) str() (string, bool) {
	start := p.i + 1
	i := start
	escaped := false
	for {
		if i >= len(p.s) {
			return "", false
		}
		c := p.s[i]
		if c == '"' {
			break
		}
		if c < 0x20 {
			return "", false // a control character must be escaped
		}
		if c == '\\' {
			escaped = true
			i++ // the escaped byte is never the end
		}
		i++
	}
	p.i = i + 1
	if !escaped {
		return p.s[start:i], true
	}
	quoted := []byte(p.s[start-1 : i+1])
	var s string
	if err := json.Unmarshal(quoted, &s); err != nil {
		return "", false
	}
	if checkSurrogates(quoted) != nil {
		return "", false
	}
	return s, true
}
