package initmap

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/remodel-dev/remodel/introspect"
)

// verdict is what init made of one statement of the statistics.
type verdict struct {
	st      Statement
	pattern string // the access pattern that answers it, or ""
	index   string // the index of a pattern derived from it
	derived bool   // the pattern was derived from this statement
	why     string // why no pattern answers it
}

// derivedFrom is set on a lookup that a statement of the statistics, or
// an index of the source, asked for.
type derivedFrom struct {
	q parsed // its column names as the table spells them
}

// origin is what a derived path comes from, for its comments: a statement
// of the statistics, or an index of the source (a hint).
type origin struct {
	what    string // the index comment's opening: "from statement statistics (12 calls)"
	comment string // the pattern's comment: where it comes from, and why
}

// statementOrigin is the origin of a path a statement asked for.
func statementOrigin(s Statement) origin {
	return origin{what: fmt.Sprintf("from statement statistics (%s)", calls(s.Calls)),
		comment: fmt.Sprintf("from statement statistics: %s: %s", calls(s.Calls), oneLine(s.SQL))}
}

// numIndex is a global index of its own for one entity, whose sort key
// is a number (type N) that a column renders: the range or the order of a
// statement on a numeric column, which a string sort key would not keep.
type numIndex struct {
	name   string // NUMn; its attributes are NUMnPK and NUMnSK
	e      *entity
	pk     string // the partition key template (the equality columns)
	col    string // the sort column
	target string // for the comment
}

// numericKinds are the kinds a number sort key holds as they sort in SQL.
var numericKinds = []introspect.Kind{introspect.KindInt, introspect.KindDecimal, introspect.KindFloat}

// globalIndexes is how many global indexes the design has now.
func (d *design) globalIndexes() int {
	n := len(d.numeric)
	if d.inverted {
		n++
	}
	return n + d.maxSlots()
}

// maxSlots is how many overloaded indexes the design has now.
func (d *design) maxSlots() int {
	slots := 0
	for _, e := range d.entities {
		slots = max(slots, len(e.slots))
	}
	return slots
}

// sortable are the kinds whose template text sorts as SQL sorts them
// (fixed-width dates, times and timestamps), so that a string index sort
// key keeps a range and an order.
var sortable = []introspect.Kind{introspect.KindDate, introspect.KindTime, introspect.KindTimestamp, introspect.KindTimestampTZ}

// entityNamed finds the mapped entity of a statement's table: by name (and
// schema, when the statement names one), exactly, else ignoring case.
func (d *design) entityNamed(schema, table string) *entity {
	for _, fold := range []bool{false, true} {
		var found []*entity
		for _, e := range d.entities {
			same := e.t.Name == table || fold && strings.EqualFold(e.t.Name, table)
			if same && (schema == "" || defaultSchema(d.s) == "" || e.t.Schema == schema) { // no default schema: the qualifier names the database
				found = append(found, e)
			}
		}
		if len(found) == 1 {
			return found[0]
		}
		for _, e := range found {
			if e.t.Schema == defaultSchema(d.s) {
				return e
			}
		}
	}
	return nil
}

// columnNamed is the table's spelling of a statement's column name.
func columnNamed(t *introspect.Table, name string) (string, bool) {
	if c := t.Column(name); c != nil {
		return c.Name, true
	}
	var found []string
	for _, c := range t.Columns {
		if strings.EqualFold(c.Name, name) {
			found = append(found, c.Name)
		}
	}
	if len(found) == 1 {
		return found[0], true
	}
	return "", false
}

// derive goes through the statements of the statistics, the most often run
// first: each is answered by an access pattern already written (pats), or
// one is derived from it (written to pats too), with the index it needs (the
// next overloaded slot of its entity, or an index NUMn of its own for a
// number sort key), or it is left with the reason.
func (d *design) derive(st *Statistics, pats *writer) []verdict {
	stmts := slices.Clone(st.Statements)
	slices.SortStableFunc(stmts, func(a, b Statement) int {
		return cmp.Or(cmp.Compare(b.Calls, a.Calls), strings.Compare(a.SQL, b.SQL))
	})
	var out []verdict
	for _, s := range stmts {
		v := verdict{st: s}
		v.pattern, v.index, v.derived, v.why = d.deriveOne(s, pats)
		out = append(out, v)
	}
	for _, e := range d.entities {
		d.slots = max(d.slots, len(e.slots))
	}
	return out
}

