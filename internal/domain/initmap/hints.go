package initmap

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/remodel-dev/remodel/introspect"
)

// hint is what init made of one index of the source that points at a
// query: a non-unique index on columns no foreign key holds (the
// application reads its rows by them: Pagila's film by title), or a
// partial index (its rows are a set the application reads apart).
type hint struct {
	e       *entity
	ix      introspect.Index
	pattern string // the access pattern that answers it, or ""
	index   string // the index of a path derived from it
	derived bool
	why     string // why no pattern answers it
}

// OpenShare is the largest share of a table's rows that may be NULL in a
// nullable date or timestamp for those rows to count as its open ones
// (a rental not yet returned): a sparse index that holds only them then
// holds a small part of the table.
const OpenShare = 0.25

// hintIndex reports whether ix is an index whose key is a query of its
// own: not unique (a unique key has its path already), not one whose
// first column a foreign key holds (the foreign key's path, or the reason
// it has none, decides), of plain columns, ordered (btree or hash; a
// full-text or spatial index is no equality), and not partial (openRows
// reads those).
func hintIndex(t *introspect.Table, ix introspect.Index) bool {
	if ix.Unique || ix.Primary || ix.Where != "" || len(ix.Columns) == 0 {
		return false
	}
	if m := strings.ToLower(ix.Method); m != "btree" && m != "hash" {
		return false
	}
	for _, c := range ix.Columns {
		if c.Column == "" {
			return false
		}
	}
	first := ix.Columns[0].Column
	for _, fks := range [][]introspect.ForeignKey{t.ForeignKeys, partitionFKs(t)} {
		for _, fk := range fks {
			if slices.Contains(fk.Columns, first) {
				return false
			}
		}
	}
	return true
}

// partitionFKs are the foreign keys only some partitions of t declare.
func partitionFKs(t *introspect.Table) []introspect.ForeignKey {
	var out []introspect.ForeignKey
	for _, fk := range t.PartitionForeignKeys {
		out = append(out, fk.ForeignKey)
	}
	return out
}

// indexHints derives an access pattern from each index of the source that
// hintIndex takes for a query (its rows by all its columns), as a
// statement of the statistics would be: the pattern already written that
// answers it, or a path through an overloaded index, unless the figures
// say no (few distinct values, a partition that stands out).
func (d *design) indexHints(pats *writer) []hint {
	var out []hint
	for _, e := range d.entities {
		for _, ix := range e.t.Indexes {
			if !hintIndex(e.t, ix) {
				continue
			}
			h := hint{e: e, ix: ix}
			cols := make([]string, len(ix.Columns))
			for i, c := range ix.Columns {
				cols[i] = c.Column
			}
			figures := ""
			if f, ok := d.distinctOf(e.t, cols[0], nil); ok {
				figures = ": " + f.text(cols[0])
			}
			o := origin{what: fmt.Sprintf("from the source's index %s (not unique)", ix.Name),
				comment: fmt.Sprintf("from the source's index %s on %s (%s), not unique: the application reads %s rows by %s%s",
					ix.Name, e.t.Name, strings.Join(cols, ", "), e.name, strings.Join(cols, " and "), figures)}
			h.pattern, h.index, h.derived, h.why = d.deriveFor(e, parsed{table: e.t.Name, eq: cols}, o, pats)
			out = append(out, h)
		}
	}
	for _, e := range d.entities {
		d.slots = max(d.slots, len(e.slots))
	}
	return out
}

// openRows gives an entity a sparse path to its open rows, keyed by what
// the rows are read by, written only while they are open (when:):
//
//   - a partial index of the source: its predicate is the set, its
//     columns the key;
//   - a nullable date or timestamp that init counted NULL in at most
//     OpenShare of the rows of a table placed in a parent's collection
//     (rental's return_date): NULL is the open state, and the open rows
//     of one parent are in the parent's index partition;
//   - a date or timestamp of such a table whose largest value is far in
//     the future (FarYear) and held by at most OpenShare of its rows (the
//     employees sample's to_date = '9999-01-01'): the current rows.
//
// It returns a line for the file's comment on each (and on a far-future
// value that gets no index).
func (d *design) openRows(pats *writer) []string {
	var out []string
	for _, e := range d.entities {
		for _, ix := range e.t.Indexes {
			if line, ok := d.partialPath(e, ix, pats); ok {
				out = append(out, line)
			}
		}
		if line, ok := d.openPath(e, pats); ok {
			out = append(out, line)
		}
	}
	for _, e := range d.entities {
		d.slots = max(d.slots, len(e.slots))
	}
	return out
}

