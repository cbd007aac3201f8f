package warn

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
)

// Warning is a design risk in a valid mapping file: it will work, but
// perhaps not as meant. It is located as an Error is, and names what it is
// about (the fields an acknowledgement matches).
type Warning struct {
	mapping.Error
	Code    string // one of WarningCodes, or mapping.WarnStaleAcknowledgement
	Entity  string // the entity it is about, if any
	Index   string // the index it is about, if any
	Pattern string // the access pattern it is about, if any
	Table   string // the source table it is about (schema.name), if any
	// Ack is the acknowledgement that matches it (acknowledge: in the
	// file): the design intends it, for Ack.Reason; nil otherwise.
	Ack *mapping.AckDef
}

// String is file:line:col: warning: path: message [code].
func (w *Warning) String() string {
	e := w.Error
	e.Path, e.Msg = "warning", e.Path+": "+e.Msg
	if w.Path == "" {
		e.Msg = w.Msg
	}
	return e.Error() + " [" + w.Code + "]"
}

// Warnings looks for design risks in a mapping file that has no problems
// (see Check and Compile). Without a schema (s nil) it sees what the file
// says on its own: a begins_with prefix that ends in a placeholder without
// a separator, a {name} written inside quotes in an access pattern's sql or
// params (a literal, not a parameter), and a global index's partition key that is a constant for
// an entity (a set template, or its pk or sk feeding an inverted index).
// With the source's schema it also sees index partition keys of booleans
// and enums alone (a few partitions), key templates that do not cover a
// unique key of their table, nullable columns in index keys (a sparse
// index, or one key attribute of an index written without the other), and
// tables that no entity reads. They come in file order; the
// tables no entity reads last.
//
// With a schema, the entities read their SQL as its engine gives it
// (File.ForEngine).
//
// Each warning has a code (WarningCodes). A warning that an entry of the
// file's acknowledge: list matches has that entry as its Ack (the design
// intends it); an entry that matches none adds a stale-acknowledgement
// warning, after the others.
func Warnings(f *mapping.File, s *introspect.Schema) []*Warning {
	if s != nil {
		f = f.ForEngine(s.Engine)
	}
	w := &warner{f: f, s: s}
	for _, ap := range f.AccessPatterns {
		w.beginsWith(ap)
		w.quotedParams(ap)
	}
	for _, e := range f.Entities {
		var t *introspect.Table
		if s != nil {
			t = w.relation(e)
		}
		w.partitionKeys(e, t)
		if t == nil {
			continue
		}
		w.coverage(e, t)
		w.sparse(e, t)
	}
	sort.SliceStable(w.out, func(i, j int) bool {
		if w.out[i].Line != w.out[j].Line {
			return w.out[i].Line < w.out[j].Line
		}
		return w.out[i].Col < w.out[j].Col
	})
	if s != nil {
		w.projections()
		w.unmapped()
	}
	return acknowledge(f, w.out)
}

// Unacknowledged are the warnings that no acknowledgement matches.
func Unacknowledged(ws []*Warning) []*Warning {
	var out []*Warning
	for _, w := range ws {
		if w.Ack == nil {
			out = append(out, w)
		}
	}
	return out
}

type warner struct {
	f   *mapping.File
	s   *introspect.Schema
	out []*Warning
}

// about is what a warning is about: its code and the names an
// acknowledgement matches.
type about struct{ code, entity, index, pattern, table string }

func (w *warner) warnf(ab about, p mapping.Pos, path, format string, args ...any) {
	w.out = append(w.out, &Warning{Error: mapping.Error{File: w.f.Name, Line: p.Line, Col: p.Col, Path: path, Msg: fmt.Sprintf(format, args...)},
		Code: ab.code, Entity: ab.entity, Index: ab.index, Pattern: ab.pattern, Table: ab.table})
}

// fixedWidth are the formatters whose output always has the same length,
// so that no value is a prefix of another.
var fixedWidth = map[string]bool{"pad": true, "desc": true, "iso": true, "date": true, "unix": true, "unixms": true}

