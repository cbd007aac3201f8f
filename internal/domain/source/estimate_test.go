package source_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/domain/source/sourcetest"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// TestEstimate: the planner's estimate of a table with a where, of a view
// and of a query (a derived table) is a number of rows near the real one,
// on both engines, without reading them.
func TestEstimate(t *testing.T) {
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			ctx := sourcetest.Context(t)
			dsn := eng.Fresh(t)
			var values []string
			for i := 1; i <= 2000; i++ {
				values = append(values, fmt.Sprintf("(%d, %d)", i, i%10))
			}
			analyze := "ANALYZE nums;"
			if eng.Name == "mysql" {
				analyze = "ANALYZE TABLE nums;"
			}
			eng.Exec(t, dsn, "CREATE TABLE nums (id INT PRIMARY KEY, d INT NOT NULL);\nINSERT INTO nums VALUES "+strings.Join(values, ", ")+";\n"+analyze+"\nCREATE VIEW small AS SELECT id, d FROM nums WHERE id <= 1000;")
			src := sourcetest.Open(t, ctx, dsn)
			s, err := src.Inspect(ctx)
			if err != nil {
				t.Fatal(err)
			}
			r := sourcetest.Reader(t, ctx, src)
			nums, err := s.Table("nums")
			if err != nil {
				t.Fatal(err)
			}
			view, err := s.Table("small")
			if err != nil {
				t.Fatal(err)
			}
			const query = "SELECT id, d FROM nums WHERE d < 5"
			cols, err := src.QueryColumns(ctx, query)
			if err != nil {
				t.Fatal(err)
			}
			q := s.AddQuery(query, cols)
			for _, c := range []struct {
				name   string
				n      int64 // the real count
				est    func() (int64, bool, error)
				lo, hi int64 // what a planner's estimate may be
			}{
				{"the table", 2000, func() (int64, bool, error) { return r.Estimate(ctx, nums, "") }, 1000, 4000},
				{"the table with a where", 1000, func() (int64, bool, error) { return r.Estimate(ctx, nums, "id <= 1000") }, 200, 2500},
				{"a view", 1000, func() (int64, bool, error) { return r.Estimate(ctx, view, "") }, 100, 4000},
				{"a query", 1000, func() (int64, bool, error) { return r.Estimate(ctx, q, "") }, 100, 4000},
			} {
				n, ok, err := c.est()
				if err != nil || !ok || n < c.lo || n > c.hi {
					t.Errorf("Estimate of %s = %d, %v, %v; want between %d and %d (it holds %d)", c.name, n, ok, err, c.lo, c.hi, c.n)
				}
			}
		})
	}
}

// TestEstimateFailsAlone: an estimate the database refuses, in a
// snapshot's transaction, leaves the reader able to read.
func TestEstimateFailsAlone(t *testing.T) {
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			ctx := sourcetest.Context(t)
			dsn := eng.Fresh(t)
			eng.Exec(t, dsn, "CREATE TABLE nums (id INT PRIMARY KEY);\nINSERT INTO nums VALUES (1), (2);")
			src := sourcetest.Open(t, ctx, dsn)
			s, err := src.Inspect(ctx)
			if err != nil {
				t.Fatal(err)
			}
			nums, err := s.Table("nums")
			if err != nil {
				t.Fatal(err)
			}
			snap, err := src.Snapshot(ctx, 1)
			if err != nil {
				t.Fatal(err)
			}
			defer snap.Close()
			r := snap.Readers()[0]
			if _, _, err := r.Estimate(ctx, nums, "no_such_column = 1"); err == nil {
				t.Fatal("Estimate with a where naming no column: no error")
			}
			if n, err := r.Count(ctx, nums, ""); err != nil || n != 2 {
				t.Fatalf("Count after the failed estimate = %d, %v; want 2", n, err)
			}
		})
	}
}
