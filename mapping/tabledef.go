package mapping

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TableDefinition is the table a mapping describes, as DynamoDB creates
// it: its keys, attribute definitions, billing and global indexes as
// CreateTable and ImportTable take them, its local indexes (CreateTable
// only: ImportTable creates none), and the attribute whose time to live is
// enabled once it exists. Its JSON (local indexes aside) is the "table" of
// migrate --to's manifest.
type TableDefinition struct {
	types.TableCreationParameters
	TTL   string                      `json:"TimeToLiveAttribute,omitempty"`
	Local []types.LocalSecondaryIndex `json:"-"`
}

// Definition is the table the mapping describes, under the given name.
func (t *Table) Definition(name string) *TableDefinition {
	d := &TableDefinition{TTL: t.TTL}
	p := &d.TableCreationParameters
	p.TableName = aws.String(name)
	p.KeySchema = keySchema(t.tableKey())
	p.BillingMode = types.BillingModePayPerRequest
	var throughput *types.ProvisionedThroughput
	if t.Billing.Provisioned {
		p.BillingMode = types.BillingModeProvisioned
		throughput = &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(t.Billing.Read), WriteCapacityUnits: aws.Int64(t.Billing.Write)}
		p.ProvisionedThroughput = throughput
	}
	for _, ix := range t.Indexes {
		if ix.Local {
			d.Local = append(d.Local, types.LocalSecondaryIndex{
				IndexName: aws.String(ix.Name), KeySchema: keySchema(ix.PK, ix.SK), Projection: ix.DynamoDBProjection(),
			})
			continue
		}
		p.GlobalSecondaryIndexes = append(p.GlobalSecondaryIndexes, types.GlobalSecondaryIndex{
			IndexName: aws.String(ix.Name), KeySchema: keySchema(ix.PK, ix.SK), Projection: ix.DynamoDBProjection(),
			ProvisionedThroughput: throughput,
		})
	}
	defs := t.KeyTypes()
	names := make([]string, 0, len(defs))
	for n := range defs {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		p.AttributeDefinitions = append(p.AttributeDefinitions, types.AttributeDefinition{
			AttributeName: aws.String(n), AttributeType: types.ScalarAttributeType(defs[n]),
		})
	}
	return d
}

// keySchema lists the partition key attributes (HASH) and then the sort
// key attributes (RANGE), each in order: a multi-attribute key of a global
// index has several of each.
func keySchema(pk, sk []KeyAttr) []types.KeySchemaElement {
	var ks []types.KeySchemaElement
	for _, k := range pk {
		ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(k.Name), KeyType: types.KeyTypeHash})
	}
	for _, k := range sk {
		ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(k.Name), KeyType: types.KeyTypeRange})
	}
	return ks
}

// tableKey is the table's own key as the lists keySchema takes.
func (t *Table) tableKey() (pk, sk []KeyAttr) {
	if t.SK != nil {
		sk = []KeyAttr{*t.SK}
	}
	return []KeyAttr{t.PK}, sk
}

// DefinitionDifference is one way a table definition differs from another:
// What differs (the key schema, an index's projection, ...), as Got has it
// and as Want has it.
type DefinitionDifference struct {
	What, Got, Want string
}

