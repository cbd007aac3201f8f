package export_test

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/mapping"
)

// libGet is a get by key through each library: the entity (ElectroDB's
// entity, OneTable's model, both named as the mapping's entity) and the
// properties its table key is computed from.
type libGet struct {
	Entity string         `json:"entity"`
	Props  map[string]any `json:"props"`
}

// sampleGets takes up to 3 rows of every entity from the source (the
// first in key order) and, for each, the item remodel rendered for it, by
// DynamoDB's own GetItem of the row's rendered key: what a get by key
// through a library must return. The properties of the get are the
// columns of the entity's key templates as the exports name them: the
// column's attribute when the items hold the column as it converts by
// default, else the column's own name (a field the exports declare to
// compute the key from), with the value the item holds or, when it does
// not hold it, the column's converted value.
func sampleGets(t *testing.T, ctx context.Context, p *mapping.Plan, dsn string, db *dynamodb.Client, table string) ([]libGet, []expected) {
	t.Helper()
	src, err := source.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	snap, err := src.Snapshot(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	r := snap.Readers()[0]
	var gets []libGet
	var want []expected
	for _, e := range p.Entities {
		var rows [][]any
		if err := r.ScanTable(ctx, e.Table, e.Where, 3, func(row []any) error {
			rows = append(rows, cloneRow(row))
			return nil
		}); err != nil {
			t.Fatalf("entity %s: sample rows: %v", e.Name, err)
		}
		if len(rows) == 0 {
			t.Fatalf("entity %s: no row to get", e.Name)
		}
		for _, row := range rows {
			g, ex := getOf(t, ctx, p, e, row, db, table)
			gets = append(gets, g)
			want = append(want, ex)
		}
	}
	return gets, want
}

func cloneRow(row []any) []any {
	out := slices.Clone(row)
	for i, v := range out {
		if b, ok := v.([]byte); ok {
			out[i] = slices.Clone(b)
		}
	}
	return out
}

// getOf is the get of one row of entity e, and what it must return: the
// item at the row's key, the row's key columns (compared as
// compareLib compares a pattern's rows).
func getOf(t *testing.T, ctx context.Context, p *mapping.Plan, e *mapping.Entity, row []any, db *dynamodb.Client, table string) (libGet, expected) {
	t.Helper()
	key, err := e.RenderKey(row)
	if err != nil {
		t.Fatalf("entity %s: the key of %s: %v", e.Name, e.SourceKey(row), err)
	}
	out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatalf("entity %s: GetItem %s: %v", e.Name, p.Table.KeyString(key), err)
	}
	if len(out.Item) == 0 {
		t.Fatalf("entity %s: row %s has no item at %s", e.Name, e.SourceKey(row), p.Table.KeyString(key))
	}
	attrOf, plainAttr := map[string]string{}, map[string]string{}
	for _, a := range e.ColumnAttributes() {
		attrOf[a.Column.Name] = a.Attr
		if a.Type == "" {
			plainAttr[a.Column.Name] = a.Attr
		}
	}
	g := libGet{Entity: e.Name, Props: map[string]any{}}
	ex := expected{entities: []string{e.Name}, keys: map[string][]string{}, items: map[string][]any{e.Name: {libView(p, out.Item)}}, attrKeys: map[string][]string{}, entityAttr: p.Table.EntityAttr,
		indexKeys: indexKeysOf(p, out.Item)}
	var keyText []string
	for _, kc := range e.KeyColumns() {
		i := columnIndex(e, kc)
		keyText = append(keyText, text1(row[i]))
		ex.attrKeys[e.Name] = append(ex.attrKeys[e.Name], attrOf[kc])
		if a := plainAttr[kc]; a != "" && out.Item[a] != nil {
			g.Props[a] = avJSON(out.Item[a])
			continue
		}
		av, err := mapping.Convert(e.Columns[i], row[i])
		if err != nil || av == nil {
			t.Fatalf("entity %s: key column %s of %s: %v (%v)", e.Name, kc, e.SourceKey(row), row[i], err)
		}
		g.Props[kc] = avJSON(av)
	}
	ex.keys[e.Name] = []string{strings.Join(keyText, "|")}
	return g, ex
}

