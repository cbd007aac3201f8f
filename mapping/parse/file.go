package parse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// File is a parsed mapping file (version 1). Every field keeps its position so
// that mapping.Compile can report problems where they are written.
type File struct {
	Name           string // the file's name as given to Parse
	Version        int
	Table          TableDef
	Entities       []*EntityDef        // in file order
	AccessPatterns []*AccessPatternDef // in file order
	Acknowledge    []*AckDef           // warnings the design intends (acknowledge.go; matched by package warn)
}

// TableDef is the `table:` section.
type TableDef struct {
	Name            Str
	PK              AttrDef
	SK              *AttrDef // nil when the table has only a partition key
	Billing         Billing
	TTL             Str // attribute that DynamoDB's TTL watches; empty for none
	EntityAttribute Str // attribute naming every item's entity; "_type" by default
	Indexes         []*IndexDef
	Markers         *MarkersDef // nil when the file lists none (markers.go)
}

// Str is a string with its position.
type Str struct {
	Value string
	Pos
}

// AttrDef is a key attribute: its name and its scalar type (S, N or B).
type AttrDef struct {
	Name Str
	Type string
}

// Billing is on-demand (Read, Write zero) or provisioned.
type Billing struct {
	Provisioned bool
	Read, Write int64
	Pos
}

// IndexDef is one secondary index. A local index shares the table's
// partition key and has only a sort key. A global index's key may have up
// to MaxKeyAttrs partition key and MaxKeyAttrs sort key attributes (a
// multi-attribute key), each with its own type.
type IndexDef struct {
	Name       Str
	PK         []AttrDef // nil when absent
	SK         []AttrDef // nil when absent
	Local      bool
	Projection ProjectionDef
	Pos
}

// Projection types: which attributes a secondary index holds besides the
// table's and the index's key attributes.
const (
	ProjectAll      = "ALL"       // every attribute (the default)
	ProjectKeysOnly = "KEYS_ONLY" // the keys only
	ProjectInclude  = "INCLUDE"   // the keys and the attributes listed
)

// ProjectionDef is an index's `projection:`: ALL (also when absent),
// KEYS_ONLY, or {include: [attributes]}.
type ProjectionDef struct {
	Type    string
	Include []Str // the non-key attributes of INCLUDE
	Pos           // where projection: is written; zero when absent
}

// MaxKeyAttrs is how many attributes a multi-attribute partition or sort
// key of a global index may have.
const MaxKeyAttrs = 4

// EntityDef is one entity: the rows of one table, view or query, each
// rendered as one item.
type EntityDef struct {
	Name  Str
	From  Str // a table or view; empty with Query
	Query Str // a SELECT statement; empty with From
	// Key names the columns that identify a row (nil: the table's primary
	// key); required with Query and with a view.
	Key     []Str
	KeyPos  Pos // where key: is written
	Where   Str
	PK      Str
	SK      Str
	Include []Str // nil: every column
	Exclude []Str
	Rename  []KV
	Types   []KV     // column → ColType name (attributes.types)
	Set     []SetDef // extra attributes from templates or constants
	TTL     *TTLDef
	Embed   []*EmbedDef // child rows folded into the item (embed.go)
	// Postgres and MySQL are the postgres: and mysql: blocks: the
	// entity's query and where for that engine (engine.go); nil when
	// absent.
	Postgres, MySQL *EngineSQL
	Pos
}

// SetDef is one attribute of attributes.set: a template (Value), written
// only for rows where the SQL condition When holds when When is not empty.
type SetDef struct {
	Key   Str
	Value Str
	When  Str
}

// TTLDef is an entity's `ttl:`: the table's TTL attribute is written as the
// epoch seconds of a date or timestamp column plus an offset.
type TTLDef struct {
	From  Str
	After Str // a duration such as 30d, 12h, 1d12h, -1h; empty for none
	Pos
}

// KV is one key/value pair of a map, in file order.
type KV struct {
	Key   Str
	Value Str
}

