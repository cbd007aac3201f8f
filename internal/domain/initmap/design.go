package initmap

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/introspect/erd"
	"github.com/remodel-dev/remodel/mapping"
)

// MaxGlobalIndexes is how many global secondary indexes a DynamoDB table
// may have (the default quota).
const MaxGlobalIndexes = 20

// entity is one table of the ERD as init maps it.
type entity struct {
	name   string
	t      *introspect.Table
	from   string   // the mapping's from:
	key    []string // the columns that identify a row
	keyUK  string   // the unique key used as key: when the table has no primary key
	prefix string   // NAME in NAME#{key}
	// place is set for a leaf placed in a parent's item collection.
	place *placement
	// slots are the paths through the overloaded indexes: slots[i] is
	// index GSI(i+2).
	slots   []*lookup
	notes   []string // comment lines on the entity
	renames [][2]string
	// referenced: another mapped table has a foreign key to this one.
	referenced bool
	// at is the time column a placed child's items are sorted by in its
	// parent's collection (SK = NAME#{at|iso}#{key}), "" for none; atWhy
	// says why that one.
	at, atWhy string
	// inCollection are the unique keys of a placed child that a Query of
	// its parent's collection answers (no index for them).
	inCollection []*introspect.UniqueKey
	ukPatterns   map[string]string // the pattern of each, by the unique key's name
	// beside is set for a placed child that refers to a sibling placed in
	// the same collection and read by its own key through GSI1: the
	// child's GSI1 entry goes into the sibling's GSI1 partition (the
	// sibling's children beside it), not under its own key.
	beside *sibling
	// besides are the entities whose GSI1 entries share this one's GSI1
	// partition (beside is this entity).
	besides []*entity
}

// sibling is the entity a placed child's GSI1 entry is kept beside, by a
// foreign key.
type sibling struct {
	e    *entity
	fk   introspect.ForeignKey
	cols []string // the child's columns, in the order of the sibling's key
}

// placement puts an entity's items in a parent's item collection.
type placement struct {
	parent *entity
	fk     introspect.ForeignKey
	fkCols []string // the child's columns, in the order of the parent's key
	// other and otherCols are set for a join table: the other parent,
	// whose key (otherCols, the child's columns) makes the sort key.
	other     *entity
	otherFK   introspect.ForeignKey
	otherCols []string
}

// lookup is a path through one overloaded index: the children of a parent
// (a foreign key), or a row by a unique key.
type lookup struct {
	fk     *introspect.ForeignKey // nil for a unique key
	uk     *introspect.UniqueKey
	cols   []string     // the entity's columns, in template order
	pk     string       // the index partition key template
	sk     string       // the index sort key template; "": the entity's own (NAME#{key})
	target string       // what the partition holds, for the comment
	from   *derivedFrom // set on a path a statement of the statistics asked for
	// figures are the statistics behind a foreign key's index ("" when
	// they are unknown), for the comment.
	figures string
	// when is set on a sparse path (openRows): the SQL condition under
	// which an item writes the index's key.
	when string
}

// design is the whole mapping before it is written.
type design struct {
	s        *introspect.Schema
	entities []*entity
	skipped  []string    // comment lines: tables left out and why
	slots    int         // overloaded indexes used (GSI2 ...)
	inverted bool        // GSI1 is used: some entity is placed in a parent's collection
	dropped  []string    // paths left out for want of indexes
	numeric  []*numIndex // indexes of their own with a number sort key (NUM1, ...), derived from statements
	byTable  map[*introspect.Table]*entity
	prefixes map[*introspect.Table]string
	measured Measured // init's own counts of distinct values
	// farSeen: openRows found a date whose largest value is far in the
	// future (FarYear), for the file's comment.
	farSeen bool
}

var safeColumn = regexp.MustCompile(`^[^{}|:\s]+$`)

// templatable reports why column c cannot appear in a key template, or "".
func templatable(t *introspect.Table, name string) string {
	c := t.Column(name)
	if c == nil {
		return fmt.Sprintf("column %s is not in the table", name)
	}
	if !safeColumn.MatchString(name) {
		return fmt.Sprintf("column %q has a name a template cannot name (it holds a space, {, }, | or :)", name)
	}
	switch c.Kind {
	case introspect.KindJSON, introspect.KindArray, introspect.KindSet:
		return fmt.Sprintf("column %s is %s, which a key template cannot hold", name, c.Type)
	}
	return ""
}

func templatableAll(t *introspect.Table, cols []string) string {
	for _, c := range cols {
		if why := templatable(t, c); why != "" {
			return why
		}
	}
	return ""
}

// placeholder is {col}, with |hex for bytes and |pad:N for an integer (N
// the most digits its type holds), so that a key's text sorts as its
// numbers do: RENTAL#0000000002 before RENTAL#0000010437.
func placeholder(t *introspect.Table, col string) string {
	return placeholderAs(t, col, t.Column(col))
}

// placeholderAs is {col} rendered as column as renders: a foreign key's
// column is padded as the key it references is, so that both render one
// key.
func placeholderAs(t *introspect.Table, col string, as *introspect.Column) string {
	switch c := t.Column(col); {
	case c != nil && c.Kind == introspect.KindBytes:
		return "{" + col + "|hex}"
	case c != nil && c.Kind == introspect.KindInt && as != nil && as.Kind == introspect.KindInt:
		return fmt.Sprintf("{%s|pad:%d}", col, padWidth(as))
	}
	return "{" + col + "}"
}

var typeArgs = regexp.MustCompile(`\([^)]*\)`)