// beginsWith warns about a begins_with prefix that ends in a placeholder:
// {service} = news also matches the items of service newsletter.
func (w *warner) beginsWith(ap *mapping.AccessPatternDef) {
	if ap.SK == nil || ap.SK.Op != "begins_with" || len(ap.SK.Values) != 1 {
		return
	}
	v := ap.SK.Values[0]
	t, err := mapping.ParseTemplate(v.Value)
	if err != nil || len(t.Parts()) == 0 {
		return
	}
	parts := t.Parts()
	last := parts[len(parts)-1]
	if last.Field == "" {
		return
	}
	for _, f := range last.Formatters {
		if fixedWidth[f.Name] {
			return
		}
	}
	w.warnf(about{code: mapping.WarnBeginsWithPlaceholder, pattern: ap.Name.Value}, v.Pos, "access_patterns."+ap.Name.Value+".query.sk.begins_with",
		"the prefix %q ends in the placeholder {%s} without a separator after it: it also matches the items whose %s only starts with the value (news matches newsletter); end it with a separator such as # (and write the sort key with it)",
		v.Value, last.Field, last.Field)
}

// partitionKeys warns about a global index whose partition key an entity
// writes as a constant (every item of the entity in one partition of the
// index: from set templates, or from the table's own key when the index's
// partition key is the table's pk or sk, as an inverted index's is), and,
// with the schema, as a function of boolean and enum columns alone (a few
// partitions at most). t is nil without the schema.
func (w *warner) partitionKeys(e *mapping.EntityDef, t *introspect.Table) {
	for _, ix := range w.f.Table.Indexes {
		if ix.Local {
			continue
		}
		parts, complete := w.indexKeyParts(e, t, ix)
		if !complete || len(parts) == 0 {
			continue // not in the index, or not known
		}
		constant := true
		for _, p := range parts {
			constant = constant && p.tmpl != nil && p.tmpl.Constant()
		}
		if constant {
			w.warnf(about{code: mapping.WarnConstantPartitionKey, entity: e.Name.Value, index: ix.Name.Value}, parts[0].at.Pos, parts[0].path,
				"%s is the constant %q on every item of %s, and it is the partition key of %s: all those items are one partition of the index (a hot partition: at most 1 000 writes and 3 000 reads a second); add a column, or {col|shard:N}, to spread them",
				parts[0].attr, parts[0].at.Value, e.Name.Value, ix.Name.Value)
			continue
		}
		if t == nil {
			continue
		}
		// Low cardinality: every value comes from booleans and enums.
		if n, cols := fewPartitions(parts, t); n <= maxFewPartitions && len(cols) > 0 {
			w.warnf(about{code: mapping.WarnFewPartitions, entity: e.Name.Value, index: ix.Name.Value}, parts[0].at.Pos, parts[0].path,
				"the partition key of %s comes from %s alone (booleans and enums): the items of %s fall into at most %d partitions of the index (hot partitions); add a column, or {col|shard:N}, to spread them",
				ix.Name.Value, strings.Join(cols, ", "), e.Name.Value, n)
		}
	}
}

// keyPart is one attribute of an index's partition key as an entity
// writes it: from a template, or (with the schema) a column.
type keyPart struct {
	attr string
	tmpl *mapping.Template // nil: a column
	col  *introspect.Column
	at   mapping.Str
	path string
}

// indexKeyParts are the parts of index ix's partition key as entity e
// writes them: a set template, the table's own pk or sk (an inverted
// index's), or with the schema an attribute's column; complete is false
// when one is not known (the entity does not write it, or it is not
// parsed).
func (w *warner) indexKeyParts(e *mapping.EntityDef, t *introspect.Table, ix *mapping.IndexDef) (parts []keyPart, complete bool) {
	tableKey := map[string]mapping.Str{w.f.Table.PK.Name.Value: e.PK}
	keyPath := map[string]string{w.f.Table.PK.Name.Value: "pk"}
	if w.f.Table.SK != nil {
		tableKey[w.f.Table.SK.Name.Value] = e.SK
		keyPath[w.f.Table.SK.Name.Value] = "sk"
	}
	path := "entities." + e.Name.Value
	complete = true
	for _, a := range ix.PK {
		n := a.Name.Value
		var p keyPart
		switch {
		case slices.ContainsFunc(e.Set, func(sd mapping.SetDef) bool { return sd.Key.Value == n }):
			i := slices.IndexFunc(e.Set, func(sd mapping.SetDef) bool { return sd.Key.Value == n })
			p = keyPart{attr: n, at: e.Set[i].Value, path: path + ".attributes.set." + n}
		case tableKey[n].Line != 0:
			p = keyPart{attr: n, at: tableKey[n], path: path + "." + keyPath[n]}
		case t != nil:
			src := w.attrSource(e, t, n)
			if src == nil || src.col == nil {
				complete = false
				continue
			}
			p = keyPart{attr: n, col: src.col, at: src.where, path: src.path}
		default:
			complete = false
			continue
		}
		if p.col == nil {
			tp, err := mapping.ParseTemplate(p.at.Value)
			if err != nil {
				complete = false
				continue
			}
			p.tmpl = tp
		}
		parts = append(parts, p)
	}
	return parts, complete
}