// AccessPatternDef is one access pattern: a Query on the table or an index
// and the SQL that returns the same rows from the source.
type AccessPatternDef struct {
	Name   Str
	Index  Str
	PK     []Str // one template per partition key attribute
	PKPos  Pos   // where query.pk is written
	SK     *SKCond
	Entity Str  // the entity of a single `sql` string
	SQL    []KV // entity name → SQL; one entry with an empty key for a single string
	Params Str  // optional SQL that samples parameter values
	Order  Str  // "asc", "desc" or empty
	Limit  int  // 0: no limit
	// LimitPos is where limit is written (zero when absent).
	LimitPos Pos
	// Postgres and MySQL are the postgres: and mysql: blocks: the
	// pattern's sql and params for that engine (engine.go); nil when
	// absent.
	Postgres, MySQL *EngineSQL
	Pos
}

// SKCond is a sort key condition: equality on the first len(Eq) sort key
// attributes and, when Op is set, a range condition on the next one. Op is
// "", "begins_with", "between", "<", "<=", ">" or ">=".
type SKCond struct {
	Eq     []Str
	Op     string
	Values []Str // the range condition's values (two for between)
	Pos
}

// ParseFile reads and parses a mapping file.
func ParseFile(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("mapping: reading %s: %w", path, err)
	}
	return Parse(path, data)
}

// Parse parses a mapping file strictly: unknown fields, duplicate keys and
// values of the wrong shape are errors carrying name:line:col and the field
// path. All problems are returned together as an ErrorList.
func Parse(name string, data []byte) (*File, error) {
	p := &parser{file: name}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return nil, ErrorList{p.yamlError(err, data)}
	}
	f := &File{Name: name}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, ErrorList{{File: name, Msg: "the file is empty"}}
	}
	// yaml.Unmarshal would silently ignore everything after a second "---".
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, ErrorList{{File: name, Line: extra.Line, Col: extra.Column, Msg: "a mapping file is one YAML document; remove the second document (after ---)"}}
	} else if !errors.Is(err, io.EOF) {
		return nil, ErrorList{p.yamlError(err, data)}
	}
	p.file1(doc.Content[0], f)
	if len(p.errs) > 0 {
		return nil, p.errs
	}
	return f, nil
}

type parser struct {
	file string
	errs ErrorList
}

func (p *parser) errorf(n *yaml.Node, path, format string, args ...any) {
	e := &Error{File: p.file, Path: path, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Line, e.Col = n.Line, n.Column
	}
	p.errs = append(p.errs, e)
}

// yamlError turns a YAML syntax error ("yaml: line 3: ...") into an Error;
// a tab or a key indented as no block around it is, which the YAML library
// reports as a token it cannot read or a key it did not find (at the line
// where the block began), is said as such at its own line (explainYAML).
func (p *parser) yamlError(err error, data []byte) *Error {
	e := p.rawYAMLError(err)
	explainYAML(e, data)
	return e
}

func (p *parser) rawYAMLError(err error) *Error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	e := &Error{File: p.file, Msg: msg}
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if num, tail, ok := strings.Cut(rest, ":"); ok {
			if l, err := strconv.Atoi(num); err == nil {
				e.Line, e.Col, e.Msg = l, 1, strings.TrimSpace(tail)
			}
		}
	}
	// The YAML library counts lines from 1 in scanner errors but from 0 in
	// parser errors, and leaves out "line 0".
	if yamlParserProblems[e.Msg] {
		e.Line, e.Col = e.Line+1, 1
	}
	return e
}

// yamlParserProblems are the messages of the YAML parser's (not scanner's)
// errors, whose line numbers start at 0.
var yamlParserProblems = map[string]bool{
	"did not find expected <stream-start>":   true,
	"did not find expected <document start>": true,
	"found duplicate %YAML directive":        true,
	"found incompatible YAML document":       true,
	"found duplicate %TAG directive":         true,
	"found undefined tag handle":             true,
	"did not find expected node content":     true,
	"did not find expected '-' indicator":    true,
	"did not find expected key":              true,
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
}

func pos(n *yaml.Node) Pos { return Pos{Line: n.Line, Col: n.Column} }

func join(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}

// fields walks a mapping node, calling handle for each known key and
// reporting unknown and duplicate keys. It returns false if n is not a map.
func (p *parser) fields(n *yaml.Node, path string, handlers map[string]func(v *yaml.Node, path string)) bool {
	n = resolve(n)
	if n.Kind != yaml.MappingNode {
		p.errorf(n, path, "expected a map, got %s", describe(n))
		return false
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolve(n.Content[i+1])
		fp := join(path, k.Value)
		if seen[k.Value] {
			p.errorf(k, fp, "duplicate field")
			continue
		}
		seen[k.Value] = true
		h, ok := handlers[k.Value]
		if !ok {
			p.errorf(k, path, "unknown field %q (known fields: %s)", k.Value, known(handlers))
			continue
		}
		h(v, fp)
	}
	return true
}

