package introspect

import (
	"fmt"
	"strings"
)

// Dialect is what remodel's engine-neutral code asks about a source engine
// instead of testing which engine it is: how the engine's SQL names things
// and takes parameters, how a column is selected in the text form the
// readers decode and what that text looks like, how a key range is written,
// how verify's oracle renders a row as JSON, which session settings make
// the text forms canonical, and what the engine's change stream needs.
// Each engine has one implementation, in this package's dialect_ENGINE.go
// (dialect_postgres.go, dialect_mysql.go); Engine.Dialect gives it. Code
// outside those files and the per-engine packages (introspect/postgres,
// introspect/mysql, the engine's reader and stream files in package source)
// does not compare engines: a new engine is a new implementation here, an
// inspector beside the others and its readers.
//
// Every method is pure: no method talks to a database.
type Dialect interface {
	// Engine is the engine the dialect is of.
	Engine() Engine

	// QuoteIdent quotes an identifier: "name" on PostgreSQL, `name` on
	// MySQL, the quote character doubled inside. It is the one place
	// remodel quotes identifiers.
	QuoteIdent(name string) string
	// TableRef names table (or view) t: "schema"."name" on PostgreSQL;
	// `name` on MySQL, where the connection's database is the schema.
	TableRef(t *Table) string
	// DefaultSchema is the schema an unqualified table name means (public
	// on PostgreSQL), whose tables are named without it; "" where a
	// table's schema is the connection's database (MySQL): a name is
	// never qualified, and a qualifier names the database, not a schema.
	DefaultSchema() string
	// UnquotedKeepsCase reports whether an unquoted identifier means the
	// name as written, whatever its case (MySQL), rather than folded to
	// lower case (PostgreSQL): what may be left unquoted.
	UnquotedKeepsCase() bool
	// BackslashEscapes reports whether a backslash escapes a character in
	// the engine's string literals (MySQL's default sql_mode), for
	// parsing SQL as the engine reads it.
	BackslashEscapes() bool
	// Placeholder is the i-th (from 1) parameter marker: $1 or ?.
	Placeholder(i int) string

	// SessionSettings are the connection settings that make the text
	// forms the readers decode canonical (time zone UTC, ISO dates, hex
	// bytes, exact floats), whatever the server's defaults are: run-time
	// parameters on PostgreSQL, session variables on MySQL (values as SQL).
	SessionSettings() map[string]string
	// ReadColumn is the select-list expression that reads column c
	// (quoted as q) in the text form the readers decode: a spatial value
	// as EWKT, a column with a Read form in that form (under its own
	// name), MySQL text in another character set converted when that
	// loses nothing (else marked, see MarksUnconvertibleText).
	ReadColumn(c *Column, q string) string
	// KeyArg turns the canonical value v of key column c into the
	// parameter the engine compares with the column, and a format (with
	// one %s for the placeholder) that casts it when the engine needs
	// that; ok is false when v cannot bound a key range or name a row (a
	// NULL, an error value, a value the engine compares in another order
	// than it sorts the column).
	KeyArg(c *Column, v any) (arg any, wrap string, ok bool)
	// RangeCond is the condition selecting the rows of t whose key is
	// after the bound after (nil: from the first row) and up to upTo,
	// inclusive (nil: to the last), in the order the engine scans the key
	// (NULLs where the engine sorts them), with its parameters. A bound may
	// be a prefix of the key.
	RangeCond(t *Table, after, upTo []any) (string, []any, error)

	// BytesAsHexText reports whether a binary value's text form (as read
	// and as rendered in JSON) is \x and its hex digits (PostgreSQL's
	// bytea_output hex), not its bytes.
	BytesAsHexText() bool
	// IntAsBytes reports whether an integer value of column c comes as
	// its big-endian bytes, not its digits (MySQL's BIT(n)).
	IntAsBytes(c *Column) bool
	// ZonedTimestampText reports whether the text of a timestamp with
	// time zone carries its offset; otherwise it is in the session's time
	// zone, UTC.
	ZonedTimestampText() bool
	// IntegerBool reports whether boolean column c stores an integer,
	// which may be any of its type's values, not only 0 and 1 (MySQL's
	// tinyint(1)): a reader can read it as that integer (ReadInteger).
	IntegerBool(c *Column) bool
	// SpaceSeparatedArray reports whether the text of array column c is
	// its elements separated by spaces, without braces (PostgreSQL's
	// int2vector and oidvector: "1 2 3", "" when empty), rather than the
	// array text {1,2,3}.
	SpaceSeparatedArray(c *Column) bool
	// MarksUnconvertibleText reports whether ReadColumn selects text in a
	// character set other than UTF-8 as its stored bytes after a 0xFF
	// mark when it does not convert (MySQL).
	MarksUnconvertibleText() bool

	// LocalisedMoney reports whether the engine has a money type whose
	// text depends on the server's locale (PostgreSQL's money, read as
	// numeric when typed N).
	LocalisedMoney() bool
	// CollatedKeyEquality reports whether the engine compares key values
	// by the column's collation, so that distinct texts (case, accents,
	// trailing spaces) may count as equal (MySQL's default collations).
	CollatedKeyEquality() bool
	// DistinctStatistics names where the engine's distinct-value
	// estimates come from.
	DistinctStatistics() string
	// StatementStatistics is how the engine's statement statistics are
	// read, at most max statements.
	StatementStatistics(max int) StatementStatistics

	// OracleRow is the select-list expression rendering the row of t
	// (named ref in the statement) as one JSON object, as verify's
	// oracle reads it, and the object's key of each column of t ("" for
	// one the rendering leaves out).
	OracleRow(t *Table, ref string) (expr string, keys []string)
	// OracleChildRows is the aggregate rendering the rows of child (named
	// c in the statement), ordered by order, as a JSON array of objects,
	// and the objects' key of each column of child, each column as
	// OracleRow renders it (a RawJSONColumn as its document's text). used
	// marks the columns (by index) the rendering needs; an engine that
	// caps the aggregate's size renders only those.
	OracleChildRows(child *Table, used map[int]bool, order string) (agg string, keys []string)
	// RawJSONColumn reports whether OracleRow renders column c of t as its
	// JSON document's text rather than as JSON: a document column the
	// engine's JSON rendering of the row would parse, collapsing a key it
	// holds twice into one.
	RawJSONColumn(t *Table, c *Column) bool
	// SinglePrecision reports whether float column c holds 32-bit floats.
	SinglePrecision(c *Column) bool

	// StreamHasWholeRows reports whether the engine's change stream
	// carries a changed row's every column (a MySQL row binlog with
	// binlog_row_image=FULL), so that no table needs a setting for it
	// (PostgreSQL's REPLICA IDENTITY FULL).
	StreamHasWholeRows() bool
	// NeedsPublication reports whether the change stream is filtered by a
	// publication remodel names or creates (PostgreSQL); a MySQL binlog
	// holds every table.
	NeedsPublication() bool
	// KeepsStreamPosition reports whether the server keeps the change
	// stream's position for remodel (a PostgreSQL replication slot),
	// which is dropped when following ends.
	KeepsStreamPosition() bool

	// nullsLast reports whether NULL sorts after every value in the
	// scan's ascending key order (PostgreSQL; MySQL sorts it first).
	nullsLast() bool
	// rowCompare reports whether a key range over key columns that cannot
	// be NULL is written as one row comparison ((a, b) > ($1, $2)), which
	// the engine's indexes serve.
	rowCompare() bool
	// SpatialFromText is the expression that makes a value of spatial
	// column c from placeholder p, which holds the value's text as
	// ReadColumn reads it (EWKT: "SRID=n;" first when the SRID is not 0),
	// to write it back (follow-back); "" when the engine's spatial values
	// are not written back from that text.
	SpatialFromText(c *Column, p string) string
}

