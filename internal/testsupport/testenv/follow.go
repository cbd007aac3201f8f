package testenv

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// FollowEngine is a source engine whose changes migrate --follow follows,
// as the change-stream tests need it: a fresh database on a server whose
// change stream is on, a database/sql handle for a workload's statements,
// and what differs between engines in the tests' schemas and crashes.
type FollowEngine struct {
	Name string
	// Fresh creates a fresh database on the engine's change-stream server
	// and returns its DSN; Exec runs a multi-statement script there.
	Fresh func(testing.TB) string
	Exec  func(testing.TB, string, string)
	// Connect opens a connection to the database at a DSN of Fresh, for a
	// workload's statements (closed when the test ends).
	Connect func(testing.TB, string) SQLConn
	// Timestamp is the column type of a timestamp with microseconds.
	Timestamp string
	// FullRows is the statement that makes the source send a row whole
	// before it is updated or deleted ("" when the engine always does).
	FullRows func(table string) string
	// Sever ends the follower's connection to the source abruptly, as a
	// crash would: the source is not told what the follower applied since
	// its last report, and keeps it for the next run (slot names it). Nil
	// for an engine that resumes from the position in remodel's checkpoint
	// (the tests put back an older checkpoint instead).
	Sever func(t testing.TB, dsn, slot string)
}

// FollowEngines lists the engines migrate --follow follows; an engine is
// added here with its change-stream server (MySQL's binlog: MySQLBinlog).
var FollowEngines = []FollowEngine{
	{Name: "postgres", Fresh: PostgresLogical, Exec: ExecPostgres, Connect: ConnectPostgres, Timestamp: "timestamp(6)", FullRows: pgFullRows, Sever: pgSever},
	{Name: "mysql", Fresh: MySQLBinlog, Exec: ExecMySQL, Connect: ConnectMySQL, Timestamp: "datetime(6)", FullRows: func(string) string { return "" }},
}

// SQLConn is one connection to a source database, for a test's
// statements; not safe for concurrent use.
type SQLConn interface {
	// Exec runs statements, in one transaction when there are several.
	Exec(ctx context.Context, stmts ...string) error
	// Int runs a query whose answer is one integer.
	Int(ctx context.Context, query string) (int64, error)
}

// ConnectPostgres opens a connection to the PostgreSQL database at dsn; it
// is closed when the test ends.
func ConnectPostgres(t testing.TB, dsn string) SQLConn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("testenv: connecting to PostgreSQL: %v", err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return pgConn{c}
}

type pgConn struct{ c *pgx.Conn }

func (p pgConn) Exec(ctx context.Context, stmts ...string) error {
	if len(stmts) == 1 {
		_, err := p.c.Exec(ctx, stmts[0])
		return err
	}
	tx, err := p.c.Begin(ctx)
	if err != nil {
		return err
	}
	for _, q := range stmts {
		if _, err := tx.Exec(ctx, q); err != nil {
			_ = tx.Rollback(ctx)
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return tx.Commit(ctx)
}

func (p pgConn) Int(ctx context.Context, query string) (n int64, err error) {
	err = p.c.QueryRow(ctx, query).Scan(&n)
	return n, err
}

// ConnectMySQL opens a connection to the MySQL database at a mysql:// dsn;
// it is closed when the test ends.
func ConnectMySQL(t testing.TB, dsn string) SQLConn {
	t.Helper()
	db, err := sql.Open("mysql", MySQLConfig(t, dsn).FormatDSN())
	if err != nil {
		t.Fatalf("testenv: opening MySQL: %v", err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return myConn{db}
}

type myConn struct{ db *sql.DB }

func (m myConn) Exec(ctx context.Context, stmts ...string) error {
	if len(stmts) == 1 {
		_, err := m.db.ExecContext(ctx, stmts[0])
		return err
	}
	tx, err := m.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	for _, q := range stmts {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			_ = tx.Rollback()
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return tx.Commit()
}

func (m myConn) Int(ctx context.Context, query string) (n int64, err error) {
	err = m.db.QueryRowContext(ctx, query).Scan(&n)
	return n, err
}

func pgFullRows(table string) string { return "ALTER TABLE " + table + " REPLICA IDENTITY FULL;\n" }

// pgSever ends the walsender streaming from the slot (and waits for it to
// end): the slot's confirmed position stays where the follower's last
// status update put it.
func pgSever(t testing.TB, dsn, slot string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("testenv: connecting to PostgreSQL: %v", err)
	}
	defer c.Close(ctx)
	var n int
	if err := c.QueryRow(ctx, `SELECT count(pg_terminate_backend(active_pid, 5000)) FROM pg_replication_slots
		WHERE slot_name = $1 AND active_pid IS NOT NULL`, slot).Scan(&n); err != nil {
		t.Fatalf("testenv: ending the walsender of slot %s: %v", slot, err)
	}
	if n != 1 {
		t.Fatalf("testenv: slot %s has no walsender to end", slot)
	}
}