func known(h map[string]func(*yaml.Node, string)) string {
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func resolve(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a map"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "nothing (null)"
		}
		return fmt.Sprintf("%q", n.Value)
	}
	return "something else"
}

func (p *parser) str(n *yaml.Node, path string) Str {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		p.errorf(n, path, "expected a string, got %s", describe(n))
		return Str{Pos: pos(n)}
	}
	return Str{Value: n.Value, Pos: pos(n)}
}

func (p *parser) nonEmpty(n *yaml.Node, path string) Str {
	s := p.str(n, path)
	if s.Value == "" && n.Kind == yaml.ScalarNode && n.Tag != "!!null" {
		p.errorf(n, path, "must not be empty")
	}
	return s
}

func (p *parser) integer(n *yaml.Node, path string) int64 {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
		p.errorf(n, path, "expected an integer, got %s", describe(n))
		return 0
	}
	v, err := strconv.ParseInt(n.Value, 0, 64)
	if err != nil {
		p.errorf(n, path, "expected an integer, got %q", n.Value)
	}
	return v
}

func (p *parser) boolean(n *yaml.Node, path string) bool {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
		p.errorf(n, path, "expected true or false, got %s", describe(n))
		return false
	}
	return n.Value == "true"
}

func (p *parser) strList(n *yaml.Node, path string) []Str {
	if n.Kind != yaml.SequenceNode {
		p.errorf(n, path, "expected a list of strings, got %s", describe(n))
		return nil
	}
	out := make([]Str, 0, len(n.Content))
	for i, c := range n.Content {
		out = append(out, p.nonEmpty(resolve(c), fmt.Sprintf("%s[%d]", path, i)))
	}
	return out
}

func (p *parser) strMap(n *yaml.Node, path string) []KV {
	var out []KV
	p.entries(n, path, "strings", func(k, v *yaml.Node, fp string) {
		out = append(out, KV{Key: Str{Value: k.Value, Pos: pos(k)}, Value: p.str(v, fp)})
	})
	return out
}

func (p *parser) file1(n *yaml.Node, f *File) {
	var sawVersion, sawTable, sawEntities bool
	ok := p.fields(n, "", map[string]func(*yaml.Node, string){
		"version": func(v *yaml.Node, path string) {
			sawVersion = true
			f.Version = int(p.integer(v, path))
			if f.Version != 1 && v.Tag == "!!int" {
				p.errorf(v, path, "unsupported version %d (this remodel reads version 1)", f.Version)
			}
		},
		"table":    func(v *yaml.Node, path string) { sawTable = true; p.table(v, path, &f.Table) },
		"entities": func(v *yaml.Node, path string) { sawEntities = true; p.entities(v, path, f) },
		"access_patterns": func(v *yaml.Node, path string) {
			p.accessPatterns(v, path, f)
		},
		"acknowledge": func(v *yaml.Node, path string) { f.Acknowledge = p.acknowledgements(v, path) },
	})
	if !ok {
		return
	}
	for _, m := range []struct {
		saw  bool
		name string
	}{{sawVersion, "version"}, {sawTable, "table"}, {sawEntities, "entities"}} {
		if !m.saw {
			p.errorf(n, "", "missing required field %q", m.name)
		}
	}
}