// partialPath is the sparse path of a partial index ix of e's table.
func (d *design) partialPath(e *entity, ix introspect.Index, pats *writer) (string, bool) {
	if ix.Where == "" || ix.Primary || len(ix.Columns) == 0 {
		return "", false
	}
	var cols []string
	for _, c := range ix.Columns {
		if c.Column == "" {
			return "", false
		}
		cols = append(cols, c.Column)
	}
	if templatableAll(e.t, cols) != "" {
		return "", false
	}
	if len(cols) == 1 {
		if f, ok := d.distinctOf(e.t, cols[0], nil); ok && lowCardinality(f) {
			return fmt.Sprintf("- %s: partial index %s (WHERE %s): no index: %s, about %d rows a value: its few partitions would "+
				"take every write of those rows (a hot partition)", e.name, ix.Name, ix.Where, f.text(cols[0]), (f.rows+f.n/2)/f.n), true
		}
	}
	what := fmt.Sprintf("the %s rows where %s, by %s: from the source's partial index %s", e.name, ix.Where, strings.Join(cols, ", "), ix.Name)
	ixName, ok := d.sparseSlot(e, cols, keyTemplate(e.prefix+"."+strings.Join(prefixes(cols), "."), e.t, cols), e.ownSK(), ix.Where, what)
	if !ok {
		return fmt.Sprintf("- %s (partial index %s, WHERE %s): no index is left (DynamoDB allows %d)", e.name, ix.Name, ix.Where, MaxGlobalIndexes), true
	}
	name := "list" + camel(e.name) + "By" + camel(strings.Join(cols, "_")) + "Where" + camel(strings.Join(openWords(ix.Where), "_"))
	sl := e.slots[len(e.slots)-1]
	pats.pattern(pattern{name: name, index: ixName, entity: e.name, pk: sl.pk, sk: beginsWith(e.prefix),
		comment: "a sparse index: " + what + ". Only those rows write its key (when:), so it holds them alone",
		sql:     pats.selectWhere(e, cols, cols) + " AND (" + ix.Where + ")"})
	return fmt.Sprintf("- %s: partial index %s (WHERE %s) → %s, through %s, written only for those rows", e.name, ix.Name, ix.Where, pats.lastName, ixName), true
}

// openWords are the words of a partial index's predicate, for a name.
func openWords(where string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(where), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_')
	}) {
		if len(out) < 4 {
			out = append(out, w)
		}
	}
	return out
}

// prefixes are the key words of columns (prefixOf each).
func prefixes(cols []string) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = prefixOf(c)
	}
	return out
}

// openState is how one column of a placed entity marks its open rows: the
// condition that holds for them, in the engine's SQL, and the figures.
type openState struct {
	col     string
	cond    string // an SQL condition on the row: return_date IS NULL, to_date = '9999-01-01'
	figures string // to_date is 9999-01-01 in 30 of 330 rows (9.1 %, counted by init in every row)
	current bool   // a far-future value (the current rows), not a NULL (the open ones)
}

// openPath is the sparse path of the open rows of a placed entity (a join
// table's too, under its first parent): a nullable date or timestamp that
// init counted NULL in at most OpenShare of its rows (nullOpen), or one
// whose largest value is far in the future (FarYear) and held by at most
// OpenShare of them (farOpen). A far-future value held by more is said,
// with its figures, and gets no index (so do several such values).
func (d *design) openPath(e *entity, pats *writer) (string, bool) {
	p := e.place
	if p == nil {
		return "", false
	}
	none := "" // why a far-future value gets no index
	for _, c := range e.t.Columns {
		if !slices.Contains(sortable, c.Kind) || c.Kind == introspect.KindTime || slices.Contains(e.key, c.Name) {
			continue
		}
		o, ok := d.nullOpen(e, c)
		if !ok {
			var why string
			o, ok, why = d.farOpen(e, c)
			d.farSeen = d.farSeen || ok || why != ""
			if why != "" && none == "" {
				none = fmt.Sprintf("- %s: %s, no sparse index (a Query of the collection of one %s, with a filter, reads them)", e.name, why, p.parent.name)
			}
		}
		if ok {
			return d.sparseOpen(e, o, pats), true
		}
	}
	return none, none != ""
}

// nullOpen is the open state of a nullable column NULL in some rows, at
// most OpenShare of them, as init counted them (rental's return_date).
func (d *design) nullOpen(e *entity, c *introspect.Column) (openState, bool) {
	n, ok := d.measured.Get(e.t, c.Name)
	if !c.Nullable || !ok || n.Rows == 0 || n.NonNull >= n.Rows || float64(n.Rows-n.NonNull) > OpenShare*float64(n.Rows) {
		return openState{}, false
	}
	open := n.Rows - n.NonNull
	return openState{col: c.Name, cond: ident(d.s.Engine, c.Name) + " IS NULL",
		figures: fmt.Sprintf("%s is NULL in %d of %d rows (%.1f %%, %s)", c.Name, open, n.Rows, 100*float64(open)/float64(n.Rows), n.how())}, true
}