func (d *design) deriveOne(s Statement, pats *writer) (name, index string, derived bool, why string) {
	q, why := parseStatement(s.SQL)
	if why != "" {
		return "", "", false, why
	}
	e := d.entityNamed(q.schema, q.table)
	if e == nil {
		return "", "", false, fmt.Sprintf("its table %s is not mapped", q.table)
	}
	q.schema, q.table = "", e.t.Name
	for _, col := range []*string{&q.rangeCol, &q.orderCol} {
		if *col == "" {
			continue
		}
		c, ok := columnNamed(e.t, *col)
		if !ok {
			return "", "", false, fmt.Sprintf("%s has no column %s", e.t.Name, *col)
		}
		*col = c
	}
	for i, col := range q.eq {
		c, ok := columnNamed(e.t, col)
		if !ok {
			return "", "", false, fmt.Sprintf("%s has no column %s", e.t.Name, col)
		}
		q.eq[i] = c
	}
	return d.deriveFor(e, q, statementOrigin(s), pats)
}

// deriveFor derives the access pattern of q, a query of e's table (its
// columns spelled as the table does) that o asked for: the pattern already
// written that answers it, or a Query of an item collection, or a new
// path through an index, or why there is none.
func (d *design) deriveFor(e *entity, q parsed, o origin, pats *writer) (name, index string, derived bool, why string) {
	// The columns in the table's order: statements that name them in
	// another order share one index.
	slices.SortStableFunc(q.eq, func(a, b string) int {
		return cmp.Compare(slices.IndexFunc(e.t.Columns, func(c *introspect.Column) bool { return c.Name == a }),
			slices.IndexFunc(e.t.Columns, func(c *introspect.Column) bool { return c.Name == b }))
	})
	if name, ok := answered(e, q, pats); ok {
		return name, "", false, ""
	}
	if name, ok := d.inCollection(e, o, q, pats); ok {
		return name, "", true, ""
	}
	sortCol := q.sortCol()
	if why := d.unindexable(e, q, sortCol); why != "" {
		return "", "", false, why
	}
	var words []string
	for _, c := range q.eq {
		words = append(words, prefixOf(c))
	}
	pk := keyTemplate(e.prefix+"."+strings.Join(words, "."), e.t, q.eq)
	target := fmt.Sprintf("%s: the %s rows by %s", o.what, e.name, strings.Join(q.eq, ", "))
	if sortCol != "" {
		target += ", sorted by " + sortCol
	}
	ix, why := d.pathIndex(e, q, pk, sortCol, target)
	if why != "" {
		return "", "", false, why
	}
	return pats.derived(d, e, q, o, pk, ix, sortCol), ix, true, ""
}

// answered is the name of a pattern already written that answers q: one
// of the same shape, or the pattern by the whole key (the other conditions
// then filter the one row it reads).
func answered(e *entity, q parsed, pats *writer) (string, bool) {
	for _, w := range pats.written {
		if w.answers(q) {
			return w.name, true
		}
	}
	// Equalities on the whole key pick one row: the pattern by its key
	// answers, the other conditions only filter that row.
	if keyed := slices.IndexFunc(pats.written, func(w written) bool {
		return w.q.table == q.table && sameSet(w.q.eq, e.key) && w.q.rangeCol == "" && w.q.orderCol == ""
	}); keyed >= 0 && !slices.ContainsFunc(e.key, func(k string) bool { return !slices.Contains(q.eq, k) }) {
		return pats.written[keyed].name + " (by its key; the other conditions filter the row)", true
	}
	return "", false
}

// unindexable says why no index can answer q (its equality columns cannot
// make a partition key, they have too few values, or its sort column
// cannot make a sort key that sorts as SQL does); "" when one can.
func (d *design) unindexable(e *entity, q parsed, sortCol string) string {
	if why := templatableAll(e.t, q.eq); why != "" {
		return "an index partition key cannot hold it: " + why
	}
	if len(q.eq) == 1 {
		if f, ok := d.distinctOf(e.t, q.eq[0], nil); ok && lowCardinality(f) {
			return fmt.Sprintf("no index: %s, about %d rows a value: every %s write would land on one of %d index partitions "+
				"(a hot partition) and a Query of one would read about 1/%d of the table", f.text(q.eq[0]), (f.rows+f.n/2)/f.n, e.name, f.n, f.n)
		}
	}
	if sortCol != "" {
		if why := templatable(e.t, sortCol); why != "" {
			return "an index sort key cannot hold it: " + why
		}
		c := e.t.Column(sortCol)
		if !slices.Contains(sortable, c.Kind) && !slices.Contains(numericKinds, c.Kind) {
			return fmt.Sprintf("a range or an order on %s, which is %s: an index sort key of its text would not sort as SQL does "+
				"(a number, a date, a time or a timestamp would)", sortCol, c.Type)
		}
	}
	return ""
}

