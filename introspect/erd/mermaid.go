package erd

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/remodel-dev/remodel/introspect"
)

// Mermaid writes the schema as a Mermaid entity-relationship diagram
// (erDiagram): one entity per table with its columns (type, name, PK/FK/UK
// markers, and the column's comment and enum values as the attribute's
// comment), then one relationship per foreign key whose referenced table is
// in the schema, labelled with the foreign key's columns.
//
// Names: a table of the default schema (public, or the MySQL database) is
// named by its name, others by schema.name; a name that is not a plain word
// (letters, digits, _) or that Mermaid reads as a keyword is quoted. Types
// and column names keep the characters Mermaid allows in them (letters,
// digits, _, -, parentheses, brackets); any other character (a space, a
// comma, a quote) becomes _, so "character varying(64)" is
// character_varying(64) and numeric(10,2) is numeric(10_2). An enum or set
// type is written as enum or set, its members in the comment. A column
// whose name had to change keeps its real name at the start of the
// comment. Comments lose their double quotes (as ') and line breaks.
//
// Foreign keys to a table outside the schema (left out by --table or
// --exclude, or in another database) are listed as %% comments at the end.
func Mermaid(w io.Writer, s *introspect.Schema) error {
	bw := bufio.NewWriter(w)
	names := entityNames(s)
	fmt.Fprintln(bw, "erDiagram")
	for _, t := range s.Tables {
		writeEntity(bw, t, names[t])
	}
	var outside []Relationship
	for _, r := range Relationships(s) {
		if r.Parent == nil {
			outside = append(outside, r)
			continue
		}
		fmt.Fprintf(bw, "    %s %s %s : %s\n", names[r.Parent], cardinality(r), names[r.Child], quote(strings.Join(r.ForeignKey.Columns, ", ")))
	}
	for _, r := range outside {
		fk := r.ForeignKey
		fmt.Fprintf(bw, "    %%%% %s.%s (%s) references %s.%s (%s), which is not in the diagram\n",
			r.Child.Name, fk.Name, strings.Join(fk.Columns, ", "), fk.RefSchema, fk.RefTable, strings.Join(fk.RefColumns, ", "))
	}
	return bw.Flush()
}

// cardinality is the relationship's Mermaid connector, parent side first:
// ||--o{ (exactly one parent, zero or more children), |o..o| (an optional
// parent, zero or one child, not identifying), ...
func cardinality(r Relationship) string {
	parent, line, child := "||", "..", "o{"
	if r.Optional {
		parent = "|o"
	}
	if r.Identifying {
		line = "--"
	}
	if r.OneToOne {
		child = "o|"
	}
	return parent + line + child
}

func writeEntity(w *bufio.Writer, t *introspect.Table, name string) {
	if len(t.Columns) == 0 {
		fmt.Fprintf(w, "    %s {\n    }\n", name)
		return
	}
	markers := KeyMarkers(t)
	fmt.Fprintf(w, "    %s {\n", name)
	for _, c := range t.Columns {
		typ := c.Type
		if len(c.Values) > 0 {
			if k := strings.ToLower(c.Type); strings.HasPrefix(k, "enum(") || strings.HasPrefix(k, "set(") {
				typ = k[:strings.IndexByte(k, '(')]
			}
		}
		var comment []string
		attr := word(c.Name)
		if attr != c.Name {
			comment = append(comment, c.Name)
		}
		if c.Comment != "" {
			comment = append(comment, c.Comment)
		}
		if len(c.Values) > 0 {
			comment = append(comment, "one of "+strings.Join(c.Values, ", "))
		}
		line := "        " + word(typ) + " " + attr
		if m := markers[c.Name]; len(m) > 0 {
			line += " " + strings.Join(m, ", ")
		}
		if len(comment) > 0 {
			line += " " + quote(strings.Join(comment, "; "))
		}
		fmt.Fprintln(w, line)
	}
	fmt.Fprintln(w, "    }")
}

// entityNames names every table for the diagram.
func entityNames(s *introspect.Schema) map[*introspect.Table]string {
	def := s.Database // where a table's schema is the database (MySQL)
	if ds := s.Engine.Dialect().DefaultSchema(); ds != "" {
		def = ds
	}
	out := make(map[*introspect.Table]string, len(s.Tables))
	for _, t := range s.Tables {
		n := t.Name
		if t.Schema != def {
			n = t.QualifiedName()
		}
		out[t] = entityName(n)
	}
	return out
}

var plainName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// keywords are the words Mermaid's erDiagram lexer takes for something
// other than a name, in lower case.
var keywords = map[string]bool{
	"erdiagram": true, "one": true, "only": true, "zero": true, "many": true, "more": true, "or": true,
	"to": true, "optionally": true, "u": true, "style": true, "classdef": true, "class": true,
	"subgraph": true, "end": true, "direction": true, "acctitle": true, "accdescr": true,
	"pk": true, "fk": true, "uk": true,
}

// entityName is n as a Mermaid entity name: bare when it is a plain word,
// quoted otherwise.
func entityName(n string) string {
	if plainName.MatchString(n) && !keywords[strings.ToLower(n)] {
		return n
	}
	return quote(n)
}

// quote puts s in double quotes, which it may not contain (they become ')
// on one line.
func quote(s string) string {
	s = strings.ReplaceAll(s, `"`, "'")
	s = strings.Join(strings.Fields(strings.NewReplacer("\n", " ", "\r", " ", "\t", " ").Replace(s)), " ")
	return `"` + s + `"`
}

var notInWord = regexp.MustCompile(`[^A-Za-z0-9_\-()\[\]]`)

// word is s as a Mermaid attribute type or name: characters Mermaid does
// not allow become _, and a word must start with a letter or _.
func word(s string) string {
	w := notInWord.ReplaceAllString(s, "_")
	if w == "" || !(w[0] == '_' || w[0] >= 'A' && w[0] <= 'Z' || w[0] >= 'a' && w[0] <= 'z') {
		w = "_" + w
	}
	if keywords[strings.ToLower(w)] {
		w = "_" + w
	}
	return w
}
