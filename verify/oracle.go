package verify

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/av"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
)

// The oracle is the item check's second, independent reading of the source:
// the engine renders each row as JSON itself (PostgreSQL to_jsonb, MySQL and
// MariaDB JSON_OBJECT), and every column attribute of the stored item is
// compared with that JSON value by what the value means — numbers by value,
// instants by instant, sets as sets — by code that shares nothing with the
// decoding (package source) and conversion (mapping.Convert) migrate uses.
// A conversion bug in migrate's path is therefore reproduced by the rendered
// expected item but not by the oracle.

// itemQuery is the one query of an entity's item pass: every column of the
// table (decoded as migrate decodes them, for rendering the expected item),
// then the engine's JSON rendering of the row, in primary-key order.
type itemQuery struct {
	sql     string
	table   *introspect.Table
	jsonCol string // the result column holding the row's JSON
	oracle  *oracle
	embeds  []embedJSON // after jsonCol: each embed's child rows as JSON (embed.go)
}

// oracle compares stored attributes with the engine's JSON values.
type oracle struct {
	engine introspect.Engine
	attrs  []mapping.ColumnAttribute
	keys   []string // the JSON object key of each attribute's column
	// raw marks the attributes whose column the engine renders as its
	// document's text (a JSON string) instead of as JSON (the dialect's RawJSONColumn):
	// the oracle parses that text itself, so that a key the document
	// holds twice is seen (the engine's own parse keeps one of them).
	raw []bool
}

// newItemQuery builds the item pass's query for e on engine.
func newItemQuery(engine introspect.Engine, e *mapping.Entity) *itemQuery {
	t := e.Table
	q := &itemQuery{table: t, jsonCol: unusedName(t, "remodel_row_json")}
	d := engine.Dialect()
	ident, from := d.QuoteIdent, d.TableRef(t)
	ref := from // what the row is called in the select list
	if t.Query != "" {
		from, ref = introspect.DerivedTable(t.Query), "q"
	}
	// The columns as the source's scan reads them (a spatial column as its
	// WKT, a condition as a boolean), for rendering the expected item.
	cols := source.ScanColumns(engine, t)
	// The row as one JSON object, each column under its key (the dialect's
	// OracleRow: its name, or its position where no name has to be
	// written as an SQL string literal).
	row, keys := d.OracleRow(t, ref)
	cols = append(cols, row+" AS "+ident(q.jsonCol))
	cols = append(cols, q.embedColumns(d, e, ref)...)
	sql := "SELECT " + strings.Join(cols, ", ") + " FROM " + from
	if strings.TrimSpace(e.Where) != "" {
		sql += " WHERE (" + e.Where + ")"
	}
	if len(t.PrimaryKey) > 0 {
		pk := make([]string, len(t.PrimaryKey))
		for i, c := range t.PrimaryKey {
			pk[i] = ref + "." + ident(c)
		}
		sql += " ORDER BY " + strings.Join(pk, ", ")
	}
	q.sql = sql
	o := &oracle{engine: engine, attrs: e.ColumnAttributes()}
	for _, a := range o.attrs {
		o.keys = append(o.keys, keys[a.Index])
		o.raw = append(o.raw, d.RawJSONColumn(t, t.Columns[a.Index]))
	}
	q.oracle = o
	return q
}

// kindOf decodes the table's columns as migrate does and leaves the JSON
// column as text.
func (q *itemQuery) kindOf(name string) *introspect.Column {
	if name == q.jsonCol {
		return nil
	}
	for _, ej := range q.embeds {
		if name == ej.col {
			return nil
		}
	}
	return q.table.Column(name)
}

// unusedName is base, with underscores added until no column of t has it.
func unusedName(t *introspect.Table, base string) string {
	for t.Column(base) != nil {
		base += "_"
	}
	return base
}

// rowJSON is one row as the engine rendered it.
type rowJSON map[string]any