func columnIndex(e *mapping.Entity, name string) int {
	for i, c := range e.Columns {
		if c.Name == name {
			return i
		}
	}
	panic(fmt.Sprintf("entity %s has no column %s", e.Name, name))
}

// checkGets compares each library's gets with the items they must
// return. A get of an entity the library's export leaves out must fail
// for that reason, and the export's notes (notes, by format) must name
// the entity as left out. An entity the export keeps but leaves an index
// out of returns that index's keys as attributes (withLeftOutIndexKeys).
// It returns how many gets each library read exactly.
func checkGets(t *testing.T, r libRun, gets []libGet, want []expected, notes map[string]string) map[string]int {
	t.Helper()
	read := map[string]int{}
	for _, c := range []struct {
		lib, format, missing string
		results              []libResult
	}{
		{"ElectroDB", "electrodb", "the module has no entity ", r.Gets.ElectroDB},
		{"OneTable", "onetable", "the schema has no model ", r.Gets.OneTable},
	} {
		if len(c.results) != len(gets) {
			t.Fatalf("%s: %d results for %d gets", c.lib, len(c.results), len(gets))
		}
		for i, g := range gets {
			res := c.results[i]
			if res.Error == c.missing+g.Entity {
				if !regexp.MustCompile(`not expressed: entity ` + regexp.QuoteMeta(g.Entity) + ` is left out`).MatchString(notes[c.format]) {
					t.Errorf("%s: entity %s is missing, and the export's notes do not name it as left out:\n%s", c.lib, g.Entity, notes[c.format])
				}
				continue
			}
			if msg := compareLib(c.lib, withLeftOutIndexKeys(want[i], g.Entity, notes[c.format]), res); msg != "" {
				t.Errorf("%s get %s %v: %s", c.lib, g.Entity, g.Props, msg)
				continue
			}
			read[c.lib]++
		}
	}
	return read
}

// indexKeysOf are the item's keys of each index that libView drops (built
// by a template; not the table's keys), by index.
func indexKeysOf(p *mapping.Plan, it map[string]types.AttributeValue) map[string]map[string]any {
	view, _ := libView(p, it).(map[string]any)
	table := map[string]bool{p.Table.PK.Name: true}
	if p.Table.SK != nil {
		table[p.Table.SK.Name] = true
	}
	out := map[string]map[string]any{}
	for _, ix := range p.Table.Indexes {
		for _, k := range append(slices.Clone(ix.PK), ix.SK...) {
			if _, kept := view[k.Name]; kept || table[k.Name] || it[k.Name] == nil {
				continue
			}
			if out[ix.Name] == nil {
				out[ix.Name] = map[string]any{}
			}
			out[ix.Name][k.Name] = avJSON(it[k.Name])
		}
	}
	return out
}

// withLeftOutIndexKeys is what a get of the entity must return when the
// export leaves indexes out of it (its notes, one format's, name them):
// the library then knows those indexes' keys as plain attributes of the
// item (a set template the application writes), and returns them.
func withLeftOutIndexKeys(ex expected, entity, notes string) expected {
	re := regexp.MustCompile(`not expressed: entity ` + regexp.QuoteMeta(entity) + `: index (\S+) is left out of its (?:indexes|model)`)
	matches := re.FindAllStringSubmatch(notes, -1)
	if len(matches) == 0 {
		return ex
	}
	items := map[string][]any{}
	for name, its := range ex.items {
		for _, it := range its {
			m, _ := it.(map[string]any)
			c := maps.Clone(m)
			if name == entity {
				for _, mt := range matches {
					maps.Copy(c, ex.indexKeys[mt[1]])
				}
			}
			items[name] = append(items[name], c)
		}
	}
	ex.items = items
	return ex
}

// failedGets counts the gets whose results differ from what they must
// return (an export broken on purpose).
func failedGets(results []libResult, want []expected) int {
	n := 0
	for i := range want {
		if i >= len(results) || compareLib("", want[i], results[i]) != "" {
			n++
		}
	}
	return n
}