func (p *parser) table(n *yaml.Node, path string, t *TableDef) {
	t.EntityAttribute = Str{Value: "_type"}
	var sawKey bool
	ok := p.fields(n, path, map[string]func(*yaml.Node, string){
		"name": func(v *yaml.Node, path string) { t.Name = p.nonEmpty(v, path) },
		"key": func(v *yaml.Node, path string) {
			sawKey = true
			var sawPK bool
			p.fields(v, path, map[string]func(*yaml.Node, string){
				"pk": func(v *yaml.Node, path string) { sawPK = true; t.PK = p.attrDef(v, path) },
				"sk": func(v *yaml.Node, path string) { a := p.attrDef(v, path); t.SK = &a },
			})
			if !sawPK && resolve(v).Kind == yaml.MappingNode {
				p.errorf(v, path, "missing required field \"pk\"")
			}
		},
		"billing": func(v *yaml.Node, path string) { t.Billing = p.billing(v, path) },
		"ttl":     func(v *yaml.Node, path string) { t.TTL = p.nonEmpty(v, path) },
		"entity_attribute": func(v *yaml.Node, path string) {
			t.EntityAttribute = p.nonEmpty(v, path)
		},
		"markers": func(v *yaml.Node, path string) { t.Markers = p.markers(v, path) },
		"indexes": func(v *yaml.Node, path string) {
			if v.Kind != yaml.SequenceNode {
				p.errorf(v, path, "expected a list of indexes, got %s", describe(v))
				return
			}
			for i, c := range v.Content {
				t.Indexes = append(t.Indexes, p.index(resolve(c), fmt.Sprintf("%s[%d]", path, i)))
			}
		},
	})
	if !ok {
		return
	}
	if t.Name.Value == "" && t.Name.Line == 0 {
		p.errorf(n, path, "missing required field \"name\"")
	}
	if !sawKey {
		p.errorf(n, path, "missing required field \"key\"")
	}
}

// attrDef reads `PK` (a string attribute) or `{name: Id, type: N}`.
func (p *parser) attrDef(n *yaml.Node, path string) AttrDef {
	if n.Kind == yaml.ScalarNode {
		return AttrDef{Name: p.nonEmpty(n, path), Type: "S"}
	}
	a := AttrDef{Type: "S"}
	if n.Kind == yaml.SequenceNode {
		p.errorf(n, path, "a table key is one attribute; multi-attribute keys are for global indexes")
		return a
	}
	p.fields(n, path, map[string]func(*yaml.Node, string){
		"name": func(v *yaml.Node, path string) { a.Name = p.nonEmpty(v, path) },
		"type": func(v *yaml.Node, path string) {
			s := p.str(v, path)
			switch s.Value {
			case "S", "N", "B":
				a.Type = s.Value
			default:
				p.errorf(v, path, "key type must be S, N or B, got %q", s.Value)
			}
		},
	})
	if a.Name.Line == 0 && n.Kind == yaml.MappingNode {
		p.errorf(n, path, "missing required field \"name\"")
	}
	return a
}

func (p *parser) billing(n *yaml.Node, path string) Billing {
	b := Billing{Pos: pos(n)}
	if n.Kind == yaml.ScalarNode {
		if n.Value != "on-demand" {
			p.errorf(n, path, "billing must be on-demand or {provisioned: {read: R, write: W}}, got %q", n.Value)
		}
		return b
	}
	p.fields(n, path, map[string]func(*yaml.Node, string){
		"provisioned": func(v *yaml.Node, path string) {
			b.Provisioned = true
			p.fields(v, path, map[string]func(*yaml.Node, string){
				"read":  func(v *yaml.Node, path string) { b.Read = p.integer(v, path) },
				"write": func(v *yaml.Node, path string) { b.Write = p.integer(v, path) },
			})
			if b.Read < 1 || b.Write < 1 {
				p.errorf(v, path, "provisioned read and write capacity must both be at least 1")
			}
		},
	})
	return b
}

func (p *parser) index(n *yaml.Node, path string) *IndexDef {
	ix := &IndexDef{Pos: pos(n)}
	var sawPK, sawSK bool
	var skNode *yaml.Node
	p.fields(n, path, map[string]func(*yaml.Node, string){
		"name":       func(v *yaml.Node, path string) { ix.Name = p.nonEmpty(v, path) },
		"pk":         func(v *yaml.Node, path string) { sawPK = true; ix.PK = p.indexKey(v, path, "partition") },
		"sk":         func(v *yaml.Node, path string) { sawSK, skNode = true, v; ix.SK = p.indexKey(v, path, "sort") },
		"local":      func(v *yaml.Node, path string) { ix.Local = p.boolean(v, path) },
		"projection": func(v *yaml.Node, path string) { ix.Projection = p.projection(v, path) },
	})
	if ix.Projection.Type == "" {
		ix.Projection.Type = ProjectAll
	}
	if n.Kind != yaml.MappingNode {
		return ix
	}
	if ix.Name.Value == "" && ix.Name.Line == 0 {
		p.errorf(n, path, "missing required field \"name\"")
	}
	switch {
	case ix.Local && sawPK:
		p.errorf(n, path, "a local index shares the table's partition key: remove pk")
	case ix.Local && !sawSK:
		p.errorf(n, path, "a local index needs a sort key (sk)")
	case !ix.Local && !sawPK:
		p.errorf(n, path, "missing required field \"pk\"")
	}
	if ix.Local && skNode != nil && skNode.Kind == yaml.SequenceNode {
		p.errorf(skNode, path+".sk", "a local index has one sort key attribute; multi-attribute keys are for global indexes")
	}
	return ix
}