// StatementStatistics is how an engine's statement statistics are read
// (Dialect.StatementStatistics).
type StatementStatistics struct {
	// From names where they come from.
	From string
	// Probe is a query of one value, read first, that tells whether they
	// can be read.
	Probe string
	// Unavailable says why they cannot be read, given Probe's value; ""
	// when they can.
	Unavailable func(probe string) string
	// Query selects each statement's text and its number of calls, most
	// called first.
	Query string
}

// dialects are the engines' dialects.
var dialects = map[Engine]Dialect{
	Postgres: postgresDialect{},
	MySQL:    mysqlDialect{},
}

// Dialect is the engine's dialect. An engine remodel does not know (the
// zero Engine of a hand-built schema) gets PostgreSQL's, the quoting
// remodel has always defaulted to.
func (e Engine) Dialect() Dialect {
	if d, ok := dialects[e]; ok {
		return d
	}
	return postgresDialect{}
}

// Engines lists the engines remodel reads from, in a fixed order.
func Engines() []Engine { return []Engine{Postgres, MySQL} }

// rangeCond implements Dialect.RangeCond for dialect d.
func rangeCond(d Dialect, t *Table, after, upTo []any) (string, []any, error) {
	var args []any
	var conds []string
	for _, b := range []struct {
		bound []any
		after bool
	}{{after, true}, {upTo, false}} {
		if b.bound == nil {
			continue
		}
		c, err := afterCond(d, t, b.bound, func(v any) (string, error) {
			args = append(args, v)
			return d.Placeholder(len(args)), nil
		})
		if err != nil {
			return "", nil, err
		}
		if b.after {
			conds = append(conds, "("+c+")")
		} else {
			conds = append(conds, "(("+c+") IS NOT TRUE)")
		}
	}
	return strings.Join(conds, " AND "), args, nil
}

