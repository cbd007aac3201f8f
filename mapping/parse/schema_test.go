package parse

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

// schemaPath is the mapping file's JSON Schema, the one editors use through
// "# yaml-language-server: $schema=…".
const schemaPath = "../../docs/mapping.schema.json"

func loadSchema(t testing.TB) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	s, err := c.Compile(schemaPath)
	if err != nil {
		t.Fatalf("compiling %s: %v", schemaPath, err)
	}
	return s
}

// schemaCheck validates YAML text against the schema. ok is false with the
// schema's reason when it rejects the document; yamlErr is set when the text
// is not YAML the schema can see (a syntax error, a duplicate key).
func schemaCheck(s *jsonschema.Schema, data []byte) (ok bool, reason string, yamlErr error) {
	var doc any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return false, "", err
	}
	// The validator works on JSON's value model: take the YAML through JSON.
	j, err := json.Marshal(jsonable(doc))
	if err != nil {
		return false, "", err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
	if err != nil {
		return false, "", err
	}
	if err := s.Validate(v); err != nil {
		return false, err.Error(), nil
	}
	return true, "", nil
}

// jsonable turns YAML's decoded maps (keys of any type) into JSON objects.
func jsonable(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = jsonable(e)
		}
		return x
	case map[any]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[fmt.Sprint(k)] = jsonable(e)
		}
		return m
	case []any:
		for i, e := range x {
			x[i] = jsonable(e)
		}
		return x
	}
	return v
}

// mappingFiles are every mapping file the parser accepts: the examples and
// the testdata whose problems only show against a schema.
func mappingFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, pat := range []string{"../../examples/*/mapping*.yaml", "../testdata/compile/*.yaml", "../testdata/embed/*.yaml", "../testdata/personalization/*.yaml"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 20 {
		t.Fatalf("found only %d mapping files", len(files))
	}
	return files
}

// TestSchemaAcceptsEveryMapping: every example and every testdata mapping
// the parser accepts validates against the JSON Schema.
func TestSchemaAcceptsEveryMapping(t *testing.T) {
	s := loadSchema(t)
	for _, f := range mappingFiles(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Parse(f, data); err != nil {
			t.Errorf("%s: the parser rejects it: %v", f, err)
			continue
		}
		if ok, reason, yerr := schemaCheck(s, data); !ok {
			t.Errorf("%s: the schema rejects it: %s%v", f, reason, yerr)
		}
		// Examples are what users copy: each names the schema for editors.
		if strings.HasPrefix(f, "../../examples/") {
			line, _, _ := strings.Cut(string(data), "\n")
			ref, ok := strings.CutPrefix(line, "# yaml-language-server: $schema=")
			if !ok {
				t.Errorf("%s: the first line is not a yaml-language-server $schema comment", f)
			} else if _, err := os.Stat(filepath.Join(filepath.Dir(f), ref)); err != nil {
				t.Errorf("%s: its $schema %s: %v", f, ref, err)
			}
		}
	}
}

// yamlOnly are parse-error cases that are not about the document's shape,
// so a JSON Schema cannot see them: the YAML reader rejects them first.
// (A second document is invisible to both: editors validate each document
// on its own.)
var yamlOnly = map[string]bool{
	"syntax_bad_indent.yaml":         true,
	"syntax_unclosed_quote.yaml":     true,
	"syntax_unclosed_flow.yaml":      true,
	"syntax_tab.yaml":                true,
	"duplicate_key.yaml":             true,
	"sql_shapes.yaml":                true, // has a duplicate key besides its shape problems
	"two_documents.yaml":             true,
	"syntax_dedent_after_block.yaml": true,
	"syntax_dedent_key.yaml":         true,
	"syntax_dedent_list.yaml":        true,
	"syntax_tab_token.yaml":          true,
}

