package main

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/remodel-dev/remodel/introspect"
)

// pgBench is PostgreSQL's benchEngine: pgx.
type pgBench struct{}

func (pgBench) readDriver() string { return "pgx, text" }

func (pgBench) timestamp6() string { return "timestamp(6)" }

func (pgBench) fullRows(table string) string {
	return "ALTER TABLE " + table + " REPLICA IDENTITY FULL"
}

func (pgBench) rawReader(dsn string) (func(context.Context) (scanner, error), func(), error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, nil, fmt.Errorf("bench: parsing the PostgreSQL DSN: %w", err)
	}
	for k, v := range introspect.Postgres.Dialect().SessionSettings() {
		cfg.RuntimeParams[k] = v // as remodel's source sets them
	}
	return func(ctx context.Context) (scanner, error) { return openPGScanner(ctx, cfg) }, func() {}, nil
}

func (pgBench) openSQL(ctx context.Context, dsn string) (*execer, error) {
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("bench: connecting to PostgreSQL: %w", err)
	}
	return &execer{
		exec:  func(ctx context.Context, q string) error { _, err := c.Exec(ctx, q); return err },
		close: func() { c.Close(context.Background()) },
	}, nil
}

func (pgBench) connect(ctx context.Context, dsn string) (sqlConn, error) {
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("bench: workload: connecting to PostgreSQL: %w", err)
	}
	return pgConn{c}, nil
}

func (pgBench) fillCapacity(t string, s capacitySet) string {
	return fmt.Sprintf("INSERT INTO %s SELECT g, CASE WHEN g <= %d THEN 'HOT' ELSE 'G' || g END, repeat('x', 100) FROM generate_series(1, %d) g", t, s.hot, s.rows)
}

func (pgBench) insertIgnore(table, values string) string {
	return "INSERT INTO " + table + " " + values + " ON CONFLICT DO NOTHING"
}
