package migrate

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/mapping"
)

// weeklyTable has a global index with a two-attribute partition key and a
// two-attribute sort key of mixed types, and a local index.
func weeklyTable() *mapping.Table {
	return &mapping.Table{
		Name: "scores", PK: mapping.KeyAttr{Name: "PK", Type: "S"}, SK: &mapping.KeyAttr{Name: "SK", Type: "S"}, EntityAttr: "_type",
		Indexes: []*mapping.Index{
			{Name: "WeeklyTop", PK: []mapping.KeyAttr{{Name: "game", Type: "S"}, {Name: "week", Type: "N"}}, SK: []mapping.KeyAttr{{Name: "score", Type: "N"}, {Name: "at", Type: "S"}}},
			{Name: "ByPlayer", PK: []mapping.KeyAttr{{Name: "player", Type: "S"}}},
			{Name: "ByDay", Local: true, PK: []mapping.KeyAttr{{Name: "PK", Type: "S"}}, SK: []mapping.KeyAttr{{Name: "day", Type: "S"}}},
		},
	}
}

func schemaText(ks []types.KeySchemaElement) []string {
	var out []string
	for _, k := range ks {
		out = append(out, aws.ToString(k.AttributeName)+" "+string(k.KeyType))
	}
	return out
}

// TestCreateTableInputMultiAttributeKeys: a multi-attribute key is written
// as its HASH elements then its RANGE elements, each in the mapping's
// order, and every key attribute is defined once with its type.
func TestCreateTableInputMultiAttributeKeys(t *testing.T) {
	in := createTableInput(weeklyTable(), "t1")
	if got, want := schemaText(in.KeySchema), []string{"PK HASH", "SK RANGE"}; !slices.Equal(got, want) {
		t.Errorf("table key schema %v, want %v", got, want)
	}
	if len(in.GlobalSecondaryIndexes) != 2 || len(in.LocalSecondaryIndexes) != 1 {
		t.Fatalf("%d global, %d local indexes", len(in.GlobalSecondaryIndexes), len(in.LocalSecondaryIndexes))
	}
	if got, want := schemaText(in.GlobalSecondaryIndexes[0].KeySchema), []string{"game HASH", "week HASH", "score RANGE", "at RANGE"}; !slices.Equal(got, want) {
		t.Errorf("WeeklyTop key schema %v, want %v", got, want)
	}
	if got, want := schemaText(in.GlobalSecondaryIndexes[1].KeySchema), []string{"player HASH"}; !slices.Equal(got, want) {
		t.Errorf("ByPlayer key schema %v, want %v", got, want)
	}
	if got, want := schemaText(in.LocalSecondaryIndexes[0].KeySchema), []string{"PK HASH", "day RANGE"}; !slices.Equal(got, want) {
		t.Errorf("ByDay key schema %v, want %v", got, want)
	}
	var defs []string
	for _, d := range in.AttributeDefinitions {
		defs = append(defs, aws.ToString(d.AttributeName)+" "+string(d.AttributeType))
	}
	if want := []string{"PK S", "SK S", "at S", "day S", "game S", "player S", "score N", "week N"}; !slices.Equal(defs, want) {
		t.Errorf("attribute definitions %v, want %v", defs, want)
	}
}

