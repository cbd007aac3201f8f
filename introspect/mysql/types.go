package mysql

import (
	"fmt"
	"strings"

	"github.com/remodel-dev/remodel/introspect"
)

// dataTypeKinds maps information_schema.COLUMNS.DATA_TYPE to a Kind. tinyint
// is decided by kindOf from COLUMN_TYPE; every type not listed (MariaDB's
// uuid and inet6, ...) is KindString.
var dataTypeKinds = map[string]introspect.Kind{
	"tinyint":    introspect.KindInt,
	"smallint":   introspect.KindInt,
	"mediumint":  introspect.KindInt,
	"int":        introspect.KindInt,
	"integer":    introspect.KindInt,
	"bigint":     introspect.KindInt,
	"year":       introspect.KindInt,
	"bit":        introspect.KindInt,
	"decimal":    introspect.KindDecimal,
	"numeric":    introspect.KindDecimal,
	"float":      introspect.KindFloat,
	"double":     introspect.KindFloat,
	"real":       introspect.KindFloat,
	"char":       introspect.KindString,
	"varchar":    introspect.KindString,
	"tinytext":   introspect.KindString,
	"text":       introspect.KindString,
	"mediumtext": introspect.KindString,
	"longtext":   introspect.KindString,
	"enum":       introspect.KindString,
	"set":        introspect.KindSet,
	"binary":     introspect.KindBytes,
	"varbinary":  introspect.KindBytes,
	"tinyblob":   introspect.KindBytes,
	"blob":       introspect.KindBytes,
	"mediumblob": introspect.KindBytes,
	"longblob":   introspect.KindBytes,
	"date":       introspect.KindDate,
	"time":       introspect.KindTime,
	"datetime":   introspect.KindTimestamp,
	"timestamp":  introspect.KindTimestampTZ,
	"json":       introspect.KindJSON,
	// Spatial types; MySQL 8 names GEOMETRYCOLLECTION geomcollection.
	"geometry":           introspect.KindGeometry,
	"point":              introspect.KindGeometry,
	"linestring":         introspect.KindGeometry,
	"polygon":            introspect.KindGeometry,
	"multipoint":         introspect.KindGeometry,
	"multilinestring":    introspect.KindGeometry,
	"multipolygon":       introspect.KindGeometry,
	"geometrycollection": introspect.KindGeometry,
	"geomcollection":     introspect.KindGeometry,
}

// kindOf returns the Kind of a column from its DATA_TYPE and COLUMN_TYPE.
func kindOf(dataType, columnType string) introspect.Kind {
	dt := strings.ToLower(strings.TrimSpace(dataType))
	if dt == "tinyint" && isBool(columnType) {
		return introspect.KindBool
	}
	if k, ok := dataTypeKinds[dt]; ok {
		return k
	}
	return introspect.KindString
}

// nonUTF8 returns a column's CHARACTER_SET_NAME when it is not a UTF-8
// character set, else "" (utf8mb4, utf8mb3 and its old name utf8, binary,
// and NULL for columns that hold no text).
func nonUTF8(charset string) string {
	switch strings.ToLower(charset) {
	case "", "utf8mb4", "utf8mb3", "utf8", "binary":
		return ""
	}
	return charset
}

// isBool reports whether COLUMN_TYPE is exactly signed tinyint(1), which is
// what BOOLEAN becomes. MySQL 8.0.19+ keeps the (1) for this one type.
func isBool(columnType string) bool {
	return strings.EqualFold(strings.TrimSpace(columnType), "tinyint(1)")
}

// isText reports whether a DATA_TYPE holds character strings, the types a
// CHECK (json_valid(...)) constraint turns into KindJSON.
func isText(dataType string) bool {
	switch strings.ToLower(dataType) {
	case "char", "varchar", "tinytext", "text", "mediumtext", "longtext":
		return true
	}
	return false
}

// jsonValidColumns returns the columns a CHECK clause requires to hold valid
// JSON: the clause, or one of the terms of a top-level AND, must be exactly
// json_valid(`col`) (how MariaDB writes a JSON column's constraint, and how
// both servers print CHECK (json_valid(col))). A json_valid under OR or NOT,
// or applied to an expression, does not count.
func jsonValidColumns(clause string) []string {
	var cols []string
	for _, term := range splitAnd(clause) {
		if c, ok := jsonValidArg(term); ok {
			cols = append(cols, c)
		}
	}
	return cols
}

// jsonValidArg matches json_valid(`col`) with optional surrounding
// parentheses and spaces and returns col, unquoted.
func jsonValidArg(term string) (string, bool) {
	term = trimParens(term)
	const fn = "json_valid"
	if len(term) < len(fn) || !strings.EqualFold(term[:len(fn)], fn) {
		return "", false
	}
	rest := strings.TrimSpace(term[len(fn):])
	if !strings.HasPrefix(rest, "(") || !strings.HasSuffix(rest, ")") {
		return "", false
	}
	arg := strings.TrimSpace(rest[1 : len(rest)-1])
	if len(arg) < 2 || arg[0] != '`' || arg[len(arg)-1] != '`' {
		return "", false
	}
	inner := arg[1 : len(arg)-1]
	// A lone backtick inside would end the identifier early: `a` + `b`.
	if strings.Contains(strings.ReplaceAll(inner, "``", ""), "`") {
		return "", false
	}
	return strings.ReplaceAll(inner, "``", "`"), true
}