// padWidth is how many digits the largest value of an integer column has:
// 5 for smallint (32767), 10 for integer (2147483647), 19 for bigint
// (9223372036854775807), 20 for an unsigned bigint and a type init does
// not know (a domain).
func padWidth(c *introspect.Column) int {
	ty := strings.Fields(strings.ToLower(typeArgs.ReplaceAllString(c.Type, "")))
	if len(ty) == 0 {
		return 20
	}
	unsigned := slices.Contains(ty, "unsigned")
	switch ty[0] {
	case "tinyint":
		return 3
	case "smallint", "int2", "smallserial":
		return 5
	case "mediumint":
		return 8
	case "int", "integer", "int4", "serial":
		return 10
	case "bigint", "int8", "bigserial":
		if unsigned {
			return 20
		}
		return 19
	}
	return 20
}

// keyTemplate is PREFIX#{c1}#{c2}; cols name the columns of t.
func keyTemplate(prefix string, t *introspect.Table, cols []string) string {
	return keyTemplateAs(prefix, t, cols, t, cols)
}

// keyTemplateAs is PREFIX#{c1}#{c2} with each column cols[i] of t rendered
// as column as[i] of table at: the key a foreign key references.
func keyTemplateAs(prefix string, t *introspect.Table, cols []string, at *introspect.Table, as []string) string {
	var b strings.Builder
	b.WriteString(strings.ReplaceAll(strings.ReplaceAll(prefix, "{", "{{"), "}", "}}"))
	for i, c := range cols {
		b.WriteString("#")
		b.WriteString(placeholderAs(t, c, at.Column(as[i])))
	}
	return b.String()
}

// prefixOf makes a key prefix of a table name: upper case letters, digits
// and _ (anything else becomes _).
func prefixOf(name string) string {
	r := []rune(strings.ToUpper(name))
	for i, c := range r {
		if !unicode.IsLetter(c) && !unicode.IsDigit(c) && c != '_' {
			r[i] = '_'
		}
	}
	if len(r) == 0 {
		return "T"
	}
	return string(r)
}

func newDesign(s *introspect.Schema, measured Measured) *design {
	d := &design{s: s, byTable: map[*introspect.Table]*entity{}, prefixes: map[*introspect.Table]string{}, measured: measured}
	used := map[string]bool{}
	for _, t := range s.Tables {
		p := prefixOf(t.Name)
		if def := defaultSchema(s); def != "" && t.Schema != def {
			p = prefixOf(t.Schema + "_" + t.Name)
		}
		base := p
		for i := 2; used[p]; i++ {
			p = base + "_" + strconv.Itoa(i)
		}
		used[p] = true
		d.prefixes[t] = p
	}
	names := map[string]bool{}
	for _, t := range s.Tables {
		e, why := d.entityOf(t)
		if e == nil {
			d.skipped = append(d.skipped, fmt.Sprintf("%s: %s", t.Label(), why))
			continue
		}
		base := e.name
		for i := 2; names[e.name]; i++ {
			e.name = base + "_" + strconv.Itoa(i)
		}
		names[e.name] = true
		d.entities = append(d.entities, e)
		d.byTable[t] = e
	}
	d.relate()
	return d
}

// defaultSchema is the schema whose tables are named without it, or ""
// where a table's schema is the connection's database (MySQL).
func defaultSchema(s *introspect.Schema) string { return s.Engine.Dialect().DefaultSchema() }

// entityOf is the entity of a table, or nil and why the table is left out.
func (d *design) entityOf(t *introspect.Table) (*entity, string) {
	if t.View {
		return nil, "a view has no primary key, and init does not guess which columns identify its rows: map it by hand with from: and key:"
	}
	if strings.Contains(t.Name, ".") {
		return nil, "its name holds a dot, which from: cannot name (schema.name)"
	}
	e := &entity{t: t, name: t.Name, from: t.Name, prefix: d.prefixes[t]}
	if def := defaultSchema(d.s); def != "" && t.Schema != def {
		e.name = t.Schema + "_" + t.Name
		e.from = t.Schema + "." + t.Name
	}
	switch {
	case len(t.PrimaryKey) > 0:
		e.key = t.PrimaryKey
	default:
		var whys []string
		for _, uk := range t.UniqueKeys {
			why := ""
			for _, c := range uk.Columns {
				if col := t.Column(c); col == nil || col.Nullable {
					why = fmt.Sprintf("unique key %s has the nullable column %s", uk.Name, c)
					break
				}
			}
			if why == "" {
				why = templatableAll(t, uk.Columns)
			}
			if why == "" {
				e.key, e.keyUK = uk.Columns, uk.Name
				break
			}
			whys = append(whys, why)
		}
		if e.key == nil {
			if len(t.UniqueKeys) == 0 {
				return nil, "it has no primary key and no unique key, so nothing identifies a row (two equal rows would be one item)"
			}
			return nil, "it has no primary key and no unique key of NOT NULL columns that a key template can hold (" + strings.Join(whys, "; ") + ")"
		}
	}
	if why := templatableAll(t, e.key); why != "" {
		return nil, "its key cannot be a key template: " + why
	}
	return e, ""
}

// refersTo returns the columns of fk in the order of the parent's key, when
// fk references exactly the whole key of the mapped entity p and each pair
// of columns renders alike (same kind, precision and type for decimals).
func refersTo(c *entity, fk introspect.ForeignKey, p *entity) ([]string, bool) {
	if p == nil || len(fk.RefColumns) != len(p.key) {
		return nil, false
	}
	out := make([]string, len(p.key))
	for i, k := range p.key {
		j := slices.Index(fk.RefColumns, k)
		if j < 0 {
			return nil, false
		}
		cc, pc := c.t.Column(fk.Columns[j]), p.t.Column(k)
		if cc == nil || pc == nil || cc.Kind != pc.Kind || cc.Precision != pc.Precision ||
			(cc.Kind == introspect.KindDecimal && cc.Type != pc.Type) {
			return nil, false
		}
		out[i] = fk.Columns[j]
	}
	return out, true
}

