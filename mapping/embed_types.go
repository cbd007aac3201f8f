package mapping

import (
	"slices"

	"github.com/remodel-dev/remodel/introspect"
)

// Per-column types on an embed (embed.attributes.types): the same names and
// meaning as on an entity (coltype.go), for the child columns that become
// keys of each element. The child rows are read as the engine returns each
// column (Embed.Scan selects c.*), so a type that needs its column read in
// another form (readFor: text or spatial values as B, spatial values as M,
// PostgreSQL money as N)
// is refused here rather than converting something else than it says. The
// map key (map_key) is always its column's text, whatever type the column's
// element attribute has.

// embedTypes compiles an embed's attributes.types against the child table:
// each column must exist, be one of the embedded attributes (selected),
// have values the type can convert, and need no other read of the column.
// ok is false when any entry was reported.
func (c *compiler) embedTypes(d *EmbedDef, child *introspect.Table, link []string, selected map[string]bool, path string) (map[string]ColType, bool) {
	out := map[string]ColType{}
	ok := true
	for _, kv := range d.Types {
		fpath := path + ".attributes.types." + kv.Key.Value
		col := child.Column(kv.Key.Value)
		if col == nil {
			c.errorf(kv.Key.Pos, fpath, "%s", noColumn(child, kv.Key.Value))
			ok = false
			continue
		}
		if !selected[col.Name] {
			c.errorf(kv.Key.Pos, fpath, "%s", notEmbedded(d, col.Name, link))
			ok = false
			continue
		}
		typ, err := ParseColType(kv.Value.Value)
		if err != nil {
			ok = false
			continue // reported by the parser
		}
		if !typ.fits(c.plan.Schema.Engine, col) {
			takes := typ.takes()
			if typ == TypeB {
				takes = "a bytes column (on an embedded column; text and spatial values as B need another read)"
			}
			c.errorf(kv.Value.Pos, fpath, "type %s cannot hold column %s, which is %s: %s takes %s", typ, col.Name, typeName(col), typ, takes)
			ok = false
			continue
		}
		switch typ.readFor(c.plan.Schema.Engine, col) {
		case introspect.ReadBytes:
			c.errorf(kv.Value.Pos, fpath, "type B of column %s, which is %s, needs the column read as its bytes, which an embed does not do: on an embedded column B takes a bytes column only", col.Name, typeName(col))
			ok = false
			continue
		case introspect.ReadGeoJSON:
			c.errorf(kv.Value.Pos, fpath, "type M of column %s, which is %s, needs the column read as GeoJSON, which an embed does not do: on an embedded column M takes a JSON column only", col.Name, typeName(col))
			ok = false
			continue
		case introspect.ReadInteger:
			c.errorf(kv.Value.Pos, fpath, "type N of column %s, which is %s, needs the column read as the integer it holds, which an embed does not do: an embedded %s stays a boolean (BOOL)", col.Name, typeName(col), col.Type)
			ok = false
			continue
		case introspect.ReadNumeric:
			c.errorf(kv.Value.Pos, fpath, "type N of column %s, which is %s, needs the column read as numeric, which an embed does not do: an embedded money column stays text (S, as lc_monetary prints it)", col.Name, typeName(col))
			ok = false
			continue
		}
		out[col.Name] = typ
	}
	return out, ok
}

// notEmbedded says why a column is not one of an embed's attributes.
func notEmbedded(d *EmbedDef, name string, link []string) string {
	switch {
	case d.Include != nil:
		return "column " + name + " is not one of the embedded attributes (attributes.include)"
	case slices.ContainsFunc(d.Exclude, func(s Str) bool { return s.Value == name }):
		return "column " + name + " is excluded (attributes.exclude), so it has no attribute to type"
	case slices.Contains(link, name):
		return "column " + name + " holds the parent's key (the link), which elements leave out unless attributes.include names it"
	}
	return "column " + name + " is not one of the embedded attributes"
}