// parseRowJSON reads the engine's JSON rendering of a row, numbers as
// exact text.
func parseRowJSON(v any) (rowJSON, error) {
	s, ok := v.(string)
	if bad, isBad := v.(*source.InvalidUTF8Error); isBad { // the rendering of text that is not UTF-8
		s, ok = bad.Text, true
	}
	if !ok {
		return nil, fmt.Errorf("the row's JSON rendering is a %T, not text", v)
	}
	if !utf8.ValidString(s) {
		return parseInvalidRowJSON(s)
	}
	if m, ok := readRowJSON(s); ok {
		return m, nil
	}
	return parseRowJSONDecoder(s)
}

// parseRowJSONDecoder is parseRowJSON with encoding/json: the reference,
// and the reader of what readRowJSON leaves.
func parseRowJSONDecoder(s string) (rowJSON, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("the row's JSON rendering is not a JSON object: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("the row's JSON rendering has data after the object")
	}
	return m, nil
}

// invalidText stands, in a rowJSON, for a column whose rendering holds
// bytes that are not UTF-8 (text of a PostgreSQL SQL_ASCII database): a
// JSON decoder would turn each into U+FFFD and so agree with an item that
// made the same silent change, where migrate must reject the row.
type invalidText struct{ raw string }

// escapeInvalid is b with each byte that is not part of UTF-8 text
// written as \xNN.
func escapeInvalid(b []byte) string {
	var sb strings.Builder
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 {
			fmt.Fprintf(&sb, `\x%02x`, b[0])
		} else {
			sb.Write(b[:n])
		}
		b = b[n:]
	}
	return sb.String()
}

// parseInvalidRowJSON is parseRowJSON for a rendering that is not UTF-8:
// each column's value whose bytes are not UTF-8 becomes an invalidText,
// the others are read as parseRowJSON reads them.
func parseInvalidRowJSON(s string) (rowJSON, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &raw); err != nil {
		return nil, fmt.Errorf("the row's JSON rendering is not a JSON object: %v", err)
	}
	m := rowJSON{}
	for k, v := range raw {
		if !utf8.Valid(v) {
			m[k] = invalidText{escapeInvalid(v)}
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(v))
		dec.UseNumber()
		var x any
		if err := dec.Decode(&x); err != nil {
			return nil, fmt.Errorf("the row's JSON rendering of %s does not parse: %v", k, err)
		}
		m[k] = x
	}
	return m, nil
}

// parseDocument parses the text of a JSON document (jv, as the item query
// renders a RawJSONColumn) with numbers as json.Number, and names the first
// key an object of it holds twice, by its path ("$.a.b", "$.a[2]", `$["a b"]`).
func parseDocument(jv any) (doc any, dup string, err error) {
	s, ok := jv.(string)
	if !ok {
		return nil, "", fmt.Errorf("rendered as JSON %s, not as the document's text", jsonKind(jv))
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	doc, dup, err = readDocument(dec, "$")
	if err != nil || dup != "" {
		return nil, dup, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, "", errors.New("data after the document")
	}
	return doc, "", nil
}

// readDocument reads one JSON value at path from dec (see parseDocument).
func readDocument(dec *json.Decoder, path string) (any, string, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, "", err
	}
	switch tok {
	case json.Delim('{'):
		m := map[string]any{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, "", err
			}
			k := kt.(string) // the decoder returns an object's keys as strings
			at := path + pathKey(k)
			if _, seen := m[k]; seen {
				return nil, at, nil
			}
			v, dup, err := readDocument(dec, at)
			if err != nil || dup != "" {
				return nil, dup, err
			}
			m[k] = v
		}
		_, err := dec.Token() // '}'
		return m, "", err
	case json.Delim('['):
		l := []any{}
		for dec.More() {
			v, dup, err := readDocument(dec, path+"["+strconv.Itoa(len(l))+"]")
			if err != nil || dup != "" {
				return nil, dup, err
			}
			l = append(l, v)
		}
		_, err := dec.Token() // ']'
		return l, "", err
	}
	return tok, "", nil // a string, json.Number, bool or nil
}

// pathKey is an object key as a step of a JSON path: .name, or ["text"]
// for a key that is not a plain name.
func pathKey(k string) string {
	for i, r := range k {
		if r != '_' && !unicode.IsLetter(r) && (i == 0 || !unicode.IsDigit(r)) {
			return "[" + strconv.Quote(k) + "]"
		}
	}
	if k == "" {
		return `[""]`
	}
	return "." + k
}

