package source

import (
	"context"
	"database/sql"
	"errors"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/remodel-dev/remodel/internal/domain/introspect"
)

// SQLError is the database refusing a statement it was asked to prepare: a
// syntax error, an unknown table, column or function, a parameter whose
// type it cannot infer. Its text is the database's own message.
type SQLError struct {
	Err error // *pgconn.PgError or *mysql.MySQLError
}

func (e *SQLError) Error() string {
	var pe *pgconn.PgError
	if errors.As(e.Err, &pe) {
		msg := pe.Message + " (SQLSTATE " + pe.Code + ")"
		if pe.Hint != "" {
			msg += "; hint: " + pe.Hint
		}
		return msg
	}
	return e.Err.Error()
}

func (e *SQLError) Unwrap() error { return e.Err }

// Prepare has PostgreSQL parse and plan q as the unnamed statement, which
// checks its syntax, tables, columns and parameter types without running it.
func (s *pgSource) Prepare(ctx context.Context, q string) error {
	err := s.step(ctx, "preparing a statement", func(ctx context.Context) error {
		_, err := s.conn.PgConn().Prepare(ctx, "", q, nil)
		return err
	})
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return &SQLError{Err: pe}
	}
	return worded("preparing a statement", err)
}

// Prepare has MySQL prepare q (COM_STMT_PREPARE), which checks its syntax,
// tables and columns without running it.
func (s *mySource) Prepare(ctx context.Context, q string) error {
	var stmt *sql.Stmt
	err := s.step(ctx, "preparing a statement", func(ctx context.Context) (err error) {
		stmt, err = s.db.PrepareContext(ctx, q)
		return err
	})
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return &SQLError{Err: me}
	}
	if err != nil {
		return worded("preparing a statement", err)
	}
	return stmt.Close()
}

// ScanSQL is the statement that reads the rows of t matching where, as
// Reader.ScanTable runs it on engine e: what to Prepare to check a where,
// a query (t.Query) or the conditions of t's Expr columns.
func ScanSQL(e introspect.Engine, t *introspect.Table, where string) string {
	d := e.Dialect()
	return scanSQL(t, where, 0, d.QuoteIdent, d.ReadColumn, fromRef(d, t))
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

// fromRef is what a statement of dialect d reads t from: the table or
// view, or a query as a derived table named q.
func fromRef(d introspect.Dialect, t *introspect.Table) string {
	if t.Query != "" {
		return introspect.DerivedTable(t.Query)
	}
	return d.TableRef(t)
}

// ResultColumns has PostgreSQL prepare q as the unnamed statement and
// returns the names of its result columns, from the statement's
// description: nothing runs. n (the number of parameters) is not needed
// here: PostgreSQL infers the parameters' types.
func (s *pgSource) ResultColumns(ctx context.Context, q string, n int) ([]string, error) {
	var names []string
	err := s.step(ctx, "describing a statement", func(ctx context.Context) error {
		sd, err := s.conn.PgConn().Prepare(ctx, "", q, nil)
		if err != nil {
			return err
		}
		names = make([]string, len(sd.Fields))
		for i, f := range sd.Fields {
			names[i] = f.Name
		}
		return nil
	})
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return nil, &SQLError{Err: pe}
	}
	if err != nil {
		return nil, worded("describing a statement", err)
	}
	return names, nil
}

// ResultColumns has MySQL run q, which takes n parameters (each bound to
// NULL), as a derived table with LIMIT 0, and returns the names of its
// result columns from the result's metadata: the server reads no row
// (go-sql-driver does not give the columns of a prepared statement). A
// statement it refuses, including one it cannot read as a derived table
// (two result columns with one name), is an *SQLError.
func (s *mySource) ResultColumns(ctx context.Context, q string, n int) ([]string, error) {
	var names []string
	err := s.step(ctx, "describing a statement", func(ctx context.Context) error {
		rows, err := s.db.QueryContext(ctx, "SELECT * FROM "+introspect.DerivedTable(q)+" LIMIT 0", make([]any, n)...)
		if err != nil {
			return err
		}
		defer rows.Close()
		if names, err = rows.Columns(); err != nil {
			return err
		}
		for rows.Next() { // LIMIT 0: none
		}
		return rows.Err()
	})
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return nil, &SQLError{Err: me}
	}
	if err != nil {
		return nil, worded("describing a statement", err)
	}
	return names, nil
}
