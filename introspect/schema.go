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

// Schema is the ERD of one source database.
type Schema struct {
	Engine   Engine   `json:"engine"`
	Database string   `json:"database"`
	Tables   []*Table `json:"tables"`
}

// Table is one base table (or partitioned parent table).
type Table struct {
	// Schema is the PostgreSQL schema (namespace) or the MySQL database.
	Schema      string       `json:"schema"`
	Name        string       `json:"name"`
	Columns     []*Column    `json:"columns"`
	PrimaryKey  []string     `json:"primary_key,omitempty"`
	ForeignKeys []ForeignKey `json:"foreign_keys,omitempty"`
	// RowEstimate is the engine's statistics estimate, not an exact count.
	RowEstimate int64 `json:"row_estimate"`
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
	// Charset is the character set of a MySQL/MariaDB text column (char,
	// varchar, text types, enum, set) when it is not a UTF-8 one: latin1,
	// ascii, cp1251, ... Such text reaches a utf8mb4 connection through the
	// server's conversion, which turns a byte the charset has no Unicode
	// character for into '?'. Empty for utf8mb4 and utf8mb3 and for every
	// other column.
	Charset string `json:"charset,omitempty"`
}

// ForeignKey is a foreign key constraint of a table.
type ForeignKey struct {
	Name       string   `json:"name"`
	Columns    []string `json:"columns"`
	RefSchema  string   `json:"ref_schema"`
	RefTable   string   `json:"ref_table"`
	RefColumns []string `json:"ref_columns"`
}

// Inspector reads the schema of one database.
type Inspector interface {
	Inspect(ctx context.Context) (*Schema, error)
}

// QualifiedName is schema.name.
func (t *Table) QualifiedName() string { return t.Schema + "." + t.Name }

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
	for _, t := range s.Tables {
		if t.Name == name {
			if s.Engine == Postgres && t.Schema == "public" {
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
	for _, t := range s.Tables {
		if s.Engine == Postgres && t.Schema != "public" {
			out = append(out, t.QualifiedName())
		} else {
			out = append(out, t.Name)
		}
	}
	return out
}