func notNull(t *introspect.Table, cols []string) bool {
	for _, c := range cols {
		if col := t.Column(c); col == nil || col.Nullable {
			return false
		}
	}
	return true
}

func (d *design) parentOf(fk introspect.ForeignKey) *introspect.Table {
	for _, t := range d.s.Tables {
		if t.Schema == fk.RefSchema && t.Name == fk.RefTable {
			return t
		}
	}
	return nil
}

// relate places leaves and join tables in item collections and gives
// every other foreign key and unique key a slot in the overloaded indexes.
func (d *design) relate() {
	for _, r := range erd.Relationships(d.s) {
		c, p := d.byTable[r.Child], d.byTable[r.Parent]
		if c != nil && p != nil && c != p {
			p.referenced = true
		}
	}
	pairs := map[[2]*entity]bool{}
	used := map[*entity]map[string]bool{} // foreign keys placed, by entity
	for _, e := range d.entities {
		used[e] = map[string]bool{}
		if !e.referenced {
			d.place(e, pairs, used[e], nil)
		}
	}
	d.placeReferenced(pairs, used)
	for _, e := range d.entities {
		for _, fk := range e.t.ForeignKeys {
			if !used[e][fk.Name] && !d.keepBeside(e, fk) {
				d.fkPath(e, fk)
			}
		}
		for _, uk := range e.t.UniqueKeys {
			if uk.Name != e.keyUK && !slices.Equal(uk.Columns, e.key) {
				d.ukPath(e, uk)
			}
		}
	}
	d.dropStandOut()
	d.capSlots()
}

// fkPath gives foreign key fk of e, not placed, a slot in the overloaded
// indexes, or a note on why it has none (its parent is not mapped, its
// columns cannot make a key, it has too few values).
func (d *design) fkPath(e *entity, fk introspect.ForeignKey) {
	pt := d.parentOf(fk)
	switch {
	case pt == nil:
		e.notes = append(e.notes, fmt.Sprintf("foreign key %s references %s.%s, which is not mapped: no index for it", fk.Name, fk.RefSchema, fk.RefTable))
		return
	case templatableAll(e.t, fk.Columns) != "":
		e.notes = append(e.notes, fmt.Sprintf("foreign key %s: no index for it: %s", fk.Name, templatableAll(e.t, fk.Columns)))
		return
	}
	cols, refs, prefix := fk.Columns, fk.RefColumns, d.prefixes[pt]
	pe := d.byTable[pt]
	if ordered, ok := refersTo(e, fk, pe); ok {
		cols, refs = ordered, pe.key
	} else {
		var refs []string
		for _, rc := range fk.RefColumns {
			refs = append(refs, prefixOf(rc))
		}
		prefix += "." + strings.Join(refs, ".")
	}
	figures, few := d.cardinality(e, fk)
	if few {
		e.notes = append(e.notes, figures)
		return
	}
	e.slots = append(e.slots, &lookup{fk: &fk, cols: cols, pk: keyTemplateAs(prefix, e.t, cols, pt, refs),
		target:  fmt.Sprintf("the %s rows of one %s row (foreign key %s)", e.name, pt.Name, fk.Name),
		figures: figures})
}

// ukPath gives unique key uk of e (not its key) a slot in the overloaded
// indexes, unless e's collection or a foreign key's path answers it, or
// its columns cannot make a key (a note says which).
func (d *design) ukPath(e *entity, uk introspect.UniqueKey) {
	if p := e.place; p != nil && p.other == nil && e.at != "" &&
		containsAll(uk.Columns, p.fkCols) && slices.Contains(uk.Columns, e.at) {
		// The collection's partition key and the start of its
		// sort key are in the unique key: a Query of the
		// collection with begins_with finds the row.
		e.inCollection = append(e.inCollection, &uk)
		if e.ukPatterns == nil {
			e.ukPatterns = map[string]string{}
		}
		return
	}
	if why := templatableAll(e.t, uk.Columns); why != "" {
		e.notes = append(e.notes, fmt.Sprintf("unique key %s: no index for it: %s", uk.Name, why))
		return
	}
	if l := e.fkPathOn(uk.Columns); l != "" {
		// A foreign key that is also unique: its path's partition
		// holds the one row, so the lookup by the unique key is
		// that path's Query (Sakila's store manager).
		e.notes = append(e.notes, fmt.Sprintf("unique key %s (%s): no index of its own: %s has the same columns, and its partition "+
			"of one value holds the one row", uk.Name, strings.Join(uk.Columns, ", "), l))
		return
	}
	var names []string
	for _, c := range uk.Columns {
		names = append(names, prefixOf(c))
	}
	e.slots = append(e.slots, &lookup{uk: &uk, cols: uk.Columns,
		pk:     keyTemplate(e.prefix+"."+strings.Join(names, "."), e.t, uk.Columns),
		target: fmt.Sprintf("the %s row with a value of unique key %s", e.name, uk.Name)})
}