// finding is one attribute on which the oracle and the stored item disagree,
// or which the oracle cannot check.
type finding struct {
	attr, column string
	want         string // the source's value, as the engine rendered it
	got          string // the stored value
	note         string // set when the oracle cannot interpret the value
}

// check compares every column attribute of the stored item have with the
// row's JSON. row is the decoded row; only whether a JSON column is SQL NULL
// is read from it (the JSON null document and SQL NULL render alike). skip
// names attributes already reported.
func (o *oracle) check(js rowJSON, row []any, have mapping.Item, skip map[string]bool) []finding {
	var out []finding
	for i, a := range o.attrs {
		if skip[a.Attr] {
			continue
		}
		got := have[a.Attr]
		jv, ok := js[o.keys[i]]
		if !ok {
			out = append(out, finding{attr: a.Attr, column: a.Column.Name, got: av.Text(got), want: "nothing",
				note: "the source's JSON rendering of the row has no such column"})
			continue
		}
		if bad, ok := jv.(invalidText); ok {
			out = append(out, finding{attr: a.Attr, column: a.Column.Name, got: av.Text(got), want: bad.raw,
				note: "the source's value is not UTF-8 text: no S holds it, so the row should have been rejected (or the column typed B)"})
			continue
		}
		if o.raw[i] && jv != nil {
			doc, f, bad, done := rawDocument(a, jv, got)
			if bad {
				out = append(out, f)
			}
			if done {
				continue
			}
			jv = doc
		}
		if f, bad := o.value(a, jv, row[a.Index] == nil, got); bad {
			out = append(out, f)
		}
	}
	return out
}

// rawDocument reads jv, the text of the JSON document of attribute a's
// column (a RawJSONColumn), for comparing it with got: the document, or,
// when done, the comparison's result itself (bad and its finding): a
// document that does not parse, or holds a key twice (which only a column
// typed JSON, kept as the engine's text, can hold).
func rawDocument(a mapping.ColumnAttribute, jv any, got types.AttributeValue) (doc any, f finding, bad, done bool) {
	f = finding{attr: a.Attr, column: a.Column.Name}
	texts := func() { f.got, f.want = av.Text(got), jsonText(jv) } // only for a finding: they cost
	doc, dup, err := parseDocument(jv)
	if err == nil && dup != "" && a.Type == mapping.TypeJSON {
		// Kept as the engine's text, both keys and all: the stored
		// text is the document's own.
		g, ok := got.(*types.AttributeValueMemberS)
		if bad = !ok || g.Value != jv.(string); bad {
			texts()
		}
		return nil, f, bad, true
	}
	if err != nil || dup != "" {
		texts()
	}
	if err != nil {
		f.note = "the source's JSON document does not parse: " + err.Error()
		return nil, f, true, true
	}
	if dup != "" {
		f.note = "the source's JSON document holds the key " + dup + " twice: no DynamoDB map holds both values, so the row should have been rejected"
		return nil, f, true, true
	}
	return doc, f, false, false
}

// value compares one column's JSON value with its stored attribute. The
// finding's texts of the two values are written only when they differ (a
// text judge set is kept): most rows agree, and their texts would cost more
// than the comparison.
func (o *oracle) value(a mapping.ColumnAttribute, jv any, sqlNull bool, got types.AttributeValue) (finding, bool) {
	f, bad := o.judge(a, jv, sqlNull, got)
	if bad {
		if f.got == "" { // av.Text is never empty
			f.got = av.Text(got)
		}
		if f.want == "" { // nor is jsonText
			f.want = jsonText(jv)
		}
	}
	return f, bad
}

