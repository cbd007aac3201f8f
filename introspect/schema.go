package introspect

import (
	"context"
	"fmt"
	"strings"
)

// Engine names a source database engine.
type Engine string

// The engines remodel reads from.
const (
	Postgres Engine = "postgres"
	MySQL    Engine = "mysql"
)

// The forms a reader can be asked for (Column.Read).
const (
	// ReadBytes reads text as its bytes, unchecked: the UTF-8 text, or the
	// stored bytes where they are not valid UTF-8 (a PostgreSQL SQL_ASCII
	// database) or do not convert from their MySQL character set; and a
	// spatial value as its WKB (EWKB, with the SRID, when that is not 0).
	ReadBytes = "bytes"
	// ReadNumeric reads a PostgreSQL money value as numeric: its exact
	// value, whatever lc_monetary says about printing it.
	ReadNumeric = "numeric"
	// ReadGeoJSON reads a spatial value as the engine's GeoJSON (a JSON
	// object, with a "crs" member naming EPSG:n when the SRID n is not 0),
	// or, for a value GeoJSON has no form for (PostGIS curves, TINs,
	// polyhedral surfaces, M coordinates), the name of its type, which is
	// not JSON and so rejects the row.
	ReadGeoJSON = "geojson"
	// ReadInteger reads a boolean the engine stores as an integer (MySQL's
	// tinyint(1), Dialect.IntegerBool) as the integer it holds: 2 is 2,
	// not true.
	ReadInteger = "integer"
)

// Kind is the canonical category of a column type. It decides how values of
// the column are decoded from the source and converted to DynamoDB.
type Kind string

// Column kinds. Types that have no better home (uuid, inet, interval, money,
// enum, xml, tsvector, ...) are KindString and are read as text.
const (
	KindInt         Kind = "int"         // smallint, integer, bigint, serial, MySQL int types (not tinyint(1))
	KindDecimal     Kind = "decimal"     // numeric, decimal: exact decimal text
	KindFloat       Kind = "float"       // real, double precision, float, double
	KindBool        Kind = "bool"        // boolean, MySQL tinyint(1)
	KindString      Kind = "string"      // text types and everything read as text
	KindBytes       Kind = "bytes"       // bytea, blob, binary, varbinary
	KindDate        Kind = "date"        // date
	KindTime        Kind = "time"        // time without date
	KindTimestamp   Kind = "timestamp"   // timestamp without time zone, MySQL datetime
	KindTimestampTZ Kind = "timestamptz" // timestamp with time zone, MySQL timestamp (stored as UTC)
	KindJSON        Kind = "json"        // json, jsonb, MariaDB longtext CHECK (json_valid(...))
	KindArray       Kind = "array"       // PostgreSQL arrays; Column.Elem holds the element kind
	KindSet         Kind = "set"         // MySQL SET
	// KindGeometry is a spatial type: MySQL/MariaDB POINT, LINESTRING,
	// POLYGON, MULTI*, GEOMETRYCOLLECTION, GEOMETRY, and PostGIS geometry and
	// geography. The engine stores these in a binary form that is neither
	// text nor a standard format (MySQL prefixes WKB with an SRID); package
	// source selects them through the engine's own WKT function instead of
	// reading the stored bytes. A column kind of its own lets a reader choose
	// another function for it (ST_AsBinary for WKB) without touching text
	// columns.
	KindGeometry Kind = "geometry"
)

// HasFraction reports whether values of k carry fractional seconds (and
// Column.Precision says how many digits).
func (k Kind) HasFraction() bool {
	switch k {
	case KindTime, KindTimestamp, KindTimestampTZ:
		return true
	}
	return false
}

// DefaultCountLimit is how many bytes of table data an inspector reads, in
// all, to count the rows of tables whose statistics cannot be trusted (never
// analysed, or analysed while empty) instead of calling their row counts
// unknown: the smallest such tables are counted first, while their sizes
// add up to at most this. Reading 32 MiB takes a fraction of a second.
const DefaultCountLimit int64 = 32 << 20

