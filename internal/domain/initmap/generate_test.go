package initmap_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/testsupport/golden"

	"github.com/remodel-dev/remodel/internal/domain/initmap"
	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
)

// schemaFrom reads an ERD that introspect/erd's tests keep as JSON (what
// remodel introspect --output json prints for the real databases).
func schemaFrom(t *testing.T, name string) *introspect.Schema {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "introspect", "erd", "testdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var s introspect.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

// kept is the check of the foreign keys only some partitions declare
// (CheckPartitionKeys) as it comes out on the data of the ERD's databases
// (Pagila's payment: every row of payment_p2022_07 keeps them): no row
// breaks them, with the partitions' row estimates as the rows read.
// TestCheckPartitionKeys runs the check itself.
func kept(s *introspect.Schema) initmap.PartitionKeys {
	k := initmap.PartitionKeys{}
	for _, t := range s.Tables {
		for _, fk := range t.PartitionForeignKeys {
			var rows int64
			for _, p := range t.Partitioning.Partitions {
				if slices.Contains(fk.MissingOn, introspect.PartitionName{Schema: p.Schema, Name: p.Name}) {
					n, _, _ := p.Rows()
					rows += n
				}
			}
			k.Put(t, fk.ForeignKey, initmap.PartitionKeyCheck{Rows: rows})
		}
	}
	return k
}

// TestGenerateGolden writes the mapping of each ERD, compares it with its
// golden file, and checks that it parses and compiles against the same ERD
// without a problem.
func TestGenerateGolden(t *testing.T) {
	for _, name := range []string{"pagila", "chinook-postgres", "chinook-mysql", "tricky"} {
		t.Run(name, func(t *testing.T) {
			s := schemaFrom(t, name)
			got := initmap.Generate(s, initmap.Options{PartitionKeys: kept(s)})
			golden.Check(t, name+".yaml", got)
			if again := initmap.Generate(schemaFrom(t, name), initmap.Options{PartitionKeys: kept(s)}); string(again) != string(got) {
				t.Fatal("a second run wrote other bytes")
			}
			f, err := mapping.Parse(name+".yaml", got)
			if err != nil {
				t.Fatalf("the generated mapping does not parse:\n%v", err)
			}
			if err := mapping.Check(f); err != nil {
				t.Fatalf("the generated mapping does not check:\n%v", err)
			}
			if _, err := mapping.Compile(f, s); err != nil {
				t.Fatalf("the generated mapping does not compile against its ERD:\n%v", err)
			}
			if !strings.HasPrefix(string(got), "# yaml-language-server") {
				t.Error("no schema line")
			}
		})
	}
}

// TestGenerateStatistics: the statements of the statistics are listed with
// the access pattern that answers each, the one derived from it (with its
// index), or why none can be; statistics that could not be read are said
// to be missing, with the reason. The whole mapping of Pagila with
// statistics is a golden file, and it compiles against its ERD.
func TestGenerateStatistics(t *testing.T) {
	for _, c := range []struct {
		erd    string
		st     initmap.Statistics
		want   string // the statistics comment
		golden string // the whole mapping, if set
	}{{
		erd:    "pagila",
		golden: "pagila-statistics.yaml",
		st: initmap.Statistics{From: "pg_stat_statements", Statements: []initmap.Statement{
			{SQL: "SELECT * FROM film WHERE film_id = $1", Calls: 1520},
			{SQL: "SELECT title FROM film\n  WHERE rating = $1", Calls: 40},
			{SQL: "SELECT * FROM rental r WHERE r.customer_id = $1", Calls: 12},
			{SQL: "SELECT * FROM rental WHERE customer_id = $1 AND rental_date >= $2 ORDER BY rental_date DESC LIMIT $3", Calls: 12},
			{SQL: "SELECT * FROM rental WHERE customer_id = $1 AND rental_date < $2", Calls: 11},
			{SQL: "SELECT * FROM payment WHERE customer_id = $1 AND staff_id = $2 ORDER BY payment_date", Calls: 9},
			{SQL: "SELECT * FROM film WHERE rating = $1 AND length > $2", Calls: 8},
			{SQL: "SELECT count(*) FROM rental", Calls: 7},
			{SQL: "SELECT * FROM film f JOIN film_actor fa ON fa.film_id = f.film_id WHERE fa.actor_id = $1", Calls: 5},
			{SQL: "SELECT * FROM customer WHERE lower(email) = $1", Calls: 5},
			{SQL: "SELECT * FROM customer WHERE store_id = $1 OR active = $2", Calls: 4},
			{SQL: "SELECT * FROM nowhere WHERE id = $1", Calls: 3},
			{SQL: "SELECT title FROM film WHERE rating = $1", Calls: 2},
			{SQL: "SELECT * FROM film WHERE Rating = $1", Calls: 1},
			{SQL: "SELECT * FROM film WHERE film_id = $1 AND rating = $2", Calls: 1},
			{SQL: "SELECT * FROM payment WHERE customer_id = $1 ORDER BY amount DESC LIMIT $2", Calls: 1},
			{SQL: "SELECT * FROM film WHERE title = $1 AND description > $2", Calls: 1},
			{SQL: "SELECT * FROM payment WHERE staff_id = $1 AND customer_id = $2 ORDER BY payment_date DESC", Calls: 1},
		}},
	}, {
		erd: "chinook-mysql",
		st: initmap.Statistics{From: "performance_schema.events_statements_summary_by_digest", Statements: []initmap.Statement{
			{SQL: "SELECT * FROM `Track` WHERE `AlbumId` = ?", Calls: 3},
		}},
		want: "# Statement statistics (performance_schema.events_statements_summary_by_digest): the SELECT\n" +
			"#   statements this database ran most often, each with the access pattern below that answers\n" +
			"#   it; a pattern (and the index it needs) is derived from a statement that no pattern\n" +
			"#   answers and that one Query can answer (at the end of access_patterns):\n" +
			"# - 3 calls: SELECT * FROM `Track` WHERE `AlbumId` = ? → listTrackByAlbumId\n",
	}, {
		erd:  "chinook-postgres",
		st:   initmap.Statistics{From: "pg_stat_statements", Unavailable: "the extension pg_stat_statements is not installed"},
		want: "# Statement statistics: none read: the extension pg_stat_statements is not installed.\n",
	}} {
		t.Run(c.erd, func(t *testing.T) {
			s := schemaFrom(t, c.erd)
			got := initmap.Generate(s, initmap.Options{Statistics: &c.st, PartitionKeys: kept(s)})
			if c.golden != "" {
				golden.Check(t, c.golden, got)
				if again := initmap.Generate(schemaFrom(t, c.erd), initmap.Options{Statistics: &c.st, PartitionKeys: kept(s)}); string(again) != string(got) {
					t.Fatal("a second run wrote other bytes")
				}
				f, err := mapping.Parse(c.golden, got)
				if err != nil {
					t.Fatalf("the generated mapping does not parse:\n%v", err)
				}
				if err := mapping.Check(f); err != nil {
					t.Fatalf("the generated mapping does not check:\n%v", err)
				}
				if _, err := mapping.Compile(f, s); err != nil {
					t.Fatalf("the generated mapping does not compile against its ERD:\n%v", err)
				}
				return
			}
			i := strings.Index(string(got), "# Statement statistics")
			j := strings.Index(string(got), "version: 1")
			if i < 0 || j < i || string(got[i:j]) != c.want {
				t.Errorf("got:\n%s\nwant:\n%s", got[max(i, 0):j], c.want)
			}
		})
	}
}
