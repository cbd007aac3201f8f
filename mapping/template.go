package mapping

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/remodel-dev/remodel/introspect"
)

// Template is a parsed key or attribute template such as
// "USER#{user_id}" or "SCORE#{score|pad:10}". `{{` and `}}` are literal
// braces.
type Template struct {
	Src   string
	parts []part
}

type part struct {
	lit    string
	field  string // placeholder name; empty for a literal part
	fmts   []formatter
	offset int // byte offset of the placeholder in Src
}

type formatter struct {
	name string
	arg  string
	n    int // numeric argument of pad, desc, shard
}

// formatterSpecs lists the formatters and whether they take an argument.
var formatterSpecs = map[string]struct {
	arg     string // "" none, "int" a positive integer, "text" any text
	summary string
}{
	"lower":   {"", "lower-case text"},
	"upper":   {"", "upper-case text"},
	"pad":     {"int", "zero-pad a non-negative number to N integer digits"},
	"desc":    {"optint", "descending order: desc:N on an integer or a decimal with a declared scale (10^N-1 minus the value, zero-padded to N integer digits); desc alone on a date or timestamp"},
	"iso":     {"", "timestamp as fixed-width ISO-8601 UTC with microseconds"},
	"date":    {"", "date part YYYY-MM-DD"},
	"unix":    {"", "seconds since 1970 UTC, 10 digits"},
	"unixms":  {"", "milliseconds since 1970 UTC, 13 digits"},
	"hex":     {"", "bytes as lower-case hex"},
	"base64":  {"", "bytes as standard base64"},
	"default": {"text", "the text to use when the value is NULL"},
	"shard":   {"int", "a stable bucket 0..N-1 from the value's hash (write sharding)"},
}

// ParseTemplate parses a template. Errors name the byte offset.
func ParseTemplate(src string) (*Template, error) {
	t := &Template{Src: src}
	var lit strings.Builder
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '{' && i+1 < len(src) && src[i+1] == '{':
			lit.WriteByte('{')
			i += 2
		case c == '}' && i+1 < len(src) && src[i+1] == '}':
			lit.WriteByte('}')
			i += 2
		case c == '}':
			return nil, fmt.Errorf("unmatched } at offset %d (write }} for a literal brace)", i)
		case c == '{':
			end := strings.IndexByte(src[i:], '}')
			if end < 0 {
				return nil, fmt.Errorf("unclosed { at offset %d", i)
			}
			p, err := parsePlaceholder(src[i+1:i+end], i)
			if err != nil {
				return nil, err
			}
			if lit.Len() > 0 {
				t.parts = append(t.parts, part{lit: lit.String()})
				lit.Reset()
			}
			t.parts = append(t.parts, p)
			i += end + 1
		default:
			lit.WriteByte(c)
			i++
		}
	}
	if lit.Len() > 0 {
		t.parts = append(t.parts, part{lit: lit.String()})
	}
	return t, nil
}

func parsePlaceholder(body string, offset int) (part, error) {
	segs := strings.Split(body, "|")
	name := strings.TrimSpace(segs[0])
	if name == "" {
		return part{}, fmt.Errorf("empty placeholder at offset %d", offset)
	}
	if strings.ContainsAny(name, "{ \t") {
		return part{}, fmt.Errorf("bad placeholder name %q at offset %d", name, offset)
	}
	p := part{field: name, offset: offset}
	for _, s := range segs[1:] {
		fname, arg, hasArg := strings.Cut(strings.TrimSpace(s), ":")
		spec, ok := formatterSpecs[fname]
		if !ok {
			return part{}, fmt.Errorf("unknown formatter %q in {%s} (known: %s)", fname, body, formatterNames())
		}
		f := formatter{name: fname, arg: arg}
		switch spec.arg {
		case "":
			if hasArg {
				return part{}, fmt.Errorf("formatter %s takes no argument in {%s}", fname, body)
			}
		case "optint":
			if !hasArg {
				break
			}
			fallthrough
		case "int":
			n, err := strconv.Atoi(arg)
			if err != nil || n < 1 || n > 38 {
				return part{}, fmt.Errorf("formatter %s needs a number from 1 to 38, as in %s:8, in {%s}", fname, fname, body)
			}
			f.n = n
		case "text":
			if !hasArg {
				return part{}, fmt.Errorf("formatter %s needs an argument, as in %s:none, in {%s}", fname, fname, body)
			}
		}
		p.fmts = append(p.fmts, f)
	}
	return p, nil
}

