package erd_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/testsupport/golden"

	_ "github.com/go-sql-driver/mysql" // the "mysql" driver
	"github.com/jackc/pgx/v5"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/introspect"
)

// The ERDs of Pagila and Chinook, databases nobody here wrote, pinned as
// golden files in the three formats. What varies from run to run is
// normalised after it is checked: sizes become 0 (after checking that every
// table with rows takes space), estimates become the true count (after
// checking that they are close to it), and the database's unique name
// becomes pagila or chinook.

func TestPagila(t *testing.T) {
	dsn := testenv.Postgres(t)
	testenv.LoadPagila(t, dsn)
	testenv.ExecPostgres(t, dsn, "ANALYZE;")
	s := inspect(t, dsn)
	normalise(t, s, "pagila", pgCounter(t, dsn), 0.1, 1.1)
	text, js, mmd := render(t, s)
	golden.Check(t, "pagila.txt", text)
	golden.Check(t, "pagila.json", js)
	golden.Check(t, "pagila.mmd", mmd)
	checkMermaid(t, s, mmd)
}

func TestChinookPostgres(t *testing.T) {
	dsn := testenv.Postgres(t)
	testenv.LoadScript(t, dsn, "chinook/Chinook_PostgreSql.sql", testenv.ExecPostgres,
		"DROP DATABASE IF EXISTS chinook;", "CREATE DATABASE chinook;", `\c chinook;`)
	testenv.ExecPostgres(t, dsn, "ANALYZE;")
	s := inspect(t, dsn)
	normalise(t, s, "chinook", pgCounter(t, dsn), 0.1, 1.1)
	text, js, mmd := render(t, s)
	golden.Check(t, "chinook-postgres.txt", text)
	golden.Check(t, "chinook-postgres.json", js)
	golden.Check(t, "chinook-postgres.mmd", mmd)
	checkMermaid(t, s, mmd)
}

func TestChinookMySQL(t *testing.T) {
	dsn := testenv.MySQL(t)
	testenv.LoadScript(t, dsn, "chinook/Chinook_MySql.sql", testenv.ExecMySQL,
		"DROP DATABASE IF EXISTS `Chinook`;", "CREATE DATABASE `Chinook`;", "USE `Chinook`;")
	s := inspect(t, dsn)
	var tables []string
	for _, tbl := range s.Tables {
		tables = append(tables, "`"+tbl.Name+"`")
	}
	testenv.ExecMySQL(t, dsn, "ANALYZE TABLE "+strings.Join(tables, ", ")+";")
	s = inspect(t, dsn)
	// InnoDB samples a few pages: its estimates may be off by half, and
	// its distinct values by a factor of up to 3 (MariaDB 10.11 says 50 of
	// Track's 25 genres, 1120 of InvoiceLine's 412 invoices).
	normalise(t, s, "chinook", myCounter(t, dsn), 0.5, 3)
	text, js, mmd := render(t, s)
	golden.Check(t, "chinook-mysql.txt", text)
	golden.Check(t, "chinook-mysql.json", js)
	golden.Check(t, "chinook-mysql.mmd", mmd)
	checkMermaid(t, s, mmd)
}