// trimParens removes spaces and parentheses that enclose the whole of s.
func trimParens(s string) string {
	for {
		s = strings.TrimSpace(s)
		if len(s) < 2 || s[0] != '(' || s[len(s)-1] != ')' || closing(s, 0) != len(s)-1 {
			return s
		}
		s = s[1 : len(s)-1]
	}
}

// closing returns the index of the parenthesis that closes the one at
// s[open], or -1.
func closing(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch c := s[i]; c {
		case '`', '\'', '"':
			i = skipQuoted(s, i)
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// skipQuoted returns the index of the quote that ends the quoted identifier
// or string starting at s[start] (a doubled quote, or a backslash in a
// string, escapes), or len(s) when it never ends.
func skipQuoted(s string, start int) int {
	q := s[start]
	for i := start + 1; i < len(s); i++ {
		switch {
		case s[i] == '\\' && q != '`':
			i++
		case s[i] == q:
			if i+1 < len(s) && s[i+1] == q {
				i++
				continue
			}
			return i
		}
	}
	return len(s)
}

// splitAnd splits a boolean expression at its top-level AND (or &&)
// operators, outside parentheses, quotes and identifiers; terms in
// parentheses are split again. An expression with a top-level OR, XOR or ||
// is one term: AND binds tighter, so none of its terms is guaranteed.
func splitAnd(s string) []string {
	s = trimParens(s)
	var terms []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '`' || c == '\'' || c == '"':
			i = skipQuoted(s, i)
		case c == '(':
			depth++
		case c == ')':
			depth--
		case depth != 0:
		case c == '|' && i+1 < len(s) && s[i+1] == '|', isKeywordAt(s, i, "or"), isKeywordAt(s, i, "xor"):
			return []string{s}
		case c == '&' && i+1 < len(s) && s[i+1] == '&':
			terms = append(terms, s[start:i])
			i++
			start = i + 1
		case isKeywordAt(s, i, "and"):
			terms = append(terms, s[start:i])
			i += len("and") - 1
			start = i + 1
		}
	}
	if len(terms) == 0 {
		return []string{s}
	}
	terms = append(terms, s[start:])
	var out []string
	for _, t := range terms {
		out = append(out, splitAnd(t)...)
	}
	return out
}

// isKeywordAt reports whether the keyword kw (lower case) starts at s[i],
// standing alone rather than as part of a longer word.
func isKeywordAt(s string, i int, kw string) bool {
	if i+len(kw) > len(s) || !strings.EqualFold(s[i:i+len(kw)], kw) {
		return false
	}
	before := i == 0 || !isWordByte(s[i-1])
	after := i+len(kw) == len(s) || !isWordByte(s[i+len(kw)])
	return before && after
}

func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// members returns the members of an ENUM or SET column from its
// COLUMN_TYPE (such as enum('a','b')), in declared order. The server
// writes each member as a quoted string: a quote doubled, and a backslash,
// NUL, newline, carriage return and Ctrl-Z escaped with a backslash (\\,
// \0, \n, \r, \Z).
func members(columnType string) ([]string, error) {
	open := strings.IndexByte(columnType, '(')
	if open < 0 || !strings.HasSuffix(columnType, ")") {
		return nil, fmt.Errorf("no member list in type %q", columnType)
	}
	s := columnType[open+1 : len(columnType)-1]
	out := []string{}
	for i := 0; i < len(s); {
		if s[i] != '\'' {
			return nil, fmt.Errorf("type %q: member %d does not start with a quote", columnType, len(out)+1)
		}
		var b strings.Builder
		closed := false
		for i++; i < len(s); i++ {
			c := s[i]
			if c == '\\' && i+1 < len(s) {
				i++
				switch s[i] {
				case '0':
					b.WriteByte(0)
				case 'n':
					b.WriteByte('\n')
				case 'r':
					b.WriteByte('\r')
				case 't':
					b.WriteByte('\t')
				case 'Z':
					b.WriteByte(0x1a)
				default:
					b.WriteByte(s[i])
				}
				continue
			}
			if c == '\'' {
				if i+1 < len(s) && s[i+1] == '\'' {
					b.WriteByte('\'')
					i++
					continue
				}
				closed = true
				i++
				break
			}
			b.WriteByte(c)
		}
		if !closed {
			return nil, fmt.Errorf("type %q: member %d is not closed", columnType, len(out)+1)
		}
		out = append(out, b.String())
		if i < len(s) {
			if s[i] != ',' {
				return nil, fmt.Errorf("type %q: unexpected %q after member %d", columnType, s[i], len(out))
			}
			i++
			if i == len(s) {
				return nil, fmt.Errorf("type %q: a comma ends the member list", columnType)
			}
		}
	}
	return out, nil
}
