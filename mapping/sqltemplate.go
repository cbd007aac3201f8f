package mapping

import (
	"fmt"
	"regexp"
	"strings"
)

// SQLTemplate is SQL text with {name} placeholders. Placeholders become bound
// query parameters; their values are never pasted into the text. Braces in
// quoted strings, quoted identifiers and comments are left alone; {{ is a
// literal brace.
type SQLTemplate struct {
	Src   string
	parts []sqlPart
	// quoted are the {name}s written inside a '…' string: literal text,
	// not parameters (QuotedParams).
	quoted []string
}

type sqlPart struct {
	text  string
	param string
}

// ParseSQL parses SQL text with placeholders. backslashEscapes says whether
// a backslash escapes the next character inside '…' and `…` (MySQL's
// default); in PostgreSQL's standard strings it does not.
func ParseSQL(src string, backslashEscapes bool) (*SQLTemplate, error) {
	t := &SQLTemplate{Src: src}
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			t.parts = append(t.parts, sqlPart{text: b.String()})
			b.Reset()
		}
	}
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			end := i + 1
			for end < len(src) {
				if src[end] == c {
					if end+1 < len(src) && src[end+1] == c { // doubled quote
						end += 2
						continue
					}
					break
				}
				if backslashEscapes && src[end] == '\\' && c != '"' && end+1 < len(src) {
					end += 2
					continue
				}
				end++
			}
			if end >= len(src) {
				return nil, fmt.Errorf("unterminated %c quote at offset %d", c, i)
			}
			if c == '\'' {
				t.quoted = append(t.quoted, quotedParams(src[i+1:end])...)
			}
			b.WriteString(src[i : end+1])
			i = end + 1
		case c == '-' && strings.HasPrefix(src[i:], "--"):
			end := strings.IndexByte(src[i:], '\n')
			if end < 0 {
				end = len(src) - i
			}
			b.WriteString(src[i : i+end])
			i += end
		case c == '/' && strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return nil, fmt.Errorf("unterminated /* comment at offset %d", i)
			}
			b.WriteString(src[i : i+end+4])
			i += end + 4
		case c == '{' && strings.HasPrefix(src[i:], "{{"):
			b.WriteByte('{')
			i += 2
		case c == '}' && strings.HasPrefix(src[i:], "}}"):
			b.WriteByte('}')
			i += 2
		case c == '{':
			end := strings.IndexByte(src[i:], '}')
			if end < 0 {
				return nil, fmt.Errorf("unclosed { at offset %d", i)
			}
			name := strings.TrimSpace(src[i+1 : i+end])
			if name == "" || strings.ContainsAny(name, "{|: \t\n") {
				return nil, fmt.Errorf("bad parameter {%s} at offset %d: write {name}", src[i+1:i+end], i)
			}
			flush()
			t.parts = append(t.parts, sqlPart{param: name})
			i += end + 1
		default:
			b.WriteByte(c)
			i++
		}
	}
	flush()
	return t, nil
}

// quotedParam is a {name} as a parameter is written.
var quotedParam = regexp.MustCompile(`\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}`)

// quotedParams are the {name}s in the text of a quoted string, except
// those in {{…}}.
func quotedParams(s string) []string {
	var out []string
	for _, m := range quotedParam.FindAllStringSubmatchIndex(s, -1) {
		if m[0] > 0 && s[m[0]-1] == '{' {
			continue
		}
		out = append(out, s[m[2]:m[3]])
	}
	return out
}

// QuotedParams lists, in order, the {name}s written inside a '…' string:
// there they are the literal text {name}, not a parameter ('{serial}'
// compares with the string "{serial}", not with the value of serial).
func (t *SQLTemplate) QuotedParams() []string { return t.quoted }

// Params lists parameter names in order of appearance (with repeats).
func (t *SQLTemplate) Params() []string {
	var out []string
	for _, p := range t.parts {
		if p.param != "" {
			out = append(out, p.param)
		}
	}
	return out
}

// Text renders the SQL with placeholder(i) (i from 1) in place of each
// parameter, and returns the parameter names in binding order.
func (t *SQLTemplate) Text(placeholder func(i int) string) (string, []string) {
	var b strings.Builder
	var names []string
	for _, p := range t.parts {
		if p.param == "" {
			b.WriteString(p.text)
			continue
		}
		names = append(names, p.param)
		b.WriteString(placeholder(len(names)))
	}
	return b.String(), names
}