// capSlots drops the slots past the global indexes DynamoDB allows (one
// fewer when GSI1 is there), each with a note, and sets d.slots to the
// most slots an entity has.
func (d *design) capSlots() {
	limit := MaxGlobalIndexes
	for _, e := range d.entities {
		if e.inGSI1() {
			d.inverted = true
		}
	}
	if d.inverted {
		limit--
	}
	for _, e := range d.entities {
		if len(e.slots) > limit {
			for _, l := range e.slots[limit:] {
				d.dropped = append(d.dropped, fmt.Sprintf("%s: %s", e.name, l.target))
				e.notes = append(e.notes, fmt.Sprintf("no index left (DynamoDB allows %d) for %s", MaxGlobalIndexes, l.target))
			}
			e.slots = e.slots[:limit]
		}
		d.slots = max(d.slots, len(e.slots))
	}
}

// place puts a leaf in a parent's item collection: as adjacency items when
// its primary key is exactly two foreign keys to two mapped roots (a join
// table), else under its first identifying NOT NULL foreign key to a root,
// else under its first NOT NULL one.
func (d *design) place(e *entity, pairs map[[2]*entity]bool, used map[string]bool, only *entity) {
	type cand struct {
		fk   introspect.ForeignKey
		p    *entity
		cols []string
	}
	var cands []cand
	for _, fk := range e.t.ForeignKeys {
		p := d.byTable[d.parentOf(fk)]
		if p == nil || p == e || p.place != nil || !notNull(e.t, fk.Columns) || (only != nil && p != only) {
			continue
		}
		cols, ok := refersTo(e, fk, p)
		if !ok {
			continue
		}
		if len(fk.Columns) == 1 {
			if f, ok := d.distinctOf(e.t, fk.Columns[0], p.t); ok && lowCardinality(f) {
				// One partition per value would take a large share of
				// the table's writes: not a collection to place it in,
				// nor, for a join table, a side to read it from.
				e.notes = append(e.notes, fmt.Sprintf("not placed in the item collection of %s (foreign key %s): %s, about %d rows a value: "+
					"each of its %d partitions would take about 1/%d of the %s writes (a hot partition)",
					p.name, fk.Name, f.text(fk.Columns[0]), (f.rows+f.n/2)/f.n, f.n, f.n, e.name))
				continue
			}
		}
		cands = append(cands, cand{fk, p, cols})
	}
	if len(cands) == 0 {
		return
	}
	inKey := func(cols []string) bool {
		for _, c := range cols {
			if !slices.Contains(e.key, c) {
				return false
			}
		}
		return true
	}
	// A join table: two candidates to different parents whose columns are
	// the key, the first one holding the key's first column.
	for i := range cands {
		for j := range cands {
			a, b := cands[i], cands[j]
			if i == j || a.p == b.p || len(a.cols)+len(b.cols) != len(e.key) || !inKey(a.cols) || !inKey(b.cols) ||
				!slices.Contains(a.cols, e.key[0]) || pairs[[2]*entity{a.p, b.p}] {
				continue
			}
			overlap := false
			for _, c := range a.cols {
				overlap = overlap || slices.Contains(b.cols, c)
			}
			if overlap {
				continue
			}
			pairs[[2]*entity{a.p, b.p}] = true
			e.place = &placement{parent: a.p, fk: a.fk, fkCols: a.cols, other: b.p, otherFK: b.fk, otherCols: b.cols}
			used[a.fk.Name], used[b.fk.Name] = true, true
			return
		}
	}
	best := cands[0]
	for _, c := range cands {
		if inKey(c.cols) {
			best = c
			break
		}
	}
	e.place = &placement{parent: best.p, fk: best.fk, fkCols: best.cols}
	used[best.fk.Name] = true
	e.at, e.atWhy = timeColumn(e.t)
}

// placeReferenced places a table that other tables refer to in a parent's
// item collection when every table that refers to it is placed in that
// same collection (Pagila's rental, which payment refers to: both in the
// collection of their customer), so that it and the rows that refer to it
// are items of one collection. Nothing may be placed under it then, and
// the parent stays a root.
func (d *design) placeReferenced(pairs map[[2]*entity]bool, used map[*entity]map[string]bool) {
	for _, e := range d.entities {
		if !e.referenced || e.place != nil || d.hasChildren(e) {
			continue
		}
		var parent *entity
		ok := true
		for _, r := range erd.Relationships(d.s) {
			c := d.byTable[r.Child]
			if d.byTable[r.Parent] != e || c == nil || c == e {
				continue
			}
			if c.place == nil || c.place.other != nil || (parent != nil && c.place.parent != parent) {
				ok = false
				break
			}
			parent = c.place.parent
		}
		if !ok || parent == nil || parent == e || parent.place != nil {
			continue
		}
		d.place(e, pairs, used[e], parent)
		if e.place != nil {
			e.notes = append(e.notes, fmt.Sprintf("other tables refer to it, and every one is placed in the collection of %s too: "+
				"it is placed there beside them, not given a collection of its own", parent.name))
		}
	}
}

// hasChildren says whether an entity is placed in e's collection.
func (d *design) hasChildren(e *entity) bool {
	for _, c := range d.entities {
		if c.place != nil && c.place.parent == e {
			return true
		}
	}
	return false
}

// keepBeside puts a placed child's GSI1 entry in the GSI1 partition of a
// sibling it refers to by fk (NOT NULL, the sibling's whole key), when the
// sibling is placed in the same collection and read by its own key through
// GSI1: a Query of that partition returns the sibling row with the child
// rows that refer to it, and the foreign key needs no index of its own.
// The child's own key is then read through its collection, not by an
// index (a child gets one GSI1 entry). It reports whether it did.
func (d *design) keepBeside(e *entity, fk introspect.ForeignKey) bool {
	p := e.place
	if p == nil || p.other != nil || e.beside != nil || len(e.besides) > 0 || !e.inGSI1() || !notNull(e.t, fk.Columns) {
		return false
	}
	s := d.byTable[d.parentOf(fk)]
	if s == nil || s == e || s.place == nil || s.place.other != nil || s.place.parent != p.parent || !s.inGSI1() || s.beside != nil {
		return false
	}
	cols, ok := refersTo(e, fk, s)
	if !ok {
		return false
	}
	e.beside = &sibling{e: s, fk: fk, cols: cols}
	s.besides = append(s.besides, e)
	return true
}

