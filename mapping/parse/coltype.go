package parse

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ColTypeNames are the type names attributes.types accepts, in the order
// the documentation gives them: the names of package mapping's ColTypes,
// which convert by them.
var ColTypeNames = []string{"N", "S", "BOOL", "B", "SS", "NS", "BS", "L", "M", "JSON", "unix", "unixms", "iso"}

// CheckColType reports a name attributes.types does not accept. Names are
// case-sensitive, as DynamoDB writes them.
func CheckColType(s string) error {
	for _, n := range ColTypeNames {
		if n == s {
			return nil
		}
	}
	return fmt.Errorf("unknown type %q (types: %s)", s, strings.Join(ColTypeNames, ", "))
}

// columnTypes reads attributes.types: column → type name, each one of
// ColTypeNames.
func (p *parser) columnTypes(n *yaml.Node, path string) []KV {
	var out []KV
	p.entries(n, path, "column name to type", func(k, v *yaml.Node, fp string) {
		kv := KV{Key: Str{Value: k.Value, Pos: pos(k)}, Value: p.str(v, fp)}
		if v.Kind == yaml.ScalarNode && v.Tag != "!!null" {
			if err := CheckColType(v.Value); err != nil {
				p.errorf(v, fp, "%v", err)
			}
		}
		out = append(out, kv)
	})
	return out
}