// judge is value without the texts of the values it did not set.
func (o *oracle) judge(a mapping.ColumnAttribute, jv any, sqlNull bool, got types.AttributeValue) (finding, bool) {
	c := a.Column
	f := finding{attr: a.Attr, column: c.Name}
	if a.Type != "" {
		return o.typedValue(a, jv, sqlNull, got, f)
	}
	if jv == nil {
		if c.Kind == introspect.KindJSON && !sqlNull {
			// A JSON document that is the JSON null.
			if _, ok := got.(*types.AttributeValueMemberNULL); ok {
				return f, false
			}
			return f, true
		}
		f.want = "nothing (NULL)"
		return f, got != nil
	}
	if c.Kind == introspect.KindSet {
		s, ok := jv.(string)
		if !ok {
			f.note = "a SET column rendered as JSON " + jsonKind(jv) + ", not as text"
			return f, true
		}
		if s == "" {
			f.want = `nothing (the empty set "")`
			return f, got != nil
		}
	}
	if got == nil {
		return f, true
	}
	agree, note := o.same(c, c.Kind, jv, got)
	if note != "" {
		f.note = note
		return f, true
	}
	return f, !agree
}

// same reports whether the JSON value jv of a column of kind k means the
// stored value got; note says why jv cannot be interpreted.
func (o *oracle) same(c *introspect.Column, k introspect.Kind, jv any, got types.AttributeValue) (agree bool, note string) {
	switch k {
	case introspect.KindInt, introspect.KindDecimal:
		n, ok := jv.(json.Number)
		if !ok {
			return false, "a " + string(k) + " column rendered as JSON " + jsonKind(jv) + ", not as a number"
		}
		g, ok := got.(*types.AttributeValueMemberN)
		return ok && sameDecimal(string(n), g.Value), ""
	case introspect.KindFloat:
		return o.sameFloat(c, jv, got)
	case introspect.KindBool:
		return sameBool(jv, got)
	case introspect.KindString, introspect.KindGeometry:
		s, ok := jv.(string)
		if !ok {
			return false, "a column read as text (" + c.Type + ") rendered as JSON " + jsonKind(jv) + ", which does not say what its text is"
		}
		g, ok := got.(*types.AttributeValueMemberS)
		return ok && g.Value == s, ""
	case introspect.KindBytes:
		return o.sameHexBytes(jv, got)
	case introspect.KindDate, introspect.KindTimestamp, introspect.KindTimestampTZ:
		return sameInstant(c, k, jv, got)
	case introspect.KindTime:
		s, ok := jv.(string)
		if !ok {
			return false, "a time column rendered as JSON " + jsonKind(jv)
		}
		g, ok := got.(*types.AttributeValueMemberS)
		return ok && sameTimeOfDay(s, g.Value), ""
	case introspect.KindJSON:
		return sameJSON(jv, got), ""
	case introspect.KindArray:
		list, ok := jv.([]any)
		if !ok {
			return false, "an array column rendered as JSON " + jsonKind(jv)
		}
		elem := &introspect.Column{Name: c.Name, Type: strings.TrimSuffix(c.Type, "[]"), Kind: c.Elem, Precision: c.Precision}
		return o.sameArray(elem, list, got)
	case introspect.KindSet:
		s := jv.(string) // value checked it is a non-empty string
		g, ok := got.(*types.AttributeValueMemberSS)
		return ok && mapping.SameSet(strings.Split(s, ","), g.Value, func(s string) string { return s }), ""
	}
	return false, "the oracle does not know columns of kind " + string(k)
}

// sameFloat: a float column's JSON number and the stored N, compared as
// the column's precision holds them.
func (o *oracle) sameFloat(c *introspect.Column, jv any, got types.AttributeValue) (bool, string) {
	n, ok := jv.(json.Number)
	if !ok {
		return false, "a float column rendered as JSON " + jsonKind(jv) + ", not as a number"
	}
	want, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		return false, "the float " + string(n) + " does not fit a float64"
	}
	g, ok := got.(*types.AttributeValueMemberN)
	if !ok {
		return false, ""
	}
	have, err := strconv.ParseFloat(g.Value, 64)
	if err != nil {
		return false, ""
	}
	if o.engine.Dialect().SinglePrecision(c) {
		return float32(want) == float32(have), ""
	}
	return want == have, ""
}

