package initmap_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/remodel-dev/remodel/internal/domain/initmap"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// TestReadStatistics reads each engine's statement statistics on the
// shared test servers. Where the server keeps none (this project's test
// servers: pg_stat_statements is not in shared_preload_libraries, MariaDB's
// performance_schema is off), the reason is said; where it keeps them, a
// statement run here is listed with its calls. Servers that keep them are
// TestInitStatisticsMigrateVerify's own (internal/ownserver).
func TestReadStatistics(t *testing.T) {
	ctx := context.Background()
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			dsn := eng.Fresh(t)
			eng.Exec(t, dsn, "CREATE TABLE items (id INT PRIMARY KEY, k VARCHAR(20)); INSERT INTO items VALUES (1, 'a'), (2, 'b');")
			read := func() initmap.Statistics {
				t.Helper()
				src, err := source.Open(ctx, dsn)
				if err != nil {
					t.Fatal(err)
				}
				defer src.Close()
				st, err := initmap.ReadStatistics(ctx, src)
				if err != nil {
					t.Fatal(err)
				}
				return st
			}
			if eng.Name == "postgres" {
				st := read()
				if want := "the extension pg_stat_statements is not installed in this database"; !strings.HasPrefix(st.Unavailable, want) {
					t.Fatalf("without the extension: %+v, want %q", st, want)
				}
				eng.Exec(t, dsn, "CREATE EXTENSION pg_stat_statements")
			}
			runLookups(t, eng.Name, dsn)
			st := read()
			switch {
			case st.Unavailable == "" && len(st.Statements) > 0:
				for _, s := range st.Statements {
					if strings.Contains(s.SQL, "items") && strings.Contains(s.SQL, "WHERE id =") && s.Calls >= 3 {
						return
					}
				}
				t.Errorf("the lookup run 3 times is not among the statements: %+v", st.Statements)
			case eng.Name == "postgres":
				if want := "pg_stat_statements cannot be read: ERROR: pg_stat_statements must be loaded via shared_preload_libraries"; !strings.HasPrefix(st.Unavailable, want) {
					t.Errorf("with the extension not loaded: %+v, want %q", st, want)
				}
			default:
				if want := "performance_schema is off"; !strings.HasPrefix(st.Unavailable, want) {
					t.Errorf("performance_schema off: %+v, want %q", st, want)
				}
			}
		})
	}
}

// runLookups runs SELECT * FROM items WHERE id = ? three times, as an
// application would.
func runLookups(t *testing.T, engine, dsn string) {
	t.Helper()
	ctx := context.Background()
	if engine == "postgres" {
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		for i := 1; i <= 3; i++ {
			rows, err := conn.Query(ctx, "SELECT * FROM items WHERE id = $1", i)
			if err != nil {
				t.Fatal(err)
			}
			rows.Close()
		}
		return
	}
	db, err := sql.Open("mysql", testenv.MySQLConfig(t, dsn).FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for i := 1; i <= 3; i++ {
		rows, err := db.Query("SELECT * FROM items WHERE id = ?", i)
		if err != nil {
			t.Fatal(err)
		}
		rows.Close()
	}
}
