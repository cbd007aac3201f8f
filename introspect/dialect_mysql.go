package introspect

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// mysqlDialect is MySQL's and MariaDB's Dialect.
type mysqlDialect struct{}

func (mysqlDialect) Engine() Engine { return MySQL }

func (mysqlDialect) QuoteIdent(name string) string {
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}

func (d mysqlDialect) TableRef(t *Table) string { return d.QuoteIdent(t.Name) }

func (mysqlDialect) DefaultSchema() string   { return "" }
func (mysqlDialect) UnquotedKeepsCase() bool { return true }
func (mysqlDialect) BackslashEscapes() bool  { return true }
func (mysqlDialect) Placeholder(int) string  { return "?" }

// SessionSettings: TIMESTAMP values read as UTC.
func (mysqlDialect) SessionSettings() map[string]string {
	return map[string]string{"time_zone": "'+00:00'"}
}

// ReadColumn: a spatial value as its WKT, with "SRID=n;" in front when its
// SRID is not 0 (PostGIS's EWKT form), so that the SRID the bare WKT
// leaves out is not lost.
//
// Text in a character set that is not UTF-8 (Column.Charset) is converted
// by the server, which sends '?' for a byte the charset has no Unicode
// character for (an ascii column accepts 0xE9 even in strict mode). Such a
// column is read converted only when the conversion goes back to the same
// bytes; otherwise its bytes come with a leading 0xFF, which no UTF-8 text
// starts with, and the reader turns them into an error value.
func (d mysqlDialect) ReadColumn(c *Column, q string) string {
	switch {
	case c == nil:
	case c.Read != "":
		return d.readAs(c, q)
	case c.Kind == KindGeometry:
		return "IF(ST_SRID(" + q + ") = 0, ST_AsText(" + q + "), CONCAT('SRID=', ST_SRID(" + q + "), ';', ST_AsText(" + q + "))) AS " + q
	case c.Charset != "" && isCharsetName(c.Charset):
		return myConverted(c, q) + " AS " + q
	}
	return q
}

// readAs is the select-list expression of column c with a Read form.
func (d mysqlDialect) readAs(c *Column, q string) string {
	expr := q
	switch {
	case c.Read == ReadBytes && c.Kind == KindGeometry:
		expr = "CONCAT(UNHEX(LPAD(HEX(ST_SRID(" + q + ")), 8, '0')), ST_AsBinary(" + q + "))"
	case c.Read == ReadGeoJSON:
		expr = "IF(ST_SRID(" + q + ") = 0, ST_AsGeoJSON(" + q + "), " + withCRS("ST_SRID("+q+")", "ST_AsGeoJSON("+q+")", "CONCAT", "SUBSTRING") + ")"
	case c.Read == ReadBytes && c.Charset != "" && isCharsetName(c.Charset):
		expr = myConverted(c, q)
	}
	return expr + " AS " + d.QuoteIdent(c.Name)
}

// myConverted is text column c (quoted as q) converted to UTF-8 when that
// loses nothing, else its bytes after a 0xFF mark (see ReadColumn).
func myConverted(c *Column, q string) string {
	utf8 := "CONVERT(" + q + " USING utf8mb4)"
	raw := "CAST(" + q + " AS BINARY)"
	return "IF(CAST(CONVERT(" + utf8 + " USING " + c.Charset + ") AS BINARY) = " + raw + ", " + utf8 + ", CONCAT(X'FF', " + raw + "))"
}

// isCharsetName reports whether s can be pasted into SQL as a character
// set name (they are words like latin1, cp1251, utf16le).
func isCharsetName(s string) bool {
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return s != ""
}

var myDecimalType = regexp.MustCompile(`^(?i)(decimal|numeric)\((\d+)(?:,\s*(\d+))?\)`)

