package initmap_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/testsupport/golden"

	"github.com/remodel-dev/remodel/internal/app/cli"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

func remodel(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var out bytes.Buffer
	code := cli.Run(context.Background(), args, strings.NewReader(""), &out, &out)
	return code, out.String()
}

type database struct {
	name, engine string
	load         func(t *testing.T, dsn string)
}

func databases() []database {
	out := []database{{
		name: "pagila", engine: "postgres",
		load: func(t *testing.T, dsn string) { testenv.LoadPagila(t, dsn) },
	}, {
		name: "chinook", engine: "postgres",
		load: func(t *testing.T, dsn string) {
			testenv.LoadScript(t, dsn, "chinook/Chinook_PostgreSql.sql", testenv.ExecPostgres,
				"DROP DATABASE IF EXISTS chinook;", "CREATE DATABASE chinook;", `\c chinook;`)
		},
	}, {
		name: "chinook", engine: "mysql",
		load: func(t *testing.T, dsn string) {
			testenv.LoadScript(t, dsn, "chinook/Chinook_MySql.sql", testenv.ExecMySQL,
				"DROP DATABASE IF EXISTS `Chinook`;", "CREATE DATABASE `Chinook`;", "USE `Chinook`;")
		},
	}}
	for _, eng := range []string{"postgres", "mysql"} {
		// Names that need quoting, a reserved word, a table without a
		// primary key (and one without any key), a composite key, a join
		// table, a self-reference, a text and a bytes key, a partitioned
		// table, a view and a column named like the table's key.
		out = append(out, database{name: "tricky", engine: eng, load: func(t *testing.T, dsn string) {
			exec := testenv.ExecPostgres
			if eng == "mysql" {
				exec = testenv.ExecMySQL
			}
			for _, f := range []string{"schema." + eng + ".sql", "data." + eng + ".sql"} {
				b, err := os.ReadFile(filepath.Join("testdata", "tricky", f))
				if err != nil {
					t.Fatal(err)
				}
				exec(t, dsn, string(b))
			}
		}})
	}
	for _, ex := range []string{"personalization", "board", "leaderboard", "game-profile", "product-reviews"} {
		for _, eng := range []string{"postgres", "mysql"} {
			out = append(out, database{name: ex, engine: eng, load: func(t *testing.T, dsn string) {
				testenv.LoadExample(t, eng, dsn, filepath.Join("..", "..", "..", "examples", ex))
			}})
		}
	}
	return out
}

// TestInitMigrateVerify writes the mapping of each real database and each
// example schema with remodel init, and runs it unchanged: validate,
// migrate into a fresh DynamoDB Local table (every row read is written,
// none rejected) and verify (counts, every item, every access pattern).
// The databases run in parallel.
func TestInitMigrateVerify(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	t.Setenv("AWS_ACCESS_KEY_ID", "local")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "local")
	t.Setenv("AWS_REGION", "us-east-1")
	fresh := map[string]func(testing.TB) string{"postgres": testenv.Postgres, "mysql": testenv.MySQL}
	if os.Getenv("REMODEL_TEST_POSTGRES") == "" && !testenv.Require() {
		t.Skip("REMODEL_TEST_POSTGRES is not set")
	}
	for _, db := range databases() {
		t.Run(db.name+"/"+db.engine, func(t *testing.T) {
			t.Parallel() // each its own database and table
			dsn := fresh[db.engine](t)
			db.load(t, dsn)
			file := filepath.Join(t.TempDir(), "mapping.yaml")
			if code, out := remodel(t, "init", "--source", dsn, "--output-file", file); code != 0 {
				t.Fatalf("init: exit %d\n%s", code, out)
			}
			m, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if db.name == "tricky" {
				// The database's name is the test's own: golden without it.
				// Whether the server keeps statement statistics is the
				// machine's: the golden file leaves that comment out.
				stats := regexp.MustCompile(`(?m)^# Statement statistics.*\n(#  .*\n|# - .*\n)*`)
				if !stats.Match(m) {
					t.Errorf("no statement statistics comment:\n%s", m)
				}
				m := stats.ReplaceAll(m, nil)
				// Nor the test database's name, nor the row counts (MySQL's
				// are the engine's estimates), with the comments unwrapped
				// so that a count's width does not move the line breaks.
				m = regexp.MustCompile(`remodel_test_p[0-9]+_[0-9a-f]+`).ReplaceAll(m, []byte("DB"))
				m = regexp.MustCompile(`\n *#   `).ReplaceAll(m, []byte(" "))
				m = regexp.MustCompile(`\((about )?\d+ rows|\(rows unknown`).ReplaceAll(m, []byte("(N rows"))
				golden.Check(t, "tricky/mapping."+db.engine+".yaml", m)
			}
			code, out := remodel(t, "validate", "--source", dsn, "-m", file)
			if code != 0 {
				t.Fatalf("validate: exit %d\n%s\n%s", code, out, m)
			}
			// init's design has none of these risks: its key templates hold
			// the key, its prefixes end in #, no index key is a constant,
			// and every table it leaves out is a view or has no key.
			var warnings strings.Builder // validate's warnings, not its key-collision verdict
			for _, line := range strings.Split(out, "\n") {
				if strings.Contains(line, ": warning: ") {
					warnings.WriteString(line + "\n")
				}
			}
			for _, risk := range []string{"key collision", "without a separator", "is the constant", "never in"} {
				if strings.Contains(warnings.String(), risk) {
					t.Errorf("validate warns about the generated mapping (%q):\n%s", risk, out)
				}
			}
			if n := strings.Count(out, "is not read by any entity"); n != strings.Count(string(m), "\n  # - table ") {
				t.Errorf("validate warns of %d tables not read, init says it left out %d:\n%s", n, strings.Count(string(m), "\n  # - table "), out)
			}
			t.Logf("%s", out)
			if db.name != "tricky" { // tricky has a table without a key on purpose: not read, a warning
				strict(t, dsn, file)
			}
			migrateVerify(t, dsn, file, endpoint, m)
		})
	}
}

