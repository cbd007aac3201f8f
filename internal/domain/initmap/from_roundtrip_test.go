package initmap_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/mapping"
)

// TestFromExportRoundTrip exports each shipped example (both engines;
// Chinook's two editions) as the DynamoDB MCP server's schema.json, reads it back with init --from,
// and migrates both mappings into DynamoDB Local: every entity of the
// example either writes exactly the same items through the mapping read
// back (compared by entity, every attribute of every item) or is named by
// a note of the export or of init --from (what schema.json cannot hold).
// The mapping read back validates against the source (init --from exits
// 0), and at least one entity of each example writes the same items;
// but Chinook's keys all pad their ids, which schema.json cannot hold, so
// its export names every entity as left out and refuses to write a file
// without entities (the MCP server's validator refuses one).
// The personalization example is also read back without remodel.source
// (by names), and with every marker set (table.markers): the items read
// back carry the markers, and exporting the mapping read back writes the
// same markers again. The examples run in parallel (each its own
// database and tables).
func TestFromExportRoundTrip(t *testing.T) {
	endpoint := testenv.DynamoDB(t)
	t.Setenv("AWS_ACCESS_KEY_ID", "local")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "local")
	t.Setenv("AWS_REGION", "us-east-1")
	fresh := map[string]func(testing.TB) string{"postgres": testenv.Postgres, "mysql": testenv.MySQL}
	for _, ex := range []string{"personalization", "board", "leaderboard", "game-profile", "product-reviews"} {
		for _, eng := range []string{"postgres", "mysql"} {
			t.Run(ex+"/"+eng, func(t *testing.T) {
				t.Parallel()
				dsn := fresh[eng](t)
				dir := filepath.Join("..", "..", "..", "examples", ex)
				testenv.LoadExample(t, eng, dsn, dir)
				items := roundTrip(t, endpoint, dsn, filepath.Join(dir, "mapping.yaml"), false, nil)
				if ex == "personalization" {
					// As AWS's modeler writes it: no remodel section, the
					// tables and columns found by their names. The example's
					// own items are those just migrated (the same mapping
					// and source): not migrated again.
					t.Run("names", func(t *testing.T) { roundTrip(t, endpoint, dsn, filepath.Join(dir, "mapping.yaml"), true, items) })
					// With every marker set (table.markers): the items
					// read back carry them, and so does the next export.
					t.Run("markers", func(t *testing.T) {
						marked := testenv.EditedFile(t, filepath.Join(dir, "mapping.yaml"), "entity_attribute: _type",
							"entity_attribute: kind\n  markers: [{electrodb: {version: \"2\"}}, onetable, version]")
						roundTrip(t, endpoint, dsn, marked, false, nil)
					})
				}
			})
		}
	}
	// Chinook: the dataset's scripts, one mapping per edition.
	for _, c := range []struct{ eng, script, mapping string }{
		{"postgres", "chinook/Chinook_PostgreSql.sql", "mapping.postgres.yaml"},
		{"mysql", "chinook/Chinook_MySql.sql", "mapping.mysql.yaml"},
	} {
		t.Run("chinook/"+c.eng, func(t *testing.T) {
			dsn := fresh[c.eng](t)
			if c.eng == "postgres" {
				testenv.LoadScript(t, dsn, c.script, testenv.ExecPostgres, "DROP DATABASE IF EXISTS chinook;", "CREATE DATABASE chinook;", `\c chinook;`)
			} else {
				testenv.LoadScript(t, dsn, c.script, testenv.ExecMySQL, "DROP DATABASE IF EXISTS `Chinook`;", "CREATE DATABASE `Chinook`;", "USE `Chinook`;")
			}
			// Every key of Chinook pads its ids (pad:6), which schema.json's
			// templates ({field} only) cannot hold: the export leaves every
			// entity out, names each, and writes no file.
			noEntityExported(t, dsn, filepath.Join("..", "..", "..", "examples", "chinook", c.mapping))
		})
	}
}

