package mapping

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/remodel-dev/remodel/introspect"
)

// The inverse of a key template: the text a template rendered, parsed back
// into the values of the columns it read. Every placeholder's formatters
// are undone in reverse order; a candidate value is kept only when it
// renders the very text it was parsed from (renderValue), so the inverse
// is exact or it finds nothing. lower, upper and shard lose what they
// hash or fold: such a placeholder matches the text its column's value
// renders when that value is known from elsewhere (an attribute, the other
// key), and is a wildcard otherwise (lossyFormatter).

// maxParseSteps bounds the backtracking of one parse: a template of
// adjacent placeholders without fixed widths over a long key could
// otherwise try every split.
const maxParseSteps = 100_000

// maxParses bounds the parses one key may have; a key with more is
// too ambiguous to narrow down.
const maxParses = 9

// errTooAmbiguous is a parse that stopped at maxParseSteps or found more
// than maxParses parses.
var errTooAmbiguous = errors.New("the key splits into its placeholders in too many ways to try")

// lossyFormatter names the first formatter of a placeholder that loses
// what it renders (its value cannot be read back from the text), or "".
func lossyFormatter(c *introspect.Column, fmts []formatter) string {
	for _, f := range fmts {
		switch f.name {
		case "lower", "upper", "shard":
			return f.name
		case "date":
			if c.Kind != introspect.KindDate {
				return "date (of a timestamp: the time of day is lost)"
			}
		case "unix":
			if c.Kind != introspect.KindDate && c.Precision > 0 {
				return fmt.Sprintf("unix (of a timestamp with %d fractional digits: they are lost)", c.Precision)
			}
		case "unixms":
			if c.Kind != introspect.KindDate && c.Precision > 3 {
				return fmt.Sprintf("unixms (of a timestamp with %d fractional digits: those past 3 are lost)", c.Precision)
			}
		}
	}
	return ""
}

// assignment is one way a key's text splits into its placeholders' values:
// column index (in the entity's columns) → value.
type assignment map[int]any

// parseKey returns every distinct assignment of the template's columns
// that renders s, given the values already known (known(i) reports a
// column's value when another attribute carries it). A lossy placeholder
// of an unknown column matches any text and assigns nothing.
func (b *bound) parseKey(s string, known func(int) (any, bool)) ([]assignment, error) {
	p := &keyParser{b: b, s: s, known: known}
	p.match(0, 0, assignment{})
	if p.steps > maxParseSteps || p.overflow {
		return nil, errTooAmbiguous
	}
	return p.found, nil
}

type keyParser struct {
	b     *bound
	s     string
	known func(int) (any, bool)
	found []assignment
	steps int
	// overflow is set when a parse beyond maxParses was found: the list
	// is then incomplete, and a caller narrowing it by the other keys
	// could keep a wrong one.
	overflow bool
}

func (p *keyParser) match(i, pos int, a assignment) {
	if p.steps++; p.steps > maxParseSteps || p.overflow {
		return
	}
	parts := p.b.t.parts
	if i == len(parts) {
		if pos == len(p.s) {
			p.add(a)
		}
		return
	}
	pt := parts[i]
	if pt.field == "" {
		if strings.HasPrefix(p.s[pos:], pt.lit) {
			p.match(i+1, pos+len(pt.lit), a)
		}
		return
	}
	col, idx := p.b.cols[i], p.b.idx[i]
	if v, ok := a[idx]; ok { // the same column earlier in this template
		p.matchText(i, pos, a, col, v)
		return
	}
	if v, ok := p.known(idx); ok {
		p.matchText(i, pos, a, col, v)
		return
	}
	lossy := lossyFormatter(col, pt.fmts) != ""
	for _, end := range p.ends(i, pos) {
		text := p.s[pos:end]
		if lossy {
			p.match(i+1, end, a)
			continue
		}
		for _, v := range invertPlaceholder(col, pt.fmts, text) {
			next := make(assignment, len(a)+1)
			for k, x := range a {
				next[k] = x
			}
			next[idx] = v
			p.match(i+1, end, next)
		}
	}
}

// matchText goes on where the known value v of part i's column renders
// the text at pos.
func (p *keyParser) matchText(i, pos int, a assignment, col *introspect.Column, v any) {
	text, err := renderValue(col, v, p.b.t.parts[i].fmts)
	if err == nil && strings.HasPrefix(p.s[pos:], text) {
		p.match(i+1, pos+len(text), a)
	}
}

