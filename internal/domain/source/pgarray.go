package source

import (
	"fmt"
	"strconv"
	"strings"
)

// pgArray is PostgreSQL's text form of an array, parsed.
type pgArray struct {
	// elems are strings or nil (NULL); a sub-array of a multi-dimensional
	// array is a []any.
	elems []any
	// bounds is the dimension decoration array_out writes before "=" when
	// a dimension does not start at 1, such as "[0:2]" or "[1:2][0:1]";
	// empty when every dimension starts at 1.
	bounds string
	// lower are the lower bounds the decoration names, one per dimension.
	lower []int64
}

// parsePGArray parses PostgreSQL's text form of an array ("{1,2,NULL}",
// `{"a b","c\"d"}`, "{{1,2},{3,4}}", optionally prefixed by bounds such as
// "[0:1]="), whose elements are separated by delim: the element type's
// pg_type.typdelim, ',' for every built-in type but box, which uses ';'
// (a box prints as "(1,1),(0,0)", commas included, unquoted).
func parsePGArray(s string, delim byte) (pgArray, error) {
	var a pgArray
	if strings.HasPrefix(s, "[") { // explicit bounds
		i := strings.Index(s, "=")
		if i < 0 {
			return a, fmt.Errorf("bad array text %q", s)
		}
		a.bounds = s[:i]
		lower, err := parseBounds(a.bounds)
		if err != nil {
			return a, err
		}
		a.lower = lower
		s = s[i+1:]
	}
	p := &arrayParser{s: s, delim: delim}
	v, err := p.array()
	if err != nil {
		return a, err
	}
	if p.i != len(p.s) {
		return a, fmt.Errorf("bad array text: trailing data at offset %d", p.i)
	}
	a.elems = v
	return a, nil
}

// parseBounds reads "[lo:hi]" per dimension ("[hi]" means lo 1, as in
// array_in) and returns the lower bounds.
func parseBounds(b string) ([]int64, error) {
	var lower []int64
	rest := b
	for rest != "" {
		end := strings.IndexByte(rest, ']')
		if rest[0] != '[' || end < 0 {
			return nil, fmt.Errorf("bad array bounds %q", b)
		}
		dim := rest[1:end]
		lo, hi, ok := strings.Cut(dim, ":")
		if !ok {
			lo, hi = "1", dim
		}
		l, err1 := strconv.ParseInt(strings.TrimSpace(lo), 10, 32)
		_, err2 := strconv.ParseInt(strings.TrimSpace(hi), 10, 32)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("bad array bounds %q", b)
		}
		lower = append(lower, l)
		rest = rest[end+1:]
	}
	return lower, nil
}

// startsAtOne reports whether every dimension of a starts at 1, the only
// arrays a list can stand for without losing where they start.
func (a pgArray) startsAtOne() bool {
	for _, l := range a.lower {
		if l != 1 {
			return false
		}
	}
	return true
}

type arrayParser struct {
	s     string
	i     int
	delim byte
}

func (p *arrayParser) array() ([]any, error) {
	if p.i >= len(p.s) || p.s[p.i] != '{' {
		return nil, fmt.Errorf("bad array text: expected { at offset %d", p.i)
	}
	p.i++
	out := []any{}
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return out, nil
	}
	for {
		if p.i >= len(p.s) {
			return nil, fmt.Errorf("bad array text: unexpected end")
		}
		switch p.s[p.i] {
		case '{':
			sub, err := p.array()
			if err != nil {
				return nil, err
			}
			out = append(out, sub)
		case '"':
			p.i++
			var b strings.Builder
			for {
				if p.i >= len(p.s) {
					return nil, fmt.Errorf("bad array text: unterminated quote")
				}
				c := p.s[p.i]
				if c == '\\' && p.i+1 < len(p.s) {
					b.WriteByte(p.s[p.i+1])
					p.i += 2
					continue
				}
				p.i++
				if c == '"' {
					break
				}
				b.WriteByte(c)
			}
			out = append(out, b.String())
		default:
			start := p.i
			for p.i < len(p.s) && p.s[p.i] != p.delim && p.s[p.i] != '}' {
				p.i++
			}
			// Only ASCII white space, like array_in and array_out: an
			// element starting with U+00A0 is printed without quotes.
			tok := strings.Trim(p.s[start:p.i], " \t\n\r\v\f")
			if tok == "" {
				return nil, fmt.Errorf("bad array text: empty element at offset %d", start)
			}
			if strings.EqualFold(tok, "NULL") {
				out = append(out, nil)
			} else {
				out = append(out, tok)
			}
		}
		if p.i >= len(p.s) {
			return nil, fmt.Errorf("bad array text: unexpected end")
		}
		switch p.s[p.i] {
		case p.delim:
			p.i++
		case '}':
			p.i++
			return out, nil
		default:
			return nil, fmt.Errorf("bad array text: unexpected %q at offset %d", p.s[p.i], p.i)
		}
	}
}
