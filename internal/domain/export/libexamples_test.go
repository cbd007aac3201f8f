package export_test

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/domain/export"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// TestLibrariesReadTheExamples does for the other shipped examples (both
// engines; libExamples) what TestLibrariesReadTheMigratedTable does for
// personalization: it migrates each, exports the ElectroDB module and the
// OneTable schema, and runs every access pattern through both libraries
// for up to 3 sampled parameter sets. Each call returns exactly the rows
// the pattern's SQL returns (counted, where the items do not hold their
// key columns) and the items its own Query returns, as verify runs it, in
// order; or the pattern is one the export leaves out and its notes name it
// (a formatter, a multi-attribute index, a raw sort key comparison, ...).
// For up to 3 rows of every entity, a get by key through each library
// returns exactly the item DynamoDB's GetItem returns at the row's key, or
// the entity is one the export leaves out and its notes name it (an
// index left out of an entity: its keys are attributes of the item, as
// Chinook's track holds GSI2's data, ALBUM#{album_id|pad:6|default:NONE}).
// Each example's dynamodb-mcp export passes the MCP server's validator
// rules (checkMCP), but Chinook's, which has no entity to write and is
// refused. Every library reads at least one pattern of every example but
// product-reviews, whose review keys have a formatter (unixms) neither
// library has.
func TestLibrariesReadTheExamples(t *testing.T) {
	dir, node := exportLibs(t)
	t.Setenv("AWS_ACCESS_KEY_ID", "local")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "local")
	t.Setenv("AWS_REGION", "us-east-1")
	for _, c := range libExamples() {
		ex, engine := c.name, c.engine
		t.Run(ex+"/"+engine, func(t *testing.T) {
			dsn, file := c.load(t)
			endpoint := testenv.DynamoDB(t)
			db, table := testenv.DynamoDBTable(t)
			if code, out, errOut := remodel(t, "migrate", "--source", dsn, "-m", file, "--endpoint", endpoint, "--table", table, "--create-table", "--progress", "none", "--rejects", filepath.Join(t.TempDir(), "rejects.jsonl"), "--checkpoint", filepath.Join(t.TempDir(), "checkpoint.json")); code != 0 {
				t.Fatalf("migrate: exit %d\n%s%s", code, out, errOut)
			}
			tmp := t.TempDir()
			electro, onetable := filepath.Join(tmp, "schema.ts"), filepath.Join(tmp, "onetable.json")
			notes := map[string]string{}
			for f, format := range map[string]string{electro: "electrodb", onetable: "onetable"} {
				code, out, errOut := remodel(t, "export", "--source", dsn, "-m", file, "--output", format, "--table", table, "--output-file", f)
				if code != 0 {
					t.Fatalf("export %s: exit %d\n%s%s", format, code, out, errOut)
				}
				notes[format] = errOut
			}
			// The same example's schema.json passes the MCP server's
			// validator rules, or (Chinook, whose keys all pad their ids)
			// no entity can be written and the export refuses.
			code, out, errOut := remodel(t, "export", "--source", dsn, "-m", file, "--output", "dynamodb-mcp", "--table", table)
			switch {
			case code != 0 && ex == "chinook" && strings.Contains(errOut, export.ErrNoMCPEntity.Error()):
			case code != 0:
				t.Errorf("export dynamodb-mcp: exit %d\n%s", code, errOut)
			default:
				if probs := checkMCP([]byte(out)); len(probs) > 0 {
					t.Errorf("schema.json breaks the MCP validator's rules:\n%s", strings.Join(probs, "\n"))
				}
			}
			ctx := context.Background()
			p := compile(t, ctx, dsn, file)
			calls, want := samplePatterns(t, ctx, p, engine, dsn, db, table)
			if len(calls) < len(p.AccessPatterns) {
				t.Fatalf("%d samples for %d access patterns", len(calls), len(p.AccessPatterns))
			}
			gets, wantGets := sampleGets(t, ctx, p, dsn, db, table)
			r := runLibs(t, dir, node, endpoint, table, electro, onetable, calls, gets, true)
			if len(r.TypeErrors) > 0 {
				t.Errorf("the ElectroDB module does not type-check:\n%s", strings.Join(r.TypeErrors, "\n"))
			}
			for lib, c := range map[string]struct {
				results []libResult
				format  string
			}{"ElectroDB": {r.ElectroDB, "electrodb"}, "OneTable": {r.OneTable, "onetable"}} {
				if len(c.results) != len(calls) {
					t.Fatalf("%s: %d results for %d calls", lib, len(c.results), len(calls))
				}
				read, items, left := 0, 0, 0
				for i, call := range calls {
					res := c.results[i]
					if strings.Contains(res.Error, "has no access pattern "+call.Pattern) {
						if !regexp.MustCompile(`not expressed: access pattern ` + regexp.QuoteMeta(call.Pattern) + ` is left out`).MatchString(notes[c.format]) {
							t.Errorf("%s: access pattern %s is missing, and the export's notes do not name it:\n%s", lib, call.Pattern, notes[c.format])
						}
						left++
						continue
					}
					if msg := compareLib(lib, want[i], res); msg != "" {
						t.Errorf("%s %s %v: %s", lib, call.Pattern, call.Params, msg)
						continue
					}
					read++
					for _, its := range want[i].items {
						items += len(its)
					}
				}
				t.Logf("%s: %d of %d calls read exactly what the SQL and the Query return (%d items); %d calls of patterns the export leaves out (its notes name them)", lib, read, len(calls), items, left)
				if read == 0 && ex != "product-reviews" {
					t.Errorf("%s reads no access pattern of %s", lib, ex)
				}
			}
			read := checkGets(t, r, gets, wantGets, notes)
			t.Logf("gets by key of %d sampled rows: ElectroDB reads %d items exactly, OneTable %d; the others are of entities the export leaves out (its notes name them)", len(gets), read["ElectroDB"], read["OneTable"])
		})
	}
}

