package introspect

import (
	"encoding/hex"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// postgresDialect is PostgreSQL's Dialect.
type postgresDialect struct{}

func (postgresDialect) Engine() Engine { return Postgres }

func (postgresDialect) QuoteIdent(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

func (d postgresDialect) TableRef(t *Table) string {
	return d.QuoteIdent(t.Schema) + "." + d.QuoteIdent(t.Name)
}

func (postgresDialect) DefaultSchema() string    { return "public" }
func (postgresDialect) UnquotedKeepsCase() bool  { return false }
func (postgresDialect) BackslashEscapes() bool   { return false }
func (postgresDialect) Placeholder(i int) string { return "$" + strconv.Itoa(i) }

func (postgresDialect) SessionSettings() map[string]string {
	return map[string]string{"TimeZone": "UTC", "DateStyle": "ISO, YMD", "bytea_output": "hex", "extra_float_digits": "3"}
}

// ReadColumn: PostGIS values as EWKT (WKT, with "SRID=n;" in front when
// the value has an SRID), not their hex EWKB, with every coordinate's
// shortest exact digits (pgWKT).
func (d postgresDialect) ReadColumn(c *Column, q string) string {
	if c != nil && c.Read != "" {
		return d.readAs(c, q)
	}
	if c != nil && c.Kind == KindGeometry {
		return pgWKT(q) + " AS " + q
	}
	return q
}

// readAs is the select-list expression of column c with a Read form.
func (d postgresDialect) readAs(c *Column, q string) string {
	expr := q
	switch {
	case c.Read == ReadBytes && c.Kind == KindGeometry:
		expr = "ST_AsEWKB((" + q + ")::geometry)" // geography has no ST_AsEWKB
	case c.Read == ReadGeoJSON:
		expr = pgGeoJSON(q)
	case c.Read == ReadNumeric:
		expr = "(" + q + ")::numeric"
	}
	return expr + " AS " + d.QuoteIdent(c.Name)
}

// pgWKT is the EWKT of the PostGIS geometry or geography q. ST_AsEWKT
// prints at most 15 significant digits unless told more (0.30000000000000004
// became 0.3): with 100 decimal digits PostGIS 3.1 and later print each
// coordinate in the shortest form that reads back as the same double.
func pgWKT(q string) string {
	return "ST_AsEWKT(" + q + ", 100)"
}

// pgGeoJSON is the GeoJSON of the PostGIS geometry or geography q, or the
// name of its type where GeoJSON has no form for it: ST_AsGeoJSON fails
// the whole statement on curves and polyhedral surfaces, drops M
// coordinates and turns a TIN into polygons. A geometry is written when
// its type and every part ST_Dump finds (none for an empty one) is a
// point, line string or polygon, or a collection of them, without M.
func pgGeoJSON(q string) string {
	g := "(" + q + ")::geometry"
	ok := "ST_Zmflag(" + g + ") IN (0, 2) AND ST_AsText(" + g + ", 0) !~ 'CURVE|CIRCULAR|SURFACE|TIN|TRIANGLE'"
	js := "ST_AsGeoJSON(" + g + ", 100, 0)" // options 0: no crs of PostGIS's own, no bbox
	return "CASE WHEN " + q + " IS NULL THEN NULL WHEN NOT (" + ok + ") THEN GeometryType(" + g + ")" +
		" WHEN ST_SRID(" + g + ") = 0 THEN " + js + " ELSE " + withCRS("ST_SRID("+g+")", js, "concat", "substr") + " END"
}

// KeyArg: PostgreSQL gets every value as text (pgx sends a string in text
// format, and the server reads it as the column's type): the text
// PostgreSQL itself prints, so nothing is lost.
func (postgresDialect) KeyArg(c *Column, v any) (arg any, wrap string, ok bool) {
	if !keyValueOK(c, v) {
		return nil, "", false
	}
	switch c.Kind {
	case KindInt:
		switch x := v.(type) {
		case int64:
			return strconv.FormatInt(x, 10), "", true
		case string:
			return x, "", true
		}
	case KindDecimal:
		x, ok := v.(string)
		if !ok {
			return nil, "", false
		}
		return x, "", true
	case KindFloat:
		x, ok := v.(float64)
		if !ok {
			return nil, "", false
		}
		switch {
		case math.IsNaN(x):
			return "NaN", "", true
		case math.IsInf(x, 1):
			return "Infinity", "", true
		case math.IsInf(x, -1):
			return "-Infinity", "", true
		}
		return strconv.FormatFloat(x, 'g', -1, 64), "", true
	case KindBool:
		x, ok := v.(bool)
		if !ok {
			return nil, "", false
		}
		return strconv.FormatBool(x), "", true
	case KindString, KindTime:
		x, ok := v.(string)
		if !ok {
			return nil, "", false
		}
		return x, "", true
	case KindBytes:
		x, ok := v.([]byte)
		if !ok {
			return nil, "", false
		}
		return `\x` + hex.EncodeToString(x), "", true
	case KindDate, KindTimestamp, KindTimestampTZ:
		x, ok := v.(time.Time)
		if !ok || x.Year() < 1 || x.Year() > 9999 {
			return nil, "", false
		}
		x = x.UTC()
		switch c.Kind {
		case KindDate:
			return x.Format("2006-01-02"), "", true
		case KindTimestamp:
			return x.Format("2006-01-02 15:04:05.999999999"), "", true
		}
		return x.Format("2006-01-02 15:04:05.999999999") + "+00", "", true
	}
	return nil, "", false
}

func (d postgresDialect) RangeCond(t *Table, after, upTo []any) (string, []any, error) {
	return rangeCond(d, t, after, upTo)
}

func (postgresDialect) nullsLast() bool  { return true }
func (postgresDialect) rowCompare() bool { return true }

func (postgresDialect) BytesAsHexText() bool         { return true }
func (postgresDialect) IntAsBytes(*Column) bool      { return false }
func (postgresDialect) ZonedTimestampText() bool     { return true }
func (postgresDialect) MarksUnconvertibleText() bool { return false }

func (postgresDialect) IntegerBool(*Column) bool { return false }

func (postgresDialect) SpaceSeparatedArray(c *Column) bool {
	t := strings.ToLower(c.Type)
	return c.Kind == KindArray && (t == "int2vector" || t == "oidvector")
}

func (postgresDialect) LocalisedMoney() bool       { return true }
func (postgresDialect) CollatedKeyEquality() bool  { return false }
func (postgresDialect) DistinctStatistics() string { return "pg_stats.n_distinct" }

func (postgresDialect) StatementStatistics(max int) StatementStatistics {
	return StatementStatistics{
		From:  "pg_stat_statements",
		Probe: "SELECT count(*) FROM pg_extension WHERE extname = 'pg_stat_statements'",
		Unavailable: func(n string) string {
			if n == "0" {
				return "the extension pg_stat_statements is not installed in this database (CREATE EXTENSION pg_stat_statements, with the library in shared_preload_libraries)"
			}
			return ""
		},
		Query: fmt.Sprintf(`SELECT s.query, s.calls FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
WHERE d.datname = current_database() AND s.query ~* '^\s*select\M' AND s.query ~* '\mfrom\M'
AND s.query !~* '\m(pg_catalog|information_schema|pg_stat_statements|pg_extension)\M'
ORDER BY s.calls DESC, s.query LIMIT %d`, max),
	}
}

// OracleRow: the row's columns as one jsonb object (rowJSON), with the
// typed attributes' renderings (typedJSON); keys are the columns' names.
func (d postgresDialect) OracleRow(t *Table, ref string) (string, []string) {
	keys := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		keys[i] = c.Name
	}
	return d.typedJSON(t, d.rowJSON(t, ref)), keys
}

// rowJSON is the jsonb object of the stored columns of t (the row named
// ref) that typed attributes do not read in another form, each as
// to_jsonb renders it, but a RawJSONColumn as its text. It is built column
// by column (jsonb_build_object, at most 50 columns a call, joined by ||)
// rather than as to_jsonb of the whole row, which converts every json
// column to jsonb: a json document holding \u0000 or a lone surrogate
// escape, which a json column keeps as written, fails that conversion,
// and with it the statement of every row of the table.
func (d postgresDialect) rowJSON(t *Table, ref string) string {
	from := typedFrom(t)
	var pairs []string
	for _, c := range t.Columns {
		if c.From != "" || c.Expr != "" || from[c.Name] {
			continue
		}
		v := ref + "." + d.QuoteIdent(c.Name)
		if d.RawJSONColumn(t, c) {
			v = "(" + v + ")::text"
		} else {
			v = pgOracleText(c, v)
		}
		pairs = append(pairs, "'"+strings.ReplaceAll(c.Name, "'", "''")+"', "+v)
	}
	if len(pairs) == 0 {
		return "'{}'::jsonb"
	}
	var objs []string
	for len(pairs) > 0 {
		n := min(len(pairs), 50) // a function takes at most 100 arguments
		objs = append(objs, "jsonb_build_object("+strings.Join(pairs[:n], ", ")+")")
		pairs = pairs[n:]
	}
	if len(objs) == 1 {
		return objs[0]
	}
	return "(" + strings.Join(objs, " || ") + ")"
}

// textTypes are the built-in types read as text whose JSON rendering is
// always their text: pgOracleText leaves them as they are (a cast of
// character(n) to text would drop its padding).
var textTypes = []string{"text", "character", "char", "varchar", "bpchar", `"char"`, "name", "uuid", "inet", "cidr",
	"macaddr", "interval", "xml", "money", "bit", "tsvector", "tsquery", "citext"}

// pgOracleText is the oracle's rendering of column c (the value v): as
// to_jsonb renders it, but a column read as text (or an array of such
// elements) whose type has its own JSON rendering (a composite type as an
// object of its fields, hstore as an object of its pairs, any type with a
// cast to json) as the type's text, which is what migrate stores, so that
// the values are compared exactly: the object does not say how its text
// writes a timestamp, a boolean or a quote. An array of them becomes the
// array of its elements' texts, of the same dimensions.
func pgOracleText(c *Column, v string) string {
	typ := strings.ToLower(strings.TrimSuffix(c.Type, "[]"))
	if len(c.Values) > 0 || slices.ContainsFunc(textTypes, func(p string) bool { return typ == p || strings.HasPrefix(typ, p+"(") || strings.HasPrefix(typ, p+" ") }) {
		return v
	}
	// A JSON value with something other than a string, null or array in
	// it (jsonb_path_exists in strict mode: .** visits every level).
	structured := "jsonb_path_exists(to_jsonb(" + v + "), 'strict $.** ? (@.type() != \"string\" && @.type() != \"null\" && @.type() != \"array\")')"
	switch {
	case c.Kind == KindString:
		return "CASE WHEN " + structured + " THEN to_jsonb((" + v + ")::text) ELSE to_jsonb(" + v + ") END"
	case c.Kind == KindArray && c.Elem == KindString:
		return "CASE WHEN " + structured + " THEN to_jsonb((" + v + ")::text[]) ELSE to_jsonb(" + v + ") END"
	}
	return v
}

// OracleChildRows: each child row as the entity's row is rendered
// (rowJSON, typedJSON): json documents as their text, PostGIS columns as
// EWKT.
func (d postgresDialect) OracleChildRows(child *Table, _ map[int]bool, order string) (string, []string) {
	keys := make([]string, 0, len(child.Columns))
	for _, c := range child.Columns {
		keys = append(keys, c.Name)
	}
	return "json_agg(" + d.typedJSON(child, d.rowJSON(child, "c")) + " ORDER BY " + order + ")", keys
}

// RawJSONColumn: to_jsonb parses a json column's text (keeping the last of
// a key held twice); a jsonb column cannot hold a key twice.
func (postgresDialect) RawJSONColumn(t *Table, c *Column) bool {
	return rawJSONCandidate(t, c) && strings.EqualFold(c.Type, "json")
}

func (postgresDialect) SinglePrecision(c *Column) bool {
	t := strings.ToLower(c.Type)
	return t == "real" || t == "float4"
}

// typedJSON is row, the to_jsonb rendering of a row, without the stored
// columns typed attributes read in another form (typedFrom) and with those
// renderings added under the names of t's columns that read them.
func (d postgresDialect) typedJSON(t *Table, row string) string {
	var spatial []*Column
	for _, c := range t.Columns {
		if c.Kind == KindGeometry && c.From == "" && c.Expr == "" && !typedFrom(t)[c.Name] {
			spatial = append(spatial, c)
		}
	}
	if len(typedFrom(t)) == 0 && len(spatial) == 0 {
		return row
	}
	var b strings.Builder
	b.WriteString("(" + row)
	for _, from := range slices.Sorted(maps.Keys(typedFrom(t))) {
		b.WriteString(" - '" + strings.ReplaceAll(from, "'", "''") + "'")
	}
	b.WriteString(")")
	for _, c := range t.Columns {
		if c.From == "" {
			continue
		}
		col := d.QuoteIdent(c.From)
		var expr string
		switch {
		case c.Read == ReadNumeric:
			expr = "(" + col + ")::numeric"
		case c.Read == ReadInteger:
			expr = col
		case c.Kind == KindGeometry && c.Read == ReadGeoJSON:
			expr = pgOracleGeoJSON(col)
		case c.Kind == KindGeometry:
			expr = "ST_SRID(" + col + ") || ':' || encode(ST_AsEWKB(ST_SetSRID((" + col + ")::geometry, 0)), 'hex')"
		default:
			expr = "CASE WHEN current_setting('server_encoding') IN ('UTF8', 'SQL_ASCII') THEN textsend(" + col + "::text) ELSE convert_to(" + col + "::text, 'UTF8') END"
		}
		b.WriteString(" || jsonb_build_object('" + strings.ReplaceAll(c.Name, "'", "''") + "', " + expr + ")")
	}
	for _, c := range spatial {
		b.WriteString(" || jsonb_build_object('" + strings.ReplaceAll(c.Name, "'", "''") + "', ST_AsEWKT(" + d.QuoteIdent(c.Name) + ", 100))")
	}
	return b.String()
}

// pgOracleGeoJSON is the GeoJSON of PostGIS value col as jsonb, with a crs
// member when its SRID is not 0, or JSON null where GeoJSON has no form
// for the value (ST_AsGeoJSON would fail the statement or drop M).
func pgOracleGeoJSON(col string) string {
	g := "(" + col + ")::geometry"
	return "CASE WHEN ST_Zmflag(" + g + ") IN (0, 2) AND ST_AsText(" + g + ", 0) !~ 'CURVE|CIRCULAR|SURFACE|TIN|TRIANGLE'" +
		" THEN ST_AsGeoJSON(" + g + ", 100, 0)::jsonb || CASE WHEN ST_SRID(" + g + ") = 0 THEN '{}'::jsonb" +
		" ELSE jsonb_build_object('crs', jsonb_build_object('type', 'name', 'properties', jsonb_build_object('name', 'EPSG:' || ST_SRID(" + g + ")))) END END"
}

func (postgresDialect) StreamHasWholeRows() bool  { return false }
func (postgresDialect) NeedsPublication() bool    { return true }
func (postgresDialect) KeepsStreamPosition() bool { return true }

// SpatialFromText: PostGIS reads EWKT as geometry and geography, and the
// cast to the column's type checks its typmod.
func (postgresDialect) SpatialFromText(c *Column, p string) string { return p + "::" + c.Type }
