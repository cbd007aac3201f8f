package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/introspect"
)

// OpenWriteback is PostgreSQL's writeback connection.
func (s *pgSource) OpenWriteback(ctx context.Context) (source.Writeback, error) {
	cfg := s.cfg.Copy()
	// Values are sent as text literals the server reads in the column's
	// type (an unknown-typed literal), whatever the column.
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("source: connecting to PostgreSQL at %s:%d as %s to write back: %w", cfg.Host, cfg.Port, cfg.User, unwrapPG(err))
	}
	return &pgWriteback{c: c}, nil
}

// pgWriteback writes back into PostgreSQL.
type pgWriteback struct{ c *pgx.Conn }

func (p *pgWriteback) Apply(ctx context.Context, ws []source.RowWrite) (source.Outcome, error) {
	t := &pgTx{c: p.c}
	defer t.end()
	out, err := source.ApplyWrites(ctx, pgWritebackSQL{}, t, ws)
	if err != nil || out.Kind != source.Applied {
		return out, err
	}
	if err := t.commit(ctx); err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "23503" { // a deferred foreign key
			return source.Outcome{Kind: source.Deferred, Reason: pe.Message}, nil
		}
		return source.Outcome{}, fmt.Errorf("source: writing back: committing: %w", unwrapPG(err))
	}
	return out, nil
}

func (p *pgWriteback) Close() error { return p.c.Close(context.Background()) }

// pgTx is one transaction of Apply. Its BEGIN goes out with its first
// statement, in one round trip: a change of one row costs two (that and
// the COMMIT), not three.
type pgTx struct {
	c           *pgx.Conn
	begun, over bool
}

func (t *pgTx) Exec(ctx context.Context, q string, args []any) (int64, error) {
	if t.begun {
		tag, err := t.c.Exec(ctx, q, args...)
		return tag.RowsAffected(), err
	}
	t.begun = true
	b := &pgx.Batch{}
	b.Queue("BEGIN")
	b.Queue(q, args...)
	br := t.c.SendBatch(ctx, b)
	if _, err := br.Exec(); err != nil {
		br.Close()
		return 0, fmt.Errorf("beginning a transaction: %w", unwrapPG(err))
	}
	tag, err := br.Exec()
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return tag.RowsAffected(), err
}

func (t *pgTx) Exists(ctx context.Context, q string, args []any) (bool, error) {
	rows, err := t.c.Query(ctx, q+" LIMIT 1", args...)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	found := rows.Next()
	rows.Close()
	return found, rows.Err()
}

// commit commits the transaction; after it, end has nothing to undo.
func (t *pgTx) commit(ctx context.Context) error {
	t.over = true
	tag, err := t.c.Exec(ctx, "COMMIT")
	if err == nil && tag.String() == "ROLLBACK" {
		return pgx.ErrTxCommitRollback // the server had aborted it
	}
	return err
}

// end rolls back a transaction begun and not committed, with a deadline
// of its own (the run's context may be done).
func (t *pgTx) end() {
	if !t.begun || t.over {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, _ = t.c.Exec(ctx, "ROLLBACK")
}

// DuplicateKey is false: PostgreSQL's insert of a key that exists does
// nothing (InsertEnd).
func (*pgTx) DuplicateKey(error) bool { return false }

// Deferral is why PostgreSQL refused a write for now, or "".
func (*pgTx) Deferral(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "23503", "23505": // foreign_key_violation, unique_violation (of an update's new key)
			return pe.Message
		}
	}
	return ""
}

// pgWritebackSQL is what PostgreSQL's write-back statements say in its
// own way.
type pgWritebackSQL struct{}

func (pgWritebackSQL) Dialect() introspect.Dialect { return pgDialect }

// InsertEnd leaves a row whose key exists as it is.
func (pgWritebackSQL) InsertEnd() string { return " ON CONFLICT DO NOTHING" }

// Same is IS NOT DISTINCT FROM; json has no equality, jsonb compares by
// value.
func (pgWritebackSQL) Same(c *introspect.Column, col, p string) string {
	if c.Kind == introspect.KindJSON {
		col += "::jsonb"
	}
	return col + " IS NOT DISTINCT FROM " + p
}

// Cast reads JSON as jsonb and an array's text as the column's own type.
func (pgWritebackSQL) Cast(c *introspect.Column, p string) (string, bool) {
	switch c.Kind {
	case introspect.KindJSON:
		return p + "::jsonb", true
	case introspect.KindArray:
		return p + "::" + c.Type, true
	}
	return "", false
}

// Param is a zoned timestamp in UTC with its zone, a boolean and an
// integer as their text.
func (pgWritebackSQL) Param(c *introspect.Column, v any) (any, bool) {
	switch x := v.(type) {
	case time.Time:
		if c.Kind == introspect.KindTimestampTZ {
			return x.UTC().Format("2006-01-02 15:04:05.999999999") + "+00", true
		}
	case bool:
		return strconv.FormatBool(x), true
	case int64:
		return strconv.FormatInt(x, 10), true
	}
	return nil, false
}
