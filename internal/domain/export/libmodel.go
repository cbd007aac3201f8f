package export

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
)

// This file holds what the exports for applications' data libraries
// (ElectroDB, OneTable, the DynamoDB MCP server's schema.json) share: each
// entity's key templates on the table and on every index its items are in,
// read back into literal and placeholder parts with the attribute each
// placeholder's column becomes, and the access patterns matched against
// those keys. Each library then says, part by part, whether it computes the
// same text as remodel wrote; what it cannot is named (Notes), never
// written in a form that reads differently.

// libPart is one part of a key template: a literal, or a placeholder.
type libPart struct {
	Lit string
	// Column is the placeholder's column (a parameter of an access
	// pattern: its name), Attr the attribute of the items that holds the
	// column's value ("" when the column is not an attribute).
	Column string
	Attr   string
	Col    *introspect.Column
	Fmts   []libFmt
}

func (p libPart) placeholder() bool { return p.Column != "" }

// libFmt is one formatter of a placeholder: pad:10 is {pad, 10}.
type libFmt struct {
	Name string
	Arg  string
}

func (f libFmt) String() string {
	if f.Arg == "" {
		return f.Name
	}
	return f.Name + ":" + f.Arg
}

// parseLibTemplate splits a template the mapping has checked already into
// its parts (the grammar of mapping.ParseTemplate: `{{` and `}}` are
// literal braces, `{column|formatter:arg|...}` a placeholder).
func parseLibTemplate(src string) ([]libPart, error) {
	var parts []libPart
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			parts = append(parts, libPart{Lit: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(src); {
		switch c := src[i]; {
		case c == '{' && i+1 < len(src) && src[i+1] == '{':
			lit.WriteByte('{')
			i += 2
		case c == '}' && i+1 < len(src) && src[i+1] == '}':
			lit.WriteByte('}')
			i += 2
		case c == '{':
			end := strings.IndexByte(src[i:], '}')
			if end < 0 {
				return nil, fmt.Errorf("export: template %q: unclosed {", src)
			}
			segs := strings.Split(src[i+1:i+end], "|")
			p := libPart{Column: strings.TrimSpace(segs[0])}
			for _, s := range segs[1:] {
				name, arg, _ := strings.Cut(strings.TrimSpace(s), ":")
				p.Fmts = append(p.Fmts, libFmt{name, arg})
			}
			flush()
			parts = append(parts, p)
			i += end + 1
		default:
			lit.WriteByte(c)
			i++
		}
	}
	flush()
	return parts, nil
}

// libKey is one key attribute of an entity's items on the table or an
// index: the attribute (Field), its type, and how remodel renders it.
type libKey struct {
	Field string
	Type  string // S, N or B
	Src   string // the template as the mapping writes it
	Parts []libPart
	// When is the condition of a key written by a conditional set
	// attribute ("" when the key is always written).
	When string
	// Plain is set when the key attribute is a column attribute itself
	// (an index on a plain attribute): no template, the value as stored.
	Plain bool
}

// attrs lists the attributes of the key's placeholders, each once.
func (k *libKey) attrs() []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range k.Parts {
		if p.placeholder() && !seen[p.Attr] {
			seen[p.Attr] = true
			out = append(out, p.Attr)
		}
	}
	return out
}

// libIndex is where an entity's items are found: the table (Index nil) or
// one secondary index.
type libIndex struct {
	Name  string // "" for the table
	Index *mapping.Index
	PK    []*libKey
	SK    []*libKey // none when the target has no sort key
}

// libEntity is one entity as the library exports see it.
type libEntity struct {
	E     *mapping.Entity
	Attrs []mapping.AttributeDesc
	// Indexes are the table and then the indexes the entity's items are
	// in (each key attribute of the index is one the items get).
	Indexes []*libIndex
	// KeyOnly are key columns that are not attributes of the items: the
	// libraries need them as fields to compute the keys.
	KeyOnly []*introspect.Column
	// byColumn maps a column to its attribute.
	byColumn map[string]string
}

func (le *libEntity) index(name string) *libIndex {
	for _, ix := range le.Indexes {
		if ix.Name == name {
			return ix
		}
	}
	return nil
}

// libPlan is the mapping as the library exports see it.
type libPlan struct {
	P           *mapping.Plan
	Table       string
	mappingFile string
	Entities    []*libEntity
	Patterns    []*libPattern
}

func (lp *libPlan) entity(name string) *libEntity {
	for _, le := range lp.Entities {
		if le.E.Name == name {
			return le
		}
	}
	return nil
}

// libPattern is one access pattern: its templates, read into parts.
type libPattern struct {
	AP  *mapping.AccessPattern
	Def *mapping.AccessPatternDef
	PK  [][]libPart // one per partition key attribute
	// SKEq are the exact templates of the first sort key attributes, SK
	// the range condition's values (SKOp).
	SKEq [][]libPart
	SK   [][]libPart
}

func newLibPlan(p *mapping.Plan, o Options) (*libPlan, error) {
	lp := &libPlan{P: p, Table: p.Table.Name, mappingFile: o.MappingFile}
	if o.TableName != "" {
		lp.Table = o.TableName
	}
	defs := map[string]*mapping.EntityDef{}
	for _, ed := range p.File.Entities {
		defs[ed.Name.Value] = ed
	}
	for _, e := range p.Entities {
		le, err := newLibEntity(&p.Table, e, defs[e.Name], p.Attributes(e))
		if err != nil {
			return nil, err
		}
		lp.Entities = append(lp.Entities, le)
	}
	pats, err := libPatterns(p)
	if err != nil {
		return nil, err
	}
	lp.Patterns = pats
	return lp, nil
}

// newLibEntity is the entity e (def its definition, nil for none; attrs
// its attributes) with its keys on the table and on every index of t its
// items are in.
func newLibEntity(t *mapping.Table, e *mapping.Entity, def *mapping.EntityDef, attrs []mapping.AttributeDesc) (*libEntity, error) {
	le := &libEntity{E: e, byColumn: map[string]string{}}
	isKey := map[string]bool{t.PK.Name: true}
	if t.SK != nil {
		isKey[t.SK.Name] = true
	}
	for _, a := range attrs {
		if !isKey[a.Name] {
			le.Attrs = append(le.Attrs, a)
		}
		if a.Source == mapping.FromColumn && a.Column.Type == "" {
			// A column read in another form (attributes.types) holds
			// another value than the key's text: only a column stored
			// as it converts by default stands for its key part.
			le.byColumn[a.Column.Column.Name] = a.Name
		}
	}
	kb := &libKeyBuilder{le: le, cols: map[string]*introspect.Column{}, keyOnly: map[string]bool{}, producers: map[string]libKeyProducer{}}
	for _, c := range e.Columns {
		kb.cols[c.Name] = c
	}
	kb.tableProducers(t)
	kb.setProducers(def)
	kb.attrProducers()
	if err := kb.indexes(t); err != nil {
		return nil, err
	}
	return le, nil
}

// libKeyProducer builds the key of one attribute as an attribute of type
// typ (S, N or B).
type libKeyProducer func(typ string) (*libKey, error)

// libKeyBuilder builds the keys of one entity's items, and collects the
// key columns that are not attributes (the entity's KeyOnly).
type libKeyBuilder struct {
	le      *libEntity
	cols    map[string]*introspect.Column
	keyOnly map[string]bool
	// producers say what produces each attribute that can be a key: the
	// table's key templates, the set templates, plain column attributes,
	// the entity attribute (the entity's name).
	producers map[string]libKeyProducer
}

// key is the key field of type typ rendered by the template src (when
// its condition, "" for always).
func (kb *libKeyBuilder) key(field, typ, src, when string) (*libKey, error) {
	parts, err := parseLibTemplate(src)
	if err != nil {
		return nil, err
	}
	for i := range parts {
		if parts[i].placeholder() {
			kb.resolve(&parts[i])
		}
	}
	return &libKey{Field: field, Type: typ, Src: src, Parts: parts, When: when}, nil
}

// resolve gives a placeholder its column and attribute: the column's
// attribute, or the column's name for a key column that is no attribute
// (then one of KeyOnly).
func (kb *libKeyBuilder) resolve(part *libPart) {
	c := part.Column
	part.Col = kb.cols[c]
	part.Attr = kb.le.byColumn[c]
	if part.Attr != "" {
		return
	}
	part.Attr = c
	if !kb.keyOnly[c] && kb.cols[c] != nil {
		kb.keyOnly[c] = true
		kb.le.KeyOnly = append(kb.le.KeyOnly, kb.cols[c])
	}
}

// tableProducers produce the table's key attributes from the entity's
// key templates.
func (kb *libKeyBuilder) tableProducers(t *mapping.Table) {
	pkSrc, skSrc := kb.le.E.KeyTemplates()
	kb.producers[t.PK.Name] = func(typ string) (*libKey, error) { return kb.key(t.PK.Name, typ, pkSrc, "") }
	if t.SK != nil {
		kb.producers[t.SK.Name] = func(typ string) (*libKey, error) { return kb.key(t.SK.Name, typ, skSrc, "") }
	}
}

// setProducers produce the attributes the definition's set templates
// write (def nil: none).
func (kb *libKeyBuilder) setProducers(def *mapping.EntityDef) {
	if def == nil {
		return
	}
	for _, s := range def.Set {
		kb.producers[s.Key.Value] = func(typ string) (*libKey, error) { return kb.key(s.Key.Value, typ, s.Value.Value, s.When.Value) }
	}
}

// attrProducers produce the plain column attributes and the entity
// attribute (the entity's name).
func (kb *libKeyBuilder) attrProducers() {
	for _, a := range kb.le.Attrs {
		switch a.Source {
		case mapping.FromColumn:
			kb.producers[a.Name] = func(typ string) (*libKey, error) { return kb.columnKey(a, typ) }
		case mapping.FromEntityName:
			name := kb.le.E.Name
			kb.producers[a.Name] = func(typ string) (*libKey, error) {
				return kb.key(a.Name, typ, strings.ReplaceAll(strings.ReplaceAll(name, "{", "{{"), "}", "}}"), "")
			}
		}
	}
}

// columnKey is the key of the column attribute a as an attribute of type
// typ.
func (kb *libKeyBuilder) columnKey(a mapping.AttributeDesc, typ string) (*libKey, error) {
	k, err := kb.key(a.Name, typ, "{"+strings.ReplaceAll(a.Column.Column.Name, "}", "}}")+"}", "")
	if err != nil {
		return nil, err
	}
	k.Plain = a.Column.Type == "" || a.Column.Type.Dynamo() == typ
	if a.Column.Type != "" {
		// Stored in another form than the column's text: the attribute
		// is the value as stored.
		k.Parts = []libPart{{Column: a.Column.Column.Name, Attr: a.Name, Col: a.Column.Column}}
	}
	return k, nil
}

// build is the keys of the key attributes ks, or false when one has no
// producer (the entity's items are not in that index).
func (kb *libKeyBuilder) build(ks []mapping.KeyAttr) ([]*libKey, bool, error) {
	var out []*libKey
	for _, k := range ks {
		f := kb.producers[k.Name]
		if f == nil {
			return nil, false, nil
		}
		lk, err := f(k.Type)
		if err != nil {
			return nil, false, err
		}
		out = append(out, lk)
	}
	return out, true, nil
}

// indexes sets the entity's Indexes: the table, then each index of t
// whose every key attribute the items get.
func (kb *libKeyBuilder) indexes(t *mapping.Table) error {
	pk, sk, _, err := kb.buildIndex([]mapping.KeyAttr{t.PK}, tableKeySK(t))
	if err != nil {
		return err
	}
	kb.le.Indexes = append(kb.le.Indexes, &libIndex{PK: pk, SK: sk})
	for _, ix := range t.Indexes {
		ipk, isk, ok, err := kb.buildIndex(ix.PK, ix.SK)
		if err != nil {
			return err
		}
		if ok {
			kb.le.Indexes = append(kb.le.Indexes, &libIndex{Name: ix.Name, Index: ix, PK: ipk, SK: isk})
		}
	}
	return nil
}

// buildIndex is the keys of an index's partition and sort key attributes,
// ok when the items get every one.
func (kb *libKeyBuilder) buildIndex(pks, sks []mapping.KeyAttr) (pk, sk []*libKey, ok bool, err error) {
	pk, ok1, err := kb.build(pks)
	if err != nil {
		return nil, nil, false, err
	}
	sk, ok2, err := kb.build(sks)
	if err != nil {
		return nil, nil, false, err
	}
	return pk, sk, ok1 && ok2, nil
}

// tableKeySK is the table's sort key attribute, if it has one (an empty,
// not nil, list when not).
func tableKeySK(t *mapping.Table) []mapping.KeyAttr {
	if t.SK != nil {
		return []mapping.KeyAttr{*t.SK}
	}
	return []mapping.KeyAttr{}
}

// libPatterns are the plan's access patterns that have a definition,
// their templates read into parts.
func libPatterns(p *mapping.Plan) ([]*libPattern, error) {
	defs := map[string]*mapping.AccessPatternDef{}
	for _, ad := range p.File.AccessPatterns {
		defs[ad.Name.Value] = ad
	}
	var out []*libPattern
	for _, ap := range p.AccessPatterns {
		def := defs[ap.Name]
		if def == nil {
			continue
		}
		pat, err := newLibPattern(ap, def)
		if err != nil {
			return nil, err
		}
		out = append(out, pat)
	}
	return out, nil
}

// newLibPattern is the access pattern ap with its templates read into
// parts.
func newLibPattern(ap *mapping.AccessPattern, def *mapping.AccessPatternDef) (*libPattern, error) {
	pat := &libPattern{AP: ap, Def: def}
	var err error
	if pat.PK, err = parseLibTemplates(def.PK); err != nil {
		return nil, err
	}
	if def.SK != nil {
		if pat.SKEq, err = parseLibTemplates(def.SK.Eq); err != nil {
			return nil, err
		}
		if pat.SK, err = parseLibTemplates(def.SK.Values); err != nil {
			return nil, err
		}
	}
	return pat, nil
}

// parseLibTemplates reads each template into parts.
func parseLibTemplates(ss []mapping.Str) ([][]libPart, error) {
	var out [][]libPart
	for _, s := range ss {
		parts, err := parseLibTemplate(s.Value)
		if err != nil {
			return nil, err
		}
		out = append(out, parts)
	}
	return out, nil
}

// keyMatch is how an access pattern's template meets an entity's key
// template: every part the same, placeholders with the same formatters
// (a parameter takes the place of the entity's column).
type keyMatch struct {
	// Bound are the entity's placeholders the template gives values for,
	// in order (the first len(Bound) of the key's placeholders), and
	// Params the pattern's parameter for each.
	Bound  []libPart
	Params []string
	// Full is set when the template is the whole key; otherwise it is a
	// prefix that ends after Bound, either at a placeholder (EndsAtValue)
	// or with the whole literal that follows it (the prefix a library
	// computes from the values it has).
	Full        bool
	EndsAtValue bool
}

// matchKey matches pattern template tp against key k. ok is false when
// tp is not the key or a prefix of it as described for keyMatch.
func matchKey(tp []libPart, k *libKey) (m keyMatch, ok bool) {
	kp := k.Parts
	i := 0
	for ; i < len(tp); i++ {
		if i >= len(kp) {
			return m, false
		}
		a, b := tp[i], kp[i]
		if a.placeholder() != b.placeholder() {
			return m, false
		}
		if !a.placeholder() {
			if a.Lit == b.Lit {
				continue
			}
			// A prefix of the key's literal: only as the last part.
			if i == len(tp)-1 && strings.HasPrefix(b.Lit, a.Lit) {
				return m, false
			}
			return m, false
		}
		if fmtText(a.Fmts) != fmtText(b.Fmts) {
			return m, false
		}
		m.Bound = append(m.Bound, b)
		m.Params = append(m.Params, a.Column)
	}
	m.Full = i == len(kp)
	m.EndsAtValue = !m.Full && len(tp) > 0 && tp[len(tp)-1].placeholder()
	if !m.Full && len(tp) == 0 {
		// An empty prefix: only when the key starts with a placeholder.
		m.EndsAtValue = true
	}
	return m, true
}

func fmtText(fs []libFmt) string {
	var s []string
	for _, f := range fs {
		s = append(s, f.String())
	}
	return strings.Join(s, "|")
}

// libNotes collects what an export cannot express, each line once, in
// the order found.
type libNotes struct {
	lines []string
	seen  map[string]bool
}

func (n *libNotes) add(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	if n.seen == nil {
		n.seen = map[string]bool{}
	}
	if !n.seen[s] {
		n.seen[s] = true
		n.lines = append(n.lines, s)
	}
}

// Lines are the notes in the order found.
func (n *libNotes) Lines() []string { return n.lines }

// generalNotes are the notes every library export shares: what lives in
// the items that no library computes or reads as items of their own.
func (lp *libPlan) generalNotes(n *libNotes, lib string) {
	for _, le := range lp.Entities {
		for _, a := range le.Attrs {
			switch a.Source {
			case mapping.FromEmbed:
				n.add("entity %s: attribute %s holds the rows of %s embedded in the item (a %s of maps): %s reads it as one attribute; the embedded rows are not items of their own, and no entity of the export reads or writes them", le.E.Name, a.Name, a.Embed.Child.QualifiedName(), embedShape(a.Type), lib)
			case mapping.FromTemplate:
				if lp.keyAttr(le, a.Name) {
					continue
				}
				cond := ""
				if a.When != "" {
					cond = " when " + a.When
				}
				n.add("entity %s: attribute %s is rendered by remodel from the template %s%s; %s declares it and reads it, but does not compute it on a write", le.E.Name, a.Name, a.Template, cond, lib)
			case mapping.FromTTL:
				after := ""
				if a.TTLAfter != "" {
					after = " plus " + a.TTLAfter
				}
				n.add("entity %s: attribute %s (the table's TTL) is the epoch seconds of column %s%s; %s declares it as a number and does not compute it on a write", le.E.Name, a.Name, a.TTLColumn, after, lib)
			}
		}
		for _, c := range le.KeyOnly {
			n.add("entity %s: column %s is part of a key but not an attribute of the items (attributes include/exclude): %s declares it as a field to compute the key from; migrated items do not hold it", le.E.Name, c.Name, lib)
		}
	}
}

func embedShape(typ string) string {
	if typ == "M" {
		return "map"
	}
	return "list"
}

// keyAttr reports whether attribute name is a key attribute of one of
// the entity's indexes.
func (lp *libPlan) keyAttr(le *libEntity, name string) bool {
	for _, ix := range le.Indexes {
		for _, k := range append(append([]*libKey{}, ix.PK...), ix.SK...) {
			if k.Field == name {
				return true
			}
		}
	}
	return false
}

// textKind says whether a column's value, as a library holds the
// attribute (number, string, boolean), renders in a key as remodel
// renders it (without formatters): integers, text, dates and timestamps
// (kept as their ISO text), booleans. Decimals and floats do not (their
// exact decimal text is not what a JavaScript or Python number prints),
// nor bytes.
func textKind(c *introspect.Column, bools bool) bool {
	if c == nil {
		return true // a parameter without a column: text
	}
	switch c.Kind {
	case introspect.KindInt, introspect.KindString, introspect.KindDate, introspect.KindTimestamp, introspect.KindTimestampTZ, introspect.KindTime:
		return true
	case introspect.KindBool:
		return bools
	}
	return false
}

func kindText(c *introspect.Column) string {
	if c == nil {
		return "text"
	}
	return c.Type
}

// ident reports whether s is an identifier in JavaScript, TypeScript and
// Python alike ([A-Za-z_][A-Za-z0-9_]*).
func ident(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_', r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