// KeyArg: MySQL gets typed values. A MySQL ENUM sorts by its members'
// order but compares as text, so it cannot bound a range; nor can a column
// in a character set other than UTF-8 (conversions).
func (mysqlDialect) KeyArg(c *Column, v any) (arg any, wrap string, ok bool) {
	if !keyValueOK(c, v) {
		return nil, "", false
	}
	switch c.Kind {
	case KindInt:
		switch x := v.(type) {
		case int64:
			return x, "", true
		case string:
			u, err := strconv.ParseUint(x, 10, 64)
			return u, "", err == nil
		}
	case KindDecimal:
		x, ok := v.(string)
		if !ok {
			return nil, "", false
		}
		m := myDecimalType.FindStringSubmatch(c.Type)
		if m == nil {
			return nil, "", false
		}
		scale := m[3]
		if scale == "" {
			scale = "0"
		}
		return x, "CAST(%s AS DECIMAL(" + m[2] + "," + scale + "))", true
	case KindFloat:
		x, ok := v.(float64)
		if !ok {
			return nil, "", false
		}
		return x, "", !math.IsNaN(x) && !math.IsInf(x, 0)
	case KindBool:
		x, ok := v.(bool)
		if !ok {
			return nil, "", false
		}
		return x, "", true
	case KindString, KindTime:
		x, ok := v.(string)
		if !ok {
			return nil, "", false
		}
		if c.Values != nil || c.Charset != "" {
			return nil, "", false // an ENUM sorts by member, compares as text; other charsets: conversions
		}
		return x, "", true
	case KindBytes:
		x, ok := v.([]byte)
		if !ok {
			return nil, "", false
		}
		return x, "", true
	case KindDate, KindTimestamp, KindTimestampTZ:
		x, ok := v.(time.Time)
		if !ok || x.Year() < 1 || x.Year() > 9999 {
			return nil, "", false
		}
		return x.UTC(), "", true
	}
	return nil, "", false
}

func (d mysqlDialect) RangeCond(t *Table, after, upTo []any) (string, []any, error) {
	return rangeCond(d, t, after, upTo)
}

func (mysqlDialect) nullsLast() bool  { return false }
func (mysqlDialect) rowCompare() bool { return false }

func (mysqlDialect) BytesAsHexText() bool { return false }

// IntAsBytes: bit(n) arrives as big-endian bytes, which may happen to be
// digits (b'00110001' is "1").
func (mysqlDialect) IntAsBytes(c *Column) bool        { return c != nil && strings.HasPrefix(c.Type, "bit") }
func (mysqlDialect) ZonedTimestampText() bool         { return false }
func (mysqlDialect) MarksUnconvertibleText() bool     { return true }
func (mysqlDialect) SpaceSeparatedArray(*Column) bool { return false }

// IntegerBool: a tinyint(1) is read as a boolean (BOOLEAN is an alias of
// it) but holds any of -128..127.
func (mysqlDialect) IntegerBool(c *Column) bool {
	return c != nil && c.Kind == KindBool && strings.HasPrefix(strings.ToLower(c.Type), "tinyint")
}

func (mysqlDialect) LocalisedMoney() bool      { return false }
func (mysqlDialect) CollatedKeyEquality() bool { return true }
func (mysqlDialect) DistinctStatistics() string {
	return "information_schema.STATISTICS.CARDINALITY"
}

func (mysqlDialect) StatementStatistics(max int) StatementStatistics {
	return StatementStatistics{
		From:  "performance_schema.events_statements_summary_by_digest",
		Probe: "SELECT @@performance_schema",
		Unavailable: func(on string) string {
			if on == "0" || strings.EqualFold(on, "off") || on == "false" {
				return "performance_schema is off (performance_schema = ON in the server's configuration, and a restart, turns it on)"
			}
			return ""
		},
		Query: fmt.Sprintf(`SELECT DIGEST_TEXT, COUNT_STAR FROM performance_schema.events_statements_summary_by_digest
WHERE SCHEMA_NAME = DATABASE() AND DIGEST_TEXT LIKE 'SELECT%%' AND DIGEST_TEXT LIKE '%% FROM %%'
AND DIGEST_TEXT NOT LIKE '%%information_schema%%' AND DIGEST_TEXT NOT LIKE '%%performance_schema%%'
ORDER BY COUNT_STAR DESC, DIGEST_TEXT LIMIT %d`, max),
	}
}

// OracleRow: JSON_OBJECT keyed by the columns' positions: no column name
// has to be written as an SQL string literal (whose escaping depends on
// sql_mode). Conditions and the stored columns typed attributes read in
// another form are left out; ref is not needed (the columns are
// unqualified).
func (d mysqlDialect) OracleRow(t *Table, _ string) (string, []string) {
	keys := make([]string, len(t.Columns))
	args := make([]string, 0, 2*len(t.Columns))
	typed := typedFrom(t)
	for i, c := range t.Columns {
		if c.Expr != "" || typed[c.Name] {
			continue // a condition, or a column a typed attribute reads in another form
		}
		keys[i] = strconv.Itoa(i)
		if c.From != "" { // a column a typed attribute reads in another form
			args = append(args, "'"+keys[i]+"'", d.typedJSONExpr(c))
			continue
		}
		if d.RawJSONColumn(t, c) { // the document's text
			args = append(args, "'"+keys[i]+"'", "CAST("+d.QuoteIdent(c.Name)+" AS CHAR CHARACTER SET utf8mb4)")
			continue
		}
		args = append(args, "'"+keys[i]+"'", d.jsonExpr(c))
	}
	return "JSON_OBJECT(" + strings.Join(args, ", ") + ")", keys
}

