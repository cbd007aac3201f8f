package document

import (
	"fmt"
	"strings"

	"github.com/remodel-dev/remodel/mapping"
)

// attrRow is the row of an entity's attribute table for one attribute as
// package mapping describes it (its type included); note adds the index
// keys the attribute feeds to the extra notes.
func attrRow(e *mapping.Entity, d mapping.AttributeDesc, note func(name string, extra ...string) string) AttrRow {
	typ := d.Type
	var extra []string
	r := AttrRow{Name: d.Name}
	switch d.Source {
	case mapping.FromEntityName:
		r.From = fmt.Sprintf("the entity's name (%s)", e.Name)
	case mapping.FromColumn:
		a := d.Column
		r.From, r.SourceType = "column "+a.StoredColumn(), a.Column.Type
		if a.Type != "" {
			r.From += " as " + string(a.Type)
		}
		if typ == "" {
			typ = "M, L or scalar (JSON)"
		}
		if a.Column.Nullable {
			extra = append(extra, "left out when NULL")
		}
	case mapping.FromTemplate:
		r.From = "template " + d.Template
		if d.When != "" {
			extra = append(extra, "only when "+d.When)
		}
	case mapping.FromTTL:
		r.From = "epoch seconds of column " + d.TTLColumn
		if d.TTLAfter != "" {
			r.From += " + " + d.TTLAfter
		}
		extra = append(extra, "the table's TTL")
	case mapping.FromEmbed:
		r.From, extra = embedFrom(d.Embed), append(extra, embedNote(d.Embed)...)
	case mapping.FromMarker:
		v := d.Marker.Value
		if v == "" {
			v = "the entity's name, " + e.Name
		}
		r.From = fmt.Sprintf("%s marker (table.markers): %s", d.Marker.Set, v)
	}
	r.Type, r.Note = typ, note(d.Name, extra...)
	return r
}

// embedFrom says where an embed's elements come from: "rows of table
// user_servers (user_id), ordered by first_at, srv_id".
func embedFrom(m *mapping.Embed) string {
	s := fmt.Sprintf("rows of table %s (%s)", m.Child.QualifiedName(), strings.Join(m.Link, ", "))
	if m.Where != "" {
		s += " where " + m.Where
	}
	if len(m.Order) > 0 {
		parts := make([]string, len(m.Order))
		for i, o := range m.Order {
			parts[i] = o.Column
			if o.Desc {
				parts[i] += " desc"
			}
		}
		s += ", ordered by " + strings.Join(parts, ", ")
	}
	return s
}

// embedNote lists what each element holds: "a list of maps {server_id ←
// srv_id, region}", or "a map by code of maps {...}".
func embedNote(m *mapping.Embed) []string {
	attrs := m.Attributes()
	parts := make([]string, len(attrs))
	for i, a := range attrs {
		parts[i] = a.Attr
		if a.Attr != a.Column.Name {
			parts[i] += " ← " + a.Column.Name
		}
	}
	shape := "a list of maps"
	if m.MapKey != "" {
		shape = "a map by " + m.MapKey + " of maps"
	}
	return []string{shape + " {" + strings.Join(parts, ", ") + "}"}
}
