package source

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// InvalidUTF8Error is the error value of a text value whose bytes are not
// valid UTF-8, such as 'caf\xe9' in a PostgreSQL SQL_ASCII database.
// DynamoDB strings are UTF-8 and its JSON wire format would replace such
// bytes with U+FFFD without a word, so the row is rejected instead.
type InvalidUTF8Error struct {
	// Text is the value as read, so that a rejected row whose key holds
	// such a value is still named by its own bytes (KeyText).
	Text string
	// Offset is the position of the first byte that does not belong to a
	// valid UTF-8 sequence.
	Offset int
}

func (e *InvalidUTF8Error) Error() string {
	return fmt.Sprintf("text is not valid UTF-8 (byte 0x%02x at offset %d)", e.Text[e.Offset], e.Offset)
}

// KeyText is the value as a rejected row's key shows it
// (mapping.Entity.SourceKey): Go-quoted, the invalid bytes escaped
// ("caf\xe9"), so that keys differing in such a byte stay apart and JSON
// does not turn them into U+FFFD.
func (e *InvalidUTF8Error) KeyText() string { return strconv.Quote(e.Text) }

// UnconvertibleTextError is the error value of MySQL/MariaDB text whose
// bytes have no Unicode character in the column's character set (0xE9 in
// an ascii column, 0x98 in cp1251): the server would send each as '?'.
type UnconvertibleTextError struct {
	Charset string
	// Text is the column's bytes, in its own character set.
	Text string
}

func (e *UnconvertibleTextError) Error() string {
	shown := quoteBytes(e.Text)
	if len(e.Text) > 40 {
		shown = quoteBytes(e.Text[:40]) + "..."
	}
	return fmt.Sprintf("text %s has bytes that character set %s has no Unicode character for (the server would send them as '?')", shown, e.Charset)
}

// KeyText is the value as a rejected row's key shows it: its bytes quoted,
// every one outside printable ASCII escaped ("\xd0\x98"), since they are
// not UTF-8 even where they happen to look like it.
func (e *UnconvertibleTextError) KeyText() string { return quoteBytes(e.Text) }

// quoteBytes quotes s byte by byte: printable ASCII as it is (with \" and
// \\), every other byte as \xNN.
func quoteBytes(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c >= 0x20 && c < 0x7f:
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "\\x%02x", c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// checkText returns an *InvalidUTF8Error when s is not valid UTF-8.
func checkText(s string) error {
	if utf8.ValidString(s) {
		return nil
	}
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 {
			return &InvalidUTF8Error{Text: s, Offset: i}
		}
		i += n
	}
	return nil // not reached: ValidString said there is such a byte
}

// isWKT reports whether s looks like the WKT (or EWKT, "SRID=4326;POINT(1
// 2)") the engines' ST_AsText and ST_AsEWKT print: it starts with a
// geometry type's name. The binary forms do not: MySQL's starts with a
// 4-byte SRID, PostGIS's hex EWKB with "00" or "01".
func isWKT(s string) bool {
	if rest, ok := strings.CutPrefix(s, "SRID="); ok {
		_, s, _ = strings.Cut(rest, ";")
	}
	if s == "" {
		return false
	}
	c := s[0]
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
}

// SpatialNotText is the error value of a spatial value that arrived in the
// engine's binary form, which only a free SQL query returns (a table scan
// selects the WKT text).
func SpatialNotText(col string) error {
	return fmt.Errorf("spatial value arrives in the engine's binary form, not as text: select ST_AsText(%s) AS %s to read it as WKT", col, col)
}