// fewPartitions is how many values the key parts can take when they come
// from booleans and enums alone (1<<30 when another column, or a shard,
// is among them), and the columns they come from.
func fewPartitions(parts []keyPart, t *introspect.Table) (n int, cols []string) {
	n = 1
	for _, p := range parts {
		var cs []*introspect.Column
		if p.col != nil {
			cs = []*introspect.Column{p.col}
		} else {
			for _, f := range p.tmpl.Parts() {
				if f.Field == "" {
					continue
				}
				c := t.Column(f.Field)
				if c == nil || f.HasFormatter("shard") {
					n = 1 << 30
					continue
				}
				cs = append(cs, c)
			}
		}
		for _, c := range cs {
			switch {
			case c.Kind == introspect.KindBool:
				n *= 2
			case len(c.Values) > 0 && c.Kind != introspect.KindSet:
				n *= len(c.Values)
			default:
				n = 1 << 30
			}
			if !slices.Contains(cols, c.Name) {
				cols = append(cols, c.Name)
			}
		}
	}
	return n, cols
}

// maxFewPartitions is the most partitions an index key of booleans and
// enums may make before it is no longer warned about.
const maxFewPartitions = 100

// relation is the table or view an entity reads from, or nil (a query, or
// a name the schema does not resolve: Compile reports that).
func (w *warner) relation(e *mapping.EntityDef) *introspect.Table {
	if e.From.Value == "" {
		return nil
	}
	t, err := w.s.Table(e.From.Value)
	if err != nil {
		return nil
	}
	return t
}

// projections warns about an attribute an index's INCLUDE projection
// lists that no entity writes (a misspelling, or a column renamed since):
// the index never holds it, and a Query on it returns nothing under that
// name. Only when the columns of every entity are known.
func (w *warner) projections() {
	tables := make([]*introspect.Table, len(w.f.Entities))
	for i, e := range w.f.Entities {
		if tables[i] = w.relation(e); tables[i] == nil && e.Query.Value != "" {
			tables[i] = w.s.Query(e.Query.Value)
		}
		if tables[i] == nil {
			return
		}
	}
	writes := func(attr string) bool {
		if attr == w.f.Table.EntityAttribute.Value {
			return true
		}
		for i, e := range w.f.Entities {
			if w.attrSource(e, tables[i], attr) != nil || (e.TTL != nil && attr == w.f.Table.TTL.Value) ||
				slices.ContainsFunc(e.Embed, func(m *mapping.EmbedDef) bool { return m.Name.Value == attr }) {
				return true
			}
		}
		return false
	}
	for i, ix := range w.f.Table.Indexes {
		for j, a := range ix.Projection.Include {
			if a.Value != "" && !writes(a.Value) {
				w.warnf(about{code: mapping.WarnUnwrittenProjection, index: ix.Name.Value}, a.Pos, fmt.Sprintf("table.indexes[%d].projection.include[%d]", i, j),
					"no entity writes attribute %s, which index %s projects: the index never holds it", a.Value, ix.Name.Value)
			}
		}
	}
}

// lossy are the formatters after which a value no longer tells rows apart
// (two values give one text).
var lossy = map[string]bool{"lower": true, "upper": true, "date": true, "shard": true}

