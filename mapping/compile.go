package mapping

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
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
	// Markers are the attributes of the data libraries every item carries
	// (table.markers; markers.go), in file order.
	Markers        []Marker
	oneTableMarker bool // onetable is listed and the entity attribute is _type
}

// Index is a secondary index. A local index has PK equal to the table's.
// A global index's partition key (and sort key) may have several
// attributes, up to MaxKeyAttrs each, in key-schema order; an item is in
// the index only when it has every one of them.
type Index struct {
	Name  string
	PK    []KeyAttr // one or more
	SK    []KeyAttr // none when the index has no sort key
	Local bool
	// Projection is ProjectAll (also when empty), ProjectKeysOnly or
	// ProjectInclude; Include lists INCLUDE's non-key attributes.
	Projection string
	Include    []string
	keys       []string // the table's and the index's key attributes
}

// MaxProjectedAttrs is DynamoDB's limit on the non-key attributes that
// the INCLUDE projections of a table's indexes list, all indexes together.
const MaxProjectedAttrs = 100

// KeyNames names the attributes of a multi-attribute key: "game, region".
func KeyNames(k []KeyAttr) string {
	names := make([]string, len(k))
	for i, a := range k {
		names[i] = a.Name
	}
	return strings.Join(names, ", ")
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
//
// The entities and access patterns read their SQL fields as s.Engine
// gives them (File.ForEngine): Plan.File is f for that engine.
func Compile(f *File, s *introspect.Schema) (*Plan, error) {
	f = f.ForEngine(s.Engine)
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
	for _, e := range c.plan.Entities {
		e.prepare()
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
	projected := 0
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
			ix.PK = []KeyAttr{t.PK}
		} else {
			ix.PK = c.indexKey(ixd.PK, path+".pk", nil)
		}
		ix.SK = c.indexKey(ixd.SK, path+".sk", ix.PK)
		projected = c.projection(&t, ix, ixd, path+".projection", projected)
		t.Indexes = append(t.Indexes, ix)
	}
	c.markers(&t)
	c.plan.Table = t
}

// projection compiles an index's projection. projected counts the
// non-key attributes listed by the INCLUDE projections before this one;
// the new count is returned.
func (c *compiler) projection(t *Table, ix *Index, ixd *IndexDef, path string, projected int) int {
	ix.Projection = ixd.Projection.Type
	ix.keys = []string{t.PK.Name}
	if t.SK != nil {
		ix.keys = append(ix.keys, t.SK.Name)
	}
	for _, k := range append(ix.PK[:len(ix.PK):len(ix.PK)], ix.SK...) {
		if !slices.Contains(ix.keys, k.Name) {
			ix.keys = append(ix.keys, k.Name)
		}
	}
	for i, a := range ixd.Projection.Include {
		apath := fmt.Sprintf("%s.include[%d]", path, i)
		switch {
		case a.Value == "":
		case slices.Contains(ix.keys, a.Value):
			c.errorf(a.Pos, apath, "%s is a key attribute of the table or the index, which every projection holds: list only other attributes", a.Value)
		case slices.Contains(ix.Include, a.Value):
			c.errorf(a.Pos, apath, "%s is listed twice", a.Value)
		default:
			ix.Include = append(ix.Include, a.Value)
			projected++
			if projected == MaxProjectedAttrs+1 {
				c.errorf(a.Pos, apath, "the indexes' INCLUDE projections list more than %d attributes, DynamoDB's limit for a table (all indexes together)", MaxProjectedAttrs)
			}
		}
	}
	return projected
}

// indexKey compiles the attributes of an index's partition or sort key.
// An attribute may appear once per index: before lists the attributes of
// the index's partition key when compiling its sort key.
func (c *compiler) indexKey(defs []AttrDef, path string, before []KeyAttr) []KeyAttr {
	var out []KeyAttr
	for i, a := range defs {
		apath := path
		if len(defs) > 1 {
			apath = fmt.Sprintf("%s[%d]", path, i)
		}
		k := c.keyAttr(a, apath)
		for _, b := range append(before[:len(before):len(before)], out...) {
			if b.Name == k.Name && k.Name != "" {
				c.errorf(a.Name.Pos, apath, "attribute %s is already a key attribute of this index", k.Name)
				break
			}
		}
		out = append(out, k)
	}
	return out
}

// KeyTypes lists the table's and indexes' key attributes with their types.
func (t *Table) KeyTypes() map[string]string {
	m := map[string]string{t.PK.Name: t.PK.Type}
	if t.SK != nil {
		m[t.SK.Name] = t.SK.Type
	}
	for _, ix := range t.Indexes {
		for _, k := range ix.PK {
			m[k.Name] = k.Type
		}
		for _, k := range ix.SK {
			m[k.Name] = k.Type
		}
	}
	return m
}

