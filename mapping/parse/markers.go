package parse

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The marker sets table.markers lists.
const (
	MarkersElectroDB = "electrodb"
	MarkersOneTable  = "onetable"
	MarkersVersion   = "version"
)

// MarkersDef is table.markers: which libraries' markers every item
// carries, in file order.
type MarkersDef struct {
	Sets []Str // electrodb, onetable, version
	// ElectroDBVersion is the value of __edb_v__ ({electrodb: {version: V}});
	// its Value is "" when not given ("1").
	ElectroDBVersion Str
	Pos
}

// markers reads table.markers: a list of electrodb, onetable and version,
// where electrodb may be {electrodb: {version: V}}.
func (p *parser) markers(n *yaml.Node, path string) *MarkersDef {
	d := &MarkersDef{Pos: pos(n)}
	if n.Kind != yaml.SequenceNode {
		p.errorf(n, path, "expected a list of marker sets (%s), got %s", markerSetNames, describe(n))
		return d
	}
	seen := map[string]bool{}
	for i, c := range n.Content {
		c = resolve(c)
		ip := fmt.Sprintf("%s[%d]", path, i)
		var s Str
		switch c.Kind {
		case yaml.ScalarNode:
			s = p.nonEmpty(c, ip)
		case yaml.MappingNode:
			if len(c.Content) != 2 || c.Content[0].Value != MarkersElectroDB {
				p.errorf(c, ip, "a marker set is a name (%s), or {electrodb: {version: V}}", markerSetNames)
				continue
			}
			s = Str{Value: MarkersElectroDB, Pos: pos(c.Content[0])}
		default:
			p.errorf(c, ip, "expected a marker set (%s), got %s", markerSetNames, describe(c))
			continue
		}
		switch s.Value {
		case "":
			continue
		case MarkersElectroDB, MarkersOneTable, MarkersVersion:
		default:
			p.errorf(c, ip, "unknown marker set %q (known: %s)", s.Value, markerSetNames)
			continue
		}
		if seen[s.Value] {
			p.errorf(c, ip, "marker set %s is listed twice", s.Value)
			continue
		}
		seen[s.Value] = true
		d.Sets = append(d.Sets, s)
		if c.Kind == yaml.MappingNode {
			p.fields(c.Content[1], ip+"."+MarkersElectroDB, map[string]func(*yaml.Node, string){
				"version": func(v *yaml.Node, path string) { d.ElectroDBVersion = p.nonEmpty(v, path) },
			})
		}
	}
	return d
}

var markerSetNames = strings.Join([]string{MarkersElectroDB, MarkersOneTable, MarkersVersion}, ", ")
