package initmap_test

import (
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/domain/initmap"
	"github.com/remodel-dev/remodel/internal/testsupport/golden"
	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
)

// TestGenerateHintsAndOpenRows: Pagila's non-unique indexes on columns no
// foreign key holds (film by title, customer and actor by last_name) each
// give an access pattern through an overloaded index; its rentals not yet
// returned (return_date NULL in 183 of 16044 rows, as init counts them)
// and a partial index (customer by last_name WHERE active = 1) each give a
// sparse index whose key only those rows write, acknowledged for validate
// --strict; a partial index on a column of two values (store_id) gives
// none, with the figures. A return_date never NULL, or NULL in 40 % of
// the rows, gives none. The
// whole mapping is a golden file, and it compiles against its ERD.
func TestGenerateHintsAndOpenRows(t *testing.T) {
	s := schemaFrom(t, "pagila")
	m := initmap.Measured{}
	for _, tb := range s.Tables {
		switch tb.Name {
		case "rental":
			m.Put(tb, "return_date", initmap.Count{Rows: 16044, Distinct: 15815, NonNull: 15861})
		case "customer":
			tb.Indexes = append(tb.Indexes, introspect.Index{Name: "customer_active_by_name", Method: "btree",
				Columns: []introspect.IndexColumn{{Column: "last_name"}}, Where: "(active = 1)"},
				introspect.Index{Name: "customer_active_by_store", Method: "btree",
					Columns: []introspect.IndexColumn{{Column: "store_id"}}, Where: "(active = 1)"})
		}
	}
	got := initmap.Generate(s, initmap.Options{PartitionKeys: kept(s), Measured: m})
	golden.Check(t, "pagila-open.yaml", got)
	flat := strings.ReplaceAll(string(got), "\n#   ", " ") // the comments unwrapped
	for _, want := range []string{
		"# - film.idx_title (title) → findFilmByTitle (derived from it, through GSI",
		"# - rental: return_date is NULL in 183 of 16044 rows (1.1 %, counted by init in every row) → listOpenRentalByCustomerId",
		"{value: \"CUSTOMER#{customer_id|pad:10}\", when: \"return_date IS NULL\"}",
		"SELECT * FROM rental WHERE customer_id = {customer_id} AND return_date IS NULL",
		"# - customer: partial index customer_active_by_name (WHERE (active = 1)) → listCustomerByLastNameWhereActive1",
		"SELECT * FROM customer WHERE last_name = {last_name} AND ((active = 1))",
		"# - customer: partial index customer_active_by_store (WHERE (active = 1)): no index: store_id has about 2 distinct values",
		"warning: sparse-when, entity: rental",
		"warning: sparse-when, entity: customer",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("the mapping does not hold\n  %s", want)
		}
	}
	// return_date never NULL, or NULL in 40 % of the rows: no open rows.
	for _, nonNull := range []int64{16044, 9626} {
		for _, tb := range s.Tables {
			if tb.Name == "rental" {
				m.Put(tb, "return_date", initmap.Count{Rows: 16044, Distinct: 9000, NonNull: nonNull})
			}
		}
		if again := initmap.Generate(s, initmap.Options{PartitionKeys: kept(s), Measured: m}); strings.Contains(string(again), "return_date IS NULL") {
			t.Errorf("return_date, NULL in %d of 16044 rows, was taken for an open state", 16044-nonNull)
		}
	}
	f, err := mapping.Parse("pagila-open.yaml", got)
	if err != nil {
		t.Fatalf("the generated mapping does not parse:\n%v", err)
	}
	if err := mapping.Check(f); err != nil {
		t.Fatalf("the generated mapping does not check:\n%v", err)
	}
	if _, err := mapping.Compile(f, s); err != nil {
		t.Fatalf("the generated mapping does not compile against its ERD:\n%v", err)
	}
}