// Schema is the ERD of one source database.
type Schema struct {
	Engine   Engine `json:"engine"`
	Database string `json:"database"`
	// Tables are the tables and views, in order of schema, then name.
	Tables []*Table `json:"tables"`
	// Queries describe the result of SELECT statements a mapping reads
	// from (an entity's query:), keyed by the statement's text. No
	// inspector fills them: the caller asks the source to describe each
	// query (see source.Source.QueryColumns) and adds it with AddQuery.
	Queries map[string]*Table `json:"queries,omitempty"`
}

// Table is one base table (or partitioned parent table), a view, or the
// result of a query.
type Table struct {
	// Schema is the PostgreSQL schema (namespace) or the MySQL database;
	// empty for a query.
	Schema string `json:"schema"`
	Name   string `json:"name"`
	// Comment is the table's comment (COMMENT ON TABLE, MySQL's
	// TABLE_COMMENT); empty when it has none.
	Comment    string    `json:"comment,omitempty"`
	Columns    []*Column `json:"columns"`
	PrimaryKey []string  `json:"primary_key,omitempty"`
	// KeyDesc marks the PrimaryKey columns a reader sorts in descending
	// order (the order of an embed's child rows); nil for all ascending.
	KeyDesc []bool `json:"-"`
	// UniqueKeys are the other sets of columns whose values the engine
	// keeps unique: UNIQUE constraints, and unique indexes on plain
	// columns that have no predicate (a partial or expression index is
	// only listed in Indexes). By name.
	UniqueKeys  []UniqueKey  `json:"unique_keys,omitempty"`
	ForeignKeys []ForeignKey `json:"foreign_keys,omitempty"`
	// PartitionForeignKeys are the foreign keys that some leaf partitions
	// of a partitioned table declare, but not all of them nor the table
	// itself (Pagila's payment declares its keys on 6 of its 7
	// partitions): they do not hold for the table's rows, so they are not
	// among ForeignKeys. By name.
	PartitionForeignKeys []PartitionForeignKey `json:"partition_foreign_keys,omitempty"`
	// Indexes are every index of the table, the ones behind the primary
	// key and unique constraints included, by name.
	Indexes []Index `json:"indexes,omitempty"`
	// Checks are the table's CHECK constraints, by name.
	Checks []Check `json:"checks,omitempty"`
	// Partitioning is set for a partitioned table: its partitions are
	// listed under it, never as tables of their own.
	Partitioning *Partitioning `json:"partitioning,omitempty"`
	// View marks a view (PostgreSQL: also a materialized view). A view has
	// no primary key: a mapping names the columns that identify its rows.
	// Its rows are never counted (Size is unknown).
	View bool `json:"view,omitempty"`
	// Unpopulated marks a PostgreSQL materialized view created WITH NO
	// DATA and not refreshed since: reading it is an error until REFRESH
	// MATERIALIZED VIEW.
	Unpopulated bool `json:"unpopulated,omitempty"`
	// Query is the SELECT statement whose result this table describes, or
	// "" for a table or view. A reader reads it as a derived table:
	// SELECT ... FROM (Query) AS q.
	Query string `json:"query,omitempty"`
	// Size is the table's row count and bytes, its partitions' summed
	// for a partitioned table.
	Size
}

// Size is how many rows a table (or a partition) holds and how much space
// it takes. The JSON form is flat in its table: row_count, row_estimate,
// data_bytes, index_bytes.
type Size struct {
	// RowCount is the exact number of rows, set only when it is known
	// exactly: counted, or known from the engine (an empty PostgreSQL
	// table has no pages; MyISAM and Aria keep an exact count).
	RowCount *int64 `json:"row_count,omitempty"`
	// RowEstimate is the number of rows as the engine's statistics tell
	// it, equal to RowCount when that is set. Nil (JSON null) when it is
	// unknown: a PostgreSQL table that was never analysed and is too large
	// to count (see the inspectors' packages).
	RowEstimate *int64 `json:"row_estimate"`
	// DataBytes is the space the rows take (PostgreSQL pg_table_size:
	// heap and TOAST; MySQL DATA_LENGTH).
	DataBytes int64 `json:"data_bytes"`
	// IndexBytes is the space the indexes take (pg_indexes_size,
	// INDEX_LENGTH).
	IndexBytes int64 `json:"index_bytes"`
}

