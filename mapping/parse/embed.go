package parse

import (
	"fmt"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"
)

// EmbedDef is one attribute of an entity's embed: the rows of a child table
// that reference the entity's row, folded into its item as a list of maps,
// or as a map keyed by a column (MapKey).
type EmbedDef struct {
	Name  Str   // the attribute
	From  Str   // the child table
	On    []Str // the child's columns that hold the parent's primary key; nil: its foreign key
	OnPos Pos
	Where Str // SQL condition on the child's columns
	// Include, Exclude and Rename choose the child columns that become the
	// keys of each element, as attributes.* does for an entity.
	Include []Str
	Exclude []Str
	Rename  []KV
	Types   []KV // column → ColType name (attributes.types; mapping's embed_types.go)
	OrderBy []OrderDef
	MapKey  Str // the column whose value keys the map; empty: a list
	Pos
}

// OrderDef is one column of an embed's order_by.
type OrderDef struct {
	Column Str
	Desc   bool
}

// embeds reads an entity's embed: attribute name → embedded table.
func (p *parser) embeds(n *yaml.Node, path string) []*EmbedDef {
	var out []*EmbedDef
	p.entries(n, path, "attribute name to embedded table", func(k, v *yaml.Node, fp string) {
		d := &EmbedDef{Name: Str{Value: k.Value, Pos: pos(k)}, Pos: pos(v)}
		if k.Value == "" {
			p.errorf(k, fp, "the attribute name must not be empty")
		}
		ok := p.fields(v, fp, map[string]func(*yaml.Node, string){
			"from": func(v *yaml.Node, path string) { d.From = p.nonEmpty(v, path) },
			"on": func(v *yaml.Node, path string) {
				d.OnPos = pos(v)
				if v.Kind == yaml.SequenceNode {
					d.On = p.keyColumns(v, path)
					return
				}
				d.On = []Str{p.nonEmpty(v, path)}
			},
			"where": func(v *yaml.Node, path string) { d.Where = p.nonEmpty(v, path) },
			"attributes": func(v *yaml.Node, path string) {
				p.fields(v, path, map[string]func(*yaml.Node, string){
					"include": func(v *yaml.Node, path string) {
						d.Include = p.strList(v, path)
						if d.Include == nil {
							d.Include = []Str{}
						}
					},
					"exclude": func(v *yaml.Node, path string) { d.Exclude = p.strList(v, path) },
					"rename":  func(v *yaml.Node, path string) { d.Rename = p.strMap(v, path) },
					"types":   func(v *yaml.Node, path string) { d.Types = p.columnTypes(v, path) },
				})
				if d.Include != nil && d.Exclude != nil {
					p.errorf(v, path, "use include or exclude, not both")
				}
			},
			"order_by": func(v *yaml.Node, path string) { d.OrderBy = p.orderBy(v, path) },
			"map_key":  func(v *yaml.Node, path string) { d.MapKey = p.nonEmpty(v, path) },
		})
		if ok && d.From.Line == 0 {
			p.errorf(v, fp, "missing required field \"from\" (the child table)")
		}
		out = append(out, d)
	})
	return out
}

// orderBy reads `column`, `column desc` or a list of them.
func (p *parser) orderBy(n *yaml.Node, path string) []OrderDef {
	items := []*yaml.Node{n}
	paths := []string{path}
	if n.Kind == yaml.SequenceNode {
		if len(n.Content) == 0 {
			p.errorf(n, path, "must name at least one column")
		}
		items, paths = nil, nil
		for i, c := range n.Content {
			items = append(items, resolve(c))
			paths = append(paths, fmt.Sprintf("%s[%d]", path, i))
		}
	}
	var out []OrderDef
	for i, c := range items {
		s := p.nonEmpty(c, paths[i])
		if s.Value == "" {
			continue
		}
		o, err := ParseOrder(s.Value)
		if err != nil {
			p.errorf(c, paths[i], "%v", err)
			continue
		}
		out = append(out, OrderDef{Column: Str{Value: o.Column, Pos: s.Pos}, Desc: o.Desc})
	}
	return out
}

// OrderCol is a column of an order and its direction.
type OrderCol struct {
	Column string
	Desc   bool
}

// ParseOrder reads one order_by entry: "column", "column asc" or
// "column desc" (the direction in any case, after one or more spaces; a
// column name has no white space).
func ParseOrder(s string) (OrderCol, error) {
	col, dir, _ := strings.Cut(s, " ")
	dir = strings.TrimLeft(dir, " ")
	if col != "" && !strings.ContainsFunc(col, unicode.IsSpace) {
		switch strings.ToLower(dir) {
		case "", "asc":
			if dir == "" && strings.HasSuffix(s, " ") {
				break
			}
			return OrderCol{Column: col}, nil
		case "desc":
			return OrderCol{Column: col, Desc: true}, nil
		}
	}
	return OrderCol{}, fmt.Errorf("%q is not a column, \"column asc\" or \"column desc\"", s)
}
