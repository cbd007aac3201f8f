package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/remodel-dev/remodel/internal/domain/source"
)

// Prepare has PostgreSQL parse and plan q as the unnamed statement, which
// checks its syntax, tables, columns and parameter types without running it.
func (s *pgSource) Prepare(ctx context.Context, q string) error {
	err := s.step(ctx, "preparing a statement", func(ctx context.Context) error {
		_, err := s.conn.PgConn().Prepare(ctx, "", q, nil)
		return err
	})
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return sqlError(pe)
	}
	return source.Worded("preparing a statement", err)
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
		return nil, sqlError(pe)
	}
	if err != nil {
		return nil, source.Worded("describing a statement", err)
	}
	return names, nil
}

// sqlError is PostgreSQL's refusal pe of a statement, worded with its
// SQLSTATE and hint.
func sqlError(pe *pgconn.PgError) *source.SQLError {
	msg := pe.Message + " (SQLSTATE " + pe.Code + ")"
	if pe.Hint != "" {
		msg += "; hint: " + pe.Hint
	}
	return &source.SQLError{Err: pe, Text: msg}
}