// TestCheckTableMultiAttributeKeys creates the table on DynamoDB Local
// (which accepts the four-attribute key schema) and shows that CheckTable
// accepts it as the mapping says it, and names the difference when the
// mapping orders the sort key attributes otherwise or leaves one out.
func TestCheckTableMultiAttributeKeys(t *testing.T) {
	ctx := context.Background()
	db, name := testenv.DynamoDBTable(t)
	tb := weeklyTable()
	if err := CreateTable(ctx, db, tb, name, time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := CheckTable(ctx, db, tb, name); err != nil {
		t.Fatalf("CheckTable on the table as created: %v", err)
	}
	swapped := weeklyTable()
	ix := swapped.Indexes[0]
	ix.SK[0], ix.SK[1] = ix.SK[1], ix.SK[0]
	err := CheckTable(ctx, db, swapped, name)
	if want := fmt.Sprintf("migrate: index WeeklyTop of %s has key (game + week, score + at) but the mapping says (game + week, at + score)", name); err == nil || err.Error() != want {
		t.Errorf("sort key attributes swapped: %v\nwant %s", err, want)
	}
	fewer := weeklyTable()
	fewer.Indexes[0].PK = fewer.Indexes[0].PK[:1]
	fewer.Indexes[0].SK = nil
	err = CheckTable(ctx, db, fewer, name)
	if want := fmt.Sprintf("migrate: index WeeklyTop of %s has key (game + week, score + at) but the mapping says (game, no sort key)", name); err == nil || err.Error() != want {
		t.Errorf("one attribute: %v\nwant %s", err, want)
	}
}

// TestCreateTableProjections creates on DynamoDB Local a table whose
// indexes project all attributes, the keys only, and the keys and a list
// (a global and a local index): DescribeTable shows each projection as the
// mapping says it, CheckTable accepts the table, and refuses it, naming
// both projections, for a mapping whose index projects otherwise.
func TestCreateTableProjections(t *testing.T) {
	const src = `version: 1
table:
  name: shop
  key: {pk: PK, sk: SK}
  indexes:
    - {name: AllOf, pk: data}
    - {name: KeysOf, pk: GSI1PK, sk: GSI1SK, projection: KEYS_ONLY}
    - {name: SomeOf, pk: email, projection: {include: [name, status]}}
    - {name: LocalOf, local: true, sk: day, projection: {include: [note]}}
entities:
  user: {from: users, pk: "USER#{user_id}", sk: "USER#"}
`
	table := func(src string) *mapping.Table {
		t.Helper()
		f, err := mapping.Parse("m.yaml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		tb, err := mapping.TableOf(f)
		if err != nil {
			t.Fatal(err)
		}
		return tb
	}
	ctx := context.Background()
	db, name := testenv.DynamoDBTable(t)
	tb := table(src)
	if err := CreateTable(ctx, db, tb, name, time.Minute); err != nil {
		t.Fatal(err)
	}
	out, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, g := range out.Table.GlobalSecondaryIndexes {
		got[aws.ToString(g.IndexName)] = mapping.ProjectionText(g.Projection)
	}
	for _, l := range out.Table.LocalSecondaryIndexes {
		got[aws.ToString(l.IndexName)] = mapping.ProjectionText(l.Projection)
	}
	want := map[string]string{"AllOf": "ALL", "KeysOf": "KEYS_ONLY", "SomeOf": "INCLUDE (name, status)", "LocalOf": "INCLUDE (note)"}
	if !maps.Equal(got, want) {
		t.Errorf("DescribeTable's projections %v, want %v", got, want)
	}
	if err := CheckTable(ctx, db, tb, name); err != nil {
		t.Fatalf("CheckTable on the table as created: %v", err)
	}
	for _, c := range []struct{ from, to, want string }{
		{"projection: KEYS_ONLY", "projection: ALL", "index KeysOf of %s projects KEYS_ONLY but the mapping says ALL"},
		{"include: [name, status]", "include: [name]", "index SomeOf of %s projects INCLUDE (name, status) but the mapping says INCLUDE (name)"},
		{"include: [note]", "include: [note, more]", "index LocalOf of %s projects INCLUDE (note) but the mapping says INCLUDE (more, note)"},
		{"{name: AllOf, pk: data}", "{name: AllOf, pk: data, projection: KEYS_ONLY}", "index AllOf of %s projects ALL but the mapping says KEYS_ONLY"},
	} {
		err := CheckTable(ctx, db, table(strings.Replace(src, c.from, c.to, 1)), name)
		if want := "migrate: " + fmt.Sprintf(c.want, name); err == nil || err.Error() != want {
			t.Errorf("%s → %s: %v\nwant %s", c.from, c.to, err, want)
		}
	}
	// The same attributes listed in another order are the same projection.
	if err := CheckTable(ctx, db, table(strings.Replace(src, "include: [name, status]", "include: [status, name]", 1)), name); err != nil {
		t.Errorf("INCLUDE in another order: %v", err)
	}
}
