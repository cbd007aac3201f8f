package ownserver_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/remodel-dev/remodel/internal/testsupport/ownserver"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// TestPostgres: the cluster answers, with pg_stat_statements loaded.
func TestPostgres(t *testing.T) {
	ctx := context.Background()
	dsn := ownserver.Postgres(t)
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var libs string
	if err := c.QueryRow(ctx, "SHOW shared_preload_libraries").Scan(&libs); err != nil {
		t.Fatal(err)
	}
	if libs != "pg_stat_statements" {
		t.Errorf("shared_preload_libraries = %q", libs)
	}
	if _, err := c.Exec(ctx, "CREATE EXTENSION pg_stat_statements"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := c.QueryRow(ctx, "SELECT count(*) FROM pg_stat_statements").Scan(&n); err != nil {
		t.Fatalf("reading pg_stat_statements: %v", err)
	}
}

// TestMariaDB: the server answers, with performance_schema on.
func TestMariaDB(t *testing.T) {
	dsn := ownserver.MariaDB(t)
	db, err := sql.Open("mysql", testenv.MySQLConfig(t, dsn).FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var on int
	if err := db.QueryRow("SELECT @@performance_schema").Scan(&on); err != nil {
		t.Fatal(err)
	}
	if on != 1 {
		t.Errorf("performance_schema = %d", on)
	}
	var schema string
	if err := db.QueryRow("SELECT DATABASE()").Scan(&schema); err != nil || schema != "remodel" {
		t.Errorf("DATABASE() = %q, %v", schema, err)
	}
}