// coverage warns when an entity's key templates do not hold every column
// of its key or of any unique key of its table: two rows can then render
// one key, and migrate rejects the second as a key collision.
func (w *warner) coverage(e *mapping.EntityDef, t *introspect.Table) {
	covered := map[string]bool{}
	for _, s := range []mapping.Str{e.PK, e.SK} {
		tp, err := mapping.ParseTemplate(s.Value)
		if err != nil {
			return
		}
		for _, p := range tp.Parts() {
			if p.Field == "" {
				continue
			}
			whole := true
			for _, f := range p.Formatters {
				// date keeps all of a date, and drops a timestamp's time.
				isDate := f.Name == "date" && t.Column(p.Field) != nil && t.Column(p.Field).Kind == introspect.KindDate
				whole = whole && (!lossy[f.Name] || isDate)
			}
			if whole {
				covered[p.Field] = true
			}
		}
	}
	keys := [][]string{t.PrimaryKey}
	if e.Key != nil {
		keys[0] = nil
		for _, k := range e.Key {
			keys[0] = append(keys[0], k.Value)
		}
	}
	var names []string
	for _, uk := range t.UniqueKeys {
		keys = append(keys, uk.Columns)
	}
	for _, k := range keys {
		if len(k) == 0 {
			continue
		}
		all := true
		for _, c := range k {
			all = all && covered[c]
		}
		if all {
			return
		}
		names = append(names, "("+strings.Join(k, ", ")+")")
	}
	if len(names) == 0 {
		return // nothing is known to identify a row
	}
	var used []string
	for c := range covered {
		used = append(used, c)
	}
	sort.Strings(used)
	what := "no column"
	if len(used) > 0 {
		what = "only " + strings.Join(used, ", ")
	}
	w.warnf(about{code: mapping.WarnKeyNotUnique, entity: e.Name.Value, table: t.QualifiedName()}, e.PK.Pos, "entities."+e.Name.Value+".pk",
		"the key templates (pk and sk) hold %s in full, which is not a unique key of %s (its keys: %s): two rows with the same values there make one item key, and migrate rejects the second as a key collision",
		what, t.Label(), strings.Join(names, ", "))
}

// source is where an entity's attribute comes from: a set template, or a
// column (by its name or renamed to it); nil when the entity does not
// write it.
type attrSource struct {
	set   *mapping.SetDef
	col   *introspect.Column
	where mapping.Str // the place to point at
	path  string
}

func (w *warner) attrSource(e *mapping.EntityDef, t *introspect.Table, attr string) *attrSource {
	path := "entities." + e.Name.Value
	for i := range e.Set {
		if e.Set[i].Key.Value == attr {
			return &attrSource{set: &e.Set[i], where: e.Set[i].Value, path: path + ".attributes.set." + attr}
		}
	}
	selected := func(col string) bool {
		if e.Include != nil {
			return slices.ContainsFunc(e.Include, func(s mapping.Str) bool { return s.Value == col })
		}
		return !slices.ContainsFunc(e.Exclude, func(s mapping.Str) bool { return s.Value == col })
	}
	for _, r := range e.Rename {
		if r.Value.Value == attr {
			if c := t.Column(r.Key.Value); c != nil && selected(c.Name) {
				return &attrSource{col: c, where: r.Value, path: path + ".attributes.rename." + r.Key.Value}
			}
			return nil
		}
	}
	for _, r := range e.Rename {
		if r.Key.Value == attr {
			return nil // renamed away
		}
	}
	if c := t.Column(attr); c != nil && selected(attr) {
		return &attrSource{col: c, where: e.Name, path: path}
	}
	return nil
}

// nullable names the nullable columns that can leave the attribute out
// ("" when it is always written) and says whether it is left out by a
// when condition.
func (a *attrSource) nullable(t *introspect.Table) []string {
	if a.col != nil {
		if a.col.Nullable {
			return []string{a.col.Name}
		}
		return nil
	}
	tp, err := mapping.ParseTemplate(a.set.Value.Value)
	if err != nil {
		return nil
	}
	var out []string
	for _, p := range tp.Parts() {
		if p.Field == "" || p.HasFormatter("default") {
			continue
		}
		if c := t.Column(p.Field); c != nil && c.Nullable && !slices.Contains(out, c.Name) {
			out = append(out, c.Name)
		}
	}
	return out
}