// Differences names how d differs from want, their table names and local
// indexes aside (ImportTable takes neither from a manifest): the key
// schema, the attribute definitions, the billing, each global index (by
// name: one missing or extra, its key schema, projection and throughput)
// and the TTL attribute. Attribute definitions and indexes in another
// order are the same. When none of these differs but something else does
// (a setting remodel never writes), the difference is the whole
// definitions' JSON. A nil definition is "none".
func (d *TableDefinition) Differences(want *TableDefinition) []DefinitionDifference {
	if d == nil || want == nil {
		if d == want {
			return nil
		}
		return []DefinitionDifference{{What: "table definition", Got: d.JSON(), Want: want.JSON()}}
	}
	var out []DefinitionDifference
	add := func(what, got, want string) {
		if got != want {
			out = append(out, DefinitionDifference{What: what, Got: got, Want: want})
		}
	}
	add("key schema", keySchemaText(d.KeySchema), keySchemaText(want.KeySchema))
	add("attribute definitions", attrDefsText(d.AttributeDefinitions), attrDefsText(want.AttributeDefinitions))
	add("billing mode", billingText(d.BillingMode), billingText(want.BillingMode))
	add("provisioned throughput", throughputText(d.ProvisionedThroughput), throughputText(want.ProvisionedThroughput))
	gotIx, wantIx := indexesByName(d.GlobalSecondaryIndexes), indexesByName(want.GlobalSecondaryIndexes)
	for _, name := range indexNames(gotIx, wantIx) {
		g, inGot := gotIx[name]
		w, inWant := wantIx[name]
		switch {
		case !inWant:
			add("index "+name, indexText(g), "none")
		case !inGot:
			add("index "+name, "none", indexText(w))
		default:
			add("index "+name+" key schema", keySchemaText(g.KeySchema), keySchemaText(w.KeySchema))
			add("index "+name+" projection", ProjectionText(g.Projection), ProjectionText(w.Projection))
			add("index "+name+" provisioned throughput", throughputText(g.ProvisionedThroughput), throughputText(w.ProvisionedThroughput))
		}
	}
	add("TTL attribute", cmp.Or(d.TTL, "none"), cmp.Or(want.TTL, "none"))
	if len(out) == 0 {
		add("table definition", d.normal().JSON(), want.normal().JSON())
	}
	return out
}

// JSON is the definition without its name and local indexes, as compact
// JSON: "none" for a nil definition.
func (d *TableDefinition) JSON() string {
	if d == nil {
		return "none"
	}
	c := *d
	c.TableName = nil
	b, _ := json.Marshal(c)
	return string(b)
}

// normal is d with its attribute definitions and global indexes sorted by
// name (their order means nothing to DynamoDB) and its projections'
// attributes sorted.
func (d *TableDefinition) normal() *TableDefinition {
	c := *d
	c.AttributeDefinitions = slices.Clone(d.AttributeDefinitions)
	slices.SortFunc(c.AttributeDefinitions, func(a, b types.AttributeDefinition) int {
		return strings.Compare(aws.ToString(a.AttributeName), aws.ToString(b.AttributeName))
	})
	c.GlobalSecondaryIndexes = slices.Clone(d.GlobalSecondaryIndexes)
	slices.SortFunc(c.GlobalSecondaryIndexes, func(a, b types.GlobalSecondaryIndex) int {
		return strings.Compare(aws.ToString(a.IndexName), aws.ToString(b.IndexName))
	})
	for i, g := range c.GlobalSecondaryIndexes {
		if g.Projection != nil {
			p := *g.Projection
			p.NonKeyAttributes = slices.Sorted(slices.Values(p.NonKeyAttributes))
			c.GlobalSecondaryIndexes[i].Projection = &p
		}
	}
	return &c
}

func keySchemaText(ks []types.KeySchemaElement) string {
	if len(ks) == 0 {
		return "none"
	}
	parts := make([]string, len(ks))
	for i, k := range ks {
		parts[i] = aws.ToString(k.AttributeName) + " " + string(k.KeyType)
	}
	return strings.Join(parts, ", ")
}

func attrDefsText(defs []types.AttributeDefinition) string {
	parts := make([]string, len(defs))
	for i, a := range defs {
		parts[i] = aws.ToString(a.AttributeName) + " " + string(a.AttributeType)
	}
	slices.Sort(parts)
	return cmp.Or(strings.Join(parts, ", "), "none")
}

// billingText is the billing mode, "none" when none is given.
func billingText(m types.BillingMode) string { return cmp.Or(string(m), "none") }

func throughputText(p *types.ProvisionedThroughput) string {
	if p == nil {
		return "none"
	}
	return fmt.Sprintf("read %d, write %d", aws.ToInt64(p.ReadCapacityUnits), aws.ToInt64(p.WriteCapacityUnits))
}

func indexText(g types.GlobalSecondaryIndex) string {
	return keySchemaText(g.KeySchema) + "; " + ProjectionText(g.Projection)
}

func indexesByName(ixs []types.GlobalSecondaryIndex) map[string]types.GlobalSecondaryIndex {
	m := make(map[string]types.GlobalSecondaryIndex, len(ixs))
	for _, g := range ixs {
		m[aws.ToString(g.IndexName)] = g
	}
	return m
}

func indexNames(a, b map[string]types.GlobalSecondaryIndex) []string {
	var names []string
	for n := range a {
		names = append(names, n)
	}
	for n := range b {
		if _, ok := a[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}