// ends lists where placeholder i, starting at pos, may end: the rest of
// the key when it is the last part, each place the literal after it
// occurs, or anywhere when another placeholder follows it directly.
func (p *keyParser) ends(i, pos int) []int {
	parts := p.b.t.parts
	if i == len(parts)-1 {
		return []int{len(p.s)}
	}
	var out []int
	if lit := parts[i+1].lit; parts[i+1].field == "" {
		for j := pos; j <= len(p.s)-len(lit); j++ {
			if strings.HasPrefix(p.s[j:], lit) {
				out = append(out, j)
			}
		}
		return out
	}
	for j := pos; j <= len(p.s); j++ {
		out = append(out, j)
	}
	return out
}

// add keeps a, unless an equal assignment is kept already.
func (p *keyParser) add(a assignment) {
	for _, f := range p.found {
		if sameAssignment(f, a) {
			return
		}
	}
	if len(p.found) == maxParses {
		p.overflow = true
		return
	}
	p.found = append(p.found, a)
}

func sameAssignment(x, y assignment) bool {
	if len(x) != len(y) {
		return false
	}
	for k, v := range x {
		w, ok := y[k]
		if !ok || !sameCanon(v, w) {
			return false
		}
	}
	return true
}

// sameCanon compares two canonical values of a column.
func sameCanon(x, y any) bool {
	switch a := x.(type) {
	case nil:
		return y == nil
	case time.Time:
		b, ok := y.(time.Time)
		return ok && a.Equal(b)
	case []byte:
		b, ok := y.([]byte)
		return ok && bytes.Equal(a, b)
	}
	return fmt.Sprintf("%T:%v", x, x) == fmt.Sprintf("%T:%v", y, y)
}

// invertPlaceholder returns the values of column c that the formatters
// fmts render as text, each checked by rendering it again: none when the
// text is not one they render, two when default:X's text could be the
// NULL or the value X.
func invertPlaceholder(c *introspect.Column, fmts []formatter, text string) []any {
	var cands []any
	for _, f := range fmts {
		if f.name == "default" && f.arg == text {
			cands = append(cands, nil)
		}
	}
	if v, ok := undoFormatters(c, fmts, text); ok {
		cands = append(cands, v)
	}
	var out []any
	for _, v := range cands {
		if s, err := renderValue(c, v, fmts); err == nil && s == text && fitsColumn(c, v) {
			out = append(out, v)
		}
	}
	return out
}

// undoFormatters undoes the formatter that made text of the value (pad,
// desc, a time format, hex, base64), or reads the text as the column's
// default template text (scalarText) when none did.
func undoFormatters(c *introspect.Column, fmts []formatter, text string) (any, bool) {
	for _, f := range fmts {
		switch f.name {
		case "default":
			continue
		case "pad":
			return unpad(c, text)
		case "desc":
			return undesc(c, f.n, text)
		case "iso":
			t, err := time.Parse(ISOLayout, text)
			return t.UTC(), err == nil
		case "date":
			t, err := time.Parse("2006-01-02", text)
			return t.UTC(), err == nil
		case "unix", "unixms":
			n, err := strconv.ParseInt(text, 10, 64)
			if err != nil {
				return nil, false
			}
			if f.name == "unix" {
				return time.Unix(n, 0).UTC(), true
			}
			return time.UnixMilli(n).UTC(), true
		case "hex":
			b, err := hex.DecodeString(text)
			return b, err == nil
		case "base64":
			b, err := base64.StdEncoding.DecodeString(text)
			return b, err == nil
		default: // lower, upper, shard: lossy (lossyFormatter)
			return nil, false
		}
	}
	return ParseScalarText(c, text)
}

// ParseScalarText reads the text a value of column c is written as in a
// template without formatters (scalarText), or in a map key of an embed,
// back into the column's canonical value.
func ParseScalarText(c *introspect.Column, text string) (any, bool) {
	switch c.Kind {
	case introspect.KindInt:
		return parseIntText(text)
	case introspect.KindDecimal:
		n, err := normalizeNumber(text)
		return n, err == nil && n == text
	case introspect.KindFloat:
		f, err := strconv.ParseFloat(text, 64)
		return f, err == nil
	case introspect.KindBool:
		b, err := strconv.ParseBool(text)
		return b, err == nil && (text == "true" || text == "false")
	case introspect.KindDate, introspect.KindTimestamp, introspect.KindTimestampTZ:
		return parseTimeText(c, text)
	case introspect.KindString, introspect.KindTime, introspect.KindGeometry:
		return text, true
	}
	return nil, false
}

