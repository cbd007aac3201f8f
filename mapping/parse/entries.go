package parse

import "go.yaml.in/yaml/v3"

// entries walks a map of key → value (attributes.rename, types and set,
// an entity's embed), reporting a node that is not a map ("expected a map
// of <of>, got …") and duplicate keys, and calls fn for each other entry in
// file order, with the entry's path.
func (p *parser) entries(n *yaml.Node, path, of string, fn func(k, v *yaml.Node, path string)) {
	if n.Kind != yaml.MappingNode {
		p.errorf(n, path, "expected a map of %s, got %s", of, describe(n))
		return
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolve(n.Content[i+1])
		fp := join(path, k.Value)
		if seen[k.Value] {
			p.errorf(k, fp, "duplicate key")
			continue
		}
		seen[k.Value] = true
		fn(k, v, fp)
	}
}
