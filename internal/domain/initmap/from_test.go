package initmap_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/domain/initmap"
	"github.com/remodel-dev/remodel/internal/testsupport/golden"
	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
)

// TestFromContractGolden reads a hand-written migrationContract.json of
// Pagila (two tables: a multi-entity one with joins, a calculation, a
// transformation, a json-construction and an entity whose table the source
// lacks; a single-entity one) into a mapping per table (golden files), and
// checks that each names every construct without a remodel equivalent, and
// parses and compiles against the ERD.
func TestFromContractGolden(t *testing.T) {
	s := schemaFrom(t, "pagila")
	data, err := os.ReadFile(filepath.Join("testdata", "from", "pagila.migrationContract.json"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := initmap.From("pagila.migrationContract.json", data, s, initmap.FromOptions{}); err == nil || !strings.Contains(err.Error(), "the file has 2 tables (Customers, Films): name the one to map with --name") {
		t.Errorf("two tables, no --name: %v", err)
	}
	for _, c := range []struct {
		table string
		notes []string
	}{
		{"Customers", []string{
			"the file's other tables (Films) are not in this mapping",
			"satisfies names access patterns (AP1, AP2, AP3)",
			"estimated_item_size_bytes (600)",
			"entity customer: attribute created is left out: its transformation date-format has no remodel equivalent",
			"entity customer: attribute city is left out: its join (chain) has no remodel equivalent",
			"entity rental: attribute payments is left out: its join (json-construction) has no remodel equivalent",
			"entity rental: it reads a query: its table joined to 1 other table(s)",
			"entity payment: attribute total_for_customer is left out: its calculation (aggregate) has no remodel equivalent",
			"entity wishlist is left out: its source_table wishlist: no table \"wishlist\"",
		}},
		{"Films", []string{"the file's other tables (Customers)", "satisfies names access patterns (AP4)", "entity film: it reads a query"}},
	} {
		t.Run(c.table, func(t *testing.T) {
			im, err := initmap.From("pagila.migrationContract.json", data, s, initmap.FromOptions{Table: c.table})
			if err != nil {
				t.Fatal(err)
			}
			if im.Format != initmap.FormatContract {
				t.Errorf("format %s", im.Format)
			}
			golden.Check(t, filepath.Join("from", "pagila."+c.table+".yaml"), im.Mapping)
			all := strings.Join(im.Notes, "\n")
			for _, want := range c.notes {
				if !strings.Contains(all, want) {
					t.Errorf("no note says %q:\n%s", want, all)
				}
				if !strings.Contains(strings.ReplaceAll(string(im.Mapping), "\n#   ", " "), want) {
					t.Errorf("the file's comments do not say %q", want)
				}
			}
			f, err := mapping.Parse("pagila."+c.table+".yaml", im.Mapping)
			if err != nil {
				t.Fatal(err)
			}
			if err := mapping.Check(f); err != nil {
				t.Errorf("check: %v", err)
			}
		})
	}
}

// FuzzFrom feeds init --from's readers any bytes (seeded with the Pagila
// contract and the personalization example's schema.json export): they
// never panic, and what they write when they accept a file is a mapping
// the parser reads.
func FuzzFrom(f *testing.F) {
	for _, p := range []string{
		filepath.Join("testdata", "from", "pagila.migrationContract.json"),
		filepath.Join("..", "export", "testdata", "personalization.dynamodb-mcp.json"),
	} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, "")
		f.Add(b, "Films")
	}
	f.Add([]byte(`{"tables":[{"table_config":{"table_name":"t","partition_key":"p"},"entities":{"customer":{"pk_template":"{customer_id}#{{","fields":[{"name":"email"}],"access_patterns":[{"name":"a","operation":"Query","parameters":[{"name":"customer_id"}]}]}}}]}`), "")
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "introspect", "erd", "testdata", "pagila.json"))
	if err != nil {
		f.Fatal(err)
	}
	var s introspect.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte, table string) {
		im, err := initmap.From("fuzz.json", data, &s, initmap.FromOptions{Table: table})
		if err != nil {
			return
		}
		if _, err := mapping.Parse("fuzz.yaml", im.Mapping); err != nil {
			t.Fatalf("the mapping written does not parse: %v\n%s", err, im.Mapping)
		}
	})
}