// formatterNames lists the formatters of formatterSpecs for a message, in
// order, each as it is written: pad:N for one that takes a number, default:X
// for one that takes text, desc and desc:N for one whose number is optional.
func formatterNames() string {
	var names []string
	for name, spec := range formatterSpecs {
		switch spec.arg {
		case "int":
			names = append(names, name+":N")
		case "optint":
			names = append(names, name, name+":N")
		case "text":
			names = append(names, name+":X")
		default:
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// TemplatePart is a part of a template as written: a literal (Field is
// empty) or a placeholder, with its formatters in order.
type TemplatePart struct {
	Literal    string
	Field      string
	Formatters []Formatter
}

// Formatter is one formatter of a placeholder as written: {id|pad:10} has
// the formatter {Name: "pad", Arg: "10", N: 10}.
type Formatter struct {
	Name string
	// Arg is the text after the colon ("" when there is none): the
	// number of pad:N, desc:N and shard:N, the text of default:X.
	Arg string
	// N is Arg as a number for pad, desc and shard (0 for desc without
	// one), and 0 for the others.
	N int
}

// HasFormatter reports whether the placeholder has a formatter of that
// name.
func (p TemplatePart) HasFormatter(name string) bool {
	for _, f := range p.Formatters {
		if f.Name == name {
			return true
		}
	}
	return false
}

// Parts are the template's parts in order, a copy (what the design
// warnings and the key proof read).
func (t *Template) Parts() []TemplatePart {
	return templateParts(t.parts)
}

func templateParts(parts []part) []TemplatePart {
	out := make([]TemplatePart, len(parts))
	for i, p := range parts {
		out[i] = TemplatePart{Literal: p.lit, Field: p.field}
		for _, f := range p.fmts {
			out[i].Formatters = append(out[i].Formatters, Formatter{Name: f.name, Arg: f.arg, N: f.n})
		}
	}
	return out
}

// Fields lists the placeholder names in order of appearance (with repeats).
func (t *Template) Fields() []string {
	var out []string
	for _, p := range t.parts {
		if p.field != "" {
			out = append(out, p.field)
		}
	}
	return out
}

// Constant reports whether the template has no placeholders.
func (t *Template) Constant() bool { return len(t.Fields()) == 0 }

// Prefix is the literal text before the first placeholder.
func (t *Template) Prefix() string {
	if len(t.parts) > 0 && t.parts[0].field == "" {
		return t.parts[0].lit
	}
	return ""
}

// bound is a template whose placeholders are resolved to column positions.
type bound struct {
	t     *Template
	idx   []int                // per part: column index, -1 for literals
	cols  []*introspect.Column // per part: the column, nil for literals
	limit int                  // expected output size hint
}

// bind resolves placeholders against columns. Kinds that cannot appear in a
// template (JSON, arrays, sets) and formatters that do not fit a kind are
// errors; every problem of every placeholder is reported (errors.Join).
func (t *Template) bind(cols []*introspect.Column) (*bound, error) {
	b := &bound{t: t, idx: make([]int, len(t.parts)), cols: make([]*introspect.Column, len(t.parts))}
	var errs []error
	for i, p := range t.parts {
		b.idx[i] = -1
		b.limit += len(p.lit)
		if p.field == "" {
			continue
		}
		j := -1
		for k, c := range cols {
			if c.Name == p.field {
				j = k
				break
			}
		}
		if j < 0 {
			errs = append(errs, &fieldError{field: p.field})
			continue
		}
		c := cols[j]
		for _, err := range checkFormatters(c, p.fmts) {
			errs = append(errs, fmt.Errorf("{%s}: %w", p.field, err))
		}
		b.idx[i], b.cols[i] = j, c
		b.limit += 16
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return b, nil
}

// nullError is a NULL value in a placeholder without default:.
type nullError struct{ column string }

func (e *nullError) Error() string {
	return fmt.Sprintf("column %s is NULL (add |default:X to the placeholder to allow it)", e.column)
}

// fieldError is a placeholder that names no known column.
type fieldError struct{ field string }

func (e *fieldError) Error() string { return fmt.Sprintf("no column %q", e.field) }

// typeName names a column's kind with its declared type: "date", or
// "numeric(10,2) (decimal)" where they differ.
func typeName(c *introspect.Column) string {
	if c.Type == "" || c.Type == string(c.Kind) {
		return string(c.Kind)
	}
	return c.Type + " (" + string(c.Kind) + ")"
}

// checkFormatters lists every formatter of a placeholder that does not fit
// its column (or the text an earlier formatter made of it).
func checkFormatters(c *introspect.Column, fmts []formatter) []error {
	switch c.Kind {
	case introspect.KindJSON, introspect.KindArray, introspect.KindSet:
		return []error{fmt.Errorf("column %s is %s (%s) and cannot be part of a template", c.Name, c.Kind, c.Type)}
	}
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	kind := c.Kind
	text := false           // an earlier formatter has made text of the value
	what := func() string { // what the formatter gets: the column, or text
		if !text {
			return fmt.Sprintf("%s is %s", c.Name, typeName(c))
		}
		return fmt.Sprintf("%s is text by then", c.Name)
	}
	for _, f := range fmts {
		switch f.name {
		case "pad":
			if kind != introspect.KindInt && kind != introspect.KindDecimal {
				bad("pad needs an integer or decimal column, %s", what())
			}
		case "desc":
			switch kind {
			case introspect.KindInt:
				if f.n == 0 {
					bad("desc on an integer needs a width, as in desc:10 (%s)", what())
				}
			case introspect.KindDecimal:
				if f.n == 0 {
					bad("desc on a decimal needs a width of integer digits, as in desc:10 (%s)", what())
				} else if _, ok := DeclaredScale(c); !ok {
					bad("desc on a decimal needs a declared scale, as in numeric(12,2); %s: use pad, or declare the scale", what())
				}
			case introspect.KindDate, introspect.KindTimestamp, introspect.KindTimestampTZ:
				if f.n != 0 {
					bad("desc on a date or timestamp takes no width: write desc (%s)", what())
				}
			default:
				bad("desc needs an integer, a decimal with a declared scale, a date or a timestamp, %s", what())
			}
		case "iso", "date", "unix", "unixms":
			if kind != introspect.KindDate && kind != introspect.KindTimestamp && kind != introspect.KindTimestampTZ {
				bad("%s needs a date or timestamp column, %s", f.name, what())
			}
		case "hex", "base64":
			if kind != introspect.KindBytes {
				bad("%s needs a bytes column, %s", f.name, what())
			}
		case "lower", "upper":
			if kind == introspect.KindBytes {
				bad("%s needs text, column %s holds bytes (%s): add |hex or |base64 before it", f.name, c.Name, c.Type)
			}
		}
		switch f.name {
		case "pad", "desc", "iso", "date", "unix", "unixms", "hex", "base64", "lower", "upper", "shard":
			kind, text = introspect.KindString, true // the output is text
		}
	}
	if kind == introspect.KindBytes && len(errs) == 0 {
		bad("column %s holds bytes (%s): add |hex or |base64", c.Name, c.Type)
	}
	return errs
}

// DeclaredScale reads the scale of numeric(p,s) / decimal(p,s) from the
// column's declared type: the fraction digits desc:N renders of a decimal
// (false when the type declares none).
func DeclaredScale(c *introspect.Column) (int, bool) {
	_, args, ok := strings.Cut(c.Type, "(")
	if !ok {
		return 0, false
	}
	args, _, _ = strings.Cut(args, ")")
	_, sc, ok := strings.Cut(args, ",")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(sc))
	if err != nil || n < 0 || n > 38 {
		return 0, false
	}
	return n, true
}

// render fills the template from a row.
func (b *bound) render(row []any) (string, error) {
	var sb strings.Builder
	sb.Grow(b.limit)
	return b.renderTo(&sb, row)
}

// renderTo fills the template from a row, writing it at the end of sb (a
// row's texts side by side: see rowAlloc), and returns that part of sb. A
// template of one literal is that literal, written nowhere.
func (b *bound) renderTo(sb *strings.Builder, row []any) (string, error) {
	if len(b.t.parts) == 1 && b.t.parts[0].field == "" {
		return b.t.parts[0].lit, nil
	}
	start := sb.Len()
	for i, p := range b.t.parts {
		if p.field == "" {
			sb.WriteString(p.lit)
			continue
		}
		c, v := b.cols[i], row[b.idx[i]]
		if len(p.fmts) == 0 { // what renderValue's scalarText writes, without a string of its own
			switch x := v.(type) {
			case int64:
				var buf [20]byte
				sb.Write(strconv.AppendInt(buf[:0], x, 10))
				continue
			case string:
				if c.Kind != introspect.KindDecimal && c.Kind != introspect.KindInt {
					sb.WriteString(x)
					continue
				}
			case time.Time:
				var buf [64]byte
				sb.Write(appendTime(buf[:0], c, x))
				continue
			}
		}
		s, err := renderValue(c, v, p.fmts)
		if err != nil {
			return "", fmt.Errorf("{%s}: %w", p.field, err)
		}
		sb.WriteString(s)
	}
	return sb.String()[start:], nil
}

// renderValue turns one canonical value into template text.
func renderValue(c *introspect.Column, v any, fmts []formatter) (string, error) {
	if err, ok := v.(error); ok {
		return "", err
	}
	var s string
	text := false // v has become text
	for _, f := range fmts {
		if v == nil {
			if f.name == "default" {
				v, s, text = f.arg, f.arg, true
			}
			continue
		}
		var err error
		switch f.name {
		case "default":
			continue
		case "lower", "upper":
			if !text {
				if s, err = scalarText(c, v); err != nil {
					return "", err
				}
			}
			if f.name == "lower" {
				s = strings.ToLower(s)
			} else {
				s = strings.ToUpper(s)
			}
		case "pad":
			s, err = pad(v, f.n)
		case "desc":
			switch c.Kind {
			case introspect.KindDate, introspect.KindTimestamp, introspect.KindTimestampTZ:
				s, err = descTime(c, v)
			case introspect.KindDecimal:
				s, err = descDecimal(c, v, f.n)
			default:
				s, err = desc(v, f.n)
			}
		case "iso", "date", "unix", "unixms":
			s, err = timeFormat(v, f.name)
		case "hex", "base64":
			b, ok := v.([]byte)
			if !ok {
				return "", fmt.Errorf("%s needs bytes, got %T", f.name, v)
			}
			if f.name == "hex" {
				s = hex.EncodeToString(b)
			} else {
				s = base64.StdEncoding.EncodeToString(b)
			}
		case "shard":
			if !text {
				if s, err = scalarText(c, v); err != nil {
					if b, ok := v.([]byte); ok {
						s, err = string(b), nil
					} else {
						return "", err
					}
				}
			}
			h := fnv.New32a()
			h.Write([]byte(s))
			s = strconv.Itoa(int(h.Sum32() % uint32(f.n)))
		}
		if err != nil {
			return "", err
		}
		text = true
	}
	if v == nil {
		return "", &nullError{column: c.Name}
	}
	if text {
		return s, nil
	}
	return scalarText(c, v)
}

// scalarText is the default text of a scalar value in a template.
func scalarText(c *introspect.Column, v any) (string, error) {
	switch x := v.(type) {
	case int64:
		return strconv.FormatInt(x, 10), nil
	case float64:
		return formatFloat(x)
	case bool:
		return strconv.FormatBool(x), nil
	case string:
		if c.Kind == introspect.KindDecimal || c.Kind == introspect.KindInt {
			return normalizeNumber(x)
		}
		return x, nil
	case time.Time:
		return formatTime(c, x), nil
	case []byte:
		return "", fmt.Errorf("column %s holds bytes: add |hex or |base64", c.Name)
	}
	return "", fmt.Errorf("column %s: a %T value cannot be part of a template", c.Name, v)
}

// pad zero-pads the integer part of a non-negative number to n digits.
func pad(v any, n int) (string, error) {
	var s string
	switch x := v.(type) {
	case int64:
		s = strconv.FormatInt(x, 10)
	case string:
		var err error
		if s, err = normalizeNumber(x); err != nil {
			return "", err
		}
	default:
		return "", fmt.Errorf("pad needs a number, got %T", v)
	}
	if strings.HasPrefix(s, "-") {
		return "", fmt.Errorf("pad:%d cannot keep the order of the negative value %s", n, s)
	}
	s = plainNumber(s)
	intPart, _, _ := strings.Cut(s, ".")
	if len(intPart) > n {
		return "", fmt.Errorf("value %s has more than %d integer digits (pad:%d)", s, n, n)
	}
	return strings.Repeat("0", n-len(intPart)) + s, nil
}

// plainNumber writes a normalized number that is in E notation
// ("1.5E-70") in plain notation, so that its digits line up for pad.
func plainNumber(s string) string {
	mant, e, ok := strings.Cut(s, "E")
	if !ok {
		return s
	}
	exp, _ := strconv.Atoi(e)
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := intPart + frac
	point := len(intPart) + exp // digits before the point
	switch {
	case point >= len(digits):
		return digits + strings.Repeat("0", point-len(digits))
	case point > 0:
		return digits[:point] + "." + digits[point:]
	default:
		return "0." + strings.Repeat("0", -point) + digits
	}
}

// desc renders 10^n-1-v zero-padded to n digits, so that larger values sort first.
func desc(v any, n int) (string, error) {
	if s, ok := v.(string); ok { // an integer beyond int64
		d, err := normalizeNumber(s)
		if err != nil {
			return "", err
		}
		if !allDigits(d) {
			return "", fmt.Errorf("desc:%d needs a non-negative integer, got %s", n, s)
		}
		if len(d) > n {
			return "", fmt.Errorf("value %s has more than %d digits (desc:%d)", d, n, n)
		}
		d = strings.Repeat("0", n-len(d)) + d
		out := make([]byte, n)
		for i := range d {
			out[i] = '9' - (d[i] - '0')
		}
		return string(out), nil
	}
	x, ok := v.(int64)
	if !ok {
		return "", fmt.Errorf("desc needs an integer, got %T", v)
	}
	if x < 0 {
		return "", fmt.Errorf("desc:%d needs a non-negative value, got %d", n, x)
	}
	if n < 19 {
		max := int64(math.Pow10(n)) - 1
		if x > max {
			return "", fmt.Errorf("value %d has more than %d digits (desc:%d)", x, n, n)
		}
		return fmt.Sprintf("%0*d", n, max-x), nil
	}
	// n ≥ 19: every int64 fits; compute 10^n-1-x as 9s minus x digit-wise.
	digits := fmt.Sprintf("%0*d", n, x)
	out := make([]byte, n)
	for i := range digits {
		out[i] = '9' - (digits[i] - '0')
	}
	return string(out), nil
}

// descDecimal renders 10^n - 10^-scale - v with exactly n integer and
// scale fraction digits ("0099.75" for 900.24 in numeric(p,2) with desc:4),
// so that larger values sort first.
func descDecimal(c *introspect.Column, v any, n int) (string, error) {
	scale, ok := DeclaredScale(c)
	if !ok {
		return "", fmt.Errorf("desc on column %s needs a declared scale (%s)", c.Name, c.Type)
	}
	x, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("desc needs a decimal, got %T", v)
	}
	d, err := normalizeNumber(x)
	if err != nil {
		return "", err
	}
	if strings.HasPrefix(d, "-") {
		return "", fmt.Errorf("desc:%d needs a non-negative value, got %s", n, d)
	}
	intPart, frac, _ := strings.Cut(plainNumber(d), ".")
	if intPart == "0" {
		intPart = ""
	}
	if len(frac) > scale {
		return "", fmt.Errorf("value %s has more than the %d fraction digits column %s declares", d, scale, c.Name)
	}
	if len(intPart) > n {
		return "", fmt.Errorf("value %s has more than %d integer digits (desc:%d)", d, n, n)
	}
	digits := strings.Repeat("0", n-len(intPart)) + intPart + frac + strings.Repeat("0", scale-len(frac))
	out := make([]byte, 0, len(digits)+1)
	for i := range digits {
		if i == n {
			out = append(out, '.')
		}
		out = append(out, '9'-(digits[i]-'0'))
	}
	return string(out), nil
}

// descTime renders a date as 9999999 minus its day number since 0001-01-01
// (7 digits), and a timestamp as 10^18-1 minus its microseconds since
// 0001-01-01T00:00:00Z (18 digits; a timestamp without a zone is taken as
// UTC), so that later values sort first.
func descTime(c *introspect.Column, v any) (string, error) {
	t, ok := v.(time.Time)
	if !ok {
		return "", fmt.Errorf("desc needs a date or timestamp, got %T", v)
	}
	t = t.UTC()
	if t.Year() < 1 || t.Year() > 9999 {
		return "", fmt.Errorf("year %d is outside 1..9999 and does not fit desc", t.Year())
	}
	// time.Duration saturates beyond ~292 years: count whole days from
	// Unix seconds (exact for UTC midnights), then the time of day.
	day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	days := day.Unix()/86400 + 719162 // 0001-01-01 is Unix day -719162
	if c.Kind == introspect.KindDate {
		return fmt.Sprintf("%07d", 9_999_999-days), nil
	}
	if t.Nanosecond()%1000 != 0 {
		return "", fmt.Errorf("timestamp %s is finer than microseconds, which desc keeps", t.Format(time.RFC3339Nano))
	}
	micros := days*86_400_000_000 + t.Sub(day).Microseconds()
	return fmt.Sprintf("%018d", 999_999_999_999_999_999-micros), nil
}

// ISOLayout is the text of the iso formatter and of type iso: fixed-width
// ISO-8601 in UTC with microseconds and Z.
const ISOLayout = "2006-01-02T15:04:05.000000Z"

func timeFormat(v any, name string) (string, error) {
	t, ok := v.(time.Time)
	if !ok {
		return "", fmt.Errorf("%s needs a date or timestamp, got %T", name, v)
	}
	t = t.UTC()
	switch name {
	case "iso":
		if t.Year() < 0 || t.Year() > 9999 {
			return "", fmt.Errorf("year %d does not fit a fixed-width timestamp", t.Year())
		}
		return t.Format(ISOLayout), nil
	case "date":
		if t.Year() < 0 || t.Year() > 9999 {
			return "", fmt.Errorf("year %d does not fit a fixed-width date", t.Year())
		}
		return t.Format("2006-01-02"), nil
	case "unix":
		s := t.Unix()
		if s < 0 || s > 9999999999 {
			return "", fmt.Errorf("timestamp %s is outside 1970..2286 and does not fit unix", t.Format(time.RFC3339))
		}
		return fmt.Sprintf("%010d", s), nil
	default: // unixms
		ms := t.UnixMilli()
		if ms < 0 || ms > 9999999999999 {
			return "", fmt.Errorf("timestamp %s is outside 1970..2286 and does not fit unixms", t.Format(time.RFC3339))
		}
		return fmt.Sprintf("%013d", ms), nil
	}
}