// OracleChildRows: only the columns the elements hold (and the map key):
// the aggregate is capped by group_concat_max_len (1 MB by default on
// MariaDB), which a large excluded column would fill.
func (d mysqlDialect) OracleChildRows(child *Table, used map[int]bool, order string) (string, []string) {
	keys := make([]string, 0, len(child.Columns))
	args := make([]string, 0, 2*len(child.Columns))
	for j, c := range child.Columns {
		keys = append(keys, strconv.Itoa(j))
		switch {
		case !used[j]:
		case d.RawJSONColumn(child, c): // the document's text
			args = append(args, "'"+strconv.Itoa(j)+"'", "CAST("+d.QuoteIdent(c.Name)+" AS CHAR CHARACTER SET utf8mb4)")
		default:
			args = append(args, "'"+strconv.Itoa(j)+"'", d.jsonExpr(c))
		}
	}
	return "JSON_ARRAYAGG(JSON_OBJECT(" + strings.Join(args, ", ") + ") ORDER BY " + order + ")", keys
}

// RawJSONColumn: a MariaDB JSON column is text the oracle would otherwise
// decode into a map.
func (mysqlDialect) RawJSONColumn(t *Table, c *Column) bool { return rawJSONCandidate(t, c) }

func (mysqlDialect) SinglePrecision(c *Column) bool {
	return strings.HasPrefix(strings.ToLower(c.Type), "float")
}

// jsonExpr is the expression JSON_OBJECT renders for column c. Where the
// plain column would come out lossy or as invalid JSON, it asks the engine
// for an exact form: bytes as hex (MariaDB puts raw bytes in a JSON string),
// FLOAT widened to DOUBLE (MariaDB prints a FLOAT with 6 digits), BIT and
// YEAR as unsigned numbers (MariaDB prints BIT's raw bytes unquoted, and the
// YEAR 0 as 0000, which is no JSON number).
func (d mysqlDialect) jsonExpr(c *Column) string {
	col := d.QuoteIdent(c.Name)
	typ := strings.ToLower(c.Type)
	switch {
	case c.Kind == KindBytes:
		return "HEX(" + col + ")"
	case c.Kind == KindGeometry: // the engine's WKT (EWKT with an SRID)
		return "IF(ST_SRID(" + col + ") = 0, ST_AsText(" + col + "), CONCAT('SRID=', ST_SRID(" + col + "), ';', ST_AsText(" + col + ")))"
	case c.Kind == KindFloat && strings.HasPrefix(typ, "float"):
		return "CAST(" + col + " AS DOUBLE)"
	case c.Kind == KindInt && (strings.HasPrefix(typ, "bit") || strings.HasPrefix(typ, "year")):
		return "CAST(" + col + " AS UNSIGNED)"
	}
	return col
}

// typedJSONExpr is what JSON_OBJECT renders for a column that reads a
// stored column in another form (Column.From).
func (d mysqlDialect) typedJSONExpr(c *Column) string {
	col := d.QuoteIdent(c.From)
	if c.Read == ReadInteger { // JSON_OBJECT renders the integer as a number
		return col
	}
	if c.Kind == KindGeometry && c.Read == ReadGeoJSON {
		return "IF(ST_SRID(" + col + ") = 0, JSON_EXTRACT(ST_AsGeoJSON(" + col + "), '$'), JSON_INSERT(ST_AsGeoJSON(" + col + "), '$.crs', " +
			"JSON_OBJECT('type', 'name', 'properties', JSON_OBJECT('name', CONCAT('EPSG:', ST_SRID(" + col + "))))))"
	}
	if c.Kind == KindGeometry {
		return "CONCAT(ST_SRID(" + col + "), ':', HEX(ST_AsBinary(" + col + ")))"
	}
	// CONVERT is explicit: MariaDB 10.11 renders a JSON_ARRAY over a column
	// whose bytes do not convert as NULL, for that row and every later one.
	return "IF(" + col + " IS NULL, NULL, JSON_ARRAY(CONVERT(" + col + " USING utf8mb4), HEX(CAST(" + col + " AS BINARY))))"
}

func (mysqlDialect) StreamHasWholeRows() bool  { return true }
func (mysqlDialect) NeedsPublication() bool    { return false }
func (mysqlDialect) KeepsStreamPosition() bool { return false }

// SpatialFromText: MySQL's ST_GeomFromText takes the SRID apart from the
// WKT, which the text holds in one: not written back.
func (mysqlDialect) SpatialFromText(*Column, string) string { return "" }
