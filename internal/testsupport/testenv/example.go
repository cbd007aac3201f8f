package testenv

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/jackc/pgx/v5"
)

// The runnable Examples of the public packages (introspect, mapping,
// migrate, verify) have no testing.T: they get their services here, from
// the same variables as the tests, or the standard local addresses when a
// variable is unset (an Example cannot skip).
const (
	examplePostgres = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	exampleDynamoDB = "http://127.0.0.1:8000"
)

// ExampleDatabase creates a PostgreSQL database on the server of
// $REMODEL_TEST_POSTGRES, named like the tests' (remodel_test_p<pid>_<hex>:
// a leftover is swept by a later test process), loads
// examples/personalization into it (schema.postgres.sql, data.sql), has
// PostgreSQL ANALYZE it (row estimates are then the exact counts), and
// returns its DSN and a function that drops it.
func ExampleDatabase(ctx context.Context) (dsn string, drop func(), err error) {
	admin := os.Getenv("REMODEL_TEST_POSTGRES")
	if admin == "" {
		admin = examplePostgres
	}
	u, err := url.Parse(admin)
	if err != nil {
		return "", nil, fmt.Errorf("testenv: REMODEL_TEST_POSTGRES is not a URL: %w", err)
	}
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return "", nil, fmt.Errorf("testenv: connecting to PostgreSQL: %w", err)
	}
	defer conn.Close(ctx)
	name := dbName("remodel_test")
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", nil, fmt.Errorf("testenv: creating database %s: %w", name, err)
	}
	drop = func() { dropExampleDatabase(admin, name) }
	u.Path = "/" + name
	if err := loadExample(ctx, u.String(), "personalization"); err != nil {
		drop()
		return "", nil, err
	}
	return u.String(), drop, nil
}

// loadExample runs the example folder's PostgreSQL scripts in the database
// at dsn, then ANALYZE.
func loadExample(ctx context.Context, dsn, example string) error {
	root, err := moduleDir()
	if err != nil {
		return err
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return fmt.Errorf("testenv: connecting to PostgreSQL: %w", err)
	}
	defer conn.Close(ctx)
	for _, f := range []string{"schema.postgres.sql", "data.sql"} {
		b, err := os.ReadFile(filepath.Join(root, "examples", example, f))
		if err != nil {
			return fmt.Errorf("testenv: reading example: %w", err)
		}
		if _, err := conn.Exec(ctx, string(b)); err != nil {
			return fmt.Errorf("testenv: running examples/%s/%s: %w", example, f, err)
		}
	}
	if _, err := conn.Exec(ctx, "ANALYZE"); err != nil {
		return fmt.Errorf("testenv: analyzing the example's database: %w", err)
	}
	return nil
}

// dropExampleDatabase drops name, with the long deadline of every clean-up;
// a drop that fails is reported on stderr and left to the next sweep.
func dropExampleDatabase(admin, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	c, err := pgx.Connect(ctx, admin)
	if err == nil {
		defer c.Close(ctx)
		err = dropPostgres(ctx, c, name)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "testenv: dropping %s: %v (left to the next sweep)\n", name, err)
	}
}

// ExampleDynamoDB returns the DynamoDB Local endpoint
// ($REMODEL_TEST_DYNAMODB), a unique table name and a function that deletes
// that table (if the Example created it).
func ExampleDynamoDB() (endpoint, table string, deleteTable func()) {
	endpoint = os.Getenv("REMODEL_TEST_DYNAMODB")
	if endpoint == "" {
		endpoint = exampleDynamoDB
	}
	table = UniqueName("remodel_test")
	return endpoint, table, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, _ = DynamoDBClient(endpoint).DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(table)})
	}
}

// moduleDir is the directory of the module's go.mod, above the working
// directory (a test runs in its package's).
func moduleDir() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("testenv: no go.mod above the working directory")
		}
		dir = parent
	}
}
