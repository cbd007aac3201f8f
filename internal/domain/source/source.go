package source

import (
	"context"
	"strings"
	"time"

	"github.com/remodel-dev/remodel/introspect"
)

// Source is an open source database.
type Source interface {
	Engine() introspect.Engine
	// Inspect reads the schema.
	Inspect(ctx context.Context) (*introspect.Schema, error)
	// Snapshot opens n reader connections that all see one consistent cut
	// of the database.
	Snapshot(ctx context.Context, n int) (Snapshot, error)
	// Prepare has the database prepare q without running it (prepare.go).
	Prepare(ctx context.Context, q string) error
	// ResultColumns has the database describe the result columns of the
	// SELECT statement q, which takes n parameters, without reading a row,
	// and returns their names (prepare.go). A statement the database
	// refuses is an *SQLError.
	ResultColumns(ctx context.Context, q string, n int) ([]string, error)
	// QueryColumns describes the result columns of the SELECT statement q
	// (an entity's query:), as introspect describes a table's columns
	// (query.go). A statement the database refuses is an *SQLError.
	QueryColumns(ctx context.Context, q string) ([]*introspect.Column, error)
	Close() error
}

// AllowStall tells src how long the readers of the snapshots it opens from
// now on may leave a result stream unread (while what consumes the rows
// waits on retries, up to --retry-for) before the server may drop the
// stream. On MySQL it sets the readers' session net_write_timeout and
// net_read_timeout (60 s and 30 s by default) to d and a minute, and to
// at least 10 minutes without a call; PostgreSQL has no such limit.
func AllowStall(src Source, d time.Duration) {
	if s, ok := src.(staller); ok {
		s.AllowStall(d)
	}
}

// staller is a source whose server drops a result stream left unread for
// a while unless told how long to wait (MySQL's net_write_timeout).
type staller interface {
	AllowStall(d time.Duration)
}

// Snapshot is a set of readers sharing one consistent view.
type Snapshot interface {
	Readers() []Reader
	// Warning says how the snapshot is weaker than one cut, or "".
	Warning() string
	Close() error
}

// Reader is one connection inside a snapshot. A Reader is not safe for
// concurrent use; give each goroutine its own.
type Reader interface {
	// ScanTable streams every row of t matching where (empty: all rows) in
	// primary-key order. row holds one canonical value per column of t, in
	// t.Columns order; it is only valid during the call.
	// limit > 0 stops after that many rows.
	//
	// t may be a table, a view, or a query (t.Query, read as a derived
	// table: SELECT ... FROM (query) AS q WHERE where ORDER BY key); its
	// PrimaryKey orders the rows (a view or query has the key its mapping
	// gives it). A column with an Expr is read as ((Expr) IS TRUE), a
	// boolean evaluated by the database in the same statement.
	ScanTable(ctx context.Context, t *introspect.Table, where string, limit int, fn func(row []any) error) error
	// ScanRange is ScanTable over the rows of one key range (ranges.go).
	ScanRange(ctx context.Context, t *introspect.Table, where string, kr KeyRange, fn func(row []any) error) error
	// ScanKeys is ScanTable over the rows whose key is one of keys, or
	// starts with one of them (keys.go).
	ScanKeys(ctx context.Context, t *introspect.Table, where string, keys []KeyBound, fn func(row []any) error) error
	// KeyBoundaries splits t's rows into up to n key ranges (ranges.go).
	KeyBoundaries(ctx context.Context, t *introspect.Table, where string, n int) ([]KeyBound, error)
	// HoldsByte reports whether some row of t (a table, view or query)
	// matching where holds the byte b in the text column col, compared
	// byte for byte whatever the column's collation (holds.go); b is a
	// printable ASCII byte.
	HoldsByte(ctx context.Context, t *introspect.Table, where, col string, b byte) (bool, error)
	// Count counts the rows of t (a table, view or query) matching where.
	Count(ctx context.Context, t *introspect.Table, where string) (int64, error)
	// Estimate is the planner's estimate of the rows Count would count
	// (EXPLAIN: a plan, not a read); ok is false when the plan gives none
	// (estimate.go).
	Estimate(ctx context.Context, t *introspect.Table, where string) (n int64, ok bool, err error)
	// Sample returns up to n distinct tuples of the columns from t (rows
	// matching where, no NULLs), in an order that looks random but is fixed
	// by seed: the same seed on the same data gives the same tuples.
	Sample(ctx context.Context, t *introspect.Table, cols []string, where string, n int, seed int64) ([][]any, error)
	// Query runs sql with args bound as parameters. Each result column is
	// decoded by the column kindOf returns for its name (nil: as text).
	Query(ctx context.Context, sql string, args []any, kindOf func(name string) *introspect.Column, fn func(names []string, row []any) error) error
	// Placeholder is the i-th (from 1) parameter marker: $1 or ?.
	Placeholder(i int) string
	// Guard runs fn, which uses this reader, so that a statement failing in
	// it (a bad where, an access pattern's SQL error) leaves the reader and
	// its snapshot usable for the next call. PostgreSQL aborts a transaction
	// at its first error, so there fn runs inside a savepoint; MySQL keeps the
	// transaction after a failed statement.
	Guard(ctx context.Context, fn func() error) error
}

// WhereClause renders an optional WHERE clause: " WHERE (w)", or "" when w is blank.
func WhereClause(w string) string {
	if strings.TrimSpace(w) == "" {
		return ""
	}
	return " WHERE (" + w + ")"
}
