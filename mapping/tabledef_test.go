package mapping

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// defTable has a sort key, TTL, a global index and a local one.
func defTable() *Table {
	return &Table{
		Name: "shop", PK: KeyAttr{Name: "PK", Type: "S"}, SK: &KeyAttr{Name: "SK", Type: "S"}, TTL: "expiresAt",
		Indexes: []*Index{
			{Name: "GSI1", PK: []KeyAttr{{Name: "data", Type: "S"}}, SK: []KeyAttr{{Name: "SK", Type: "S"}}},
			{Name: "ByScore", PK: []KeyAttr{{Name: "game", Type: "S"}}, SK: []KeyAttr{{Name: "score", Type: "N"}}, Projection: ProjectKeysOnly},
			{Name: "ByDay", Local: true, PK: []KeyAttr{{Name: "PK", Type: "S"}}, SK: []KeyAttr{{Name: "day", Type: "S"}}},
		},
	}
}

// TestDefinitionDifferences edits the definition a mapping describes as
// a manifest's could be edited, and pins the difference each edit is
// named as; the definition read back from its JSON has none.
func TestDefinitionDifferences(t *testing.T) {
	want := defTable().Definition("shop")
	if len(want.Local) != 1 || len(want.GlobalSecondaryIndexes) != 2 {
		t.Fatalf("%d local, %d global indexes", len(want.Local), len(want.GlobalSecondaryIndexes))
	}
	tests := []struct {
		name string
		edit func(d *TableDefinition)
		want []DefinitionDifference
	}{
		{"the same, another name", func(d *TableDefinition) { d.TableName = aws.String("other") }, nil},
		{"the same, indexes and attributes in another order", func(d *TableDefinition) {
			g, a := d.GlobalSecondaryIndexes, d.AttributeDefinitions
			g[0], g[1] = g[1], g[0]
			a[0], a[len(a)-1] = a[len(a)-1], a[0]
		}, nil},
		{"no sort key", func(d *TableDefinition) { d.KeySchema = d.KeySchema[:1] },
			[]DefinitionDifference{{"key schema", "PK HASH", "PK HASH, SK RANGE"}}},
		{"a key typed N", func(d *TableDefinition) { d.AttributeDefinitions[0].AttributeType = types.ScalarAttributeTypeN },
			[]DefinitionDifference{{"attribute definitions", "PK N, SK S, data S, day S, game S, score N", "PK S, SK S, data S, day S, game S, score N"}}},
		{"provisioned", func(d *TableDefinition) {
			d.BillingMode = types.BillingModeProvisioned
			d.ProvisionedThroughput = &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(7)}
		}, []DefinitionDifference{{"billing mode", "PROVISIONED", "PAY_PER_REQUEST"}, {"provisioned throughput", "read 5, write 7", "none"}}},
		{"an index left out", func(d *TableDefinition) { d.GlobalSecondaryIndexes = d.GlobalSecondaryIndexes[1:] },
			[]DefinitionDifference{{"index GSI1", "none", "data HASH, SK RANGE; ALL"}}},
		{"an index more", func(d *TableDefinition) {
			d.GlobalSecondaryIndexes = append(d.GlobalSecondaryIndexes, types.GlobalSecondaryIndex{IndexName: aws.String("GSI9"),
				KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("SK"), KeyType: types.KeyTypeHash}}})
		}, []DefinitionDifference{{"index GSI9", "SK HASH; none", "none"}}},
		{"an index's key and projection", func(d *TableDefinition) {
			g := &d.GlobalSecondaryIndexes[1]
			g.KeySchema = g.KeySchema[:1]
			g.Projection = &types.Projection{ProjectionType: types.ProjectionTypeAll}
		}, []DefinitionDifference{{"index ByScore key schema", "game HASH", "game HASH, score RANGE"}, {"index ByScore projection", "ALL", "KEYS_ONLY"}}},
		{"no TTL", func(d *TableDefinition) { d.TTL = "" }, []DefinitionDifference{{"TTL attribute", "none", "expiresAt"}}},
		{"a setting remodel never writes", func(d *TableDefinition) {
			d.SSESpecification = &types.SSESpecification{Enabled: aws.Bool(true)}
		}, []DefinitionDifference{{"table definition", "", ""}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := readBack(t, want)
			tt.edit(got)
			diffs := got.Differences(want)
			if tt.name == "a setting remodel never writes" && len(diffs) == 1 && diffs[0].What == "table definition" {
				diffs[0].Got, diffs[0].Want = "", "" // the whole JSON
			}
			if !reflect.DeepEqual(diffs, tt.want) {
				t.Errorf("differences %q, want %q", diffs, tt.want)
			}
		})
	}
	if d := (*TableDefinition)(nil).Differences(want); len(d) != 1 || d[0].Got != "none" {
		t.Errorf("a manifest without a table: %q", d)
	}
}

// readBack is d written as a manifest's JSON and read again.
func readBack(t *testing.T, d *TableDefinition) *TableDefinition {
	t.Helper()
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var out TableDefinition
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return &out
}