// TestFromMCPMarkers reads a schema.json whose remodel.source names the
// marker sets (table.markers, as export --output dynamodb-mcp writes
// them) into a mapping that carries the same markers: the sets in the
// file's order, electrodb with its version when one is given; a set
// remodel does not write, or one listed twice, is left out and named. The
// mapping compiles against the ERD with those marker attributes.
func TestFromMCPMarkers(t *testing.T) {
	s := schemaFrom(t, "pagila")
	for _, c := range []struct {
		name, markers, version string
		line                   string // table.markers as written; "" for none
		attrs                  []string
		note                   string
	}{
		{name: "none", markers: `null`},
		{name: "all", markers: `["electrodb", "onetable", "version"]`, line: "markers: [electrodb, onetable, version]", attrs: []string{"__edb_e__", "__edb_v__", "_type", "version"}},
		{name: "electrodb version", markers: `["version", "electrodb"]`, version: "2", line: `markers: [version, {electrodb: {version: "2"}}]`, attrs: []string{"version", "__edb_e__", "__edb_v__"}},
		{name: "version without electrodb", markers: `["onetable"]`, version: "2", line: "markers: [onetable]", attrs: []string{"_type"}},
		{name: "unknown and twice", markers: `["version", "dynamoose", "version"]`, line: "markers: [version]", attrs: []string{"version"},
			note: `marker set "dynamoose" is not one remodel writes (electrodb, onetable, version): it is left out`},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := fmt.Sprintf(`{"tables": [{"table_config": {"table_name": "shop", "partition_key": "PK", "sort_key": "SK"},
  "entities": {"customer": {"entity_type": "CUSTOMER", "pk_template": "CUSTOMER#{customer_id}", "sk_template": "CUSTOMER",
    "fields": [{"name": "customer_id", "type": "integer", "required": true}, {"name": "email", "type": "string", "required": false}],
    "access_patterns": []}}}],
 "remodel": {"source": {"entity_attribute": "kind", "markers": %s, "electrodb_version": %q,
   "entities": {"customer": {"from": "customer", "columns": {"customer_id": "customer_id", "email": "email"}}}}}}`, c.markers, c.version)
			im, err := initmap.From("schema.json", []byte(data), s, initmap.FromOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var line string
			for _, l := range strings.Split(string(im.Mapping), "\n") {
				if strings.HasPrefix(strings.TrimSpace(l), "markers:") {
					line = strings.TrimSpace(l)
				}
			}
			if line != c.line {
				t.Errorf("table.markers written as %q, want %q:\n%s", line, c.line, im.Mapping)
			}
			if all := strings.Join(im.Notes, "\n"); c.note != "" && !strings.Contains(all, c.note) {
				t.Errorf("no note says %q:\n%s", c.note, all)
			}
			f, err := mapping.Parse("mapping.yaml", im.Mapping)
			if err != nil {
				t.Fatalf("%v\n%s", err, im.Mapping)
			}
			p, err := mapping.Compile(f, s)
			if err != nil {
				t.Fatalf("%v\n%s", err, im.Mapping)
			}
			var attrs []string
			for _, m := range p.Table.Markers {
				attrs = append(attrs, m.Name)
			}
			if strings.Join(attrs, " ") != strings.Join(c.attrs, " ") {
				t.Errorf("marker attributes %v, want %v", attrs, c.attrs)
			}
			if c.version != "" && slices.Contains(c.attrs, "__edb_v__") && p.Table.ElectroDBVersion() != c.version {
				t.Errorf("ElectroDB version %q, want %q", p.Table.ElectroDBVersion(), c.version)
			}
		})
	}
}
