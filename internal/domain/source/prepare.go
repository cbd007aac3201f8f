package source

import (
	"github.com/remodel-dev/remodel/introspect"
)

// SQLError is the database refusing a statement it was asked to prepare: a
// syntax error, an unknown table, column or function, a parameter whose
// type it cannot infer. Its text is the database's own message.
type SQLError struct {
	Err error // *pgconn.PgError or *mysql.MySQLError
	// Text is the message as the engine words it (PostgreSQL's with its
	// SQLSTATE and hint), or "" for Err's own.
	Text string
}

func (e *SQLError) Error() string {
	if e.Text != "" {
		return e.Text
	}
	return e.Err.Error()
}

func (e *SQLError) Unwrap() error { return e.Err }

// ScanSQL is the statement that reads the rows of t matching where, as
// Reader.ScanTable runs it on engine e: what to Prepare to check a where,
// a query (t.Query) or the conditions of t's Expr columns.
func ScanSQL(e introspect.Engine, t *introspect.Table, where string) string {
	d := e.Dialect()
	return ScanStatement(t, where, 0, d.QuoteIdent, d.ReadColumn, FromRef(d, t))
}

// ScanColumns are the select-list expressions Reader.ScanTable reads t's
// columns with on engine e, in t.Columns order (a spatial column as its
// WKT, an Expr column as its condition, ...): for a caller that reads the
// same rows with more columns beside them.
func ScanColumns(e introspect.Engine, t *introspect.Table) []string {
	d := e.Dialect()
	return scanColumns(t, d.QuoteIdent, d.ReadColumn)
}

// Placeholder is the i-th (from 1) parameter marker of engine e, as
// Reader.Placeholder gives it: $1 or ?.
func Placeholder(e introspect.Engine, i int) string {
	return e.Dialect().Placeholder(i)
}

// FromRef is what a statement of dialect d reads t from: the table or
// view, or a query as a derived table named q.
func FromRef(d introspect.Dialect, t *introspect.Table) string {
	if t.Query != "" {
		return introspect.DerivedTable(t.Query)
	}
	return d.TableRef(t)
}