// projection reads an index's projection: ALL, KEYS_ONLY or
// {include: [a, b]}.
func (p *parser) projection(n *yaml.Node, path string) ProjectionDef {
	pd := ProjectionDef{Type: ProjectAll, Pos: pos(n)}
	if n.Kind == yaml.ScalarNode {
		switch n.Value {
		case ProjectAll, ProjectKeysOnly:
			pd.Type = n.Value
		case ProjectInclude:
			p.errorf(n, path, "INCLUDE names its attributes: write {include: [a, b]}")
		default:
			p.errorf(n, path, "projection must be ALL, KEYS_ONLY or {include: [attributes]}, got %s", describe(n))
		}
		return pd
	}
	if n.Kind != yaml.MappingNode {
		p.errorf(n, path, "projection must be ALL, KEYS_ONLY or {include: [attributes]}, got %s", describe(n))
		return pd
	}
	var saw bool
	p.fields(n, path, map[string]func(*yaml.Node, string){
		"include": func(v *yaml.Node, path string) {
			saw = true
			pd.Type = ProjectInclude
			pd.Include = p.strList(v, path)
			if v.Kind == yaml.SequenceNode && len(v.Content) == 0 {
				p.errorf(v, path, "list at least one attribute (or use KEYS_ONLY)")
			}
		},
	})
	if !saw {
		p.errorf(n, path, "missing required field \"include\"")
	}
	return pd
}

// indexKey reads an index's partition or sort key: one attribute (as in
// attrDef) or a list of one to MaxKeyAttrs of them.
func (p *parser) indexKey(n *yaml.Node, path, what string) []AttrDef {
	if n.Kind != yaml.SequenceNode {
		return []AttrDef{p.attrDef(n, path)}
	}
	switch {
	case len(n.Content) == 0:
		p.errorf(n, path, "give at least one %s key attribute", what)
	case len(n.Content) > MaxKeyAttrs:
		p.errorf(n, path, "an index has at most %d %s key attributes, got %d", MaxKeyAttrs, what, len(n.Content))
	}
	out := make([]AttrDef, 0, len(n.Content))
	for i, c := range n.Content {
		c, path := resolve(c), fmt.Sprintf("%s[%d]", path, i)
		if c.Kind == yaml.SequenceNode {
			p.errorf(c, path, "expected an attribute name or {name, type}, got %s", describe(c))
			continue
		}
		out = append(out, p.attrDef(c, path))
	}
	return out
}

// named walks a map of name → definition (entities, access patterns),
// reporting duplicate names, and calls def for each entry in file order.
func (p *parser) named(n *yaml.Node, path, what string, def func(k, v *yaml.Node, path string)) {
	if n.Kind != yaml.MappingNode {
		p.errorf(n, path, "expected a map of %s name to %s, got %s", what, what, describe(n))
		return
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolve(n.Content[i+1])
		fp := join(path, k.Value)
		if seen[k.Value] {
			p.errorf(k, fp, "duplicate %s", what)
			continue
		}
		seen[k.Value] = true
		def(k, v, fp)
	}
}

