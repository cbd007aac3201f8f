package mapping

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/remodel-dev/remodel/introspect"
)

// Plan is a mapping file checked against a source schema: everything the
// preview, migrate and verify stages need.
type Plan struct {
	File           *File
	Schema         *introspect.Schema
	Table          Table
	Entities       []*Entity
	AccessPatterns []*AccessPattern
}

// KeyAttr is a key attribute of the table or an index.
type KeyAttr struct {
	Name string
	Type string // S, N or B
}

// Table is the DynamoDB table the mapping writes.
type Table struct {
	Name       string
	PK         KeyAttr
	SK         *KeyAttr
	Billing    Billing
	TTL        string
	EntityAttr string
	Indexes    []*Index
}

// Index is a secondary index. A local index has PK equal to the table's.
type Index struct {
	Name  string
	PK    KeyAttr
	SK    *KeyAttr
	Local bool
}

// Entity returns the entity with the given name, or nil.
func (p *Plan) Entity(name string) *Entity {
	for _, e := range p.Entities {
		if e.Name == name {
			return e
		}
	}
	return nil
}

// Index returns the index with the given name, or nil.
func (t *Table) Index(name string) *Index {
	for _, ix := range t.Indexes {
		if ix.Name == name {
			return ix
		}
	}
	return nil
}

var tableNameRE = regexp.MustCompile(`^[a-zA-Z0-9_.-]{3,255}$`)

// Compile checks a parsed mapping against the source schema and prepares it
// for rendering. Every problem is reported with its position, as an
// ErrorList.
func Compile(f *File, s *introspect.Schema) (*Plan, error) {
	c := &compiler{f: f, plan: &Plan{File: f, Schema: s}}
	c.table()
	for _, ed := range f.Entities {
		if e := c.entity(ed); e != nil {
			c.plan.Entities = append(c.plan.Entities, e)
		}
	}
	for _, ad := range f.AccessPatterns {
		if ap := c.accessPattern(ad); ap != nil {
			c.plan.AccessPatterns = append(c.plan.AccessPatterns, ap)
		}
	}
	if len(c.errs) > 0 {
		sort.SliceStable(c.errs, func(i, j int) bool {
			if c.errs[i].Line != c.errs[j].Line {
				return c.errs[i].Line < c.errs[j].Line
			}
			return c.errs[i].Col < c.errs[j].Col
		})
		return nil, c.errs
	}
	return c.plan, nil
}

type compiler struct {
	f     *File
	plan  *Plan
	errs  ErrorList
	types map[string]string // key attribute name → type, across table and indexes
}

func (c *compiler) errorf(p Pos, path, format string, args ...any) {
	c.errs = append(c.errs, &Error{File: c.f.Name, Line: p.Line, Col: p.Col, Path: path, Msg: fmt.Sprintf(format, args...)})
}

func (c *compiler) keyAttr(a AttrDef, path string) KeyAttr {
	k := KeyAttr{Name: a.Name.Value, Type: a.Type}
	if prev, ok := c.types[k.Name]; ok && prev != k.Type {
		c.errorf(a.Name.Pos, path, "attribute %s is a key of type %s elsewhere and cannot also be %s", k.Name, prev, k.Type)
	}
	c.types[k.Name] = k.Type
	return k
}