// ExactRows returns a Size whose row count is exactly n.
func ExactRows(n int64) Size { return Size{RowCount: &n, RowEstimate: ptr(n)} }

// EstimatedRows returns a Size whose row count is about n.
func EstimatedRows(n int64) Size { return Size{RowEstimate: &n} }

func ptr(n int64) *int64 { return &n }

// Rows returns the number of rows and whether it is exact and known at
// all (n is 0 when it is not).
func (s Size) Rows() (n int64, exact, known bool) {
	switch {
	case s.RowCount != nil:
		return *s.RowCount, true, true
	case s.RowEstimate != nil:
		return *s.RowEstimate, false, true
	}
	return 0, false, false
}

// Add adds o to s: the sum is exact when both are, unknown when either
// is, an estimate otherwise.
func (s *Size) Add(o Size) {
	n1, e1, k1 := s.Rows()
	n2, e2, k2 := o.Rows()
	switch {
	case !k1 || !k2:
		s.RowCount, s.RowEstimate = nil, nil
	case e1 && e2:
		s.RowCount, s.RowEstimate = ptr(n1+n2), ptr(n1+n2)
	default:
		s.RowCount, s.RowEstimate = nil, ptr(n1+n2)
	}
	s.DataBytes += o.DataBytes
	s.IndexBytes += o.IndexBytes
}

// Column is one column of a table, in ordinal order.
type Column struct {
	Name string `json:"name"`
	// Type is the type as the engine declares it, e.g. "character varying(64)".
	Type     string `json:"type"`
	Kind     Kind   `json:"kind"`
	Nullable bool   `json:"nullable"`
	// Elem is the element kind of a KindArray column.
	Elem Kind `json:"elem,omitempty"`
	// Precision is the number of fractional-second digits of time kinds.
	Precision int `json:"precision,omitempty"`
	// Delim is the byte between the elements in the text form of a
	// KindArray column (pg_type.typdelim of the element type) when it is not
	// a comma: ";" for box[]. Empty means ",".
	Delim string `json:"delim,omitempty"`
	// Expr, when set, is an SQL condition over the other columns that a
	// reader selects under Name in place of a stored column, as a boolean
	// that is never NULL ((Expr) IS TRUE); Kind is then KindBool. Package
	// mapping adds such columns for what the source evaluates in the same
	// scan (a set attribute's when). An inspector never sets it.
	Expr string `json:"expr,omitempty"`
	// Read, when set, asks a reader for another form of a stored column
	// than its Kind's default (ReadBytes, ReadNumeric, ReadGeoJSON); From then names the
	// stored column, which the reader selects in that form under Name.
	// Package mapping adds such columns for attributes whose type the
	// mapping overrides (attributes.types). An inspector never sets them.
	Read string `json:"read,omitempty"`
	From string `json:"from,omitempty"`
	// Charset is the character set of a MySQL/MariaDB text column (char,
	// varchar, text types, enum, set) when it is not a UTF-8 one: latin1,
	// ascii, cp1251, ... Such text reaches a utf8mb4 connection through the
	// server's conversion, which turns a byte the charset has no Unicode
	// character for into '?'. Empty for utf8mb4 and utf8mb3 and for every
	// other column.
	Charset string `json:"charset,omitempty"`
	// Values are the members of an enum type (PostgreSQL enums, through
	// domains and as array elements too; MySQL ENUM) or of a MySQL SET, in
	// their declared order; nil for every other column.
	Values []string `json:"values,omitempty"`
	// Comment is the column's comment; empty when it has none.
	Comment string `json:"comment,omitempty"`
	// Distinct is how many distinct values the column holds as the
	// engine's statistics estimate them, next to the table's rows (Size):
	// PostgreSQL's pg_stats.n_distinct (a negative one is a share of the
	// rows, scaled by the row estimate; 0 with every value NULL is 0), for
	// a partitioned table the statistics of the whole tree; MySQL's and
	// MariaDB's CARDINALITY of an index whose first key part is the whole
	// column (InnoDB indexes every foreign key's columns). Nil when the
	// statistics say nothing (never analysed, no such index).
	Distinct *int64 `json:"distinct,omitempty"`
}