// libExample is a shipped example on one engine: load fills a fresh
// database of the engine with it and returns its DSN and the mapping.
type libExample struct {
	name, engine string
	load         func(t *testing.T) (dsn, mapping string)
}

// libExamples are the shipped examples TestLibrariesReadTheExamples reads,
// each on both engines: board, leaderboard, game-profile and
// product-reviews (schema and data in the example's folder), and Chinook
// (the dataset's scripts, one mapping per edition).
func libExamples() []libExample {
	examples := filepath.Join("..", "..", "..", "examples")
	fresh := map[string]func(testing.TB) string{"postgres": testenv.Postgres, "mysql": testenv.MySQL}
	var out []libExample
	for _, ex := range []string{"board", "leaderboard", "game-profile", "product-reviews"} {
		for _, engine := range []string{"postgres", "mysql"} {
			out = append(out, libExample{ex, engine, func(t *testing.T) (string, string) {
				dsn := fresh[engine](t)
				testenv.LoadExample(t, engine, dsn, filepath.Join(examples, ex))
				return dsn, filepath.Join(examples, ex, "mapping.yaml")
			}})
		}
	}
	return append(out,
		libExample{"chinook", "postgres", func(t *testing.T) (string, string) {
			dsn := testenv.Postgres(t)
			testenv.LoadScript(t, dsn, "chinook/Chinook_PostgreSql.sql", testenv.ExecPostgres,
				"DROP DATABASE IF EXISTS chinook;", "CREATE DATABASE chinook;", `\c chinook;`)
			return dsn, filepath.Join(examples, "chinook", "mapping.postgres.yaml")
		}},
		libExample{"chinook", "mysql", func(t *testing.T) (string, string) {
			dsn := testenv.MySQL(t)
			testenv.LoadScript(t, dsn, "chinook/Chinook_MySql.sql", testenv.ExecMySQL,
				"DROP DATABASE IF EXISTS `Chinook`;", "CREATE DATABASE `Chinook`;", "USE `Chinook`;")
			return dsn, filepath.Join(examples, "chinook", "mapping.mysql.yaml")
		}})
}
