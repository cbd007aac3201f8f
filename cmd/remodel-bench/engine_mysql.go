package main

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

// myBench is MySQL's and MariaDB's benchEngine: go-sql-driver/mysql.
type myBench struct{}

func (myBench) readDriver() string { return "mysql, prepared" }

func (myBench) timestamp6() string { return "datetime(6)" }

func (myBench) fullRows(string) string { return "" } // a row binlog with binlog_row_image=FULL

func (myBench) rawReader(dsn string) (func(context.Context) (scanner, error), func(), error) {
	cfg, err := mysqlConfig(dsn)
	if err != nil {
		return nil, nil, err
	}
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("bench: configuring MySQL: %w", err)
	}
	db := sql.OpenDB(conn)
	return func(ctx context.Context) (scanner, error) { return openMyScanner(ctx, db) }, func() { db.Close() }, nil
}

func (myBench) openSQL(_ context.Context, dsn string) (*execer, error) {
	cfg, err := mysqlConfig(dsn)
	if err != nil {
		return nil, err
	}
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("bench: configuring MySQL: %w", err)
	}
	db := sql.OpenDB(conn)
	return &execer{
		exec:  func(ctx context.Context, q string) error { _, err := db.ExecContext(ctx, q); return err },
		close: func() { db.Close() },
	}, nil
}

// connect: a database/sql pool of one connection.
func (myBench) connect(ctx context.Context, dsn string) (sqlConn, error) {
	cfg, err := mysqlConfig(dsn)
	if err != nil {
		return nil, err
	}
	cfg.Timeout, cfg.ReadTimeout, cfg.WriteTimeout = opTimeout, time.Minute, opTimeout
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("bench: workload: configuring MySQL: %w", err)
	}
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(1)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("bench: workload: connecting to MySQL: %w", err)
	}
	return myConn{db}, nil
}

// fillCapacity: numbers from a cross join of digits (no generate_series,
// and a recursive CTE's depth is capped).
func (myBench) fillCapacity(t string, s capacitySet) string {
	var from, sum []string
	for i, p := 0, 1; (p == 1 || p < s.rows) && i < 9; i, p = i+1, p*10 {
		from = append(from, fmt.Sprintf("(SELECT 0 n UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9) d%d", i))
		sum = append(sum, fmt.Sprintf("d%d.n*%d", i, p))
	}
	g := "(" + strings.Join(sum, "+") + "+1)"
	return fmt.Sprintf("INSERT INTO %s SELECT g, CASE WHEN g <= %d THEN 'HOT' ELSE CONCAT('G', g) END, REPEAT('x', 100) FROM (SELECT %s g FROM %s) s WHERE g <= %d",
		t, s.hot, g, strings.Join(from, " CROSS JOIN "), s.rows)
}

func (myBench) insertIgnore(table, values string) string {
	return "INSERT IGNORE INTO " + table + " " + values
}
