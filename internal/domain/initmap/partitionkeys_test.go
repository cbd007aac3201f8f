package initmap_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// TestCheckPartitionKeys: a foreign key declared on some partitions of a
// table only (as Pagila's payment declares its keys) is taken as the
// table's by init when every row of the other partitions keeps it, which
// init reads, and not while one row breaks it. Taken, it places the
// table's rows in the referenced table's collection.
func TestCheckPartitionKeys(t *testing.T) {
	dsn := testenv.Postgres(t)
	testenv.ExecPostgres(t, dsn, `
CREATE TABLE customers (customer_id int PRIMARY KEY, name text NOT NULL);
CREATE TABLE payments (
	payment_id  int NOT NULL,
	customer_id int NOT NULL,
	paid_at     timestamptz NOT NULL,
	amount      numeric(8,2) NOT NULL,
	PRIMARY KEY (paid_at, payment_id)
) PARTITION BY RANGE (paid_at);
CREATE TABLE payments_a PARTITION OF payments FOR VALUES FROM ('2024-01-01') TO ('2024-02-01');
CREATE TABLE payments_b PARTITION OF payments FOR VALUES FROM ('2024-02-01') TO ('2024-03-01');
CREATE TABLE payments_c PARTITION OF payments FOR VALUES FROM ('2024-03-01') TO ('2024-04-01');
ALTER TABLE payments_a ADD CONSTRAINT payments_a_customer_fk FOREIGN KEY (customer_id) REFERENCES customers (customer_id);
ALTER TABLE payments_b ADD CONSTRAINT payments_b_customer_fk FOREIGN KEY (customer_id) REFERENCES customers (customer_id);
INSERT INTO customers SELECT g, 'c' || g FROM generate_series(1, 20) AS g;
INSERT INTO payments SELECT g, 1 + g % 20, TIMESTAMPTZ '2024-01-01' + g * INTERVAL '1 day', 1 FROM generate_series(1, 80) AS g;
-- payments_c has no key: one of its rows names a customer that does not exist.
INSERT INTO payments VALUES (1000, 99, '2024-03-15', 1);
ANALYZE;
`)
	initFile := func() string {
		t.Helper()
		file := filepath.Join(t.TempDir(), "mapping.yaml")
		if code, out := remodel(t, "init", "--source", dsn, "--output-file", file); code != 0 {
			t.Fatalf("init: exit %d\n%s", code, out)
		}
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	unfold := func(s string) string { return strings.Join(strings.Fields(strings.ReplaceAll(s, "#", "")), " ") }

	broken := unfold(initFile())
	for _, want := range []string{
		"foreign key payments_a_customer_fk (customer_id, to customers) is declared on 2 of the 3 partitions of payments, not on payments_c: 1 of their 22 rows have no customers row for it, so the design does not take it as the table's",
		`pk: "PAYMENTS{paid_at}{payment_id|pad:10}"`,
	} {
		if !strings.Contains(broken, want) {
			t.Errorf("init with a row that breaks the key: no %q in\n%s", want, broken)
		}
	}

	testenv.ExecPostgres(t, dsn, `DELETE FROM payments WHERE payment_id = 1000; ANALYZE;`)
	kept := unfold(initFile())
	for _, want := range []string{
		"foreign key payments_a_customer_fk (customer_id, to customers) is declared on 2 of the 3 partitions of payments, not on payments_c: init read their 21 rows, and each one keeps it",
		"placed in the item collection of customers (foreign key payments_a_customer_fk)",
		`pk: "CUSTOMERS{customer_id|pad:10}"`,
	} {
		if !strings.Contains(kept, want) {
			t.Errorf("init with every row keeping the key: no %q in\n%s", want, kept)
		}
	}
}
