package mapping

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/introspect"
)

// Which DynamoDB type each attribute of an entity's items gets is decided
// here, once, for everything that describes items without rendering them
// (the modeling document, the exports): Render's conversions, the types of
// attributes.types, the key types of the table and its indexes, and the
// embeds (a list of maps, or a map of maps).

// KindType is the DynamoDB type Convert makes of the values of column c
// (its kind's default conversion), or "" when each value decides: a JSON
// document becomes M, L or a scalar as it is.
func KindType(c *introspect.Column) string {
	switch c.Kind {
	case introspect.KindInt, introspect.KindDecimal, introspect.KindFloat:
		return "N"
	case introspect.KindBool:
		return "BOOL"
	case introspect.KindBytes:
		return "B"
	case introspect.KindJSON:
		return ""
	case introspect.KindArray:
		return "L"
	case introspect.KindSet:
		return "SS"
	}
	return "S"
}

// DynamoType is the DynamoDB type of the attribute's values: its
// attributes.types type's, else its column kind's (KindType; "" for an
// untyped JSON column).
func (a ColumnAttribute) DynamoType() string {
	if a.Type != "" {
		return a.Type.Dynamo()
	}
	return KindType(a.Column)
}

// StoredColumn is the source column the attribute's values come from (a
// type that reads the column in another form names the stored one).
func (a ColumnAttribute) StoredColumn() string { return storedName(a.Column) }

// AVType is the DynamoDB type name of an attribute value ("S", "N", "M",
// ...), or "" for nil.
func AVType(av types.AttributeValue) string {
	switch av.(type) {
	case *types.AttributeValueMemberS:
		return "S"
	case *types.AttributeValueMemberN:
		return "N"
	case *types.AttributeValueMemberB:
		return "B"
	case *types.AttributeValueMemberBOOL:
		return "BOOL"
	case *types.AttributeValueMemberNULL:
		return "NULL"
	case *types.AttributeValueMemberSS:
		return "SS"
	case *types.AttributeValueMemberNS:
		return "NS"
	case *types.AttributeValueMemberBS:
		return "BS"
	case *types.AttributeValueMemberL:
		return "L"
	case *types.AttributeValueMemberM:
		return "M"
	}
	return ""
}

// Type is the DynamoDB type of the embed's attribute: M when MapKey keys
// a map, else L (a list); each element is a map (M).
func (m *Embed) Type() string {
	if m.MapKey != "" {
		return "M"
	}
	return "L"
}

// AttrSource says where an attribute of an entity's items comes from.
type AttrSource int

// The sources of an attribute.
const (
	FromEntityName AttrSource = iota // the table's entity attribute: the entity's name
	FromColumn                       // a source column (Column)
	FromTemplate                     // attributes.set (Template, When)
	FromTTL                          // the entity's ttl (TTLColumn, TTLAfter)
	FromEmbed                        // embedded child rows (Embed)
	FromMarker                       // a library's marker attribute (table.markers; Marker)
)

// AttributeDesc describes one attribute of an entity's items, besides
// the table's own key attributes.
type AttributeDesc struct {
	Name string
	// Type is the DynamoDB type of its values: S, N, B, BOOL, SS, NS, BS,
	// L or M; "" when each value decides (an untyped JSON column). An
	// attribute that is a key of an index (or the TTL) has the key's type.
	Type   string
	Source AttrSource
	Column ColumnAttribute // FromColumn
	// Template is the template text of a set attribute, When its condition
	// ("" for always).
	Template, When string
	// TTLColumn is the column a TTL attribute's epoch seconds come from,
	// TTLAfter the offset added ("" for none).
	TTLColumn, TTLAfter string
	Embed               *Embed  // FromEmbed
	Marker              *Marker // FromMarker
}

// Attributes describes the attributes of entity e's items other than the
// table's key attributes, in this order: the entity attribute, the
// markers (table.markers), the column attributes (column order), the set
// attributes and the TTL (file order), the embeds (file order).
func (p *Plan) Attributes(e *Entity) []AttributeDesc {
	t := &p.Table
	keyTypes := t.KeyTypes()
	typed := func(name, typ string) string {
		if kt, ok := keyTypes[name]; ok {
			return kt
		}
		return typ
	}
	out := []AttributeDesc{{Name: t.EntityAttr, Type: typed(t.EntityAttr, "S"), Source: FromEntityName}}
	for i := range t.Markers {
		m := &t.Markers[i]
		out = append(out, AttributeDesc{Name: m.Name, Type: m.Type, Source: FromMarker, Marker: m})
	}
	for _, a := range e.ColumnAttributes() {
		out = append(out, AttributeDesc{Name: a.Attr, Type: typed(a.Attr, a.DynamoType()), Source: FromColumn, Column: a})
	}
	var def *EntityDef
	if p.File != nil {
		for _, ed := range p.File.Entities {
			if ed.Name.Value == e.Name {
				def = ed
			}
		}
	}
	if def != nil {
		for _, s := range def.Set {
			typ := typed(s.Key.Value, "S")
			if s.Key.Value == t.TTL {
				typ = "N"
			}
			out = append(out, AttributeDesc{Name: s.Key.Value, Type: typ, Source: FromTemplate, Template: s.Value.Value, When: s.When.Value})
		}
		if def.TTL != nil && t.TTL != "" {
			out = append(out, AttributeDesc{Name: t.TTL, Type: "N", Source: FromTTL, TTLColumn: def.TTL.From.Value, TTLAfter: def.TTL.After.Value})
		}
	}
	for _, m := range e.Embeds() {
		out = append(out, AttributeDesc{Name: m.Name, Type: m.Type(), Source: FromEmbed, Embed: m})
	}
	return out
}
