package migrate_test

import (
	"testing"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/migrate"
)

// TestFollowSupport: what validate says of --follow: entities followed row
// by row, the tables that need REPLICA IDENTITY FULL (an item key reading a
// column outside the primary key; an embed's child table linked by columns
// outside its key), the entities diffed at the stop (a view), also when no entity is
// followed row by row.
func TestFollowSupport(t *testing.T) {
	const schema = `
CREATE TABLE orders (id int PRIMARY KEY, created_at timestamptz NOT NULL, customer int NOT NULL);
CREATE TABLE lines (id int PRIMARY KEY, order_id int NOT NULL REFERENCES orders, qty int NOT NULL);
CREATE TABLE customers (id int PRIMARY KEY, name text NOT NULL);
CREATE VIEW big_orders AS SELECT id, customer FROM orders WHERE id > 100;
`
	for _, c := range []struct {
		name, mapping, want string
	}{
		{"key columns only", `version: 1
table: {name: shop, key: {pk: PK, sk: SK}}
entities:
  customer: {from: customers, pk: "C#{id}", sk: "C#"}
`, "migrate --follow: every entity is followed row by row (customer)"},
		{"full rows", `version: 1
table: {name: shop, key: {pk: PK, sk: SK}}
entities:
  order:
    from: orders
    pk: "C#{customer}"
    sk: "O#{created_at|iso}#{id}"
    embed:
      lines: {from: lines}
  customer: {from: customers, pk: "C#{id}", sk: "C#"}
`, "migrate --follow: every entity is followed row by row (order, customer); needs REPLICA IDENTITY FULL on public.orders, public.lines"},
		{"view", `version: 1
table: {name: shop, key: {pk: PK, sk: SK}}
entities:
  big:
    from: big_orders
    key: [id]
    pk: "B#{id}"
    sk: "B#"
  customer: {from: customers, pk: "C#{id}", sk: "C#"}
`, "migrate --follow: followed row by row: customer; diffed when the follower stops (a change cannot be traced to their items): big (a view)"},
		{"only a view", `version: 1
table: {name: shop, key: {pk: PK, sk: SK}}
entities:
  big:
    from: big_orders
    key: [id]
    pk: "B#{id}"
    sk: "B#"
`, "migrate --follow: no entity is followed row by row; every one is diffed when the follower stops (a change cannot be traced to their items): big (a view)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			fx := load(t, testenv.Engines[0], schema, c.mapping)
			if got := migrate.FollowSupport(fx.plan); got != c.want {
				t.Errorf("FollowSupport:\n got %s\nwant %s", got, c.want)
			}
		})
	}
}