// pathIndex is the index that gives q its path: a numeric index of its own
// for a number's order, else an overloaded slot of the entity (one it has
// with the same keys, or a new one), or why there is none.
func (d *design) pathIndex(e *entity, q parsed, pk, sortCol, target string) (ix, why string) {
	if sortCol != "" && slices.Contains(numericKinds, e.t.Column(sortCol).Kind) {
		// A number sorts as a number only in an N sort key: an index of
		// its own, not an overloaded slot (whose sort key is a string).
		i := slices.IndexFunc(d.numeric, func(n *numIndex) bool { return n.e == e && n.pk == pk && n.col == sortCol })
		if i < 0 {
			if d.globalIndexes() >= MaxGlobalIndexes {
				return "", fmt.Sprintf("it needs an index of its own, and no index is left (DynamoDB allows %d)", MaxGlobalIndexes)
			}
			d.numeric = append(d.numeric, &numIndex{name: fmt.Sprintf("NUM%d", len(d.numeric)+1), e: e, pk: pk, col: sortCol, target: target})
			i = len(d.numeric) - 1
		}
		ix = d.numeric[i].name
	} else {
		sk := e.ownSK()
		if sortCol != "" {
			sk = placeholder(e.t, sortCol)
		}
		slot := slices.IndexFunc(e.slots, func(l *lookup) bool { return l.from != nil && l.pk == pk && l.sk == sk })
		if slot < 0 {
			l := &lookup{cols: q.eq, pk: pk, sk: sk}
			if n, p, ok := d.pathLoad(e, l); ok {
				total, all := d.slotLoad(len(e.slots), nil)
				if out, figures := standsOut(n, p, total+n, all+p); out {
					return "", fmt.Sprintf("no index: in GSI%d %s: a partition that stands out (a hot partition)", len(e.slots)+2, figures)
				}
			}
			// A slot past every entity's last one is one more index.
			if len(e.slots) >= d.maxSlots() && d.globalIndexes() >= MaxGlobalIndexes {
				return "", fmt.Sprintf("it needs an index of %s, and no index is left (DynamoDB allows %d)", e.name, MaxGlobalIndexes)
			}
			e.slots = append(e.slots, &lookup{cols: q.eq, pk: pk, sk: sk, target: target, from: &derivedFrom{q: q}})
			slot = len(e.slots) - 1
		}
		ix = fmt.Sprintf("GSI%d", slot+2)
	}
	return ix, ""
}

// derived writes the pattern derived for q through index ix and returns
// its name.
func (pats *writer) derived(d *design, e *entity, q parsed, o origin, pk, ix, sortCol string) string {
	base := "find" + camel(e.name) + "By" + camel(strings.Join(q.eq, "_"))
	switch {
	case q.orderCol != "" && q.desc:
		base += "OrderBy" + camel(q.orderCol) + "Desc"
	case q.orderCol != "":
		base += "OrderBy" + camel(q.orderCol)
	case q.rangeCol != "":
		base += "And" + camel(q.rangeCol) + "Range"
	}
	sql := pats.selectWhere(e, q.eq, q.eq)
	eng := d.s.Engine
	var cond string
	if q.rangeCol != "" {
		op := map[string]string{"gt": ">", "gte": ">=", "lt": "<", "lte": "<="}[q.rangeOp]
		sql += fmt.Sprintf(" AND %s %s {%s}", ident(eng, q.rangeCol), op, q.rangeCol)
		ph := placeholder(e.t, q.rangeCol)
		if slices.Contains(numericKinds, e.t.Column(q.rangeCol).Kind) {
			ph = "{" + q.rangeCol + "}" // a NUMn sort key: the number itself, not padded text
		}
		cond = fmt.Sprintf("{%s: %s}", q.rangeOp, yq(ph))
	} else {
		cond = beginsWith(e.prefix)
		if sortCol != "" {
			cond = ""
		}
	}
	if sortCol != "" && e.t.Column(sortCol).Nullable {
		// The index leaves out an item without its sort key: so does the SQL.
		sql += fmt.Sprintf(" AND %s IS NOT NULL", ident(eng, sortCol))
	}
	order := ""
	if q.orderCol != "" {
		order = "asc"
		sql += " ORDER BY " + ident(eng, q.orderCol)
		if q.desc {
			order = "desc"
			sql += " DESC"
		}
	}
	comment := o.comment
	if q.limit {
		comment += ". Its LIMIT is a parameter there, so the pattern reads them all: add limit: N and LIMIT N to read the first N"
	}
	pats.pattern(pattern{name: base, index: ix, entity: e.name, pk: pk, sk: cond, order: order, sql: sql, comment: comment, shape: &q})
	return pats.lastName
}