// inspect reads the schema the way remodel introspect does.
func inspect(t *testing.T, dsn string) *introspect.Schema {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	src, err := source.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	s, err := src.Inspect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// counter counts the rows of a table or partition (schema, name) exactly,
// or with a column the distinct values it holds.
type counter func(schema, name string, column ...string) int64

func pgCounter(t *testing.T, dsn string) counter {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	return func(schema, name string, column ...string) int64 {
		var n int64
		what := "*"
		if len(column) > 0 {
			what = "DISTINCT " + pgx.Identifier{column[0]}.Sanitize()
		}
		if err := conn.QueryRow(ctx, "SELECT count("+what+") FROM "+pgx.Identifier{schema, name}.Sanitize()).Scan(&n); err != nil {
			t.Fatalf("counting %s.%s: %v", schema, name, err)
		}
		return n
	}
}

func myCounter(t *testing.T, dsn string) counter {
	db, err := sql.Open("mysql", testenv.MySQLConfig(t, dsn).FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return func(schema, name string, column ...string) int64 {
		var n int64
		what := "*"
		if len(column) > 0 {
			what = "DISTINCT `" + column[0] + "`"
		}
		if err := db.QueryRow("SELECT COUNT(" + what + ") FROM `" + schema + "`.`" + name + "`").Scan(&n); err != nil {
			t.Fatalf("counting %s.%s: %v", schema, name, err)
		}
		return n
	}
}

// normalise checks every table's (and partition's) rows and sizes and
// replaces what varies between runs: see the comment at the top.
//
// Distinct values are checked within a factor: spread, the most the
// estimate may be above or below the truth (plus 2: InnoDB counts NULL as
// a value, and a sampled estimate of a handful is rough).
func normalise(t *testing.T, s *introspect.Schema, database string, count counter, tolerance, spread float64) {
	t.Helper()
	db := s.Database
	fix := func(what, schema, name string, size *introspect.Size) {
		truth := count(schema, name)
		n, exact, known := size.Rows()
		switch {
		case !known:
			t.Errorf("%s: rows unknown, want a count or an estimate of %d", what, truth)
		case exact && n != truth:
			t.Errorf("%s: exactly %d rows, but it has %d", what, n, truth)
		case !exact && (float64(n) < float64(truth)*(1-tolerance) || float64(n) > float64(truth)*(1+tolerance)):
			t.Errorf("%s: about %d rows, but it has %d (more than %.0f%% off)", what, n, truth, tolerance*100)
		}
		if truth > 0 && size.DataBytes <= 0 {
			t.Errorf("%s: %d rows in %d bytes", what, truth, size.DataBytes)
		}
		if exact {
			*size = introspect.ExactRows(truth)
		} else {
			*size = introspect.EstimatedRows(truth)
		}
	}
	// A PostgreSQL partition is a table of its own, which can be counted;
	// a MySQL one keeps its rows (estimated), without its sizes.
	var parts func(p *introspect.Partitioning)
	parts = func(p *introspect.Partitioning) {
		for _, part := range p.Partitions {
			switch {
			case part.Partitioning != nil:
				parts(part.Partitioning)
				part.Size = introspect.ExactRows(0)
				for _, sub := range part.Partitioning.Partitions {
					part.Size.Add(sub.Size)
				}
			case part.Schema != "":
				fix("partition "+part.Name, part.Schema, part.Name, &part.Size)
			default:
				part.Size = introspect.Size{RowCount: part.RowCount, RowEstimate: part.RowEstimate}
			}
		}
	}
	for _, tbl := range s.Tables {
		if tbl.View { // a view's rows are never counted (a materialized view's may be estimated)
			tbl.Size = introspect.Size{}
			continue
		}
		fix(tbl.QualifiedName(), tbl.Schema, tbl.Name, &tbl.Size)
		// A column's distinct values, as the statistics estimate them,
		// become the true count, after checking the estimate.
		for _, c := range tbl.Columns {
			if c.Distinct == nil {
				continue
			}
			truth := count(tbl.Schema, tbl.Name, c.Name)
			if est := float64(*c.Distinct); est > float64(truth)*spread+2 || est < float64(truth)/spread-2 {
				t.Errorf("%s.%s: about %d distinct values, but it has %d", tbl.QualifiedName(), c.Name, *c.Distinct, truth)
			}
			c.Distinct = &truth
		}
		if tbl.Partitioning != nil {
			parts(tbl.Partitioning)
		}
		if tbl.Schema == db {
			tbl.Schema = database
		}
		for i := range tbl.ForeignKeys {
			if tbl.ForeignKeys[i].RefSchema == db {
				tbl.ForeignKeys[i].RefSchema = database
			}
		}
	}
	s.Database = database
}