// UniqueKey is a set of columns whose values are unique in the table.
type UniqueKey struct {
	Name    string   `json:"name"`
	Columns []string `json:"columns"`
}

// Index is one index of a table.
type Index struct {
	Name string `json:"name"`
	// Columns are the index's key parts in order.
	Columns []IndexColumn `json:"columns"`
	// Include are the non-key columns of a covering index (PostgreSQL's
	// INCLUDE).
	Include []string `json:"include,omitempty"`
	Unique  bool     `json:"unique"`
	// Primary is set for the index behind the primary key.
	Primary bool `json:"primary,omitempty"`
	// Method is the access method as the engine names it: btree, hash,
	// gin, gist, brin (PostgreSQL); BTREE, HASH, FULLTEXT, SPATIAL (MySQL).
	Method string `json:"method"`
	// Where is the predicate of a partial index (PostgreSQL).
	Where string `json:"where,omitempty"`
}

// IndexColumn is one key part of an index: a column or an expression.
type IndexColumn struct {
	Column string `json:"column,omitempty"`
	// Expression is the key part's expression when it is not a plain
	// column, as the engine prints it: lower(email).
	Expression string `json:"expression,omitempty"`
	// Desc is set for a descending key part.
	Desc bool `json:"desc,omitempty"`
	// Prefix is the number of leading characters (bytes for binary
	// types) indexed, for a MySQL prefix index; 0 means the whole value.
	Prefix int `json:"prefix,omitempty"`
}

// Check is a CHECK constraint of a table.
type Check struct {
	Name string `json:"name"`
	// Expression is the condition as the engine prints it.
	Expression string `json:"expression"`
}

// Partitioning is how a partitioned table splits its rows.
type Partitioning struct {
	// Strategy is range, list or hash (PostgreSQL), or MySQL's method in
	// lower case: range, list, hash, key, range columns, linear hash, ...
	Strategy string `json:"strategy"`
	// Key is the partition key as the engine prints it: payment_date,
	// year(`d`).
	Key string `json:"key"`
	// Partitions are the partitions: by name (PostgreSQL), in their
	// declared order (MySQL).
	Partitions []*Partition `json:"partitions"`
}

// Partition is one partition of a partitioned table.
type Partition struct {
	// Schema is the PostgreSQL schema of the partition (which may differ
	// from its parent's); empty for MySQL, whose partitions are not
	// tables.
	Schema string `json:"schema,omitempty"`
	Name   string `json:"name"`
	// Bound says which rows the partition holds, as the engine prints
	// it: FOR VALUES FROM ('2022-01-01') TO ('2022-02-01'), DEFAULT,
	// VALUES LESS THAN (2024). Empty for hash and key partitions of MySQL.
	Bound string `json:"bound,omitempty"`
	// Partitioning is set when the partition is partitioned again.
	Partitioning *Partitioning `json:"partitioning,omitempty"`
	Size
}

// ForeignKey is a foreign key constraint of a table.
type ForeignKey struct {
	Name       string   `json:"name"`
	Columns    []string `json:"columns"`
	RefSchema  string   `json:"ref_schema"`
	RefTable   string   `json:"ref_table"`
	RefColumns []string `json:"ref_columns"`
}