// afterCond is the condition "the row's key comes after k" in the scan's
// order. k may hold fewer values than the key has columns: then the first
// len(k) columns are compared (the rows whose key starts after k: the child
// rows of the parents after k, in an embed's scan, which is ordered by the
// parent's key first). With key columns that cannot be NULL, an engine that
// serves row comparisons compares rows ((a, b) > ($1, $2)); otherwise the
// comparison is spelled out column by column: a > ? OR (a = ? AND b > ?),
// and where NULLs sort last, a NULL counts as after any value.
func afterCond(d Dialect, t *Table, k []any, param func(any) (string, error)) (string, error) {
	if len(k) > len(t.PrimaryKey) || len(k) == 0 {
		return "", fmt.Errorf("source: a key bound of %d values for %s, whose key has %d columns", len(k), t.Label(), len(t.PrimaryKey))
	}
	cols := make([]*Column, len(k))
	nullable := false
	for i, name := range t.PrimaryKey[:len(k)] {
		if cols[i] = t.Column(name); cols[i] == nil {
			return "", fmt.Errorf("source: %s has no key column %s", t.Label(), name)
		}
		nullable = nullable || cols[i].Nullable
	}
	ident := d.QuoteIdent
	// value renders the i-th bound value as a parameter (a cast around it
	// where the engine needs one).
	value := func(i int) (string, error) {
		arg, wrap, ok := d.KeyArg(cols[i], k[i])
		if !ok {
			return "", fmt.Errorf("source: %s: the value %v of key column %s cannot bound a key range", t.Label(), k[i], cols[i].Name)
		}
		p, err := param(arg)
		if err != nil {
			return "", err
		}
		if wrap != "" {
			p = fmt.Sprintf(wrap, p)
		}
		return p, nil
	}
	if d.rowCompare() && !nullable {
		l := make([]string, len(k))
		r := make([]string, len(k))
		for i := range k {
			l[i] = ident(cols[i].Name)
			v, err := value(i)
			if err != nil {
				return "", err
			}
			r[i] = v
		}
		if len(k) == 1 {
			return l[0] + " > " + r[0], nil
		}
		return "(" + strings.Join(l, ", ") + ") > (" + strings.Join(r, ", ") + ")", nil
	}
	var ors []string
	for i := range k {
		var ands []string
		for j := 0; j < i; j++ {
			v, err := value(j)
			if err != nil {
				return "", err
			}
			ands = append(ands, ident(cols[j].Name)+" = "+v)
		}
		v, err := value(i)
		if err != nil {
			return "", err
		}
		gt := ident(cols[i].Name) + " > " + v
		if d.nullsLast() && cols[i].Nullable {
			gt = "(" + gt + " OR " + ident(cols[i].Name) + " IS NULL)"
		}
		ands = append(ands, gt)
		ors = append(ors, "("+strings.Join(ands, " AND ")+")")
	}
	return strings.Join(ors, " OR "), nil
}

// keyValueOK is the part of KeyArg both engines share: a NULL, an error
// value, a condition column cannot bound a range.
func keyValueOK(c *Column, v any) bool {
	if v == nil || c == nil || c.Expr != "" {
		return false
	}
	_, isErr := v.(error)
	return !isErr
}

// typedFrom is the set of t's stored columns that typed attributes read in
// another form (the From of t's columns).
func typedFrom(t *Table) map[string]bool {
	m := map[string]bool{}
	for _, c := range t.Columns {
		if c.From != "" {
			m[c.From] = true
		}
	}
	return m
}

// rawJSONCandidate is the part of RawJSONColumn both engines share: a
// document column that is neither read in another form nor a condition.
func rawJSONCandidate(t *Table, c *Column) bool {
	return c.Kind == KindJSON && c.From == "" && c.Expr == "" && !typedFrom(t)[c.Name]
}

// withCRS is the SQL that puts a "crs" member naming EPSG:srid first in
// the GeoJSON object js (text that starts with "{" and has a member), with
// the engine's concatenation and substring functions: the rest of the text
// is kept as the engine wrote it.
func withCRS(srid, js, concat, substr string) string {
	return concat + `('{"crs": {"type": "name", "properties": {"name": "EPSG:', ` + srid + `, '"}}, ', ` + substr + "(" + js + ", 2))"
}

// A column with a Read form (Column.Read) is a stored column (Column.From,
// quoted as q) selected by ReadColumn in another form than its kind's
// default, under the column's own name:
//
//	ReadBytes, spatial     PostgreSQL ST_AsEWKB(q); MySQL/MariaDB the SRID
//	                       (4 bytes, big-endian) and ST_AsBinary(q), made
//	                       into EWKB by the reader's decoding
//	ReadBytes, text        the text's bytes as the connection receives them
//	                       (UTF-8; a PostgreSQL SQL_ASCII database's stored
//	                       bytes); MySQL text in another character set
//	                       converted as ReadColumn does, or its stored bytes
//	                       when it does not convert
//	ReadNumeric            PostgreSQL (q)::numeric, for money
//	ReadGeoJSON            ST_AsGeoJSON(q) (PostGIS with 100 decimal digits,
//	                       the shortest exact form of each coordinate, and
//	                       options 0, without a crs of its own), with
//	                       a "crs" member {"type": "name", "properties":
//	                       {"name": "EPSG:n"}} put first when the SRID n is
//	                       not 0, the engine's text kept as it is; on PostGIS
//	                       a value GeoJSON has no form for (curves, TIN,
//	                       polyhedral surfaces, M coordinates, which
//	                       ST_AsGeoJSON refuses or drops) selects the name
//	                       of its type instead, an error value there
