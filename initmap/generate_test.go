package initmap_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/initmap"
	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// schemaFrom reads an ERD that introspect/erd's tests keep as JSON (what
// remodel introspect --format json prints for the real databases).
func schemaFrom(t *testing.T, name string) *introspect.Schema {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "introspect", "erd", "testdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var s introspect.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != string(got) {
		t.Errorf("%s differs from the output (go test -update rewrites it); got:\n%s", path, got)
	}
}

// TestGenerateGolden writes the mapping of each ERD, compares it with its
// golden file, and checks that it parses and compiles against the same ERD
// without a problem.
func TestGenerateGolden(t *testing.T) {
	for _, name := range []string{"pagila", "chinook-postgres", "chinook-mysql", "tricky"} {
		t.Run(name, func(t *testing.T) {
			s := schemaFrom(t, name)
			got := initmap.Generate(s, initmap.Options{})
			golden(t, name+".yaml", got)
			if again := initmap.Generate(schemaFrom(t, name), initmap.Options{}); string(again) != string(got) {
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
// the access pattern that answers each, or why none does; statistics that
// could not be read are said to be missing, with the reason.
func TestGenerateStatistics(t *testing.T) {
	for _, c := range []struct {
		erd  string
		st   initmap.Statistics
		want string
	}{{
		erd: "pagila",
		st: initmap.Statistics{From: "pg_stat_statements", Statements: []initmap.Statement{
			{SQL: "SELECT * FROM film WHERE film_id = $1", Calls: 1520},
			{SQL: "SELECT title FROM film\n  WHERE rating = $1", Calls: 40},
			{SQL: "SELECT * FROM rental r WHERE r.customer_id = $1", Calls: 12},
			{SQL: "SELECT count(*) FROM rental", Calls: 7},
		}},
		want: `# Statement statistics (pg_stat_statements): the SELECT statements this database ran most
#   often, and the access pattern below that answers each:
# - 1520 calls: SELECT * FROM film WHERE film_id = $1 → getFilm
# - 40 calls: SELECT title FROM film WHERE rating = $1 → no pattern: a key or an index on
#   film (rating) would answer it
# - 12 calls: SELECT * FROM rental r WHERE r.customer_id = $1 → listRentalByCustomerId
# - 7 calls: SELECT count(*) FROM rental → not a lookup of one table by equality: design
#   its key or index by hand
`,
	}, {
		erd: "chinook-mysql",
		st: initmap.Statistics{From: "performance_schema.events_statements_summary_by_digest", Statements: []initmap.Statement{
			{SQL: "SELECT * FROM `Track` WHERE `AlbumId` = ?", Calls: 3},
		}},
		want: "# Statement statistics (performance_schema.events_statements_summary_by_digest): the SELECT\n" +
			"#   statements this database ran most often, and the access pattern below that answers each:\n" +
			"# - 3 calls: SELECT * FROM `Track` WHERE `AlbumId` = ? → listTrackByAlbumId\n",
	}, {
		erd:  "chinook-postgres",
		st:   initmap.Statistics{From: "pg_stat_statements", Unavailable: "the extension pg_stat_statements is not installed"},
		want: "# Statement statistics: none read: the extension pg_stat_statements is not installed.\n",
	}} {
		t.Run(c.erd, func(t *testing.T) {
			got := string(initmap.Generate(schemaFrom(t, c.erd), initmap.Options{Statistics: &c.st}))
			i := strings.Index(got, "# Statement statistics")
			j := strings.Index(got, "version: 1")
			if i < 0 || j < i || got[i:j] != c.want {
				t.Errorf("got:\n%s\nwant:\n%s", got[max(i, 0):j], c.want)
			}
		})
	}
}
