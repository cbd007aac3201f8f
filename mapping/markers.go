package mapping

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The marker attributes (table.markers) are the attributes the
// application's data libraries require on every item, written by migrate
// (every route, and the follower) because they render through Render:
//
//	electrodb  __edb_e__ (the entity's name) and __edb_v__ (the entity's
//	           version, "1" unless given): ElectroDB's reads skip an item
//	           without them unless they set ignoreOwnership
//	onetable   _type (the entity's name), OneTable's default typeField;
//	           the entity attribute itself when it is _type
//	version    version, the number 1: the optimistic-locking counter of
//	           the data-access layer AWS generates from a DynamoDB MCP
//	           server schema.json
//
// The names are the libraries' own: an attribute of the mapping by one of
// these names is refused (it would be written twice).

// The attributes the markers write.
const (
	ElectroDBEntityAttr  = "__edb_e__"
	ElectroDBVersionAttr = "__edb_v__"
	OneTableTypeAttr     = "_type"
	VersionAttr          = "version"
)

// Marker is one marker attribute every item of the table carries.
type Marker struct {
	Name string
	Set  string // the marker set that writes it: electrodb, onetable or version
	Type string // S or N
	// Value is the attribute's value; "" for the item's entity name.
	Value string
}

// HasMarkers says whether the table's items carry the marker set (electrodb,
// onetable or version).
func (t *Table) HasMarkers(set string) bool {
	for _, m := range t.Markers {
		if m.Set == set {
			return true
		}
	}
	return set == MarkersOneTable && t.oneTableMarker
}

// Marker returns the marker attribute by that name, or nil.
func (t *Table) Marker(name string) *Marker {
	for i := range t.Markers {
		if t.Markers[i].Name == name {
			return &t.Markers[i]
		}
	}
	return nil
}

// ElectroDBVersion is the entity version the electrodb markers write
// (__edb_v__), "1" when table.markers does not give one.
func (t *Table) ElectroDBVersion() string {
	if m := t.Marker(ElectroDBVersionAttr); m != nil {
		return m.Value
	}
	return "1"
}

// OneTableTypeField is the attribute OneTable finds an item's model by:
// _type with the onetable markers, else the entity attribute.
func (t *Table) OneTableTypeField() string {
	if t.HasMarkers(MarkersOneTable) {
		return OneTableTypeAttr
	}
	return t.EntityAttr
}

// reserved names the attributes no entity may produce: the table's keys,
// the entity attribute and the markers, each with what it is.
func (t *Table) reserved() map[string]string {
	r := map[string]string{t.PK.Name: "the table's partition key", t.EntityAttr: "the entity attribute"}
	if t.SK != nil {
		r[t.SK.Name] = "the table's sort key"
	}
	for _, m := range t.Markers {
		r[m.Name] = fmt.Sprintf("the %s marker attribute (table.markers)", m.Set)
	}
	return r
}

// markers compiles table.markers into t.Markers: an attribute that is
// also a key of the table or of an index, or the TTL, is refused.
func (c *compiler) markers(t *Table) {
	d := c.f.Table.Markers
	if d == nil {
		return
	}
	at := map[string]Pos{}
	for _, s := range d.Sets {
		switch s.Value {
		case MarkersElectroDB:
			v := d.ElectroDBVersion.Value
			if v == "" {
				v = "1"
			}
			t.Markers = append(t.Markers, Marker{Name: ElectroDBEntityAttr, Set: s.Value, Type: "S"}, Marker{Name: ElectroDBVersionAttr, Set: s.Value, Type: "S", Value: v})
			at[ElectroDBEntityAttr], at[ElectroDBVersionAttr] = s.Pos, s.Pos
		case MarkersOneTable:
			if t.EntityAttr == OneTableTypeAttr {
				t.oneTableMarker = true // the entity attribute is the type field
				continue
			}
			t.Markers = append(t.Markers, Marker{Name: OneTableTypeAttr, Set: s.Value, Type: "S"})
			at[OneTableTypeAttr] = s.Pos
		case MarkersVersion:
			t.Markers = append(t.Markers, Marker{Name: VersionAttr, Set: s.Value, Type: "N", Value: "1"})
			at[VersionAttr] = s.Pos
		}
	}
	taken := map[string]string{t.PK.Name: "the table's partition key", t.EntityAttr: "the entity attribute (table.entity_attribute)"}
	if t.SK != nil {
		taken[t.SK.Name] = "the table's sort key"
	}
	if t.TTL != "" {
		taken[t.TTL] = "the table's TTL attribute"
	}
	for _, ix := range t.Indexes {
		for _, k := range append(append([]KeyAttr(nil), ix.PK...), ix.SK...) {
			taken[k.Name] = "a key of index " + ix.Name
		}
	}
	for _, m := range t.Markers {
		if why, ok := taken[m.Name]; ok {
			c.errorf(at[m.Name], "table.markers", "the %s marker attribute %s is also %s: the library writes it with its own value", m.Set, m.Name, why)
		}
	}
}

// markerItem is a marker attribute of an entity's items, made once.
type markerItem struct {
	name string
	av   types.AttributeValue
	size int
}

// markerItems are the marker attributes of e's items with their values.
func (e *Entity) markerItems() []markerItem {
	var out []markerItem
	for _, m := range e.table.Markers {
		var av types.AttributeValue
		switch {
		case m.Value == "":
			av = e.nameAV
		case m.Type == "N":
			av = &types.AttributeValueMemberN{Value: m.Value}
		default:
			av = &types.AttributeValueMemberS{Value: m.Value}
		}
		out = append(out, markerItem{name: m.Name, av: av, size: len(m.Name) + avSize(av)})
	}
	return out
}