// changing are words of a column that holds when a row last changed, or
// will: a key holding it would move its item at each update.
var changing = regexp.MustCompile(`updat|modif|chang|delet|expir|edit|touch|sync|seen|accessed`)

// timeColumn chooses the column a child's items are sorted by: a NOT NULL
// date or timestamp (a NULL in a key template rejects the row), not one
// that changes with the row (last_update), preferring one named as the
// row's own time (created_at, rental_date in rental), then one named like
// a time (…_at, …_date, …_time, …_on), then the first. It returns the
// column and the reason, or "".
func timeColumn(t *introspect.Table) (string, string) {
	table := strings.TrimSuffix(strings.ToLower(strings.ReplaceAll(t.Name, "_", "")), "s")
	best, rank := "", 3
	var others []string
	for _, c := range t.Columns {
		switch c.Kind {
		case introspect.KindDate, introspect.KindTimestamp, introspect.KindTimestampTZ:
		default:
			continue
		}
		n := strings.ToLower(strings.ReplaceAll(c.Name, "_", ""))
		switch {
		case c.Nullable:
			others = append(others, c.Name+" is nullable")
			continue
		case changing.MatchString(n):
			others = append(others, c.Name+" changes with the row")
			continue
		case templatable(t, c.Name) != "":
			continue
		}
		r := 2
		switch {
		case strings.Contains(n, "creat") || n == table+"date" || n == table+"at" || n == table+"time" || n == table+"ts":
			r = 0
		case strings.HasSuffix(n, "date") || strings.HasSuffix(n, "at") || strings.HasSuffix(n, "time") || strings.HasSuffix(n, "on"):
			r = 1
		}
		if r < rank {
			if best != "" {
				others = append(others, best+" is named less like it")
			}
			best, rank = c.Name, r
		} else {
			others = append(others, c.Name+" is named less like it")
		}
	}
	if best == "" {
		return "", ""
	}
	why := map[int]string{0: "named as the row's own time", 1: "named like a time", 2: "its first NOT NULL date or timestamp"}[rank]
	why = fmt.Sprintf("%s is NOT NULL and %s", best, why)
	if len(others) > 0 {
		why += fmt.Sprintf(" (%s)", strings.Join(others, ", "))
	}
	return best, why
}

// atPlaceholder is the sort key part of a time column: {c|date} for a date,
// {c|iso} for a timestamp (UTC, fixed width, so text order is time order).
func atPlaceholder(t *introspect.Table, col string) string {
	if t.Column(col).Kind == introspect.KindDate {
		return "{" + col + "|date}"
	}
	return "{" + col + "|iso}"
}

// timeKey is NAME#{at|iso}#{key}: the key after the time, each column
// once.
func (e *entity) timeKey() string {
	rest := slices.DeleteFunc(slices.Clone(e.key), func(c string) bool { return c == e.at })
	return keyTemplate(e.prefix, e.t, nil) + "#" + atPlaceholder(e.t, e.at) + keyTemplate("", e.t, rest)
}

// attributes (called once the indexes are known) renames the columns whose names are taken by the table's key
// attributes or the entity attribute.
func (d *design) attributes() {
	taken := map[string]bool{"PK": true, "SK": true, "_type": true}
	if d.inverted {
		taken["GSI1PK"], taken["GSI1SK"] = true, true
	}
	for i := 2; i <= d.slots+1; i++ {
		taken[fmt.Sprintf("GSI%dPK", i)] = true
		taken[fmt.Sprintf("GSI%dSK", i)] = true
	}
	for _, n := range d.numeric {
		taken[n.name+"PK"], taken[n.name+"SK"] = true, true
	}
	for _, e := range d.entities {
		for _, c := range e.t.Columns {
			if !taken[c.Name] {
				continue
			}
			n := c.Name + "_"
			for taken[n] || e.t.Column(n) != nil {
				n += "_"
			}
			e.renames = append(e.renames, [2]string{c.Name, n})
		}
	}
}

// pk and sk are the entity's table key templates.
func (e *entity) pk() string {
	if e.place != nil {
		return keyTemplateAs(e.place.parent.prefix, e.t, e.place.fkCols, e.place.parent.t, e.place.parent.key)
	}
	return keyTemplate(e.prefix, e.t, e.key)
}

func (e *entity) sk() string {
	if e.place != nil && e.place.other != nil {
		return keyTemplateAs(e.place.other.prefix, e.t, e.place.otherCols, e.place.other.t, e.place.other.key)
	}
	return e.ownSK()
}

// ownSK is NAME#{key}, or NAME#{at|iso}#{key} for a child sorted by its
// time: the sort key of its items in an overloaded index.
func (e *entity) ownSK() string {
	if e.at != "" {
		return e.timeKey()
	}
	return keyTemplate(e.prefix, e.t, e.key)
}

// gsi1 are the templates of GSI1PK and GSI1SK of an entity placed in a
// parent's collection: a join table's other side (the B of an A#, B#
// item) and the A it belongs to; a placed child's own key, NAME#{key}
// (without the time its sort key begins with, so that it is read by its
// key alone), and its parent.
func (e *entity) gsi1() (pk, sk string) {
	if e.place.other != nil {
		return e.sk(), e.pk()
	}
	if b := e.beside; b != nil {
		return keyTemplateAs(b.e.prefix, e.t, b.cols, b.e.t, b.e.key), e.ownSK()
	}
	return keyTemplate(e.prefix, e.t, e.key), e.pk()
}