// sparse warns about index key attributes that an entity may leave out: a
// nullable column (a sparse index) or a when condition, and an index key
// attribute written without the others of its index (the item is never in
// that index). Views and queries are left alone: their columns are
// nullable as far as the catalog says.
func (w *warner) sparse(e *mapping.EntityDef, t *introspect.Table) {
	if t.View {
		return
	}
	tableKeys := map[string]bool{w.f.Table.PK.Name.Value: true}
	if w.f.Table.SK != nil {
		tableKeys[w.f.Table.SK.Name.Value] = true
	}
	for _, ix := range w.f.Table.Indexes {
		var attrs []mapping.AttrDef
		if !ix.Local {
			attrs = append(attrs, ix.PK...)
		}
		attrs = append(attrs, ix.SK...)
		type fed struct {
			name string
			src  *attrSource
		}
		var written []fed
		var missing []string
		for _, a := range attrs {
			n := a.Name.Value
			if tableKeys[n] {
				written = append(written, fed{name: n})
				continue
			}
			if src := w.attrSource(e, t, n); src != nil {
				written = append(written, fed{n, src})
			} else {
				missing = append(missing, n)
			}
		}
		if !slices.ContainsFunc(written, func(f fed) bool { return f.src != nil }) {
			continue // the entity writes no key attribute of the index besides the table's key
		}
		if len(missing) > 0 {
			for _, f := range written {
				if f.src == nil {
					continue
				}
				w.warnf(about{code: mapping.WarnDanglingIndexKey, entity: e.Name.Value, index: ix.Name.Value}, f.src.where.Pos, f.src.path,
					"%s writes %s, a key attribute of index %s, but never %s: its items are never in %s (one half of the index key left dangling)",
					e.Name.Value, f.name, ix.Name.Value, strings.Join(missing, ", "), ix.Name.Value)
			}
			continue
		}
		// Which attributes an item may lack: a nullable column, a when.
		mayMiss := make([][]string, len(written))
		always := 0
		for i, f := range written {
			if f.src != nil {
				mayMiss[i] = f.src.nullable(t)
				if f.src.set != nil && f.src.set.When.Value != "" {
					w.warnf(about{code: mapping.WarnSparseWhen, entity: e.Name.Value, index: ix.Name.Value}, f.src.set.When.Pos, f.src.path+".when",
						"%s, a key attribute of index %s, is written only where this condition holds: the other items of %s are not in %s (a sparse index)",
						f.name, ix.Name.Value, e.Name.Value, ix.Name.Value)
					mayMiss[i] = append(mayMiss[i], "when")
				}
			}
			if len(mayMiss[i]) == 0 {
				always++
			}
		}
		for i, f := range written {
			cols := slices.DeleteFunc(slices.Clone(mayMiss[i]), func(c string) bool { return c == "when" })
			if len(cols) == 0 {
				continue
			}
			how := " (a sparse index)"
			if always > 0 {
				how = ", although they have its other key attributes (a sparse index, with one half of the index key left dangling)"
			}
			w.warnf(about{code: mapping.WarnSparseNullable, entity: e.Name.Value, index: ix.Name.Value}, f.src.where.Pos, f.src.path,
				"%s, a key attribute of index %s, comes from the nullable column %s: the items of %s whose row has NULL there are not in %s%s",
				f.name, ix.Name.Value, strings.Join(cols, ", "), e.Name.Value, ix.Name.Value, how)
		}
	}
}

// unmapped warns about the tables of the source that no entity reads,
// from:, as an embed's child table, or named in a query.
func (w *warner) unmapped() {
	read := map[*introspect.Table]bool{}
	var queries []string
	for _, e := range w.f.Entities {
		if e.Query.Value != "" {
			queries = append(queries, e.Query.Value)
		}
		if t := w.relation(e); t != nil {
			read[t] = true
		}
		for _, d := range e.Embed { // a child table is read by its parent's entity
			if t, err := w.s.Table(d.From.Value); err == nil {
				read[t] = true
			}
		}
	}
	pos, path := mapping.Pos{}, ""
	if len(w.f.Entities) > 0 {
		pos, path = w.f.Entities[0].Name.Pos, "entities"
	}
	for _, t := range w.s.Tables {
		if read[t] || t.View {
			continue
		}
		re := regexp.MustCompile(`(?i)(^|[^\w$])` + regexp.QuoteMeta(t.Name) + `($|[^\w$])`)
		if slices.ContainsFunc(queries, re.MatchString) {
			continue
		}
		w.warnf(about{code: mapping.WarnUnmappedTable, table: t.QualifiedName()}, pos, path, "%s is not read by any entity: its rows are not migrated", t.Label())
	}
}
