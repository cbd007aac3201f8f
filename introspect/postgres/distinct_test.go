package postgres_test

import (
	"testing"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/introspect/introspecttest"
)

// TestDistinct: after ANALYZE, a column's distinct values are pg_stats'
// (a count: 3 stores; a share of the rows, scaled: 1000 ids; none where
// every value is NULL), a partitioned table's those of its whole tree;
// before it, they are unknown.
func TestDistinct(t *testing.T) {
	dsn := testenv.Postgres(t)
	testenv.ExecPostgres(t, dsn, `
CREATE TABLE orders (id int PRIMARY KEY, store int NOT NULL, coupon int, placed date NOT NULL);
INSERT INTO orders SELECT g, g % 3, NULL, date '2024-01-01' + g % 2 FROM generate_series(1, 1000) g;
CREATE TABLE visits (id int NOT NULL, at date NOT NULL, page int NOT NULL, PRIMARY KEY (id, at)) PARTITION BY RANGE (at);
CREATE TABLE visits_a PARTITION OF visits FOR VALUES FROM ('2024-01-01') TO ('2024-02-01');
CREATE TABLE visits_b PARTITION OF visits FOR VALUES FROM ('2024-02-01') TO ('2024-03-01');
INSERT INTO visits SELECT g, date '2024-01-01' + g % 50, g % 7 FROM generate_series(1, 2000) g;`)
	s := inspect(t, dsn)
	if d := introspecttest.MustTable(t, s, "orders").Column("store").Distinct; d != nil {
		t.Errorf("orders.store before ANALYZE: %d distinct values, want unknown", *d)
	}
	testenv.ExecPostgres(t, dsn, "ANALYZE;")
	s = inspect(t, dsn)
	for _, c := range []struct {
		table, column string
		want          int64
	}{{"orders", "store", 3}, {"orders", "id", 1000}, {"orders", "coupon", 0}, {"orders", "placed", 2}, {"visits", "page", 7}, {"visits", "id", 2000}} {
		got := introspecttest.MustTable(t, s, c.table).Column(c.column).Distinct
		if got == nil || *got != c.want {
			t.Errorf("%s.%s: Distinct = %v, want %d", c.table, c.column, deref(got), c.want)
		}
	}
}

func deref(p *int64) any {
	if p == nil {
		return "unknown"
	}
	return *p
}