var lengthRE = regexp.MustCompile(`\((\d+)\)`)

// maxBytes is the most bytes column c renders to in a template, or -1 when
// it has no bound.
func maxBytes(c *introspect.Column) int {
	n := -1
	if m := lengthRE.FindStringSubmatch(c.Type); m != nil {
		n, _ = strconv.Atoi(m[1])
	}
	switch c.Kind {
	case introspect.KindInt:
		return 20
	case introspect.KindFloat:
		return 24
	case introspect.KindBool:
		return 5
	case introspect.KindDate:
		return 10
	case introspect.KindTime, introspect.KindTimestamp, introspect.KindTimestampTZ:
		return 32
	case introspect.KindDecimal:
		if n > 0 {
			return n + 2
		}
		return -1
	case introspect.KindBytes:
		if n > 0 {
			return 2 * n
		}
		return -1
	case introspect.KindString:
		if strings.HasPrefix(c.Type, "uuid") {
			return 36
		}
		if len(c.Values) > 0 {
			l := 0
			for _, v := range c.Values {
				l = max(l, len(v))
			}
			return l
		}
		if n > 0 && !strings.Contains(c.Type, "text") {
			return 4 * n
		}
	}
	return -1
}

// keyLimitNote says when the columns of a key template may make it longer
// than limit bytes, or "".
func keyLimitNote(t *introspect.Table, prefix string, cols []string, limit int, what string) string {
	total := len(prefix)
	var unbounded []string
	for _, name := range cols {
		total++
		n := maxBytes(t.Column(name))
		if n < 0 {
			unbounded = append(unbounded, name)
			continue
		}
		total += n
	}
	switch {
	case len(unbounded) > 0:
		return fmt.Sprintf("%s: %s has no length limit: a row whose key renders over %d bytes (DynamoDB's limit) is rejected", what, strings.Join(unbounded, ", "), limit)
	case total > limit:
		return fmt.Sprintf("%s: may render up to %d bytes, over DynamoDB's %d: such rows are rejected", what, total, limit)
	}
	return ""
}

func containsAll(set, cols []string) bool {
	for _, c := range cols {
		if !slices.Contains(set, c) {
			return false
		}
	}
	return true
}

// The statistics that keep a foreign key out of the indexes: at most
// FewValues distinct values, with at least RowsPerValue rows each on
// average. Such an index has a handful of partitions that every write of
// the table lands on, and a Query of one reads a large share of the table.
const (
	FewValues    = 10
	RowsPerValue = 100
)

// statsSource names where the distinct counts of the engine come from.
func statsSource(eng introspect.Engine) string { return eng.Dialect().DistinctStatistics() }

// figure is what is known of the distinct values of one column: n
// values in rows rows, how it is known (for the comments), and whether n
// is a lower bound (a sample's count) or rows an estimate.
type figure struct {
	n, rows int64
	entries int64  // rows with a value (not NULL): an index's entries
	atLeast bool   // n is a lower bound: the count of a sample
	about   bool   // n and rows are the source's estimates
	how     string // where the figures come from
}

// text is "c has about N distinct values in about R rows (how)".
func (f figure) text(col string) string {
	vals, rows := fmt.Sprintf("%d", f.n), fmt.Sprintf("%d", f.rows)
	switch {
	case f.atLeast:
		vals = "at least " + vals
		if f.about {
			rows = "about " + rows
		}
	case f.about:
		vals, rows = "about "+vals, "about "+rows
	}
	return fmt.Sprintf("%s has %s distinct values in %s rows (%s)", col, vals, rows, f.how)
}

// distinctOf gives the figures of column col of table t: init's own count
// (Measured) when it has one, every row counted; a sample's count, raised
// to the source's estimate when that is higher; else the source's
// statistics (introspect.Column.Distinct). A count above the rows of the
// table the column refers to (parent, may be nil), which InnoDB's
// estimates give, is capped at them. ok is false when nothing is known.
func (d *design) distinctOf(t *introspect.Table, col string, parent *introspect.Table) (f figure, ok bool) {
	c := t.Column(col)
	if c == nil {
		return figure{}, false
	}
	rows, exact, known := t.Rows()
	m, measured := d.measured.Get(t, col)
	switch {
	case measured && !m.Sample:
		f = figure{n: m.Distinct, rows: m.Rows, entries: m.NonNull, how: m.how()}
	case measured:
		f = figure{n: m.Distinct, rows: max(m.Rows, rows), atLeast: true, about: !exact || !known || rows < m.Rows, how: m.how()}
		f.entries = f.rows * m.NonNull / max(1, m.Rows)
		if c.Distinct != nil && *c.Distinct > m.Distinct {
			f.n = *c.Distinct
			f.how = fmt.Sprintf("%s; %s says about %d", m.how(), statsSource(d.s.Engine), *c.Distinct)
			f.atLeast = false
		}
	case c.Distinct != nil && known:
		f = figure{n: *c.Distinct, rows: rows, entries: rows, about: true, how: statsSource(d.s.Engine)}
	default:
		return figure{}, false
	}
	if parent != nil {
		if pr, _, pk := parent.Rows(); pk && f.n > pr && f.about {
			f.how += fmt.Sprintf(", capped at the %d rows of %s: each value is one of its keys", pr, parent.Name)
			f.n = pr
		}
	}
	return f, true
}

