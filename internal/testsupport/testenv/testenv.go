package testenv

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"

	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
)

// Require reports whether a missing service must fail the test.
func Require() bool { return os.Getenv("REMODEL_REQUIRE_SERVICES") == "1" }

func need(t testing.TB, env string) string {
	t.Helper()
	v := os.Getenv(env)
	if v == "" {
		if Require() {
			t.Fatalf("%s is not set and REMODEL_REQUIRE_SERVICES=1: run the tests with `make test`", env)
		}
		t.Skipf("%s is not set: skipping a test that needs a real service (run `make test`)", env)
	}
	return v
}

// UniqueName returns prefix_<random hex>, usable as a database or table name.
func UniqueName(prefix string) string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return prefix + "_" + hex.EncodeToString(b)
}

// Postgres creates a fresh database and returns its DSN. The database is
// dropped when the test ends.
func Postgres(t testing.TB) string {
	t.Helper()
	return PostgresWith(t, "")
}

// PostgresWith is Postgres with options appended to CREATE DATABASE, such
// as "ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0".
func PostgresWith(t testing.TB, options string) string {
	t.Helper()
	return postgresNamed(t, "remodel_test", options)
}

// PostGIS creates a fresh database (postgis_test_…) with the postgis
// extension and returns its DSN; the extension lives only in that
// database, which is dropped when the test ends. Without PostGIS installed
// on the server (scripts/postgis.sh fetch) the test is skipped, or fails
// under REMODEL_REQUIRE_SERVICES=1.
func PostGIS(t testing.TB) string {
	t.Helper()
	dsn := postgresNamed(t, "postgis_test", "")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("testenv: connecting to PostgreSQL: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE EXTENSION postgis"); err != nil {
		if Require() {
			t.Fatalf("testenv: PostGIS is needed and REMODEL_REQUIRE_SERVICES=1: CREATE EXTENSION postgis: %v (install it: scripts/postgis.sh fetch)", err)
		}
		t.Skipf("testenv: PostGIS is not installed (CREATE EXTENSION postgis: %v): skipping (scripts/postgis.sh fetch installs it)", err)
	}
	return dsn
}

func postgresNamed(t testing.TB, prefix, options string) string {
	t.Helper()
	return postgresDB(t, "REMODEL_TEST_POSTGRES", prefix, options, dropPostgres)
}

// dropPostgres drops the database name (the server ends its sessions).
func dropPostgres(ctx context.Context, c *pgx.Conn, name string) error {
	_, err := c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	return err
}

// postgresDB creates a database prefix_<random> with options on the server
// of the admin DSN in the variable env and returns its DSN; drop removes it
// when the test ends.
func postgresDB(t testing.TB, env, prefix, options string, drop func(context.Context, *pgx.Conn, string) error) string {
	t.Helper()
	admin := need(t, env)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatalf("testenv: connecting to PostgreSQL: %v", err)
	}
	defer conn.Close(ctx)
	sweepOnce(t, admin, func(ctx context.Context) ([]string, error) { return sweepPostgres(ctx, conn, drop) })
	name := dbName(prefix)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name+" "+options); err != nil {
		t.Fatalf("testenv: creating database %s: %v", name, err)
	}
	t.Cleanup(func() {
		// Outside the test's verdict: a drop that fails is logged, and
		// the next process's sweep drops the database.
		ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
		defer cancel()
		c, err := pgx.Connect(ctx, admin)
		if err != nil {
			t.Logf("testenv: dropping %s: %v (left to the next sweep)", name, err)
			return
		}
		defer c.Close(ctx)
		if err := drop(ctx, c, name); err != nil {
			t.Logf("testenv: dropping %s: %v (left to the next sweep)", name, err)
		}
	})
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatalf("testenv: %s is not a URL: %v", env, err)
	}
	u.Path = "/" + name
	return u.String()
}

// MySQL creates a fresh database and returns its DSN in mysql:// URL form.
// The database is dropped when the test ends.
func MySQL(t testing.TB) string {
	t.Helper()
	return mysqlDB(t, "REMODEL_TEST_MYSQL")
}

