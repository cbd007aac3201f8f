package cli

import (
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// TestValidateUnpopulatedView: an entity that reads a
// PostgreSQL materialized view created WITH NO DATA fails validate at its
// from: (PostgreSQL prepares a read of it and refuses to run one); once
// refreshed, the mapping is valid.
func TestValidateUnpopulatedView(t *testing.T) {
	dsn := testenv.Postgres(t)
	testenv.ExecPostgres(t, dsn, `CREATE TABLE orders (id int PRIMARY KEY, customer int NOT NULL);
INSERT INTO orders VALUES (1, 10), (2, 10), (3, 20);
CREATE MATERIALIZED VIEW customers AS SELECT DISTINCT customer AS id FROM orders WITH NO DATA;
`)
	m := writeFile(t, "mv.yaml", `version: 1
table:
  name: shop
  key: {pk: PK, sk: SK}
entities:
  customer:
    from: customers
    key: [id]
    pk: "C#{id}"
    sk: "C"
  order:
    from: orders
    pk: "C#{customer}"
    sk: "O#{id}"
`)
	code, out, errOut := remodel(t, "validate", "--source", dsn, "-m", m)
	want := "remodel: " + m + ":7:11: entities.customer.from: materialized view public.customers has not been populated (created WITH NO DATA): reading it fails; run REFRESH MATERIALIZED VIEW public.customers first\n"
	if code != exitFailed || out != "" || errOut != want {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s\nwant exit %d and:\n%s", code, out, errOut, exitFailed, want)
	}

	testenv.ExecPostgres(t, dsn, "REFRESH MATERIALIZED VIEW customers")
	code, out, errOut = remodel(t, "validate", "--source", dsn, "-m", m)
	if code != exitOK || !strings.Contains(out, "valid against postgres") {
		t.Fatalf("after REFRESH: exit %d\n%s%s", code, out, errOut)
	}
}