func (c *compiler) table() {
	td := c.f.Table
	c.types = map[string]string{}
	t := Table{Name: td.Name.Value, Billing: td.Billing, TTL: td.TTL.Value, EntityAttr: td.EntityAttribute.Value}
	if t.Name != "" && !tableNameRE.MatchString(t.Name) {
		c.errorf(td.Name.Pos, "table.name", "%q is not a DynamoDB table name (3 to 255 of a-z A-Z 0-9 _ . -)", t.Name)
	}
	t.PK = c.keyAttr(td.PK, "table.key.pk")
	if td.PK.Type == "B" {
		c.errorf(td.PK.Name.Pos, "table.key.pk", "binary table keys are not supported: keys are rendered from templates as S or N")
	}
	if td.SK != nil {
		sk := c.keyAttr(*td.SK, "table.key.sk")
		t.SK = &sk
		if sk.Name == t.PK.Name {
			c.errorf(td.SK.Name.Pos, "table.key.sk", "the sort key must differ from the partition key %s", t.PK.Name)
		}
		if td.SK.Type == "B" {
			c.errorf(td.SK.Name.Pos, "table.key.sk", "binary table keys are not supported: keys are rendered from templates as S or N")
		}
	}
	if t.EntityAttr == t.PK.Name || (t.SK != nil && t.EntityAttr == t.SK.Name) {
		c.errorf(td.EntityAttribute.Pos, "table.entity_attribute", "%s is a key attribute of the table", t.EntityAttr)
	}
	seen := map[string]bool{}
	for i, ixd := range td.Indexes {
		path := fmt.Sprintf("table.indexes[%d]", i)
		ix := &Index{Name: ixd.Name.Value, Local: ixd.Local}
		if seen[ix.Name] {
			c.errorf(ixd.Name.Pos, path+".name", "duplicate index name %q", ix.Name)
		}
		seen[ix.Name] = true
		if ix.Name != "" && !tableNameRE.MatchString(ix.Name) {
			c.errorf(ixd.Name.Pos, path+".name", "%q is not a DynamoDB index name (3 to 255 of a-z A-Z 0-9 _ . -)", ix.Name)
		}
		if ix.Local {
			if t.SK == nil {
				c.errorf(ixd.Pos, path, "a local index needs a table with a sort key")
			}
			ix.PK = t.PK
		} else if ixd.PK != nil {
			ix.PK = c.keyAttr(*ixd.PK, path+".pk")
		}
		if ixd.SK != nil {
			sk := c.keyAttr(*ixd.SK, path+".sk")
			ix.SK = &sk
		}
		t.Indexes = append(t.Indexes, ix)
	}
	c.plan.Table = t
}

// KeyTypes lists the table's and indexes' key attributes with their types.
func (t *Table) KeyTypes() map[string]string {
	m := map[string]string{t.PK.Name: t.PK.Type}
	if t.SK != nil {
		m[t.SK.Name] = t.SK.Type
	}
	for _, ix := range t.Indexes {
		m[ix.PK.Name] = ix.PK.Type
		if ix.SK != nil {
			m[ix.SK.Name] = ix.SK.Type
		}
	}
	return m
}

func (c *compiler) template(s Str, path string, cols []*introspect.Column, table string) (*Template, *bound) {
	t, err := ParseTemplate(s.Value)
	if err != nil {
		c.errorf(s.Pos, path, "%v", err)
		return nil, nil
	}
	b, err := t.bind(cols)
	if err != nil {
		for _, err := range splitErrors(err) {
			var fe *fieldError
			if errors.As(err, &fe) {
				c.errorf(s.Pos, path, "table %s has no column %q (columns: %s)", table, fe.field, columnNames(cols))
			} else {
				c.errorf(s.Pos, path, "%v", err)
			}
		}
		return nil, nil
	}
	return t, b
}