// oneLine is a statement on one line, cut at 300 characters.
func oneLine(sql string) string {
	s := strings.Join(strings.Fields(sql), " ")
	if r := []rune(s); len(r) > 300 {
		s = string(r[:300]) + "…"
	}
	return s
}

// yq is q (a YAML string), for where a variable q hides it.
func yq(s string) string { return q(s) }

// calls is "N calls", or "1 call".
func calls(n int64) string {
	if n == 1 {
		return "1 call"
	}
	return fmt.Sprintf("%d calls", n)
}

// inCollection derives the pattern of a statement that the item collection
// of e's parent answers without an index: e is placed there (not a join
// table), the statement's equalities are the foreign key that places it,
// and its range and order, if any, are on the time its sort key begins
// with (Pagila's rental by customer_id ORDER BY rental_date DESC; payment
// by customer_id and payment_date >= $2). A range becomes a between of
// the entity's own sort keys, so that no other entity's item of the
// collection is read.
func (d *design) inCollection(e *entity, o origin, q parsed, pats *writer) (string, bool) {
	p := e.place
	if p == nil || p.other != nil || !sameSet(q.eq, p.fkCols) ||
		(q.rangeCol != "" && q.rangeCol != e.at) || (q.orderCol != "" && q.orderCol != e.at) {
		return "", false
	}
	own := keyTemplate(e.prefix, e.t, nil) // NAME
	sk := beginsWith(e.prefix)
	sql := pats.selectWhere(e, q.eq, q.eq)
	eng := d.s.Engine
	base := "find" + camel(e.name) + "By" + camel(strings.Join(q.eq, "_"))
	if q.rangeCol != "" {
		at := own + "#" + atPlaceholder(e.t, e.at)
		// SK = NAME#{at}#{key}: "#~" sorts after every key of one time,
		// "$" after every NAME# key.
		b := map[string][2]string{
			"gt":  {at + "#~", own + "$"},
			"gte": {at, own + "$"},
			"lt":  {own + "#", at},
			"lte": {own + "#", at + "#~"},
		}[q.rangeOp]
		sk = fmt.Sprintf("{between: [%s, %s]}", yq(b[0]), yq(b[1]))
		op := map[string]string{"gt": ">", "gte": ">=", "lt": "<", "lte": "<="}[q.rangeOp]
		sql += fmt.Sprintf(" AND %s %s {%s}", ident(eng, q.rangeCol), op, q.rangeCol)
		base += "And" + camel(q.rangeCol) + "Range"
	}
	order := ""
	if q.orderCol != "" {
		// The collection's order: the time, then the key.
		order = "asc"
		sql += " ORDER BY " + ident(eng, e.at)
		if q.desc {
			order = "desc"
			sql += " DESC"
		}
		for _, k := range e.key {
			if k != e.at {
				sql += ", " + ident(eng, k)
				if q.desc {
					sql += " DESC"
				}
			}
		}
		base += "OrderBy" + camel(q.orderCol)
		if q.desc {
			base += "Desc"
		}
	}
	comment := fmt.Sprintf("%s. The item collection of one %s answers it: no index", o.comment, p.parent.name)
	if q.limit {
		comment += ". Its LIMIT is a parameter there, so the pattern reads them all: add limit: N and LIMIT N to read the first N"
	}
	pats.pattern(pattern{name: base, entity: e.name, pk: e.pk(), sk: sk, order: order, sql: sql, comment: comment, shape: &q})
	return pats.lastName, true
}
