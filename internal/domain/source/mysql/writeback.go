package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/go-sql-driver/mysql"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/introspect"
)

// OpenWriteback is MySQL's writeback connection.
func (s *mySource) OpenWriteback(ctx context.Context) (source.Writeback, error) {
	cfg := s.cfg.Clone()
	cfg.ClientFoundRows = true // an UPDATE that changes nothing still counts the row it found
	// Arguments written into the statement by the driver (escaped as the
	// server reads them): one round trip a statement, not a prepare, an
	// execute and a close.
	cfg.InterpolateParams = true
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("source: configuring MySQL to write back: %w", err)
	}
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(1)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("source: connecting to MySQL at %s as %s to write back: %w", cfg.Addr, cfg.User, err)
	}
	maria, err := s.isMariaDB(ctx)
	if err != nil {
		db.Close()
		return nil, err
	}
	return &myWriteback{db: db, mariadb: maria}, nil
}

// myWriteback writes back into MySQL or MariaDB.
type myWriteback struct {
	db      *sql.DB
	mariadb bool
}

func (m *myWriteback) Apply(ctx context.Context, ws []source.RowWrite) (source.Outcome, error) {
	t, err := m.db.BeginTx(ctx, nil)
	if err != nil {
		return source.Outcome{}, fmt.Errorf("source: writing back: beginning a transaction: %w", err)
	}
	defer t.Rollback()
	out, err := source.ApplyWrites(ctx, myWritebackSQL{mariadb: m.mariadb}, myTx{t}, ws)
	if err != nil || out.Kind != source.Applied {
		return out, err
	}
	if err := t.Commit(); err != nil {
		return source.Outcome{}, fmt.Errorf("source: writing back: committing: %w", err)
	}
	return out, nil
}

func (m *myWriteback) Close() error { return m.db.Close() }

type myTx struct{ t *sql.Tx }

func (t myTx) Exec(ctx context.Context, q string, args []any) (int64, error) {
	res, err := t.t.ExecContext(ctx, q, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (t myTx) Exists(ctx context.Context, q string, args []any) (bool, error) {
	rows, err := t.t.QueryContext(ctx, q+" LIMIT 1", args...)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	found := rows.Next()
	rows.Close()
	return found, rows.Err()
}

// DuplicateKey says whether err is MySQL's refusal of a key another row
// holds (the statement alone is undone; the transaction goes on).
func (myTx) DuplicateKey(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && me.Number == 1062
}

// Deferral is why MySQL refused a write for now, or "".
func (myTx) Deferral(err error) string {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		switch me.Number {
		case 1451, 1452, 1062: // a row still referenced, a referenced row missing, a duplicate key
			return me.Message
		}
	}
	return ""
}

// myWritebackSQL is what MySQL's write-back statements say in its own way.
type myWritebackSQL struct {
	// mariadb: JSON is text there (no CAST AS JSON), compared by value
	// through JSON_NORMALIZE.
	mariadb bool
}

func (myWritebackSQL) Dialect() introspect.Dialect { return myDialect }

// InsertEnd is "": MySQL refuses an insert of a key that exists.
func (myWritebackSQL) InsertEnd() string { return "" }

// Same is <=>, MySQL's NULL-safe equality (JSON normalised on MariaDB).
func (w myWritebackSQL) Same(c *introspect.Column, col, p string) string {
	if w.mariadb && c.Kind == introspect.KindJSON {
		col = "JSON_NORMALIZE(" + col + ")"
	}
	return col + " <=> " + p
}

// Cast reads JSON as JSON (normalised on MariaDB) and a decimal as one:
// text against a decimal compares as a double.
func (w myWritebackSQL) Cast(c *introspect.Column, p string) (string, bool) {
	switch {
	case w.mariadb && c.Kind == introspect.KindJSON:
		return "JSON_NORMALIZE(" + p + ")", true
	case c.Kind == introspect.KindJSON:
		return "CAST(" + p + " AS JSON)", true
	case c.Kind == introspect.KindDecimal:
		return "CAST(" + p + " AS DECIMAL(65,30))", true
	}
	return "", false
}

// Param is a boolean as 1 or 0.
func (myWritebackSQL) Param(_ *introspect.Column, v any) (any, bool) {
	if b, ok := v.(bool); ok {
		if b {
			return int64(1), true
		}
		return int64(0), true
	}
	return nil, false
}