// parseIntText reads an integer: an int64, or the digits of one beyond it.
func parseIntText(text string) (any, bool) {
	if n, err := strconv.ParseInt(text, 10, 64); err == nil {
		return n, true
	}
	if _, ok := new(big.Int).SetString(text, 10); ok && text != "" && text[0] != '+' {
		return text, true
	}
	return nil, false
}

// parseTimeText reads the fixed-width text formatTime writes for column c.
func parseTimeText(c *introspect.Column, text string) (any, bool) {
	p := min(max(c.Precision, 0), 9)
	layout := "2006-01-02"
	switch c.Kind {
	case introspect.KindTimestamp:
		layout = localLayouts[p]
	case introspect.KindTimestampTZ:
		layout = utcLayouts[p]
	}
	t, err := time.ParseInLocation(layout, text, time.UTC)
	return t, err == nil
}

// unpad undoes pad: the number without its leading zeros.
func unpad(c *introspect.Column, text string) (any, bool) {
	intPart, frac, hasFrac := strings.Cut(text, ".")
	if intPart == "" || !allDigits(intPart) || hasFrac && (frac == "" || !allDigits(frac)) {
		return nil, false
	}
	n := strings.TrimLeft(intPart, "0")
	if n == "" {
		n = "0"
	}
	if hasFrac {
		n += "." + frac
	}
	if c.Kind == introspect.KindInt {
		if hasFrac {
			return nil, false
		}
		return parseIntText(n)
	}
	norm, err := normalizeNumber(n)
	return norm, err == nil
}

// undesc undoes desc:n (an integer or a decimal: each digit d is 9-d) and
// desc on a date (days) or timestamp (microseconds) since 0001-01-01.
func undesc(c *introspect.Column, n int, text string) (any, bool) {
	flip := func(s string) (string, bool) {
		out := make([]byte, len(s))
		for i := 0; i < len(s); i++ {
			switch {
			case s[i] == '.':
				out[i] = '.'
			case s[i] >= '0' && s[i] <= '9':
				out[i] = '9' - (s[i] - '0')
			default:
				return "", false
			}
		}
		return string(out), true
	}
	switch c.Kind {
	case introspect.KindInt:
		if len(text) != n {
			return nil, false
		}
		d, ok := flip(text)
		if !ok || strings.Contains(d, ".") {
			return nil, false
		}
		d = strings.TrimLeft(d, "0")
		if d == "" {
			d = "0"
		}
		return parseIntText(d)
	case introspect.KindDecimal:
		d, ok := flip(text)
		if !ok {
			return nil, false
		}
		norm, err := normalizeNumber(d)
		return norm, err == nil
	case introspect.KindDate, introspect.KindTimestamp, introspect.KindTimestampTZ:
		v, err := strconv.ParseInt(text, 10, 64)
		if err != nil || v < 0 {
			return nil, false
		}
		if c.Kind == introspect.KindDate {
			if len(text) != 7 {
				return nil, false
			}
			days := 9_999_999 - v
			return time.Unix((days-719162)*86400, 0).UTC(), true
		}
		if len(text) != 18 {
			return nil, false
		}
		micros := 999_999_999_999_999_999 - v
		days, rest := micros/86_400_000_000, micros%86_400_000_000
		day := time.Unix((days-719162)*86400, 0).UTC()
		return day.Add(time.Duration(rest) * time.Microsecond), true
	}
	return nil, false
}

// fitsColumn says whether v is a value column c stores as it is: a time
// no finer than the column's fractional digits, a decimal with no more
// fraction digits than its declared scale.
func fitsColumn(c *introspect.Column, v any) bool {
	switch x := v.(type) {
	case []any: // an array's elements, each as its element type keeps it
		elem := c
		if c.Kind == introspect.KindArray {
			elem = &introspect.Column{Name: c.Name, Type: strings.TrimRight(c.Type, "[]"), Kind: c.Elem, Precision: c.Precision}
		}
		for _, e := range x {
			if !fitsColumn(elem, e) {
				return false
			}
		}
		return true
	case time.Time:
		if c.Kind == introspect.KindDate {
			return x.Hour() == 0 && x.Minute() == 0 && x.Second() == 0 && x.Nanosecond() == 0
		}
		p := min(max(c.Precision, 0), 9)
		unit := 1
		for range 9 - p {
			unit *= 10
		}
		return x.Nanosecond()%unit == 0
	case string:
		if c.Kind != introspect.KindDecimal {
			return true
		}
		scale, ok := DeclaredScale(c)
		if !ok {
			return true
		}
		_, frac, _ := strings.Cut(plainNumber(x), ".")
		return len(frac) <= scale
	}
	return true
}