// farOpen is the open state of a column whose largest value, as init read
// it, is far in the future (FarYear: the employees sample's to_date =
// '9999-01-01') and held by at most OpenShare of the rows: the current
// rows. Held by more, or one of several such values, it returns why none
// instead.
func (d *design) farOpen(e *entity, c *introspect.Column) (o openState, ok bool, none string) {
	n, measured := d.measured.Last(e.t, c.Name)
	if !measured || n.Rows == 0 || n.AtLast == 0 || !farFuture(n.Last) {
		return openState{}, false, ""
	}
	figures := fmt.Sprintf("%s is %s in %d of %d rows (%.1f %%, %s)", c.Name, n.Last, n.AtLast, n.Rows,
		100*float64(n.AtLast)/float64(n.Rows), n.lastHow())
	if n.FarValues > 1 {
		return openState{}, false, fmt.Sprintf("%s holds %d values of the year %d or later (the largest %s), in %d of %d rows (%s): "+
			"not one value that marks the current rows", c.Name, n.FarValues, FarYear, n.Last, n.AtLast, n.Rows, n.lastHow())
	}
	if float64(n.AtLast) > OpenShare*float64(n.Rows) {
		return openState{}, false, figures + fmt.Sprintf(": more than %.0f %% of the rows", 100*OpenShare)
	}
	return openState{col: c.Name, cond: ident(d.s.Engine, c.Name) + " = " + sqlText(d.s.Engine.Dialect(), n.Last), figures: figures, current: true}, true, ""
}

// farFuture reports whether v, a date or timestamp as the source prints
// it, is in year FarYear or later (PostgreSQL's infinity too).
func farFuture(v string) bool {
	if v == "infinity" {
		return true
	}
	year, rest, ok := strings.Cut(v, "-")
	if !ok || strings.HasSuffix(rest, " BC") {
		return false
	}
	y, err := strconv.Atoi(year)
	return err == nil && y >= FarYear
}

// sqlText is v as an SQL string literal of the dialect: quotes doubled,
// and backslashes too where the dialect reads them as escapes.
func sqlText(d introspect.Dialect, v string) string {
	if d.BackslashEscapes() {
		v = strings.ReplaceAll(v, `\`, `\\`)
	}
	return "'" + strings.ReplaceAll(v, "'", "''") + "'"
}

// sparseOpen gives e the sparse path of its open rows o, keyed as its
// place in the parent's collection, and returns the line for the file's
// comment.
func (d *design) sparseOpen(e *entity, o openState, pats *writer) string {
	p := e.place
	word, state := "open", fmt.Sprintf("%s is NULL, not yet set", o.col)
	leaves := "when " + o.col + " is set"
	if o.current {
		word, state = "current", fmt.Sprintf("%s, a date no event has, stands for not ended yet", o.cond)
		leaves = "when " + o.col + " is set to a real date"
	}
	what := fmt.Sprintf("the %s %s rows of one %s (%s): %s", word, e.name, p.parent.name, state, o.figures)
	ixName, ok := d.sparseSlot(e, p.fkCols, e.pk(), e.sk(), o.cond, what)
	if !ok {
		return fmt.Sprintf("- %s: %s; no index is left (DynamoDB allows %d)", e.name, o.figures, MaxGlobalIndexes)
	}
	sk := beginsWith(e.prefix)
	if p.other != nil { // a join table's items are sorted by the other parent's key
		sk = beginsWith(p.other.prefix)
	}
	pats.pattern(pattern{name: "list" + camel(word) + camel(e.name) + "By" + camel(strings.Join(p.fkCols, "_")), index: ixName, entity: e.name,
		pk: e.pk(), sk: sk,
		comment: "a sparse index: " + what + ". Only the " + word + " rows write its key (when:), so it holds them alone, and a row leaves it " + leaves,
		sql:     pats.selectWhere(e, p.fkCols, p.fkCols) + " AND " + o.cond})
	return fmt.Sprintf("- %s: %s → %s, through %s, written only while %s", e.name, o.figures, pats.lastName, ixName, o.cond)
}

// sparseSlot gives e the next overloaded index slot for a path written
// only where cond holds, if an index is left; it returns the index's name.
func (d *design) sparseSlot(e *entity, cols []string, pk, sk, cond, target string) (string, bool) {
	if len(e.slots) >= d.maxSlots() && d.globalIndexes() >= MaxGlobalIndexes {
		return "", false
	}
	e.slots = append(e.slots, &lookup{cols: cols, pk: pk, sk: sk, target: target, when: cond})
	return fmt.Sprintf("GSI%d", len(e.slots)+1), true
}
