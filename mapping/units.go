package mapping

import (
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// WriteUnits is what DynamoDB charges to put a new item of size bytes
// (ItemSize) into a table or an index: one write unit per started KB.
func WriteUnits(size int) int { return max(1, (size+1023)/1024) }

// PutWriteUnits is what DynamoDB charges to put the item, whose WriteUnits
// in the table are units, as a new item: units, and into every
// index that holds it the WriteUnits of the item as the index holds it
// (IndexItem: the keys and the projected attributes). DynamoDB Local
// charges exactly this (migrate's TestWriteUnitsAgree); the 100 bytes of
// overhead DynamoDB adds to every index entry count in its storage, not in
// these units.
func (t *Table) PutWriteUnits(item Item, units int) int {
	n := units
	for _, ix := range t.Indexes {
		if ix.Holds(item) {
			n += ix.WriteUnits(item, units)
		}
	}
	return n
}

// WriteUnits is what DynamoDB charges to put the item, whose WriteUnits in
// the table are units, into the index (which holds it): the WriteUnits of
// the item as the index holds it, units itself when it holds it all.
func (ix *Index) WriteUnits(item Item, units int) int {
	if ix.ProjectsAll() {
		return units
	}
	return WriteUnits(ItemSize(ix.Item(item)))
}

// ItemSize is the size of the item, of size bytes, as the index holds it:
// size itself when the index projects all attributes.
func (ix *Index) ItemSize(item Item, size int) int {
	if ix.ProjectsAll() {
		return size
	}
	return ItemSize(ix.Item(item))
}

// ProjectsAll says whether the index holds every attribute of its items.
func (ix *Index) ProjectsAll() bool {
	return ix.Projection == "" || ix.Projection == ProjectAll
}

// Projects says whether the index holds the attribute of its items: every
// one with ALL, otherwise the table's and the index's key attributes and
// those INCLUDE lists.
func (ix *Index) Projects(name string) bool {
	return ix.ProjectsAll() || slices.Contains(ix.keys, name) || slices.Contains(ix.Include, name)
}

// Item is the item as the index holds it (what a Query on the index
// returns): the item itself when the index projects all attributes,
// otherwise a new item of the attributes it projects.
func (ix *Index) Item(item Item) Item {
	if ix.ProjectsAll() {
		return item
	}
	out := make(Item, len(ix.keys)+len(ix.Include))
	for _, names := range [][]string{ix.keys, ix.Include} {
		for _, n := range names {
			if v, ok := item[n]; ok {
				out[n] = v
			}
		}
	}
	return out
}

// Holds says whether the index holds the item: DynamoDB puts an item in a
// secondary index when it has every one of the index's key attributes,
// the partition key's of a key type (S, N or B; an item whose index key is
// of another type is refused by DynamoDB).
func (ix *Index) Holds(item Item) bool {
	for _, k := range ix.SK {
		if item[k.Name] == nil {
			return false
		}
	}
	for _, k := range ix.PK {
		switch item[k.Name].(type) {
		case *types.AttributeValueMemberS, *types.AttributeValueMemberN, *types.AttributeValueMemberB:
		default:
			return false
		}
	}
	return true
}

// DynamoDBProjection is the index's projection as DynamoDB's CreateTable
// takes it.
func (ix *Index) DynamoDBProjection() *types.Projection {
	switch {
	case ix.ProjectsAll():
		return &types.Projection{ProjectionType: types.ProjectionTypeAll}
	case ix.Projection == ProjectKeysOnly:
		return &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}
	}
	return &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: slices.Clone(ix.Include)}
}

// ProjectionText names the index's projection: ALL, KEYS_ONLY or
// INCLUDE (a, b).
func (ix *Index) ProjectionText() string { return ProjectionText(ix.DynamoDBProjection()) }

// ProjectionText names a projection as DescribeTable gives it: ALL,
// KEYS_ONLY or INCLUDE (a, b), the attributes sorted; none when p is nil.
func ProjectionText(p *types.Projection) string {
	if p == nil || p.ProjectionType == "" {
		return "none"
	}
	if p.ProjectionType != types.ProjectionTypeInclude {
		return string(p.ProjectionType)
	}
	attrs := slices.Clone(p.NonKeyAttributes)
	slices.Sort(attrs)
	return "INCLUDE (" + strings.Join(attrs, ", ") + ")"
}

// SameProjection says whether p, as DescribeTable gives it, is the index's
// projection (INCLUDE's attributes in any order).
func (ix *Index) SameProjection(p *types.Projection) bool {
	return ProjectionText(p) == ix.ProjectionText()
}