// sameBool: a boolean column's JSON value (true or false; 0 or 1 for
// MySQL's tinyint(1)) and the stored BOOL.
func sameBool(jv any, got types.AttributeValue) (bool, string) {
	var want bool
	switch x := jv.(type) {
	case bool:
		want = x
	case json.Number: // MySQL renders tinyint(1) as 0 or 1
		switch x {
		case "0":
			want = false
		case "1":
			want = true
		default:
			return false, "the boolean column holds " + string(x) + ", neither 0 nor 1"
		}
	default:
		return false, "a boolean column rendered as JSON " + jsonKind(jv)
	}
	g, ok := got.(*types.AttributeValueMemberBOOL)
	return ok && g.Value == want, ""
}

// sameHexBytes: a bytes column's JSON hex text (with PostgreSQL's \x prefix
// where the engine writes one) and the stored B.
func (o *oracle) sameHexBytes(jv any, got types.AttributeValue) (bool, string) {
	s, ok := jv.(string)
	if !ok {
		return false, "a bytes column rendered as JSON " + jsonKind(jv)
	}
	if o.engine.Dialect().BytesAsHexText() {
		rest, ok := strings.CutPrefix(s, `\x`)
		if !ok {
			return false, `PostgreSQL rendered the bytes without the \x hex prefix`
		}
		s = rest
	}
	want, err := hex.DecodeString(s)
	if err != nil {
		return false, "the bytes' hex text does not decode: " + err.Error()
	}
	g, ok := got.(*types.AttributeValueMemberB)
	return ok && bytes.Equal(g.Value, want), ""
}

// sameInstant: a date or timestamp column's JSON text and the stored S,
// compared as instants.
func sameInstant(c *introspect.Column, k introspect.Kind, jv any, got types.AttributeValue) (bool, string) {
	s, ok := jv.(string)
	if !ok {
		return false, "a " + string(k) + " column rendered as JSON " + jsonKind(jv)
	}
	want, err := sourceInstant(k, s)
	if err != nil {
		return false, err.Error()
	}
	g, ok := got.(*types.AttributeValueMemberS)
	if !ok {
		return false, ""
	}
	have, err := time.Parse(storedLayout(k, c.Precision), g.Value)
	return err == nil && have.Equal(want), ""
}

// sameArray compares a JSON array (of a PostgreSQL array column, nested for
// several dimensions) with a stored L.
func (o *oracle) sameArray(elem *introspect.Column, list []any, got types.AttributeValue) (bool, string) {
	g, ok := got.(*types.AttributeValueMemberL)
	if !ok || len(g.Value) != len(list) {
		return false, ""
	}
	for i, e := range list {
		switch x := e.(type) {
		case nil:
			if _, ok := g.Value[i].(*types.AttributeValueMemberNULL); !ok {
				return false, ""
			}
		case []any:
			if elem.Kind == introspect.KindJSON { // json[]: an element is a document
				if !sameJSON(x, g.Value[i]) {
					return false, ""
				}
				continue
			}
			if ok, note := o.sameArray(elem, x, g.Value[i]); !ok || note != "" {
				return ok, note
			}
		default:
			if ok, note := o.same(elem, elem.Kind, x, g.Value[i]); !ok || note != "" {
				if note != "" {
					note = fmt.Sprintf("element %d: %s", i+1, note)
				}
				return ok, note
			}
		}
	}
	return true, ""
}

// sameDecimal compares two decimal texts exactly, by value.
func sameDecimal(a, b string) bool {
	if a == b {
		return true
	}
	x, ok := new(big.Rat).SetString(a)
	if !ok {
		return false
	}
	y, ok := new(big.Rat).SetString(b)
	return ok && x.Cmp(y) == 0
}