// lowCardinality says whether figures f are so few values for so many rows
// that an index partition per value would be hot: at most FewValues
// values with RowsPerValue rows each or more. A lower bound above
// FewValues is many; one at or below it counts as few (the sample says
// so).
func lowCardinality(f figure) bool {
	return f.n > 0 && f.n <= FewValues && f.rows >= RowsPerValue*f.n
}

// cardinality gives the figures of a foreign key of one column (init's own
// count, else the source's statistics): the distinct values of the column
// and the rows of the table, and whether they are so few values for so
// many rows that the foreign key gets no index (then the text is the
// comment saying why, with what serves the path instead). Without figures
// (several columns, a table neither counted nor analysed) the text says
// the index is kept without them, and few is false.
func (d *design) cardinality(e *entity, fk introspect.ForeignKey) (string, bool) {
	if len(fk.Columns) != 1 {
		return fmt.Sprintf("kept without figures: a foreign key of %d columns, whose distinct values init does not count", len(fk.Columns)), false
	}
	col := fk.Columns[0]
	f, ok := d.distinctOf(e.t, col, d.parentOf(fk))
	if !ok {
		return fmt.Sprintf("kept without figures: init has no count of the values of %s, and %s says nothing of them (a table never analysed): "+
			"check that its values are many before you keep the index", col, statsSource(d.s.Engine)), false
	}
	figures := f.text(col)
	if f.n == 0 && f.rows > 0 {
		about := ""
		if f.about {
			about = "about "
		}
		return fmt.Sprintf("%s is NULL in every one of %s%d rows (%s): the index holds none of them until one has a value",
			col, about, f.rows, f.how), false
	}
	n, rows := f.n, f.rows
	if !lowCardinality(f) {
		if n > 0 {
			if per := max(1, (rows+n/2)/n); per == 1 {
				figures += ": about 1 item an index partition"
			} else {
				figures += fmt.Sprintf(": about %d items an index partition", per)
			}
		}
		return figures, false
	}
	serves := fmt.Sprintf("a Scan with a filter on %s serves it", col)
	if p := e.place; p != nil {
		serves = fmt.Sprintf("a Query of the item collection of one %s with a filter on %s serves it there (a Scan with a filter, across the table)",
			p.parent.name, col)
	}
	return fmt.Sprintf("foreign key %s: no index: %s, about %d rows a value: every %s write would land on one of %d index partitions "+
		"(a hot partition when the table is written fast) and a Query of one would read about 1/%d of the table; %s",
		fk.Name, figures, (rows+n/2)/n, e.name, n, n, serves), true
}

// fkPathOn names the path of a foreign key of e on exactly the columns
// cols (its placement in a parent's collection, or its overloaded index
// slot), or "".
func (e *entity) fkPathOn(cols []string) string {
	if p := e.place; p != nil && p.other == nil && sameSet(p.fk.Columns, cols) {
		return fmt.Sprintf("foreign key %s, which places it in the collection of %s,", p.fk.Name, p.parent.name)
	}
	for _, l := range e.slots {
		if l.fk != nil && sameSet(l.fk.Columns, cols) {
			return fmt.Sprintf("foreign key %s, whose path is an overloaded index,", l.fk.Name)
		}
	}
	return ""
}

// pathLoad is what a path of an overloaded index puts into it: its
// entries and their partitions (distinct values), when known: a unique
// key's one row a partition, a one-column foreign key's or statement's
// figures (distinctOf).
func (d *design) pathLoad(e *entity, l *lookup) (entries, parts int64, ok bool) {
	switch {
	case l.uk != nil:
		n, _, known := e.t.Rows()
		return n, n, known && n > 0
	case len(l.cols) == 1:
		var parent *introspect.Table
		if l.fk != nil {
			parent = d.parentOf(*l.fk)
		}
		f, known := d.distinctOf(e.t, l.cols[0], parent)
		if !known || f.n == 0 {
			return 0, 0, false
		}
		return max(f.entries, f.n), f.n, true
	}
	return 0, 0, false
}

// standsOut says whether a path of entries spread over parts partitions
// would stand out in an index that holds total entries in all partitions,
// as preview --analyze judges a partition (package analyze: at least
// StandOut times the mean partition and StandOutShare of the total), its
// values taken as even; and the figures, for the comment.
func standsOut(entries, parts, total, all int64) (bool, string) {
	if parts == 0 || all < 2 || total == 0 {
		return false, ""
	}
	per := float64(entries) / float64(parts)
	mean := float64(total) / float64(all)
	return per >= standOutFactor*mean && per >= standOutShare*float64(total),
		fmt.Sprintf("its partitions would hold about %.0f entries each, %.0f times the mean of the index's %d partitions (%.1f entries) and %.1f%% of its %d entries",
			per, per/mean, all, mean, 100*per/float64(total), total)
}

// The analysis's rule for a partition that stands out (analyze.StandOut,
// analyze.StandOutShare), which init applies to its paths beforehand.
const (
	standOutFactor = 3
	standOutShare  = 0.01
)

// slotLoad is the known entries and partitions of overloaded index slot i
// (GSI(i+2)) over every entity's path there, leaving out skip.
func (d *design) slotLoad(i int, skip *lookup) (total, all int64) {
	for _, e := range d.entities {
		if i >= len(e.slots) || e.slots[i] == skip {
			continue
		}
		if n, p, ok := d.pathLoad(e, e.slots[i]); ok {
			total, all = total+n, all+p
		}
	}
	return total, all
}

