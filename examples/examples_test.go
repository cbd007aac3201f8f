// Package examples_test runs every example end to end against real
// services: load it into a fresh database of each engine, validate, preview,
// migrate into a fresh DynamoDB Local table with the CLI, and verify.
package examples_test

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/app/cli"
	"github.com/remodel-dev/remodel/internal/domain/dynamo"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

type example struct {
	name    string
	engine  string
	mapping string
	load    func(t *testing.T, dsn string)
	rows    int // source rows the mapping covers
}

func examples() []example {
	var out []example
	for _, eng := range []string{"postgres", "mysql"} {
		out = append(out, example{
			name: "personalization", engine: eng, mapping: "personalization/mapping.yaml", rows: 6828,
			load: func(t *testing.T, dsn string) { testenv.LoadExample(t, eng, dsn, "personalization") },
		}, example{
			// 6088 rows; posts are read by three entities, post_tags by two.
			name: "board", engine: eng, mapping: "board/mapping.yaml", rows: 12581,
			load: func(t *testing.T, dsn string) { testenv.LoadExample(t, eng, dsn, "board") },
		}, example{
			// 4253 rows in four tables; 1071 weekly bests, each written once
			// per friend and for the user: 4485 fan-out items.
			name: "leaderboard", engine: eng, mapping: "leaderboard/mapping.yaml", rows: 5556,
			load: func(t *testing.T, dsn string) { testenv.LoadExample(t, eng, dsn, "leaderboard") },
		}, example{
			// 40 products and 1050 reviews.
			name: "product-reviews", engine: eng, mapping: "product-reviews/mapping.yaml", rows: 1090,
			load: func(t *testing.T, dsn string) { testenv.LoadExample(t, eng, dsn, "product-reviews") },
		}, example{
			// 5256 rows; the 1581 user_servers rows are embedded in the
			// users' items, not items of their own.
			name: "game-profile", engine: eng, mapping: "game-profile/mapping.yaml", rows: 3675,
			load: func(t *testing.T, dsn string) { testenv.LoadExample(t, eng, dsn, "game-profile") },
		})
	}
	out = append(out, example{
		name: "chinook", engine: "postgres", mapping: "chinook/mapping.postgres.yaml", rows: 15607,
		load: func(t *testing.T, dsn string) {
			testenv.LoadScript(t, dsn, "chinook/Chinook_PostgreSql.sql", testenv.ExecPostgres,
				"DROP DATABASE IF EXISTS chinook;", "CREATE DATABASE chinook;", `\c chinook;`)
		},
	}, example{
		name: "chinook", engine: "mysql", mapping: "chinook/mapping.mysql.yaml", rows: 15607,
		load: func(t *testing.T, dsn string) {
			testenv.LoadScript(t, dsn, "chinook/Chinook_MySql.sql", testenv.ExecMySQL,
				"DROP DATABASE IF EXISTS `Chinook`;", "CREATE DATABASE `Chinook`;", "USE `Chinook`;")
		},
	})
	return out
}

// migratedExample loads an example into a fresh PostgreSQL database and
// migrates it with the CLI into a fresh DynamoDB Local table, for a test
// that then breaks the table.
func migratedExample(t *testing.T, name string) (dsn, endpoint string, db dynamo.API, table string) {
	t.Helper()
	endpoint = testenv.DynamoDB(t)
	t.Setenv("AWS_ACCESS_KEY_ID", "local")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "local")
	t.Setenv("AWS_REGION", "us-east-1")
	dsn = testenv.Postgres(t)
	testenv.LoadExample(t, "postgres", dsn, name)
	db, table = testenv.DynamoDBTable(t)
	if code, out := remodel(t, "migrate", "--source", dsn, "-m", name+"/mapping.yaml", "--endpoint", endpoint, "--table", table, "--create-table", "--rejects", filepath.Join(t.TempDir(), "rejects.jsonl"), "--checkpoint", filepath.Join(t.TempDir(), "c.json")); code != 0 { // the checkpoint and the finished record out of the source tree
		t.Fatalf("migrate: exit %d\n%s", code, out)
	}
	return dsn, endpoint, db, table
}