// splitErrors lists the errors an errors.Join holds, or err alone.
func splitErrors(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

func columnNames(cols []*introspect.Column) string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

func (c *compiler) entity(ed *EntityDef) *Entity {
	path := "entities." + ed.Name.Value
	tbl, err := c.plan.Schema.Table(ed.From.Value)
	if err != nil {
		c.errorf(ed.From.Pos, path+".from", "%v in the source database (tables: %s)", err, strings.Join(c.plan.Schema.TableNames(), ", "))
		return nil
	}
	t := &c.plan.Table
	e := &Entity{Name: ed.Name.Value, Table: tbl, Where: ed.Where.Value, Columns: tbl.Columns, table: t}
	for _, pkc := range tbl.PrimaryKey {
		for i, col := range tbl.Columns {
			if col.Name == pkc {
				e.keyCols = append(e.keyCols, i)
			}
		}
	}
	if len(e.keyCols) == 0 { // no primary key: name rows by every column
		for i := range tbl.Columns {
			e.keyCols = append(e.keyCols, i)
		}
	}
	_, e.pk = c.template(ed.PK, path+".pk", tbl.Columns, tbl.Name)
	switch {
	case t.SK != nil && ed.SK.Line == 0:
		c.errorf(ed.Pos, path, "the table has a sort key %s: give the entity an sk template", t.SK.Name)
	case t.SK == nil && ed.SK.Line != 0:
		c.errorf(ed.SK.Pos, path+".sk", "the table has no sort key")
	case t.SK != nil && ed.SK.Value == "":
		c.errorf(ed.SK.Pos, path+".sk", "must not be empty: DynamoDB refuses an empty sort key")
	case t.SK != nil:
		_, e.sk = c.template(ed.SK, path+".sk", tbl.Columns, tbl.Name)
	}

	keyAttrs := t.KeyTypes()
	limits := t.indexKeyLimits()
	reserved := map[string]string{t.PK.Name: "the table's partition key", t.EntityAttr: "the entity attribute"}
	if t.SK != nil {
		reserved[t.SK.Name] = "the table's sort key"
	}
	if t.TTL != "" {
		keyAttrs[t.TTL] = "N"
	}
	names := map[string]Pos{}
	claim := func(name string, p Pos, fpath string) bool {
		if why, ok := reserved[name]; ok {
			c.errorf(p, fpath, "attribute %s collides with %s: rename it", name, why)
			return false
		}
		if prev, ok := names[name]; ok {
			c.errorf(p, fpath, "attribute %s is already produced at line %d", name, prev.Line)
			return false
		}
		names[name] = p
		return true
	}

	// Columns that become attributes.
	selected := map[string]Pos{}
	if ed.Include != nil {
		for i, s := range ed.Include {
			if tbl.Column(s.Value) == nil {
				c.errorf(s.Pos, fmt.Sprintf("%s.attributes.include[%d]", path, i), "table %s has no column %q (columns: %s)", tbl.Name, s.Value, columnNames(tbl.Columns))
				continue
			}
			selected[s.Value] = s.Pos
		}
	} else {
		excluded := map[string]bool{}
		for i, s := range ed.Exclude {
			if tbl.Column(s.Value) == nil {
				c.errorf(s.Pos, fmt.Sprintf("%s.attributes.exclude[%d]", path, i), "table %s has no column %q (columns: %s)", tbl.Name, s.Value, columnNames(tbl.Columns))
			}
			excluded[s.Value] = true
		}
		for _, col := range tbl.Columns {
			if !excluded[col.Name] {
				selected[col.Name] = ed.Pos
			}
		}
	}
	rename := map[string]Str{}
	for _, kv := range ed.Rename {
		if tbl.Column(kv.Key.Value) == nil {
			c.errorf(kv.Key.Pos, path+".attributes.rename."+kv.Key.Value, "table %s has no column %q (columns: %s)", tbl.Name, kv.Key.Value, columnNames(tbl.Columns))
			continue
		}
		if _, ok := selected[kv.Key.Value]; !ok {
			c.errorf(kv.Key.Pos, path+".attributes.rename."+kv.Key.Value, "column %s is not one of the entity's attributes", kv.Key.Value)
			continue
		}
		if kv.Value.Value == "" {
			c.errorf(kv.Value.Pos, path+".attributes.rename."+kv.Key.Value, "the new name must not be empty")
			continue
		}
		rename[kv.Key.Value] = kv.Value
	}
	for i, col := range tbl.Columns {
		p, ok := selected[col.Name]
		if !ok {
			continue
		}
		name, fpath := col.Name, path+".attributes"
		if r, ok := rename[col.Name]; ok {
			name, p, fpath = r.Value, r.Pos, path+".attributes.rename."+col.Name
		}
		if !claim(name, p, fpath) {
			continue
		}
		if typ, ok := keyAttrs[name]; ok && !kindFits(col.Kind, typ) {
			c.errorf(p, fpath, "column %s (%s) becomes attribute %s, which an index or TTL needs as type %s", col.Name, col.Type, name, typ)
			continue
		}
		e.attrs = append(e.attrs, attrRule{name: name, idx: i, col: col, limit: limits[name]})
	}
	for _, kv := range ed.Set {
		fpath := path + ".attributes.set." + kv.Key.Value
		if !claim(kv.Key.Value, kv.Key.Pos, fpath) {
			continue
		}
		_, b := c.template(kv.Value, fpath, tbl.Columns, tbl.Name)
		if b == nil {
			continue
		}
		typ := keyAttrs[kv.Key.Value]
		if typ == "B" {
			c.errorf(kv.Value.Pos, fpath, "attribute %s is a binary index key; a template renders text", kv.Key.Value)
			continue
		}
		e.sets = append(e.sets, setRule{name: kv.Key.Value, t: b, typ: typ, limit: limits[kv.Key.Value]})
	}
	if d := ed.TTL; d != nil {
		c.entityTTL(e, d, path+".ttl", claim)
	}
	return e
}

// entityTTL compiles an entity's ttl: the table's TTL attribute from a
// date or timestamp column plus an offset, as epoch seconds.
func (c *compiler) entityTTL(e *Entity, d *TTLDef, path string, claim func(string, Pos, string) bool) {
	t := e.table
	if t.TTL == "" {
		c.errorf(d.Pos, path, "the table has no TTL attribute: name one with table.ttl")
		return
	}
	idx := -1
	for i, col := range e.Columns {
		if col.Name == d.From.Value {
			idx = i
		}
	}
	if idx < 0 {
		c.errorf(d.From.Pos, path+".from", "table %s has no column %q (columns: %s)", e.Table.Name, d.From.Value, columnNames(e.Columns))
		return
	}
	col := e.Columns[idx]
	switch col.Kind {
	case introspect.KindDate, introspect.KindTimestamp, introspect.KindTimestampTZ:
	default:
		c.errorf(d.From.Pos, path+".from", "ttl needs a date or timestamp column, %s is %s", col.Name, typeName(col))
		return
	}
	var after time.Duration
	if d.After.Value != "" {
		var err error
		if after, err = ParseOffset(d.After.Value); err != nil {
			return // reported by the parser
		}
	}
	if !claim(t.TTL, d.Pos, path) {
		return
	}
	e.ttl = &ttlRule{name: t.TTL, idx: idx, col: col, after: after}
}

// indexKeyLimits gives the size limit of each index key attribute: 2048
// bytes for a partition key, 1024 for a sort key.
func (t *Table) indexKeyLimits() map[string]int {
	m := map[string]int{}
	set := func(name string, limit int) {
		if old, ok := m[name]; !ok || limit < old {
			m[name] = limit
		}
	}
	for _, ix := range t.Indexes {
		set(ix.PK.Name, MaxPKSize)
		if ix.SK != nil {
			set(ix.SK.Name, MaxSKSize)
		}
	}
	return m
}

// kindFits reports whether values of a column kind have a key type.
func kindFits(k introspect.Kind, typ string) bool {
	switch typ {
	case "N":
		return k == introspect.KindInt || k == introspect.KindDecimal || k == introspect.KindFloat
	case "B":
		return k == introspect.KindBytes
	default:
		switch k {
		case introspect.KindString, introspect.KindDate, introspect.KindTime, introspect.KindTimestamp, introspect.KindTimestampTZ:
			return true
		}
		return false
	}
}