// PartitionForeignKey is a foreign key declared on some of the leaf
// partitions of a partitioned table: named after the first of their
// constraints by name, with the partitions (schema.name, by name) that
// declare it and those that do not.
type PartitionForeignKey struct {
	ForeignKey
	DeclaredOn []PartitionName `json:"declared_on"`
	MissingOn  []PartitionName `json:"missing_on"`
}

// PartitionName names a leaf partition.
type PartitionName struct {
	Schema string `json:"schema"`
	Name   string `json:"name"`
}

func (p PartitionName) String() string { return p.Schema + "." + p.Name }

// PartitionNames joins names with ", ".
func PartitionNames(names []PartitionName) string {
	s := make([]string, len(names))
	for i, n := range names {
		s[i] = n.String()
	}
	return strings.Join(s, ", ")
}

// Inspector reads the schema of one database.
type Inspector interface {
	Inspect(ctx context.Context) (*Schema, error)
}

// QualifiedName is schema.name.
func (t *Table) QualifiedName() string { return t.Schema + "." + t.Name }

// Label names the table in messages: "table public.users", "view
// public.active_users", or "query" (with its Name after it when it has
// one: "query weekly").
func (t *Table) Label() string {
	switch {
	case t.Query != "" && t.Name != "":
		return "query " + t.Name
	case t.Query != "":
		return "query"
	case t.View:
		return "view " + t.QualifiedName()
	}
	return "table " + t.QualifiedName()
}

// DerivedTable is query q as a derived table named q, the form in which
// every reader reads a query: "(q\n) AS q" (the line break ends a -- comment
// that q may end with).
func DerivedTable(q string) string { return "(" + q + "\n) AS q" }

// AddQuery records the result columns of the query q (see Schema.Queries).
func (s *Schema) AddQuery(q string, cols []*Column) *Table {
	if s.Queries == nil {
		s.Queries = map[string]*Table{}
	}
	t := &Table{Columns: cols, Query: q}
	s.Queries[q] = t
	return t
}

// Query returns the described result of the query q, or nil.
func (s *Schema) Query(q string) *Table { return s.Queries[q] }

// ColumnIndex returns the index in t.Columns of the column with the
// given name, or -1.
func (t *Table) ColumnIndex(name string) int {
	for i, c := range t.Columns {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// Column returns the column with the given name, or nil.
func (t *Table) Column(name string) *Column {
	for _, c := range t.Columns {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// Table finds a table by "name" or "schema.name". An unqualified name
// matches a table in the default schema (public for PostgreSQL) first, then a
// table of that name in any schema if exactly one exists.
func (s *Schema) Table(name string) (*Table, error) {
	if sch, n, ok := strings.Cut(name, "."); ok {
		for _, t := range s.Tables {
			if t.Schema == sch && t.Name == n {
				return t, nil
			}
		}
		return nil, fmt.Errorf("no table %q", name)
	}
	var found []*Table
	def := s.Engine.Dialect().DefaultSchema()
	for _, t := range s.Tables {
		if t.Name == name {
			if def != "" && t.Schema == def {
				return t, nil
			}
			found = append(found, t)
		}
	}
	switch len(found) {
	case 0:
		return nil, fmt.Errorf("no table %q", name)
	case 1:
		return found[0], nil
	default:
		return nil, fmt.Errorf("table name %q is ambiguous: qualify it with its schema (%s or %s)", name, found[0].QualifiedName(), found[1].QualifiedName())
	}
}

// TableNames lists the tables' names, qualified with their schema when the
// engine has several schemas.
func (s *Schema) TableNames() []string {
	out := make([]string, 0, len(s.Tables))
	def := s.Engine.Dialect().DefaultSchema()
	for _, t := range s.Tables {
		if def != "" && t.Schema != def {
			out = append(out, t.QualifiedName())
		} else {
			out = append(out, t.Name)
		}
	}
	return out
}