// roundTrip exports the mapping as schema.json (without its remodel
// section when foreign), reads it back and compares the items: those of
// the original mapping (migrated here, unless given as originalItems, by
// entity as scanByEntity returns them) with those of the mapping read
// back. It returns the original mapping's items.
func roundTrip(t *testing.T, endpoint, dsn, original string, foreign bool, originalItems map[string][]string) map[string][]string {
	tmp := t.TempDir()
	schema, readBack := filepath.Join(tmp, "schema.json"), filepath.Join(tmp, "mapping.yaml")
	code, out := remodel(t, "export", "--source", dsn, "-m", original, "--output", "dynamodb-mcp", "--output-file", schema)
	if code != 0 {
		t.Fatalf("export: exit %d\n%s", code, out)
	}
	if foreign {
		b, err := os.ReadFile(schema)
		if err != nil {
			t.Fatal(err)
		}
		var top map[string]json.RawMessage
		if err := json.Unmarshal(b, &top); err != nil {
			t.Fatal(err)
		}
		delete(top, "remodel")
		b, _ = json.Marshal(top)
		if err := os.WriteFile(schema, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, initOut := remodel(t, "init", "--source", dsn, "--from", schema, "--output-file", readBack)
	m, _ := os.ReadFile(readBack)
	if code != 0 {
		t.Fatalf("init --from: exit %d\n%s\n%s", code, initOut, m)
	}
	notes := out + "\n" + initOut
	if !foreign {
		sameMarkers(t, dsn, schema, readBack)
	}
	db, tableB := testenv.DynamoDBTable(t)
	runs := []struct{ file, table string }{{readBack, tableB}}
	tableA := ""
	if originalItems == nil {
		_, tableA = testenv.DynamoDBTable(t)
		runs = append(runs, struct{ file, table string }{original, tableA})
	}
	for _, c := range runs {
		code, out := remodel(t, "migrate", "--source", dsn, "-m", c.file, "--endpoint", endpoint, "--table", c.table, "--create-table", "--progress", "none",
			"--rejects", filepath.Join(t.TempDir(), "rejects.jsonl"), "--checkpoint", filepath.Join(t.TempDir(), "c.json"))
		if code != 0 {
			t.Fatalf("migrate %s: exit %d\n%s\n%s", c.file, code, out, m)
		}
	}
	f, err := mapping.ParseFile(original)
	if err != nil {
		t.Fatal(err)
	}
	entityAttr := f.Table.EntityAttribute.Value
	if entityAttr == "" {
		entityAttr = "_type"
	}
	a, b := originalItems, scanByEntity(t, db, tableB, entityAttr)
	if a == nil {
		a = scanByEntity(t, db, tableA, entityAttr)
	}
	// An entity writes the same items through the mapping read back, or a
	// note names it (it is left out, or something of its items is not
	// held by schema.json).
	same := 0
	for _, e := range f.Entities {
		name := e.Name.Value
		named := regexp.MustCompile(`\bentity ` + regexp.QuoteMeta(name) + `[: ]`).MatchString(notes)
		if len(a[name]) == 0 {
			t.Errorf("entity %s has no items: the comparison proves nothing", name)
		}
		if strings.Join(a[name], "\n") == strings.Join(b[name], "\n") {
			same++
			t.Logf("entity %s: the same %d items", name, len(a[name]))
			continue
		}
		if named {
			t.Logf("entity %s: other items (%d, %d), and a note names it", name, len(a[name]), len(b[name]))
			continue
		}
		t.Errorf("entity %s: %d items migrated by the example, %d by the mapping read back, they differ, and no note names it; first of each:\n%s\n%s\nmapping read back:\n%s", name, len(a[name]), len(b[name]), first(a[name]), first(b[name]), m)
	}
	if same == 0 {
		t.Errorf("no entity writes the same items through the mapping read back\n%s", notes)
	}
	return a
}

// noEntityExported checks that export --output dynamodb-mcp of a mapping
// none of whose entities schema.json can hold fails, saying so, and names
// every entity as left out.
func noEntityExported(t *testing.T, dsn, file string) {
	t.Helper()
	code, out := remodel(t, "export", "--source", dsn, "-m", file, "--output", "dynamodb-mcp")
	if code == 0 || !strings.Contains(out, "no entity of the mapping can be written in schema.json") {
		t.Errorf("export of a mapping without an entity schema.json holds: exit %d\n%s", code, out)
	}
	f, err := mapping.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range f.Entities {
		if !strings.Contains(out, "not expressed: entity "+e.Name.Value+" is left out") {
			t.Errorf("the export does not name entity %s as left out:\n%s", e.Name.Value, out)
		}
	}
}

// sameMarkers exports the mapping read back as schema.json again: its
// remodel.source names the same marker sets (and ElectroDB version) as
// the first export's, schema.
func sameMarkers(t *testing.T, dsn, schema, readBack string) {
	t.Helper()
	again := filepath.Join(t.TempDir(), "again.json")
	if code, out := remodel(t, "export", "--source", dsn, "-m", readBack, "--output", "dynamodb-mcp", "--output-file", again); code != 0 {
		t.Fatalf("export of the mapping read back: exit %d\n%s", code, out)
	}
	markers := func(path string) string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var s struct {
			Remodel struct {
				Source struct {
					Markers          []string `json:"markers"`
					ElectroDBVersion string   `json:"electrodb_version"`
				} `json:"source"`
			} `json:"remodel"`
		}
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		return strings.Join(s.Remodel.Source.Markers, ", ") + " (electrodb version " + s.Remodel.Source.ElectroDBVersion + ")"
	}
	if a, b := markers(schema), markers(again); a != b {
		t.Errorf("the markers of the export (%s) are not those of the export of the mapping read back (%s)", a, b)
	}
}

func first(s []string) string {
	if len(s) == 0 {
		return "(none)"
	}
	return s[0]
}

// scanByEntity reads every item of the table: per entity (attribute
// entityAttr), each item as canonical JSON, sorted.
func scanByEntity(t *testing.T, db *dynamodb.Client, table, entityAttr string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	in := &dynamodb.ScanInput{TableName: aws.String(table)}
	for {
		r, err := db.Scan(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range r.Items {
			b, err := json.Marshal(canonical(&types.AttributeValueMemberM{Value: it}))
			if err != nil {
				t.Fatal(err)
			}
			e := testenv.AttrText(it, entityAttr)
			out[e] = append(out[e], string(b))
		}
		if len(r.LastEvaluatedKey) == 0 {
			break
		}
		in.ExclusiveStartKey = r.LastEvaluatedKey
	}
	for _, items := range out {
		sort.Strings(items)
	}
	return out
}

// canonical is a value with its type, maps by sorted keys (encoding/json
// sorts them).
func canonical(v types.AttributeValue) any {
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		return map[string]any{"S": x.Value}
	case *types.AttributeValueMemberN:
		return map[string]any{"N": x.Value}
	case *types.AttributeValueMemberB:
		return map[string]any{"B": x.Value}
	case *types.AttributeValueMemberBOOL:
		return map[string]any{"BOOL": x.Value}
	case *types.AttributeValueMemberNULL:
		return map[string]any{"NULL": true}
	case *types.AttributeValueMemberSS:
		s := append([]string{}, x.Value...)
		sort.Strings(s)
		return map[string]any{"SS": s}
	case *types.AttributeValueMemberNS:
		s := append([]string{}, x.Value...)
		sort.Strings(s)
		return map[string]any{"NS": s}
	case *types.AttributeValueMemberL:
		l := []any{}
		for _, e := range x.Value {
			l = append(l, canonical(e))
		}
		return map[string]any{"L": l}
	case *types.AttributeValueMemberM:
		m := map[string]any{}
		for k, e := range x.Value {
			m[k] = canonical(e)
		}
		return map[string]any{"M": m}
	}
	return map[string]any{"?": true}
}
