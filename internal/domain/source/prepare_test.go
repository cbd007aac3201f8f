package source_test

import (
	"errors"
	"testing"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/internal/domain/source/sourcetest"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// TestPrepare: the database checks a statement without running it; what
// it refuses is an *SQLError with its own message, and nothing runs.
func TestPrepare(t *testing.T) {
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			ctx := sourcetest.Context(t)
			dsn := eng.Fresh(t)
			eng.Exec(t, dsn, "CREATE TABLE t (id INT PRIMARY KEY, k VARCHAR(10)); INSERT INTO t VALUES (1, 'a');")
			src := sourcetest.Open(t, ctx, dsn)
			tab := sourcetest.InspectTable(t, ctx, src, "t")
			e := src.Engine()

			ok := []string{
				source.ScanSQL(e, tab, "k <> 'b'"),
				"SELECT * FROM t WHERE k = " + source.Placeholder(e, 1) + " AND id > " + source.Placeholder(e, 2),
				"DELETE FROM t", // prepared, never run
			}
			for _, q := range ok {
				if err := src.Prepare(ctx, q); err != nil {
					t.Errorf("Prepare(%q): %v", q, err)
				}
			}
			r := sourcetest.OpenSnapshot(t, ctx, src, 1).Readers()[0]
			if n, err := r.Count(ctx, tab, ""); err != nil || n != 1 {
				t.Errorf("the table has %d rows after Prepare (%v), want 1", n, err)
			}

			want := map[string]string{
				"postgres": `column "kk" does not exist (SQLSTATE 42703); hint: Perhaps you meant to reference the column "t.k".`,
				"mysql":    `Error 1054 (42S22): Unknown column 'kk' in 'WHERE'`,
			}[eng.Name]
			err := src.Prepare(ctx, source.ScanSQL(e, tab, "kk = 'a'"))
			var se *source.SQLError
			if !errors.As(err, &se) || err.Error() != want {
				t.Errorf("Prepare with an unknown column: %v (%T), want *SQLError %q", err, err, want)
			}
			// The connection is still usable after a refused statement.
			if err := src.Prepare(ctx, ok[0]); err != nil {
				t.Errorf("Prepare after an error: %v", err)
			}
		})
	}
}