func (p *parser) entities(n *yaml.Node, path string, f *File) {
	p.named(n, path, "entity", func(k, v *yaml.Node, fp string) {
		e := &EntityDef{Name: Str{Value: k.Value, Pos: pos(k)}, Pos: pos(v)}
		var sawPK bool
		ok := p.fields(v, fp, map[string]func(*yaml.Node, string){
			"from":     func(v *yaml.Node, path string) { e.From = p.nonEmpty(v, path) },
			"query":    func(v *yaml.Node, path string) { e.Query = p.nonEmpty(v, path) },
			"key":      func(v *yaml.Node, path string) { e.KeyPos = pos(v); e.Key = p.keyColumns(v, path) },
			"where":    func(v *yaml.Node, path string) { e.Where = p.nonEmpty(v, path) },
			"ttl":      func(v *yaml.Node, path string) { e.TTL = p.ttl(v, path) },
			"embed":    func(v *yaml.Node, path string) { e.Embed = p.embeds(v, path) },
			"pk":       func(v *yaml.Node, path string) { sawPK = true; e.PK = p.nonEmpty(v, path) },
			"sk":       func(v *yaml.Node, path string) { e.SK = p.str(v, path) },
			"postgres": func(v *yaml.Node, path string) { e.Postgres = p.entityEngine(v, path) },
			"mysql":    func(v *yaml.Node, path string) { e.MySQL = p.entityEngine(v, path) },
			"attributes": func(v *yaml.Node, path string) {
				p.fields(v, path, map[string]func(*yaml.Node, string){
					"include": func(v *yaml.Node, path string) {
						e.Include = p.strList(v, path)
						if e.Include == nil {
							e.Include = []Str{}
						}
					},
					"exclude": func(v *yaml.Node, path string) { e.Exclude = p.strList(v, path) },
					"rename":  func(v *yaml.Node, path string) { e.Rename = p.renames(v, path) },
					"types":   func(v *yaml.Node, path string) { e.Types = p.columnTypes(v, path) },
					"set":     func(v *yaml.Node, path string) { e.Set = p.sets(v, path) },
				})
				if e.Include != nil && e.Exclude != nil {
					p.errorf(v, path, "use include or exclude, not both")
				}
			},
		})
		if !ok {
			return
		}
		switch {
		case e.From.Line == 0 && e.Query.Line == 0:
			p.errorf(v, fp, "missing required field \"from\" (a table or view) or \"query\" (a SELECT statement)")
		case e.From.Line != 0 && e.Query.Line != 0:
			p.errorf(v, fp, "use from or query, not both")
		case e.Query.Line != 0 && e.KeyPos.Line == 0:
			p.errorf(v, fp, "an entity with a query needs key: the columns of its result that identify a row (e.g. key: [user_id, week])")
		}
		if !sawPK {
			p.errorf(v, fp, "missing required field \"pk\"")
		}
		p.engineQueries(e, fp)
		f.Entities = append(f.Entities, e)
	})
}

// keyColumns reads an entity's key: a non-empty list of distinct column
// names.
func (p *parser) keyColumns(n *yaml.Node, path string) []Str {
	if n.Kind != yaml.SequenceNode {
		p.errorf(n, path, "expected a list of column names, got %s", describe(n))
		return nil
	}
	if len(n.Content) == 0 {
		p.errorf(n, path, "must name at least one column")
		return nil
	}
	cols := p.strList(n, path)
	seen := map[string]bool{}
	for i, c := range cols {
		if seen[c.Value] && c.Value != "" {
			p.errorf(resolve(n.Content[i]), fmt.Sprintf("%s[%d]", path, i), "column %s is already in the key", c.Value)
		}
		seen[c.Value] = true
	}
	return cols
}

// renames reads attributes.rename: column → attribute name.
func (p *parser) renames(n *yaml.Node, path string) []KV {
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			v := resolve(n.Content[i+1])
			if v.Kind == yaml.MappingNode && hasKey(v, "when") {
				p.errorf(v, join(path, n.Content[i].Value), "a renamed column has no condition (when is for attributes.set: {NAME: {value: \"{%s}\", when: ...}})", n.Content[i].Value)
				n = withoutEntry(n, i)
				i -= 2
			}
		}
	}
	return p.strMap(n, path)
}

// hasKey reports whether the map node n has the key k.
func hasKey(n *yaml.Node, k string) bool {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == k {
			return true
		}
	}
	return false
}

// withoutEntry is a copy of the map node n without its entry at i (the
// index of the key in Content).
func withoutEntry(n *yaml.Node, i int) *yaml.Node {
	c := *n
	c.Content = append(append([]*yaml.Node(nil), n.Content[:i]...), n.Content[i+2:]...)
	return &c
}

