package mysql

import (
	"context"
	"database/sql"
	"errors"

	"github.com/go-sql-driver/mysql"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/introspect"
)

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
		return &source.SQLError{Err: me}
	}
	if err != nil {
		return source.Worded("preparing a statement", err)
	}
	return stmt.Close()
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
		return nil, &source.SQLError{Err: me}
	}
	if err != nil {
		return nil, source.Worded("describing a statement", err)
	}
	return names, nil
}
