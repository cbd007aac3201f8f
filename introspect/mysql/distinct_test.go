package mysql_test

import (
	"testing"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/introspect/introspecttest"
)

// TestDistinct: a column an index begins with has the index's CARDINALITY
// as its distinct values once InnoDB has sampled the table (ANALYZE
// TABLE); before that, a table filled after it was created reports 2 for
// every index, its primary key's included, which is stale: unknown. A
// column no index begins with has none.
func TestDistinct(t *testing.T) {
	dsn := testenv.MySQL(t)
	testenv.ExecMySQL(t, dsn, `
CREATE TABLE stores (id int PRIMARY KEY);
INSERT INTO stores VALUES (0), (1), (2);
CREATE TABLE orders (id int PRIMARY KEY, store int NOT NULL, note int, FOREIGN KEY (store) REFERENCES stores (id))
	ENGINE=InnoDB STATS_AUTO_RECALC=0;
INSERT INTO orders (id, store) SELECT seq, seq % 3 FROM seq_1_to_3000;`)
	s := inspect(t, dsn)
	// Without its automatic recalculation, InnoDB keeps the figures of the
	// empty table: CARDINALITY 2, and TABLE_ROWS 3000.
	if d := introspecttest.MustTable(t, s, "orders").Column("store").Distinct; d != nil {
		t.Errorf("orders.store before ANALYZE TABLE: %d distinct values, want unknown (the statistics are stale)", *d)
	}
	testenv.ExecMySQL(t, dsn, "ANALYZE TABLE orders, stores;")
	s = inspect(t, dsn)
	orders := introspecttest.MustTable(t, s, "orders")
	// InnoDB samples: a few distinct values may be counted up to 3 times.
	if d := orders.Column("store").Distinct; d == nil || *d < 3 || *d > 9 {
		t.Errorf("orders.store: Distinct = %v, want about 3", deref(d))
	}
	if d := orders.Column("id").Distinct; d == nil || *d < 2000 {
		t.Errorf("orders.id: Distinct = %v, want about 3000", deref(d))
	}
	if d := orders.Column("note").Distinct; d != nil {
		t.Errorf("orders.note (no index): Distinct = %d, want unknown", *d)
	}
}

func deref(p *int64) any {
	if p == nil {
		return "unknown"
	}
	return *p
}
