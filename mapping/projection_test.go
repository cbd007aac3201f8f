package mapping

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestProjections compiles one index of each projection and pins what
// each holds of an item (Index.Item, Projects), its DynamoDB projection
// and what putting the item costs in it.
func TestProjections(t *testing.T) {
	p := compileString(t, `version: 1
table:
  name: shop
  key: {pk: PK, sk: SK}
  indexes:
    - {name: AllOf, pk: data}
    - {name: KeysOf, pk: data, sk: GSI1SK, projection: KEYS_ONLY}
    - {name: SomeOf, pk: data, projection: {include: [note, big]}}
    - {name: LocalOf, local: true, sk: data, projection: {include: [note]}}
entities:
  user: {from: users, pk: "USER#{user_id}", sk: "USER#"}
`, testSchema())
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	item := Item{"PK": s("USER#1"), "SK": s("USER#"), "data": s("d"), "GSI1SK": s("g"), "note": s("n"), "big": s(strings.Repeat("b", 2000)), "other": s(strings.Repeat("o", 3000))}
	size := ItemSize(item)
	tests := []struct {
		index string
		text  string
		attrs []string // of Item, sorted
		units int
	}{
		{"AllOf", "ALL", []string{"GSI1SK", "PK", "SK", "big", "data", "note", "other"}, 5},
		{"KeysOf", "KEYS_ONLY", []string{"GSI1SK", "PK", "SK", "data"}, 1},
		{"SomeOf", "INCLUDE (big, note)", []string{"PK", "SK", "big", "data", "note"}, 2},
		{"LocalOf", "INCLUDE (note)", []string{"PK", "SK", "data", "note"}, 1},
	}
	total := WriteUnits(size)
	for _, tc := range tests {
		ix := p.Table.Index(tc.index)
		if got := ix.ProjectionText(); got != tc.text {
			t.Errorf("%s projects %s, want %s", tc.index, got, tc.text)
		}
		if !ix.SameProjection(ix.DynamoDBProjection()) {
			t.Errorf("%s: its DynamoDB projection is not the same as itself", tc.index)
		}
		var attrs []string
		for name := range ix.Item(item) {
			attrs = append(attrs, name)
		}
		slices.Sort(attrs)
		if !reflect.DeepEqual(attrs, tc.attrs) {
			t.Errorf("%s holds %v, want %v", tc.index, attrs, tc.attrs)
		}
		for name := range item {
			want := false
			for _, a := range tc.attrs {
				want = want || a == name
			}
			if ix.Projects(name) != want {
				t.Errorf("%s: Projects(%s) = %v, want %v", tc.index, name, !want, want)
			}
		}
		if got := ix.WriteUnits(item, WriteUnits(size)); got != tc.units {
			t.Errorf("%s: putting the item costs %d write units, want %d", tc.index, got, tc.units)
		}
		total += tc.units
	}
	if got := p.Table.PutWriteUnits(item, WriteUnits(size)); got != total {
		t.Errorf("PutWriteUnits = %d, want %d", got, total)
	}
	same := &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"note", "big"}}
	other := &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"note"}}
	if ix := p.Table.Index("SomeOf"); !ix.SameProjection(same) || ix.SameProjection(other) || ix.SameProjection(nil) {
		t.Errorf("SomeOf: SameProjection does not tell INCLUDE (big, note) in another order from INCLUDE (note) and none")
	}
}
