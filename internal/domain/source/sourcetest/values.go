package sourcetest

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/remodel-dev/remodel/internal/testsupport/canon"
)

// CanonEqualAll reports whether a and b hold CanonEqual values.
func CanonEqualAll(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !canon.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// ShowAll prints values with their types (Show), for failure messages.
func ShowAll(vs []any) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = canon.Show(v)
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// Writer returns a function that inserts one row into w over its own
// connection.
func Writer(t *testing.T, ctx context.Context, engine, dsn string) func() error {
	t.Helper()
	switch engine {
	case "postgres":
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close(context.Background()) })
		return func() error {
			_, err := conn.Exec(ctx, "INSERT INTO w DEFAULT VALUES")
			return err
		}
	case "mysql":
		db := RootDB(t, dsn)
		return func() error {
			_, err := db.ExecContext(ctx, "INSERT INTO w () VALUES ()")
			return err
		}
	}
	t.Fatalf("no writer for %s", engine)
	return nil
}
