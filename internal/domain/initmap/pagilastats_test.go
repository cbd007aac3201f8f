package initmap_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/testsupport/ownserver"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// PagilaStatisticsTarget is the most write units per item init's design of
// Pagila may write when pg_stat_statements holds a workload like Pagila's
// (issue 33 §1.3: 3.46, two derived indexes for what the customer's
// collection answers and one with a hot staff partition).
const PagilaStatisticsTarget = 2.5

// pagilaWorkload is what a rental shop's application runs on Pagila: its
// rows by key, a film by title and a customer by last name (the source's
// own indexes), a customer's newest rentals and recent payments (which the
// customer's collection answers in time order), a staff member's rentals
// and payments (2 staff: a hot index partition), a store's stock of a
// film, films of a rating, and a join.
var pagilaWorkload = []workload{
	{"SELECT * FROM film WHERE film_id = $1", 60, "SELECT film_id FROM film ORDER BY film_id"},
	{"SELECT * FROM rental WHERE customer_id = $1 ORDER BY rental_date DESC LIMIT 10", 40, "SELECT customer_id FROM customer ORDER BY customer_id"},
	{"SELECT * FROM customer WHERE customer_id = $1", 40, "SELECT customer_id FROM customer ORDER BY customer_id"},
	{"SELECT * FROM payment WHERE customer_id = $1 AND payment_date >= $2", 30,
		"SELECT customer_id, min(payment_date) FROM payment GROUP BY customer_id ORDER BY customer_id"},
	{"SELECT * FROM film WHERE title = $1", 25, "SELECT title FROM film ORDER BY film_id"},
	{"SELECT * FROM customer WHERE last_name = $1", 20, "SELECT last_name FROM customer ORDER BY customer_id"},
	{"SELECT * FROM inventory WHERE film_id = $1 AND store_id = $2", 20, "SELECT film_id, store_id FROM inventory ORDER BY inventory_id"},
	{"SELECT * FROM rental WHERE staff_id = $1 AND rental_date >= $2 ORDER BY rental_date", 12,
		"SELECT staff_id, rental_date FROM rental ORDER BY rental_id"},
	{"SELECT * FROM payment WHERE staff_id = $1 ORDER BY payment_date DESC LIMIT 20", 10, "SELECT staff_id FROM payment ORDER BY payment_id"},
	{"SELECT * FROM film WHERE rating = $1 AND length > $2", 8, "SELECT rating, length FROM film ORDER BY film_id"},
	{"SELECT * FROM rental WHERE inventory_id = $1", 8, "SELECT inventory_id FROM inventory ORDER BY inventory_id"},
	{"SELECT f.* FROM film f JOIN film_actor fa ON fa.film_id = f.film_id WHERE fa.actor_id = $1", 5, "SELECT actor_id FROM actor ORDER BY actor_id"},
}

// TestPagilaStatistics is issue 33's figure with statement statistics: a
// PostgreSQL of its own with pg_stat_statements, Pagila loaded (not
// analysed), the workload above run, then init: its design passes
// validate --strict and writes at most PagilaStatisticsTarget write units
// per item (preview --analyze), the statements the customer's collection
// answers derive no index, and a staff member's rows get none (2 staff).
func TestPagilaStatistics(t *testing.T) {
	dsn := ownserver.Postgres(t)
	testenv.LoadPagila(t, dsn)
	runWorkload(t, "postgres", dsn, pagilaWorkload)
	file := filepath.Join(t.TempDir(), "mapping.yaml")
	if code, out := remodel(t, "init", "--source", dsn, "--output-file", file); code != 0 {
		t.Fatalf("init: exit %d\n%s", code, out)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`\n *#   `).ReplaceAllString(string(b), " ") // the comments unwrapped
	for _, want := range []string{
		"ORDER BY rental_date DESC LIMIT $2 → findRentalByCustomerIdOrderByRentalDateDesc (derived from it: a Query of the item collection, no index)",
		"payment_date >= $2 → findPaymentByCustomerIdAndPaymentDateRange (derived from it: a Query of the item collection, no index)",
		"SELECT * FROM film WHERE title = $1 → findFilmByTitle",
		"SELECT * FROM customer WHERE last_name = $1 → findCustomerByLastName",
		"SELECT * FROM payment WHERE staff_id = $1 ORDER BY payment_date DESC LIMIT $2 → no pattern: no index: staff_id has 2 distinct values",
	} {
		if !strings.Contains(m, want) {
			t.Errorf("the mapping does not say\n  %s\n%s", want, m[:strings.Index(m, "version: 1")])
		}
	}
	strict(t, dsn, file)
	got := analyseDesign(t, dsn, file)
	t.Logf("Pagila with pg_stat_statements: init %s", got)
	if got.unitsPerItem > PagilaStatisticsTarget {
		t.Errorf("init's design writes %.2f write units per item, want at most %.1f", got.unitsPerItem, PagilaStatisticsTarget)
	}
	if got.hot > 0 {
		t.Errorf("the analysis finds %d hot partitions in init's design", got.hot)
	}
}
