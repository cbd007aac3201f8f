package erd

import (
	"github.com/remodel-dev/remodel/introspect"
)

// Relationship is what one foreign key says about two tables.
type Relationship struct {
	// Child is the table that declares the foreign key.
	Child *introspect.Table
	// Parent is the referenced table; nil when it is not in the schema
	// (left out by a filter, or in another database).
	Parent     *introspect.Table
	ForeignKey introspect.ForeignKey
	// OneToOne: the foreign key's columns are unique in Child, so a
	// parent row has at most one child row.
	OneToOne bool
	// Optional: a foreign key column may be NULL, so a child row may have
	// no parent.
	Optional bool
	// Identifying: the foreign key's columns are all part of Child's
	// primary key.
	Identifying bool
}

// Relationships returns the relationships of every foreign key of the
// schema's tables, in the order of the tables and then of their foreign
// keys.
func Relationships(s *introspect.Schema) []Relationship {
	type name struct{ schema, table string }
	byName := make(map[name]*introspect.Table, len(s.Tables))
	for _, t := range s.Tables {
		byName[name{t.Schema, t.Name}] = t
	}
	var out []Relationship
	for _, t := range s.Tables {
		pk := make(map[string]bool, len(t.PrimaryKey))
		for _, c := range t.PrimaryKey {
			pk[c] = true
		}
		for _, fk := range t.ForeignKeys {
			r := Relationship{
				Child:       t,
				Parent:      byName[name{fk.RefSchema, fk.RefTable}],
				ForeignKey:  fk,
				OneToOne:    t.IsUnique(fk.Columns),
				Identifying: len(fk.Columns) > 0,
			}
			for _, c := range fk.Columns {
				if col := t.Column(c); col == nil || col.Nullable {
					r.Optional = true
				}
				if !pk[c] {
					r.Identifying = false
				}
			}
			out = append(out, r)
		}
	}
	return out
}
