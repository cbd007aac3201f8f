package testenv

import (
	"bufio"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// LoadScript loads a dataset script (a path under testdata/datasets) into
// the test's own database with exec, first removing the script's lines that
// drop, create and switch to a database of its own (Chinook's scripts do):
// each must be there, so a changed script fails the test instead of loading
// somewhere else.
func LoadScript(t testing.TB, dsn, rel string, exec func(testing.TB, string, string), drop ...string) {
	t.Helper()
	b, err := os.ReadFile(Dataset(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	script := string(b)
	for _, s := range drop {
		if !strings.Contains(script, s) {
			t.Fatalf("%s no longer contains %q: update this test", rel, s)
		}
		script = strings.Replace(script, s, "", 1)
	}
	exec(t, dsn, script)
}

// LoadPagila loads the Pagila schema and data (a pg_dump with COPY blocks)
// into the PostgreSQL database at dsn.
func LoadPagila(t testing.TB, dsn string) {
	t.Helper()
	schema, err := os.ReadFile(Dataset(t, "pagila/pagila-schema.sql"))
	if err != nil {
		t.Fatal(err)
	}
	ExecPostgres(t, dsn, string(schema))
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	f, err := os.Open(Dataset(t, "pagila/pagila-data.sql"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var stmt strings.Builder
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "COPY ") && strings.HasSuffix(line, "FROM stdin;"):
			var data strings.Builder
			for sc.Scan() && sc.Text() != `\.` {
				data.WriteString(sc.Text())
				data.WriteByte('\n')
			}
			if _, err := conn.PgConn().CopyFrom(ctx, strings.NewReader(data.String()), strings.TrimSuffix(line, ";")); err != nil {
				t.Fatalf("loading Pagila: %s: %v", line, err)
			}
		case strings.HasPrefix(line, "--") || strings.TrimSpace(line) == "":
		default:
			stmt.WriteString(line)
			stmt.WriteByte('\n')
			if strings.HasSuffix(line, ";") {
				if _, err := conn.Exec(ctx, stmt.String()); err != nil {
					t.Fatalf("loading Pagila: %s: %v", stmt.String(), err)
				}
				stmt.Reset()
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if stmt.Len() > 0 {
		t.Fatalf("loading Pagila: an unfinished statement at the end: %s", stmt.String())
	}
}