// dropStandOut takes out of the overloaded indexes, one at a time, the
// path whose partitions would stand out most in its index (standsOut,
// with the other paths' figures): a hot partition the analysis would find.
// The entity's note says why, with what serves the path instead.
func (d *design) dropStandOut() {
	for {
		var worst *entity
		var wl *lookup
		var wi int
		var wper float64
		var why string
		for _, e := range d.entities {
			for i, l := range e.slots {
				n, p, ok := d.pathLoad(e, l)
				if !ok {
					continue
				}
				total, all := d.slotLoad(i, nil)
				if out, figures := standsOut(n, p, total, all); out && float64(n)/float64(p) > wper {
					worst, wl, wi, wper, why = e, l, i, float64(n)/float64(p), figures
				}
			}
		}
		if worst == nil {
			return
		}
		worst.slots = slices.Delete(worst.slots, wi, wi+1)
		what := "the path by " + strings.Join(wl.cols, ", ")
		if wl.uk != nil {
			what = "unique key " + wl.uk.Name
		}
		if wl.fk != nil {
			what = "foreign key " + wl.fk.Name
		}
		serves := fmt.Sprintf("a Scan with a filter on %s serves it", strings.Join(wl.cols, ", "))
		if p := worst.place; p != nil && p.other == nil {
			serves = fmt.Sprintf("a Query of the item collection of one %s with a filter on %s serves it there (a Scan with a filter, across the table)",
				p.parent.name, strings.Join(wl.cols, ", "))
		}
		worst.notes = append(worst.notes, fmt.Sprintf("%s: no index: in GSI%d %s: a partition that stands out (at least %d times the mean and %.0f%% of the index), "+
			"a hot partition when the table is written fast; %s", what, wi+2, why, standOutFactor, 100*standOutShare, serves))
	}
}

// atPrefix is the beginning of the sort key of a time-sorted child's items
// of one time: NAME#{at|iso}#.
func (e *entity) atPrefix() string {
	return keyTemplate(e.prefix, e.t, nil) + "#" + atPlaceholder(e.t, e.at) + "#"
}

// inGSI1 says whether the entity's items are in GSI1: a join table's (for
// the other side), and a placed child's unless the table's key already
// holds its whole key (its key holds the parent's foreign key, and the
// time its sort key begins with: a GetItem with its key reads it).
func (e *entity) inGSI1() bool {
	p := e.place
	if p == nil {
		return false
	}
	return p.other != nil || !e.keyInTable()
}

// keyInTable says whether a placed child's table key is made of its key
// columns alone: its key holds the foreign key to its parent (the
// partition key) and the time its sort key begins with (the sort key
// holds every key column), so that its key gives a GetItem (employees'
// titles: emp_no, title, from_date).
func (e *entity) keyInTable() bool {
	return containsAll(e.key, e.place.fkCols) && (e.at == "" || slices.Contains(e.key, e.at))
}

// gsi1Projection chooses GSI1's projection and says why. Every pattern on
// GSI1 reads whole rows (SELECT *), so it projects ALL unless every item
// it holds is an adjacency item of a join table: a join table's key
// columns (its two foreign keys) are in the item's keys (PK, SK, GSI1PK,
// GSI1SK hold them), so the keys and the join table's other columns answer
// its patterns; without other columns that is KEYS_ONLY, else INCLUDE of
// them. An entry then holds only what the Query needs, and costs no more
// write units than it needs either.
func (d *design) gsi1Projection() (keysOnly bool, include []string, why string) {
	var joins, placed []string
	var beside []string // the placed items read with the sibling they are kept beside
	var rest []string   // the join tables' other columns, as attributes
	for _, e := range d.entities {
		if !e.inGSI1() {
			continue
		}
		if e.place.other == nil {
			if e.beside != nil {
				beside = append(beside, fmt.Sprintf("%s with its %s", e.name, e.beside.e.name))
			} else {
				placed = append(placed, e.name)
			}
			continue
		}
		joins = append(joins, e.name)
		for _, c := range e.t.Columns {
			if slices.Contains(e.key, c.Name) {
				continue
			}
			n := e.attr(c.Name)
			if !slices.Contains(rest, n) {
				rest = append(rest, n)
			}
		}
	}
	switch {
	case len(placed)+len(beside) > 0:
		how := beside
		if len(placed) > 0 {
			by := " by their key"
			if len(placed) == 1 {
				by = " by its key"
			}
			how = append([]string{strings.Join(placed, ", ") + by}, beside...)
		}
		return false, nil, fmt.Sprintf("It projects all attributes (ALL): the items placed in a parent's collection are read whole through it (%s).", strings.Join(how, "; "))
	case len(rest) == 0:
		return true, nil, fmt.Sprintf("It projects the keys only (KEYS_ONLY): it holds only the adjacency items of %s, whose every column is in their keys, "+
			"so the keys answer its patterns and an entry is no larger than them.", strings.Join(joins, ", "))
	case len(rest) > mapping.MaxProjectedAttrs:
		return false, nil, fmt.Sprintf("It projects all attributes (ALL): the adjacency items of %s have more columns than an INCLUDE projection may list (%d).", strings.Join(joins, ", "), mapping.MaxProjectedAttrs)
	}
	slices.Sort(rest)
	return false, rest, fmt.Sprintf("It projects the keys and %s (INCLUDE): it holds only the adjacency items of %s, whose key columns are in their keys; "+
		"their other columns are all its patterns need besides, and the entity attribute and the copies of the key columns are left out of each entry.",
		strings.Join(rest, ", "), strings.Join(joins, ", "))
}

// attr is the attribute a column of the entity becomes (renamed when its
// name is taken).
func (e *entity) attr(col string) string {
	for _, r := range e.renames {
		if r[0] == col {
			return r[1]
		}
	}
	return col
}
