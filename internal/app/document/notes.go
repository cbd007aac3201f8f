package document

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// The mapping file's comments are its reasons: remodel init writes why it
// placed an entity where it did, why a foreign key has no index, what an
// index is for, and which tables it left out; a hand-written mapping
// says the same in its own words. The document carries them beside what
// they explain: the file's header and the indexes' comments in "Table and
// indexes", each entity's and each pattern's in its own part.

// addNotes reads the comments of the mapping file's text; a file that does
// not parse adds none (the mapping compiled, so it does).
func (d *Document) addNotes(src []byte) {
	var root yaml.Node
	if yaml.Unmarshal(src, &root) != nil || len(root.Content) == 0 {
		return
	}
	doc := root.Content[0]
	d.Table.Notes = commentNotes(root.HeadComment, doc.HeadComment)
	table := mapValue(doc, "table")
	if k := mapKey(doc, "table"); k != nil {
		d.Table.Notes = append(d.Table.Notes, commentNotes(k.HeadComment)...)
	}
	if ixs := mapValue(table, "indexes"); ixs != nil && ixs.Kind == yaml.SequenceNode {
		for i, ix := range ixs.Content {
			if i+1 < len(d.Table.Keys) {
				d.Table.Keys[i+1].Notes = commentNotes(ix.HeadComment, ix.LineComment)
			}
		}
	}
	if ents := mapValue(doc, "entities"); ents != nil && ents.Kind == yaml.MappingNode {
		byName := map[string]*EntityView{}
		for i := range d.Entities {
			byName[d.Entities[i].Name] = &d.Entities[i]
		}
		for i := 0; i+1 < len(ents.Content); i += 2 {
			k, v := ents.Content[i], ents.Content[i+1]
			head := commentNotes(k.HeadComment)
			// A list of what is not mapped comes before the first entity.
			if len(head) > 0 && strings.HasPrefix(head[0], "Not mapped") {
				d.NotMapped = append(d.NotMapped, head[1:]...)
				head = nil
			}
			if e := byName[k.Value]; e != nil {
				e.Notes = append(head, nodeNotes(v)...)
			}
		}
	}
	if aps := mapValue(doc, "access_patterns"); aps != nil && aps.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(aps.Content); i += 2 {
			k, v := aps.Content[i], aps.Content[i+1]
			for j := range d.Patterns {
				if d.Patterns[j].Name == k.Value {
					d.Patterns[j].Notes = append(commentNotes(k.HeadComment, k.LineComment), nodeNotes(v)...)
				}
			}
		}
	}
}

// nodeNotes are the comments inside a node, in the file's order.
func nodeNotes(n *yaml.Node) []string {
	var out []string
	var walk func(n *yaml.Node, top bool)
	walk = func(n *yaml.Node, top bool) {
		if !top {
			out = append(out, commentNotes(n.HeadComment, n.LineComment)...)
		} else {
			out = append(out, commentNotes(n.LineComment)...)
		}
		for _, c := range n.Content {
			walk(c, false)
		}
		out = append(out, commentNotes(n.FootComment)...)
	}
	walk(n, true)
	return out
}

// commentNotes cuts comments into notes: a line that starts a note
// ("# GSI2: …", "# - view …") and the lines indented under it ("#   …")
// joined into one.
func commentNotes(comments ...string) []string {
	var out []string
	for _, c := range comments {
		// init's style: a note's first line, then lines indented under
		// it; otherwise a comment's lines are one paragraph, each "- "
		// item a note of its own.
		indented := strings.Contains(c, "#   ")
		para := false
		for _, line := range strings.Split(c, "\n") {
			line = strings.TrimSpace(line)
			if !strings.HasPrefix(line, "#") {
				continue
			}
			text := strings.TrimPrefix(line, "#")
			body := strings.TrimSpace(text)
			switch {
			case body == "" || strings.HasPrefix(body, "yaml-language-server:"):
				continue
			case para && !strings.HasPrefix(body, "- ") && (!indented || strings.HasPrefix(text, "   ")):
				out[len(out)-1] += " " + body
			default:
				out = append(out, strings.TrimPrefix(body, "- "))
				para = true
			}
		}
	}
	return out
}

func mapKey(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i]
		}
	}
	return nil
}

func mapValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}