// migrateVerify migrates the source dsn by init's mapping file (its text
// m, for the failure's message) into a fresh table of DynamoDB Local at
// endpoint: every row read is written and none rejected; and verify
// passes (counts, every item, every access pattern).
func migrateVerify(t *testing.T, dsn, file, endpoint string, m []byte) {
	t.Helper()
	_, table := testenv.DynamoDBTable(t)
	code, out := remodel(t, "migrate", "--source", dsn, "-m", file, "--endpoint", endpoint, "--table", table, "--create-table", "--progress", "none", "--rejects", filepath.Join(t.TempDir(), "rejects.jsonl"), "--checkpoint", filepath.Join(t.TempDir(), "c.json")) // its files out of the source tree
	total := regexp.MustCompile(`total\s+(\d+)\s+(\d+)\s+(\d+)`).FindStringSubmatch(out)
	if code != 0 || total == nil || total[1] != total[2] || total[3] != "0" || total[1] == "0" {
		t.Fatalf("migrate: exit %d, want every row read written and none rejected:\n%s\n%s", code, out, m)
	}
	code, out = remodel(t, "verify", "--source", dsn, "-m", file, "--endpoint", endpoint, "--table", table, "--samples", "3", "--progress", "none")
	if code != 0 || !strings.HasPrefix(out, "verify PASS") || strings.Contains(out, "FAIL") {
		t.Fatalf("verify: exit %d\n%s\n%s", code, out, m)
	}
	t.Logf("%s rows migrated and verified", total[1])
}

// strict runs validate --strict on init's mapping: it passes (exit 0), and
// every warning validate gives is one the mapping acknowledges (init
// acknowledges the sparse indexes it makes on purpose, each with its
// reason). Anything else, a dangling half of an index key included, is a
// fault of init's design.
func strict(t *testing.T, dsn, file string) {
	t.Helper()
	code, out := remodel(t, "validate", "--strict", "--source", dsn, "-m", file)
	var other []string
	n := 0
	for _, line := range strings.Split(out, "\n") {
		switch {
		case !strings.Contains(line, ": warning: "):
		case strings.Contains(line, "(acknowledged at line "):
			n++
		default:
			other = append(other, line)
		}
	}
	if len(other) > 0 {
		t.Errorf("validate --strict warns about init's mapping:\n%s", strings.Join(other, "\n"))
	}
	if code != 0 {
		t.Errorf("validate --strict: exit %d:\n%s", code, out)
	}
	if n > 0 {
		t.Logf("validate --strict: %d warnings, each acknowledged by init (sparse indexes on purpose)", n)
	}
}