func (c *compiler) template(s Str, path string, tbl *introspect.Table) (*Template, *bound) {
	t, err := ParseTemplate(s.Value)
	if err != nil {
		c.errorf(s.Pos, path, "%v", err)
		return nil, nil
	}
	b, err := t.bind(tbl.Columns)
	if err != nil {
		for _, err := range splitErrors(err) {
			var fe *fieldError
			if errors.As(err, &fe) {
				c.errorf(s.Pos, path, "%s", noColumn(tbl, fe.field))
			} else {
				c.errorf(s.Pos, path, "%v", err)
			}
		}
		return nil, nil
	}
	return t, b
}

// relName names a relation in messages: "table users", "view
// active_users", "the query of entity weekly".
func relName(tbl *introspect.Table) string {
	switch {
	case tbl.Query != "":
		return "the query of entity " + tbl.Name
	case tbl.View:
		return "view " + tbl.Name
	}
	return "table " + tbl.Name
}

// noColumn says that tbl lacks the column name, listing those it has.
func noColumn(tbl *introspect.Table, name string) string {
	switch {
	case tbl.Query != "":
		return fmt.Sprintf("the query returns no column %q (columns: %s)", name, columnNames(tbl.Columns))
	case tbl.View:
		return fmt.Sprintf("view %s has no column %q (columns: %s)", tbl.Name, name, columnNames(tbl.Columns))
	}
	return fmt.Sprintf("table %s has no column %q (columns: %s)", tbl.Name, name, columnNames(tbl.Columns))
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

// relation finds what an entity reads: its table or view, or its query's
// described result (named after the entity).
func (c *compiler) relation(ed *EntityDef, path string) *introspect.Table {
	if ed.Query.Value == "" {
		tbl, err := c.plan.Schema.Table(ed.From.Value)
		if err != nil {
			c.errorf(ed.From.Pos, path+".from", "%v in the source database (tables: %s)", err, strings.Join(c.plan.Schema.TableNames(), ", "))
			return nil
		}
		return tbl
	}
	q := c.plan.Schema.Query(ed.Query.Value)
	if q == nil {
		c.errorf(ed.Query.Pos, path+".query", "the columns of the query are not known: the source database describes them when remodel connects to it (validate --source, preview, migrate, verify)")
		return nil
	}
	if len(q.Columns) == 0 {
		c.errorf(ed.Query.Pos, path+".query", "the query returns no columns")
		return nil
	}
	seen := map[string]bool{}
	for _, col := range q.Columns {
		if seen[col.Name] {
			c.errorf(ed.Query.Pos, path+".query", "the query returns two columns named %s: name them apart (AS)", col.Name)
			return nil
		}
		seen[col.Name] = true
	}
	t := *q
	t.Name = ed.Name.Value
	return &t
}

func (c *compiler) entity(ed *EntityDef) *Entity {
	path := "entities." + ed.Name.Value
	tbl := c.relation(ed, path)
	if tbl == nil {
		return nil
	}
	t := &c.plan.Table
	e := &Entity{Name: ed.Name.Value, Table: tbl, Where: ed.Where.Value, Columns: tbl.Columns, table: t}
	keyNames := c.entityKey(e, ed, tbl, path)
	c.entityTemplates(e, ed, tbl, path)
	ac := newAttrClaims(c, t)
	selected := c.selectedColumns(ed, tbl, path)
	c.columnAttrs(e, ed, tbl, selected, ac, path)
	conds := c.setAttrs(e, ed, tbl, ac, path)
	if d := ed.TTL; d != nil {
		c.entityTTL(e, d, path+".ttl", ac.claim)
	}
	reads := typedReads(c.plan.Schema.Engine, tbl, e.attrs, append(slices.Clip(tbl.Columns), conds...))
	e.dialect = c.plan.Schema.Engine.Dialect()
	if ed.Key != nil || len(reads) > len(tbl.Columns) {
		// What the source reads for this entity: the relation with the
		// entity's key, and after its columns the conditions and the
		// columns that typed attributes read in another form.
		rel := *tbl
		rel.PrimaryKey = keyNames
		rel.Columns = reads
		e.Table, e.Columns = &rel, rel.Columns
	}
	c.embeds(e, ed, path, ac.claim)
	return e
}

// entityKey sets the columns that name e's rows (e.keyCols): the entity's
// key:, or the relation's primary key, or, without one, every column. It
// returns the key's column names.
func (c *compiler) entityKey(e *Entity, ed *EntityDef, tbl *introspect.Table, path string) []string {
	keyNames := tbl.PrimaryKey
	if ed.Key != nil {
		keyNames = nil
		for i, k := range ed.Key {
			if tbl.Column(k.Value) == nil {
				c.errorf(k.Pos, fmt.Sprintf("%s.key[%d]", path, i), "%s", noColumn(tbl, k.Value))
				continue
			}
			keyNames = append(keyNames, k.Value)
		}
		e.keyDeclared = true
		e.keyCollated = c.plan.Schema.Engine.Dialect().CollatedKeyEquality()
	} else if tbl.View {
		c.errorf(ed.From.Pos, path+".from", "%s has no primary key: give key: the columns that identify a row (e.g. key: [%s])", tbl.Label(), tbl.Columns[0].Name)
	}
	for _, pkc := range keyNames {
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
	return keyNames
}

// entityTemplates compiles e's pk and sk templates, the sk as the table's
// sort key asks.
func (c *compiler) entityTemplates(e *Entity, ed *EntityDef, tbl *introspect.Table, path string) {
	t := &c.plan.Table
	_, e.pk = c.template(ed.PK, path+".pk", tbl)
	switch {
	case t.SK != nil && ed.SK.Line == 0:
		c.errorf(ed.Pos, path, "the table has a sort key %s: give the entity an sk template", t.SK.Name)
	case t.SK == nil && ed.SK.Line != 0:
		c.errorf(ed.SK.Pos, path+".sk", "the table has no sort key")
	case t.SK != nil && ed.SK.Value == "":
		c.errorf(ed.SK.Pos, path+".sk", "must not be empty: DynamoDB refuses an empty sort key")
	case t.SK != nil:
		_, e.sk = c.template(ed.SK, path+".sk", tbl)
	}
}

// attrClaims are the attribute names an entity's item produces, each
// claimed once, with the table's key types, index key limits and reserved
// names they must respect.
type attrClaims struct {
	c        *compiler
	keyAttrs map[string]string // attribute name → the type an index key or TTL needs
	limits   map[string]int
	reserved map[string]string
	names    map[string]Pos
}

func newAttrClaims(c *compiler, t *Table) *attrClaims {
	ac := &attrClaims{c: c, keyAttrs: t.KeyTypes(), limits: t.indexKeyLimits(), reserved: t.reserved(), names: map[string]Pos{}}
	if t.TTL != "" {
		ac.keyAttrs[t.TTL] = "N"
	}
	return ac
}

// claim takes name for one attribute; false (reported) when it is
// reserved or already produced.
func (ac *attrClaims) claim(name string, p Pos, fpath string) bool {
	if why, ok := ac.reserved[name]; ok {
		ac.c.errorf(p, fpath, "attribute %s collides with %s: rename it", name, why)
		return false
	}
	if prev, ok := ac.names[name]; ok {
		ac.c.errorf(p, fpath, "attribute %s is already produced at line %d", name, prev.Line)
		return false
	}
	ac.names[name] = p
	return true
}

// selectedColumns are the columns that become attributes (include:, or
// every column but exclude:'s), each with where it was chosen.
func (c *compiler) selectedColumns(ed *EntityDef, tbl *introspect.Table, path string) map[string]Pos {
	selected := map[string]Pos{}
	if ed.Include != nil {
		for i, s := range ed.Include {
			if tbl.Column(s.Value) == nil {
				c.errorf(s.Pos, fmt.Sprintf("%s.attributes.include[%d]", path, i), "%s", noColumn(tbl, s.Value))
				continue
			}
			selected[s.Value] = s.Pos
		}
		return selected
	}
	excluded := map[string]bool{}
	for i, s := range ed.Exclude {
		if tbl.Column(s.Value) == nil {
			c.errorf(s.Pos, fmt.Sprintf("%s.attributes.exclude[%d]", path, i), "%s", noColumn(tbl, s.Value))
		}
		excluded[s.Value] = true
	}
	for _, col := range tbl.Columns {
		if !excluded[col.Name] {
			selected[col.Name] = ed.Pos
		}
	}
	return selected
}

// renames are attributes.rename's new names (kvs) of the columns of tbl
// that become attributes (selected), what naming those attributes; ok is
// false when one was refused (reported).
func (c *compiler) renames(kvs []KV, tbl *introspect.Table, selected func(string) bool, what, path string) (rename map[string]Str, ok bool) {
	rename, ok = map[string]Str{}, true
	for _, kv := range kvs {
		fpath := path + ".attributes.rename." + kv.Key.Value
		switch {
		case tbl.Column(kv.Key.Value) == nil:
			c.errorf(kv.Key.Pos, fpath, "%s", noColumn(tbl, kv.Key.Value))
		case !selected(kv.Key.Value):
			c.errorf(kv.Key.Pos, fpath, "column %s is not one of %s", kv.Key.Value, what)
		case kv.Value.Value == "":
			c.errorf(kv.Value.Pos, fpath, "the new name must not be empty")
		default:
			rename[kv.Key.Value] = kv.Value
			continue
		}
		ok = false
	}
	return rename, ok
}

// columnAttrs adds e's attribute rules of the selected columns, renamed
// and typed, refusing a column whose type does not fit the key it feeds.
func (c *compiler) columnAttrs(e *Entity, ed *EntityDef, tbl *introspect.Table, selected map[string]Pos, ac *attrClaims, path string) {
	isSelected := func(name string) bool { _, ok := selected[name]; return ok }
	rename, _ := c.renames(ed.Rename, tbl, isSelected, "the entity's attributes", path)
	typeConflicts := c.typeKeyConflicts(ed, path)
	colTypes := c.columnTypes(ed, tbl, selected, typeConflicts, path)
	for i, col := range tbl.Columns {
		p, ok := selected[col.Name]
		if !ok {
			continue
		}
		name, fpath := col.Name, path+".attributes"
		if r, ok := rename[col.Name]; ok {
			name, p, fpath = r.Value, r.Pos, path+".attributes.rename."+col.Name
		}
		if !ac.claim(name, p, fpath) {
			continue
		}
		if typeConflicts[col.Name] {
			continue // its type does not fit the key it feeds: reported
		}
		ct, typed := colTypes[col.Name]
		if typ, ok := ac.keyAttrs[name]; ok && !typed && !kindFits(col.Kind, typ) {
			c.errorf(p, fpath, "column %s (%s) becomes attribute %s, which an index or TTL needs as type %s", col.Name, col.Type, name, typ)
			continue
		}
		e.attrs = append(e.attrs, attrRule{name: name, idx: i, col: col, limit: ac.limits[name], typ: ct})
	}
}

// setAttrs adds e's attributes.set rules (templates, each maybe with a
// when: condition) and returns the conditions' columns, read with the row.
func (c *compiler) setAttrs(e *Entity, ed *EntityDef, tbl *introspect.Table, ac *attrClaims, path string) []*introspect.Column {
	var conds []*introspect.Column
	for _, kv := range ed.Set {
		fpath := path + ".attributes.set." + kv.Key.Value
		if !ac.claim(kv.Key.Value, kv.Key.Pos, fpath) {
			continue
		}
		_, b := c.template(kv.Value, fpath, tbl)
		if b == nil {
			continue
		}
		typ := ac.keyAttrs[kv.Key.Value]
		if typ == "B" {
			c.errorf(kv.Value.Pos, fpath, "attribute %s is a binary index key; a template renders text", kv.Key.Value)
			continue
		}
		r := setRule{name: kv.Key.Value, t: b, typ: typ, limit: ac.limits[kv.Key.Value], when: -1}
		if kv.When.Value != "" {
			r.when = len(tbl.Columns) + len(conds)
			conds = append(conds, WhenColumn(tbl, conds, kv.When.Value))
		}
		e.sets = append(e.sets, r)
	}
	return conds
}

// WhenColumn is the column under which a reader of tbl selects the SQL
// condition cond, as a boolean the database evaluates in the same
// statement (introspect.Column.Expr). Its name is one that neither a column
// of tbl nor one of the conditions before it (prev) has.
func WhenColumn(tbl *introspect.Table, prev []*introspect.Column, cond string) *introspect.Column {
	name := fmt.Sprintf("remodel_when_%d", len(prev)+1)
	taken := func(n string) bool {
		if tbl.Column(n) != nil {
			return true
		}
		for _, p := range prev {
			if p.Name == n {
				return true
			}
		}
		return false
	}
	for taken(name) {
		name += "_"
	}
	return &introspect.Column{Name: name, Type: "boolean", Kind: introspect.KindBool, Expr: cond}
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
		c.errorf(d.From.Pos, path+".from", "%s", noColumn(e.Table, d.From.Value))
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
		for _, k := range ix.PK {
			set(k.Name, MaxPKSize)
		}
		for _, k := range ix.SK {
			set(k.Name, MaxSKSize)
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