// sets reads attributes.set: attribute name → "template", or
// {value: "template", when: "SQL condition"}.
func (p *parser) sets(n *yaml.Node, path string) []SetDef {
	var out []SetDef
	p.entries(n, path, "attribute name to template", func(k, v *yaml.Node, fp string) {
		d := SetDef{Key: Str{Value: k.Value, Pos: pos(k)}}
		if v.Kind != yaml.MappingNode {
			d.Value = p.str(v, fp)
			out = append(out, d)
			return
		}
		var sawValue bool
		p.fields(v, fp, map[string]func(*yaml.Node, string){
			"value": func(v *yaml.Node, path string) { sawValue = true; d.Value = p.str(v, path) },
			"when":  func(v *yaml.Node, path string) { d.When = p.nonEmpty(v, path) },
		})
		if !sawValue {
			p.errorf(v, fp, "missing required field \"value\" (the template, as in the short form NAME: \"template\")")
			d.Value.Pos = pos(v)
		}
		out = append(out, d)
	})
	return out
}

func (p *parser) accessPatterns(n *yaml.Node, path string, f *File) {
	p.named(n, path, "access pattern", func(k, v *yaml.Node, fp string) {
		ap := &AccessPatternDef{Name: Str{Value: k.Value, Pos: pos(k)}, Pos: pos(v)}
		var sawQuery, sawSQL bool
		ok := p.fields(v, fp, map[string]func(*yaml.Node, string){
			"index":  func(v *yaml.Node, path string) { ap.Index = p.nonEmpty(v, path) },
			"entity": func(v *yaml.Node, path string) { ap.Entity = p.nonEmpty(v, path) },
			"params": func(v *yaml.Node, path string) { ap.Params = p.nonEmpty(v, path) },
			"order": func(v *yaml.Node, path string) {
				ap.Order = p.str(v, path)
				if v.Kind == yaml.ScalarNode && v.Tag != "!!null" && ap.Order.Value != "asc" && ap.Order.Value != "desc" {
					p.errorf(v, path, "order must be asc or desc, got %q", ap.Order.Value)
				}
			},
			"limit": func(v *yaml.Node, path string) {
				ap.LimitPos = pos(v)
				n := p.integer(v, path)
				if v.Tag == "!!int" && n < 1 {
					p.errorf(v, path, "limit must be at least 1, got %d", n)
				}
				ap.Limit = int(min(max(n, 0), 1<<31-1))
			},
			"query": func(v *yaml.Node, path string) {
				sawQuery = true
				var sawPK bool
				p.fields(v, path, map[string]func(*yaml.Node, string){
					"pk": func(v *yaml.Node, path string) {
						sawPK, ap.PKPos = true, pos(v)
						if v.Kind == yaml.SequenceNode {
							ap.PK = p.strList(v, path)
							if len(v.Content) == 0 {
								p.errorf(v, path, "give at least one partition key template")
							}
							return
						}
						ap.PK = []Str{p.nonEmpty(v, path)}
					},
					"sk": func(v *yaml.Node, path string) { ap.SK = p.skCond(v, path) },
				})
				if !sawPK && v.Kind == yaml.MappingNode {
					p.errorf(v, path, "missing required field \"pk\"")
				}
			},
			"sql":      func(v *yaml.Node, path string) { sawSQL = true; ap.SQL = p.sql(v, path) },
			"postgres": func(v *yaml.Node, path string) { ap.Postgres = p.patternEngine(v, path) },
			"mysql":    func(v *yaml.Node, path string) { ap.MySQL = p.patternEngine(v, path) },
		})
		if !ok {
			return
		}
		if !sawQuery {
			p.errorf(v, fp, "missing required field \"query\"")
		}
		if !sawSQL {
			p.errorf(v, fp, "missing required field \"sql\"")
		}
		f.AccessPatterns = append(f.AccessPatterns, ap)
	})
}

