package source

import (
	"fmt"
	"strings"
)

// parsePGArray parses PostgreSQL's text form of an array ("{1,2,NULL}",
// `{"a b","c\"d"}`, "{{1,2},{3,4}}", optionally prefixed by bounds such as
// "[0:1]="). Elements are strings or nil (NULL); sub-arrays are []any.
func parsePGArray(s string) ([]any, error) {
	if strings.HasPrefix(s, "[") { // explicit bounds
		i := strings.Index(s, "=")
		if i < 0 {
			return nil, fmt.Errorf("bad array text %q", s)
		}
		s = s[i+1:]
	}
	p := &arrayParser{s: s}
	v, err := p.array()
	if err != nil {
		return nil, err
	}
	if p.i != len(p.s) {
		return nil, fmt.Errorf("bad array text: trailing data at offset %d", p.i)
	}
	return v, nil
}

type arrayParser struct {
	s string
	i int
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
			for p.i < len(p.s) && p.s[p.i] != ',' && p.s[p.i] != '}' {
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
		case ',':
			p.i++
		case '}':
			p.i++
			return out, nil
		default:
			return nil, fmt.Errorf("bad array text: unexpected %q at offset %d", p.s[p.i], p.i)
		}
	}
}