// verifyFails runs verify on a table migratedExample gave and then broke,
// with --samples samples, and returns its output: verify must fail.
func verifyFails(t *testing.T, dsn, mapping, endpoint, table, samples string) string {
	t.Helper()
	code, out := remodel(t, "verify", "--source", dsn, "-m", mapping, "--endpoint", endpoint, "--table", table, "--samples", samples)
	t.Logf("%s", out)
	if code == 0 || !strings.HasPrefix(out, "verify FAIL") {
		t.Fatalf("verify of a broken table: exit %d, want a failure\n%s", code, out)
	}
	return out
}

func remodel(t *testing.T, args ...string) (int, string) {
	t.Helper()
	// stdout, then stderr: the report first, whatever progress lines a
	// slow run prints on stderr meanwhile.
	var out, errOut bytes.Buffer
	code := cli.Run(context.Background(), args, strings.NewReader(""), &out, &errOut)
	return code, out.String() + errOut.String()
}

func TestExamples(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	t.Setenv("AWS_ACCESS_KEY_ID", "local")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "local")
	t.Setenv("AWS_REGION", "us-east-1")
	fresh := map[string]func(testing.TB) string{"postgres": testenv.Postgres, "mysql": testenv.MySQL}
	for _, ex := range examples() {
		t.Run(ex.name+"/"+ex.engine, func(t *testing.T) {
			t.Parallel() // each its own database and table
			dsn := fresh[ex.engine](t)
			ex.load(t, dsn)
			_, table := testenv.DynamoDBTable(t)
			for _, step := range [][]string{
				{"validate", "--source", dsn, "-m", ex.mapping},
				{"preview", "--source", dsn, "-m", ex.mapping, "--rows", "2"},
			} {
				if code, out := remodel(t, step...); code != 0 || strings.Contains(out, "rejected") {
					t.Fatalf("remodel %s: exit %d\n%s", step[0], code, out)
				}
			}
			code, out := remodel(t, "migrate", "--source", dsn, "-m", ex.mapping, "--endpoint", endpoint, "--table", table, "--create-table", "--rejects", filepath.Join(t.TempDir(), "rejects.jsonl"), "--checkpoint", filepath.Join(t.TempDir(), "c.json")) // its files out of the source tree
			total := regexp.MustCompile(`total\s+(\d+)\s+(\d+)\s+(\d+)`).FindStringSubmatch(out)
			if code != 0 || total == nil || total[1] != total[2] || total[3] != "0" || total[1] != strconv.Itoa(ex.rows) {
				t.Fatalf("migrate: exit %d, want %d rows read and written, none rejected:\n%s", code, ex.rows, out)
			}
			code, out = remodel(t, "verify", "--source", dsn, "-m", ex.mapping, "--endpoint", endpoint, "--table", table, "--samples", "5")
			if code != 0 || !strings.HasPrefix(out, "verify PASS") || strings.Contains(out, "FAIL") {
				t.Fatalf("verify: exit %d\n%s", code, out)
			}
			t.Logf("%s", out)
		})
	}
}

// TestExamplesStrict: every example's mapping passes validate --strict
// against its database: each warning it has is one its design intends,
// acknowledged in the mapping with the reason.
func TestExamplesStrict(t *testing.T) {
	fresh := map[string]func(testing.TB) string{"postgres": testenv.Postgres, "mysql": testenv.MySQL}
	for _, ex := range examples() {
		t.Run(ex.name+"/"+ex.engine, func(t *testing.T) {
			t.Parallel()
			dsn := fresh[ex.engine](t)
			ex.load(t, dsn)
			if code, out := remodel(t, "validate", "--strict", "--source", dsn, "-m", ex.mapping); code != 0 {
				t.Errorf("validate --strict: exit %d\n%s", code, out)
			} else {
				t.Logf("%s", out)
			}
		})
	}
}
