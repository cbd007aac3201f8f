package source

import (
	"context"
	"errors"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/remodel-dev/remodel/internal/domain/introspect"
	myinspect "github.com/remodel-dev/remodel/internal/domain/introspect/mysql"
	pginspect "github.com/remodel-dev/remodel/internal/domain/introspect/postgres"
)

// QueryColumns has PostgreSQL prepare q as a derived table and describes
// its result columns (internal/domain/introspect/postgres).
func (s *pgSource) QueryColumns(ctx context.Context, q string) ([]*introspect.Column, error) {
	var cols []*introspect.Column
	err := s.step(ctx, "describing a query", func(ctx context.Context) (err error) {
		cols, err = pginspect.New(s.conn).QueryColumns(ctx, q)
		return err
	})
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return nil, &SQLError{Err: pe}
	}
	if err != nil {
		return nil, worded("describing a query", err)
	}
	return cols, nil
}

// QueryColumns has MySQL run q as a derived table with LIMIT 0 and
// describes its result columns from the result's metadata
// (internal/domain/introspect/mysql).
func (s *mySource) QueryColumns(ctx context.Context, q string) ([]*introspect.Column, error) {
	var cols []*introspect.Column
	err := s.step(ctx, "describing a query", func(ctx context.Context) (err error) {
		cols, err = myinspect.New(s.db).QueryColumns(ctx, q)
		return err
	})
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return nil, &SQLError{Err: me}
	}
	if err != nil {
		return nil, worded("describing a query", err)
	}
	return cols, nil
}