// sourceInstant reads a date or timestamp as the engine renders it in JSON:
// PostgreSQL "2024-01-02T03:04:05.123" (with "+00:00" for timestamptz),
// MySQL "2024-01-02 03:04:05.123" in the session's time zone, which the
// source sets to UTC.
func sourceInstant(k introspect.Kind, s string) (time.Time, error) {
	if k == introspect.KindDate {
		t, err := time.Parse("2006-01-02", s)
		if err != nil {
			return time.Time{}, fmt.Errorf("the source's date %q is not YYYY-MM-DD", s)
		}
		return t, nil
	}
	iso := s
	if len(iso) > 10 && iso[10] == ' ' {
		iso = iso[:10] + "T" + iso[11:]
	}
	for _, l := range []string{"2006-01-02T15:04:05.999999999Z07:00", "2006-01-02T15:04:05.999999999Z07", "2006-01-02T15:04:05.999999999"} {
		if t, err := time.Parse(l, iso); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("the source's timestamp %q is not one the oracle reads", s)
}

// storedLayout is the documented text of a stored date or timestamp: fixed
// width, the column's fractional digits, "Z" where the zone is known.
func storedLayout(k introspect.Kind, precision int) string {
	if k == introspect.KindDate {
		return "2006-01-02"
	}
	l := "2006-01-02T15:04:05"
	if precision > 0 {
		l += "." + strings.Repeat("0", min(precision, 9))
	}
	if k == introspect.KindTimestampTZ {
		l += "Z"
	}
	return l
}

// sameTimeOfDay compares two times of day ("12:34:56.78", MySQL's
// "-838:59:59", PostgreSQL's "12:34:56+02") by value: the fraction's
// trailing zeros do not matter, the zone must be the same. Texts that are
// not times must be equal.
func sameTimeOfDay(a, b string) bool {
	x, ok1 := parseTimeOfDay(a)
	y, ok2 := parseTimeOfDay(b)
	if !ok1 || !ok2 {
		return a == b
	}
	return x == y
}

type timeOfDay struct {
	neg            bool
	h, m, s, nanos int64
	zone           string
}

func parseTimeOfDay(s string) (timeOfDay, bool) {
	var t timeOfDay
	if rest, ok := strings.CutPrefix(s, "-"); ok {
		t.neg, s = true, rest
	}
	if i := strings.IndexAny(s, "+-"); i >= 0 {
		s, t.zone = s[:i], s[i:]
	}
	hms, frac, hasFrac := strings.Cut(s, ".")
	parts := strings.Split(hms, ":")
	if len(parts) != 3 || hasFrac && (frac == "" || len(frac) > 9 || !digits(frac)) {
		return t, false
	}
	var err error
	vals := []*int64{&t.h, &t.m, &t.s}
	for i, p := range parts {
		if p == "" || !digits(p) {
			return t, false
		}
		if *vals[i], err = strconv.ParseInt(p, 10, 64); err != nil {
			return t, false
		}
	}
	if hasFrac {
		n, _ := strconv.ParseInt(frac+strings.Repeat("0", 9-len(frac)), 10, 64)
		t.nanos = n
	}
	return t, true
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// sameJSON compares a JSON value (numbers as json.Number) with the stored
// attribute value by meaning: objects as M, arrays as L, numbers by exact
// value.
func sameJSON(jv any, got types.AttributeValue) bool {
	switch x := jv.(type) {
	case nil:
		_, ok := got.(*types.AttributeValueMemberNULL)
		return ok
	case bool:
		g, ok := got.(*types.AttributeValueMemberBOOL)
		return ok && g.Value == x
	case string:
		g, ok := got.(*types.AttributeValueMemberS)
		return ok && g.Value == x
	case json.Number:
		g, ok := got.(*types.AttributeValueMemberN)
		return ok && sameDecimal(string(x), g.Value)
	case []any:
		g, ok := got.(*types.AttributeValueMemberL)
		if !ok || len(g.Value) != len(x) {
			return false
		}
		for i := range x {
			if !sameJSON(x[i], g.Value[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		g, ok := got.(*types.AttributeValueMemberM)
		if !ok || len(g.Value) != len(x) {
			return false
		}
		for k, v := range x {
			gv, ok := g.Value[k]
			if !ok || !sameJSON(v, gv) {
				return false
			}
		}
		return true
	}
	return false
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean " + jsonText(v)
	case string:
		return "string " + jsonText(v)
	case json.Number:
		return "number " + jsonText(v)
	case []any:
		return "array " + jsonText(v)
	case map[string]any:
		return "object " + jsonText(v)
	}
	return fmt.Sprintf("%T", v)
}

// jsonText renders a JSON value briefly.
func jsonText(v any) string {
	if v == nil {
		return "null"
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	s := strings.TrimSuffix(b.String(), "\n")
	if len(s) > 120 {
		cut := 117
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "..."
	}
	return s
}