// TestSchemaRejectsWhatTheParserRejects: every testdata/errors case the
// parser rejects, the schema rejects too (or the YAML reader does).
func TestSchemaRejectsWhatTheParserRejects(t *testing.T) {
	s := loadSchema(t)
	files, err := filepath.Glob("testdata/errors/*.yaml")
	if err != nil || len(files) < 30 {
		t.Fatalf("found %d error cases (%v)", len(files), err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Parse(f, data); err == nil {
			t.Errorf("%s: the parser accepts it; it belongs elsewhere", f)
			continue
		}
		ok, _, yerr := schemaCheck(s, data)
		switch {
		case yamlOnly[filepath.Base(f)]:
		case yerr != nil:
			t.Errorf("%s: the YAML reader rejects it (%v); list it in yamlOnly", f, yerr)
		case ok:
			t.Errorf("%s: the parser rejects it, the schema accepts it", f)
		}
	}
}

// TestSchemaAndParserAgreeOnMutations mutates every accepted mapping one
// edit at a time — a field removed, an unknown field added, a value
// replaced by null, a list, a map, an empty string or a number — and checks
// that the parser and the schema accept or reject each mutant alike.
func TestSchemaAndParserAgreeOnMutations(t *testing.T) {
	t.Parallel()
	s := loadSchema(t)
	stride := 1
	if raceEnabled {
		stride = 2
	}
	mutants, seen := 0, 0
	for _, f := range mappingFiles(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc yaml.Node
		if err := yaml.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		for _, m := range mutations(&doc) {
			if seen++; seen%stride != 0 {
				continue
			}
			mutants++
			out, err := yaml.Marshal(m.doc)
			if err != nil {
				t.Fatal(err)
			}
			_, perr := Parse(f, out)
			ok, reason, yerr := schemaCheck(s, out)
			if yerr != nil {
				t.Fatalf("%s (%s): mutant is not YAML: %v", f, m.what, yerr)
			}
			if (perr == nil) != ok {
				t.Errorf("%s, %s: parser error %v; schema accepts %v %s", f, m.what, perr, ok, firstLine(reason))
			}
		}
	}
	if mutants < 1000 {
		t.Fatalf("only %d mutants checked", mutants)
	}
	t.Logf("%d mutants, parser and schema agree on each", mutants)
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

type mutant struct {
	what string
	doc  *yaml.Node
}

// mutations returns copies of doc, each with one edit.
func mutations(doc *yaml.Node) []mutant {
	var out []mutant
	var walk func(n *yaml.Node, path string, edit func(func(*yaml.Node) *yaml.Node) *yaml.Node)
	replacements := []struct {
		what string
		node func() *yaml.Node
	}{
		{"null", func() *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"} }},
		{"empty string", func() *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: ""} }},
		{"number", func() *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: "7"} }},
		{"list", func() *yaml.Node {
			return &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: []*yaml.Node{{Kind: yaml.ScalarNode, Tag: "!!str", Value: "x"}}}
		}},
		{"map", func() *yaml.Node {
			return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{
				{Kind: yaml.ScalarNode, Tag: "!!str", Value: "x"}, {Kind: yaml.ScalarNode, Tag: "!!str", Value: "y"}}}
		}},
	}
	// edit(f) returns a deep copy of the document where the node at hand is
	// replaced by f(copy of it); f returning nil removes a map entry.
	walk = func(n *yaml.Node, path string, edit func(func(*yaml.Node) *yaml.Node) *yaml.Node) {
		for _, r := range replacements {
			out = append(out, mutant{path + " → " + r.what, edit(func(*yaml.Node) *yaml.Node { return r.node() })})
		}
		switch n.Kind {
		case yaml.MappingNode:
			out = append(out, mutant{path + " + unknown field", edit(func(c *yaml.Node) *yaml.Node {
				c.Content = append(c.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "zz_unknown"},
					&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "x"})
				return c
			})})
			for i := 0; i+1 < len(n.Content); i += 2 {
				key := n.Content[i].Value
				out = append(out, mutant{path + " - " + key, edit(func(c *yaml.Node) *yaml.Node {
					c.Content = append(c.Content[:i:i], c.Content[i+2:]...)
					return c
				})})
				walk(n.Content[i+1], path+"."+key, func(f func(*yaml.Node) *yaml.Node) *yaml.Node {
					return edit(func(c *yaml.Node) *yaml.Node {
						c.Content[i+1] = f(c.Content[i+1])
						return c
					})
				})
			}
		case yaml.SequenceNode:
			for i := range n.Content {
				walk(n.Content[i], fmt.Sprintf("%s[%d]", path, i), func(f func(*yaml.Node) *yaml.Node) *yaml.Node {
					return edit(func(c *yaml.Node) *yaml.Node {
						c.Content[i] = f(c.Content[i])
						return c
					})
				})
			}
		}
	}
	root := doc.Content[0]
	walk(root, "", func(f func(*yaml.Node) *yaml.Node) *yaml.Node {
		return f(deepCopy(root))
	})
	return out
}

func deepCopy(n *yaml.Node) *yaml.Node {
	c := *n
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, e := range n.Content {
		c.Content[i] = deepCopy(e)
	}
	if n.Alias != nil {
		c.Alias = deepCopy(n.Alias)
	}
	return &c
}

// TestSchemaOffsets: the schema takes exactly the ttl offsets validate
// takes (TestParseOffset's cases, in a mapping's ttl.after).
func TestSchemaOffsets(t *testing.T) {
	s := loadSchema(t)
	cases := append([]string(nil), badOffsets...)
	for o := range offsets {
		cases = append(cases, o)
	}
	for _, o := range cases {
		data := fmt.Appendf(nil, "version: 1\ntable: {name: shop, key: {pk: PK, sk: SK}, ttl: expiresAt}\nentities:\n  thing:\n    from: things\n    pk: \"T#{id}\"\n    sk: \"T#\"\n    ttl: {from: ts, after: %q}\n", o)
		_, perr := Parse("offset.yaml", data)
		ok, reason, yerr := schemaCheck(s, data)
		if yerr != nil {
			t.Fatalf("%q: %v", o, yerr)
		}
		if (perr == nil) != ok {
			t.Errorf("after %q: validate says %v, the schema %v %s", o, perr, ok, reason)
		}
	}
}
