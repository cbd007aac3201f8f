package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/introspect"
	pginspect "github.com/remodel-dev/remodel/introspect/postgres"
)

// QueryColumns has PostgreSQL prepare q as a derived table and describes
// its result columns (introspect/postgres).
func (s *pgSource) QueryColumns(ctx context.Context, q string) ([]*introspect.Column, error) {
	var cols []*introspect.Column
	err := s.step(ctx, "describing a query", func(ctx context.Context) (err error) {
		cols, err = pginspect.New(s.conn).QueryColumns(ctx, q)
		return err
	})
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return nil, sqlError(pe)
	}
	if err != nil {
		return nil, source.Worded("describing a query", err)
	}
	return cols, nil
}