// mysqlDB creates a database remodel_test_<random> on the server of the
// admin DSN in the variable env and returns its DSN; it is dropped when the
// test ends.
func mysqlDB(t testing.TB, env string) string {
	t.Helper()
	admin := need(t, env)
	cfg := MySQLConfig(t, admin)
	cfg.DBName = ""
	cfg.MultiStatements = true
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatalf("testenv: opening MySQL: %v", err)
	}
	defer db.Close()
	sweepOnce(t, admin, func(ctx context.Context) ([]string, error) { return sweepMySQL(ctx, db) })
	name := dbName("remodel_test")
	if _, err := db.Exec("CREATE DATABASE " + name + " CHARACTER SET utf8mb4"); err != nil {
		t.Fatalf("testenv: creating database %s: %v", name, err)
	}
	t.Cleanup(func() {
		// Outside the test's verdict, as for PostgreSQL.
		db, err := sql.Open("mysql", cfg.FormatDSN())
		if err != nil {
			t.Logf("testenv: dropping %s: %v (left to the next sweep)", name, err)
			return
		}
		defer db.Close()
		ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
		defer cancel()
		if _, err := db.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name); err != nil {
			t.Logf("testenv: dropping %s: %v (left to the next sweep)", name, err)
		}
	})
	u, _ := url.Parse(admin)
	u.Path = "/" + name
	return u.String()
}

// MySQLConfig reads a mysql://user:pass@host:port/db URL into a go-sql-driver
// configuration (parseTime off).
func MySQLConfig(t testing.TB, dsn string) *mysql.Config {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil || u.Scheme != "mysql" {
		t.Fatalf("testenv: a MySQL DSN must be mysql://user:pass@host:port/db")
	}
	cfg := mysql.NewConfig()
	cfg.Net = "tcp"
	cfg.Addr = u.Host
	cfg.User = u.User.Username()
	cfg.Passwd, _ = u.User.Password()
	cfg.DBName = strings.TrimPrefix(u.Path, "/")
	return cfg
}

// DynamoDB returns the DynamoDB Local endpoint.
func DynamoDB(t testing.TB) string {
	t.Helper()
	return need(t, "REMODEL_TEST_DYNAMODB")
}

// ExecPostgres runs a multi-statement SQL script in the database at dsn.
func ExecPostgres(t testing.TB, dsn, script string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("testenv: connecting to PostgreSQL: %v", err)
	}
	defer conn.Close(ctx)
	// Exec without arguments uses the simple protocol, which runs several statements.
	if _, err := conn.Exec(ctx, script); err != nil {
		t.Fatalf("testenv: running SQL script: %v", err)
	}
}

// ExecMySQL runs a multi-statement SQL script in the database at a mysql:// dsn.
func ExecMySQL(t testing.TB, dsn, script string) {
	t.Helper()
	cfg := MySQLConfig(t, dsn)
	cfg.MultiStatements = true
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatalf("testenv: opening MySQL: %v", err)
	}
	defer db.Close()
	if _, err := db.Exec(script); err != nil {
		t.Fatalf("testenv: running SQL script: %v", err)
	}
}

// engineEntry is one engine of Engines.
type engineEntry = struct {
	Name  string
	Fresh func(testing.TB) string
	Exec  func(testing.TB, string, string)
}

// Engines lists the source engines a shared suite runs against, with a
// function that creates a fresh database of that engine.
var Engines = []engineEntry{
	{"postgres", Postgres, ExecPostgres},
	{"mysql", MySQL, ExecMySQL},
}

// LoadExample loads an example folder (schema.<engine>.sql, then data.sql)
// into the database at dsn. engine is "postgres" or "mysql".
func LoadExample(t testing.TB, engine, dsn, dir string) {
	t.Helper()
	i := slices.IndexFunc(Engines, func(e engineEntry) bool { return e.Name == engine })
	if i < 0 {
		t.Fatalf("testenv: no engine %q in Engines", engine)
	}
	for _, f := range []string{"schema." + engine + ".sql", "data.sql"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatalf("testenv: reading example: %v", err)
		}
		Engines[i].Exec(t, dsn, string(b))
	}
}

// Dataset returns the path of a file under testdata/datasets at the module
// root (the real databases other people wrote: Pagila, Chinook).
func Dataset(t testing.TB, rel string) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			p := filepath.Join(dir, "testdata", "datasets", rel)
			if _, err := os.Stat(p); err != nil {
				t.Fatalf("testenv: dataset %s: %v", rel, err)
			}
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatalf("testenv: no go.mod above the test's directory")
		}
		dir = parent
	}
}