// skCond reads `"exact"`, a list of exact values (equality on the first
// sort key attributes), or a map of at most one range condition
// `{begins_with: "x"}`, `{between: [a, b]}`, `{lt|lte|gt|gte: "x"}` and an
// optional `eq:` (one exact value or a list of them) on the sort key
// attributes before it.
func (p *parser) skCond(n *yaml.Node, path string) *SKCond {
	c := &SKCond{Pos: pos(n)}
	switch n.Kind {
	case yaml.ScalarNode:
		c.Eq = []Str{p.str(n, path)}
		return c
	case yaml.SequenceNode:
		c.Eq = p.strList(n, path)
		if len(n.Content) == 0 {
			p.errorf(n, path, "give at least one sort key value")
		}
		return c
	}
	ops := map[string]string{"begins_with": "begins_with", "lt": "<", "lte": "<=", "gt": ">", "gte": ">="}
	var sawEq bool
	handlers := map[string]func(*yaml.Node, string){
		"between": func(v *yaml.Node, path string) {
			c.Op = "between"
			c.Values = p.strList(v, path)
			if v.Kind == yaml.SequenceNode && len(v.Content) != 2 {
				p.errorf(v, path, "between takes exactly two values, got %d", len(v.Content))
			}
		},
		"eq": func(v *yaml.Node, path string) {
			sawEq = true
			if v.Kind != yaml.SequenceNode {
				c.Eq = []Str{p.nonEmpty(v, path)}
				return
			}
			c.Eq = p.strList(v, path)
			if len(v.Content) == 0 {
				p.errorf(v, path, "give at least one sort key value")
			}
		},
	}
	for name, op := range ops {
		handlers[name] = func(v *yaml.Node, path string) {
			c.Op = op
			c.Values = []Str{p.nonEmpty(v, path)}
		}
	}
	if !p.fields(n, path, handlers) {
		return c
	}
	ranges := len(n.Content) / 2
	if sawEq {
		ranges--
	}
	switch {
	case len(n.Content) == 0:
		p.errorf(n, path, "give a sort key condition (%s)", known(handlers))
	case ranges > 1:
		delete(handlers, "eq")
		p.errorf(n, path, "give at most one range condition (%s), besides eq", known(handlers))
	}
	return c
}

// ttl reads `created_at` or `{from: created_at, after: 30d}`.
func (p *parser) ttl(n *yaml.Node, path string) *TTLDef {
	d := &TTLDef{Pos: pos(n)}
	if n.Kind == yaml.ScalarNode {
		d.From = p.nonEmpty(n, path)
		return d
	}
	ok := p.fields(n, path, map[string]func(*yaml.Node, string){
		"from": func(v *yaml.Node, path string) { d.From = p.nonEmpty(v, path) },
		"after": func(v *yaml.Node, path string) {
			d.After = p.nonEmpty(v, path)
			if d.After.Value != "" {
				if _, err := ParseOffset(d.After.Value); err != nil {
					p.errorf(v, path, "%v", err)
				}
			}
		},
	})
	if ok && d.From.Line == 0 {
		p.errorf(n, path, "missing required field \"from\"")
	}
	return d
}

// maxOffset is the most one unit of an offset may count, in seconds (100
// years: 36600d or 878400h; a time.Duration holds about 292 years, more
// than two such units and 7-digit minutes and seconds add up to). It is a
// limit per unit, not on the sum, so that docs/mapping.schema.json's
// pattern can say exactly the same.
const maxOffset = 100 * 366 * 86400

// ParseOffset reads a duration of whole days, hours, minutes and seconds,
// largest first, optionally negative: 30d, 12h, 1d12h, 90m, -1h, 0s.
func ParseOffset(s string) (time.Duration, error) {
	rest, neg := strings.CutPrefix(s, "-")
	if rest == "" {
		return 0, fmt.Errorf("offset %q is not a duration such as 30d, 12h or 1d12h", s)
	}
	units := []struct {
		suffix byte
		secs   int64
	}{{'d', 86400}, {'h', 3600}, {'m', 60}, {'s', 1}}
	var total int64 // seconds: at most 7 digits a unit cannot overflow it
	next := 0       // units before this one are used up
	for rest != "" {
		i := 0
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if i == 0 || i == len(rest) || i > 7 {
			return 0, fmt.Errorf("offset %q is not a duration such as 30d, 12h or 1d12h", s)
		}
		n, _ := strconv.Atoi(rest[:i])
		u := -1
		for j := next; j < len(units); j++ {
			if units[j].suffix == rest[i] {
				u = j
			}
		}
		if u < 0 {
			return 0, fmt.Errorf("offset %q is not a duration such as 30d, 12h or 1d12h (units d, h, m, s, largest first)", s)
		}
		if int64(n)*units[u].secs > maxOffset {
			return 0, fmt.Errorf("offset %q: %s is more than 100 years (36600d, 878400h)", s, rest[:i+1])
		}
		total += int64(n) * units[u].secs
		next = u + 1
		rest = rest[i+1:]
	}
	if neg {
		total = -total
	}
	return time.Duration(total) * time.Second, nil
}
