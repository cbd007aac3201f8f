package initmap

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
)

// Options are what init is told besides the ERD.
type Options struct {
	// Table is the DynamoDB table's name; empty: the database's name, made
	// a valid table name.
	Table string
	// Statistics, when not nil, are listed in a comment, each statement
	// with the access pattern that answers it (see ReadStatistics); a
	// pattern, and the index it needs, is derived from each statement
	// that no pattern answers and that one Query can answer.
	Statistics *Statistics
	// PartitionKeys is the check of the foreign keys that only some
	// partitions of a table declare (CheckPartitionKeys): a key that every
	// row of the other partitions keeps is taken as the table's. Without
	// it, no such key is.
	PartitionKeys PartitionKeys
	// Measured are init's own counts of distinct values (MeasureDistinct):
	// where a column has one, the design decides on it rather than on the
	// source's statistics, and says so.
	Measured Measured
}

// Generate writes a starting mapping for the tables of s. The same schema
// and options give the same bytes.
func Generate(s *introspect.Schema, o Options) []byte {
	s, keyNotes := adoptPartitionKeys(s, o.PartitionKeys)
	d := newDesign(s, o.Measured)
	for _, e := range d.entities {
		e.notes = append(keyNotes[e.t.QualifiedName()], e.notes...)
	}
	w := &writer{d: d, names: map[string]bool{}}
	pats := &writer{d: d, names: w.names}
	for _, e := range d.entities {
		pats.patterns(e)
	}
	var verdicts []verdict
	if o.Statistics != nil && o.Statistics.Unavailable == "" {
		verdicts = d.derive(o.Statistics, pats)
	}
	hints := d.indexHints(pats)
	open := d.openRows(pats)
	d.attributes()
	w.file(o, pats, verdicts, hints, open)
	return w.buf.Bytes()
}

type writer struct {
	d        *design
	buf      bytes.Buffer
	names    map[string]bool // access pattern names used
	written  []written       // the single-entity patterns, for the statistics
	lastName string
	acks     []ack // the warnings of validate the design intends
}

// ack is one entry of acknowledge: a warning validate gives on the design
// that the design means, with the reason.
type ack struct {
	code, entity, index, reason string
}

func (w *writer) line(indent int, format string, args ...any) {
	w.buf.WriteString(strings.Repeat("  ", indent))
	fmt.Fprintf(&w.buf, format, args...)
	w.buf.WriteByte('\n')
}

// comment writes text as comment lines at indent, wrapped at about 90
// columns.
func (w *writer) comment(indent int, text string) {
	prefix := strings.Repeat("  ", indent) + "# "
	for _, para := range strings.Split(text, "\n") {
		line := prefix
		for i, word := range strings.Fields(para) {
			if i > 0 && len(line)+1+len(word) > 92 {
				w.buf.WriteString(strings.TrimRight(line, " ") + "\n")
				line = prefix + "  "
			} else if i > 0 {
				line += " "
			}
			line += word
		}
		w.buf.WriteString(strings.TrimRight(line, " ") + "\n")
	}
}

// q quotes s as a YAML (JSON) double-quoted string.
func q(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

var tableNameRE = regexp.MustCompile(`[^a-zA-Z0-9_.-]+`)

func tableName(s *introspect.Schema, o Options) string {
	if o.Table != "" {
		return o.Table
	}
	n := tableNameRE.ReplaceAllString(s.Database, "_")
	for len(n) < 3 {
		n += "_"
	}
	if len(n) > 255 {
		n = n[:255]
	}
	return n
}

func (w *writer) file(o Options, pats *writer, verdicts []verdict, hints []hint, open []string) {
	w.header(o, verdicts, hints)
	w.openRows(open)
	w.table(o)
	w.entities()
	w.line(0, "")
	if pats.buf.Len() == 0 {
		w.line(0, "access_patterns: {}")
	} else {
		w.line(0, "access_patterns:")
		w.buf.Write(pats.buf.Bytes())
	}
	w.acknowledgements()
}

// header writes the file's first comments: what wrote it, the design, what
// init measured, the statistics' verdicts and the hints.
func (w *writer) header(o Options, verdicts []verdict, hints []hint) {
	d := w.d
	w.line(0, "# yaml-language-server: $schema=https://raw.githubusercontent.com/remodel-dev/remodel/main/docs/mapping.schema.json")
	w.comment(0, fmt.Sprintf("A starting mapping that remodel init wrote from the ERD of the %s database %s (%d tables and views, %d entities). "+
		"It is a draft to read and change: the keys follow the foreign keys, not the application's queries, which only you know. "+
		"Check it with remodel validate --source DSN -m FILE (which also warns about risky designs), "+
		"look at the items with remodel preview, then migrate and verify.", d.s.Engine, d.s.Database, len(d.s.Tables), len(d.entities)))
	w.comment(0, "The design: each table is an entity whose items are keyed by its primary key, PK = SK = NAME#{key} "+
		"(an item collection of its own). A table that no other table refers to, with a NOT NULL foreign key to the whole key of "+
		"such a table, is placed in that parent's item collection: PK = PARENT#{foreign key}, SK = NAME#{key}. "+
		"Such a child with a NOT NULL date or timestamp is sorted by it in that collection: SK = NAME#{time|iso}#{key}. "+
		"A join table (its primary key is two such foreign keys) becomes adjacency items, PK = A#{a}, SK = B#{b}. "+
		"Key values are joined with #; an integer is zero-padded to the digits its type holds (|pad:N: 5 for smallint, 10 for integer, "+
		"19 for bigint), so that keys sort as the numbers do (RENTAL#0000000002 before RENTAL#0000010437, which unpadded would sort first); "+
		"a negative number cannot be padded in order, and migrate rejects its row. A text key holding # can make two rows one key "+
		"(migrate rejects the second).")
	if n := w.measuredNote(o.Measured); n != "" {
		w.comment(0, n)
	}
	if o.Statistics != nil {
		w.statistics(o.Statistics, verdicts)
	}
	w.hints(hints)
}

// openRows writes the comment on the open rows, which sparse indexes serve.
func (w *writer) openRows(open []string) {
	d := w.d
	if len(open) > 0 {
		w.comment(0, fmt.Sprintf("Open rows: a partial index of the source, or a nullable date or timestamp that is NULL in at most %.0f %% "+
			"of the rows of a table placed in a collection (NULL: not yet returned, ended or closed), marks the rows the application "+
			"reads apart; each gets a sparse index, whose key only those rows write (when:):", 100*OpenShare))
		if d.farSeen {
			w.comment(0, fmt.Sprintf("So does a date or timestamp of such a table whose largest value is in the year %d or later "+
				"(9999-01-01: not ended yet) when at most %.0f %% of the rows hold it: those are the current rows. init read the "+
				"largest value of each date and timestamp column in the rows it counts the distinct values in, and where it is "+
				"that far counted the rows holding it in the same rows: every row of a table of at most %d rows, else the first %d "+
				"the source returned (a sample, and the rows a source returns first need not have the table's mix).",
				FarYear, 100*OpenShare, MeasureRows, MeasureRows))
		}
		for _, l := range open {
			w.comment(0, l)
		}
	}
}

// table writes the table: its name, key and indexes, each index with the
// comment that says why it is there.
func (w *writer) table(o Options) {
	d := w.d
	w.line(0, "version: 1")
	w.line(0, "table:")
	w.line(1, "name: %s", q(tableName(d.s, o)))
	w.line(1, "key: {pk: PK, sk: SK}")
	if d.inverted || d.slots > 0 || len(d.numeric) > 0 {
		w.line(1, "indexes:")
		if d.inverted {
			keysOnly, include, why := d.gsi1Projection()
			placed := "GSI1PK = their own key, GSI1SK = the parent: read by their key alone"
			if slices.ContainsFunc(d.entities, func(e *entity) bool { return e.beside != nil }) {
				placed += "; or, for an item kept beside a sibling, GSI1PK = the sibling's key, GSI1SK = its own sort key: read with that sibling"
			}
			w.comment(2, "GSI1 holds only the items that need their other side: the adjacency items of a join table "+
				"(GSI1PK = the B they point to, GSI1SK = their A: the A rows of a B) and the items placed in a parent's "+
				"collection ("+placed+"). Only those entities write "+
				"GSI1PK and GSI1SK, so the other items are not in GSI1 and cost it no write (an inverted index of the "+
				"table's key, pk SK, would copy every item). Its sparseness is on purpose. "+why)
			switch {
			case keysOnly:
				w.line(2, "- {name: GSI1, pk: GSI1PK, sk: GSI1SK, projection: KEYS_ONLY}")
			case include != nil:
				names := make([]string, len(include))
				for i, n := range include {
					names[i] = q(n)
				}
				w.line(2, "- {name: GSI1, pk: GSI1PK, sk: GSI1SK, projection: {include: [%s]}}", strings.Join(names, ", "))
			default:
				w.line(2, "- {name: GSI1, pk: GSI1PK, sk: GSI1SK}")
			}
		}
		if d.slots > 0 {
			w.comment(2, "Overloaded indexes: each entity writes GSInPK and GSInSK for one more path to its items, the children "+
				"of a parent by a foreign key or a row by a unique key (see the comments of each entity's set:). "+
				fmt.Sprintf("A foreign key whose column has at most %d distinct values, with %d rows a value or more (init's own count, "+
					"else the source's statistics, %s), gets no index: its few partitions would take every write of the table and a Query of one would read a large "+
					"share of it; nor does a unique key that a Query of the item collection answers. ", FewValues, RowsPerValue, statsSource(d.s.Engine))+
				"An item without the attribute (a NULL column) is not in the index; where a column of one half of an index key is nullable, "+
				"the other half is written only where it is not NULL (when:), so that no item holds half an index key, which would be "+
				"written and stored for nothing. They project all attributes (ALL): each of their patterns reads whole rows of its entity.")
		}
		for i := 2; i <= d.slots+1; i++ {
			w.line(2, "- {name: GSI%d, pk: GSI%dPK, sk: GSI%dSK}", i, i, i)
		}
		for _, n := range d.numeric {
			w.comment(2, fmt.Sprintf("%s: an index of %s's own, whose sort key is the number %s (a string sort key would "+
				"not sort it): %s. It projects all attributes (ALL): its pattern reads whole rows.", n.name, n.e.name, n.col, n.target))
			w.line(2, "- {name: %s, pk: %sPK, sk: {name: %sSK, type: N}}", n.name, n.name, n.name)
		}
	}
}

// entities writes entities:, with the tables not mapped.
func (w *writer) entities() {
	d := w.d
	w.line(0, "")
	w.line(0, "entities:")
	if len(d.skipped) > 0 {
		w.comment(1, "Not mapped:")
		for _, s := range d.skipped {
			w.comment(1, "- "+s)
		}
	}
	if len(d.entities) == 0 {
		w.line(1, "{}")
	}
	for _, e := range d.entities {
		w.entity(e)
	}
}

// acknowledgements writes acknowledge: the warnings this design intends.
func (w *writer) acknowledgements() {
	if len(w.acks) > 0 {
		w.line(0, "")
		w.comment(0, "The warnings of remodel validate that this design intends, each with its reason: "+
			"validate --strict passes on them (a change that ends one makes its entry stale, a warning of its own).")
		w.line(0, "acknowledge:")
		for _, a := range w.acks {
			w.line(1, "- {warning: %s, entity: %s, index: %s,", a.code, yamlKey(a.entity), a.index)
			w.line(2, "reason: %s}", q(a.reason))
		}
	}
}

func (w *writer) entity(e *entity) {
	w.line(1, "%s:", yamlKey(e.name))
	w.comment(2, e.describe())
	if e.keyUK != "" {
		w.comment(2, fmt.Sprintf("no primary key: its rows are identified by the unique key %s, whose columns are NOT NULL", e.keyUK))
	}
	for _, n := range e.notes {
		w.comment(2, n)
	}
	for _, uk := range e.inCollection {
		w.comment(2, fmt.Sprintf("unique key %s (%s): no index: it holds %s, the partition key of the collection of %s that the %s items are in, "+
			"and %s, which their sort key begins with: a Query of that collection with begins_with %s returns the %s rows of one %s at that time, "+
			"the one with the unique key's other values among them (pattern %s)",
			uk.Name, strings.Join(uk.Columns, ", "), strings.Join(e.place.fkCols, ", "), e.place.parent.name, e.name,
			e.at, e.atPrefix(), e.name, e.place.parent.name, e.ukPatterns[uk.Name]))
	}
	if n := keyLimitNote(e.t, e.prefix, e.key, 1024, "its key"); n != "" {
		w.comment(2, n)
	}
	w.line(2, "from: %s", q(e.from))
	if e.keyUK != "" {
		keys := make([]string, len(e.key))
		for i, k := range e.key {
			keys[i] = q(k)
		}
		w.line(2, "key: [%s]", strings.Join(keys, ", "))
	}
	w.line(2, "pk: %s", q(e.pk()))
	w.line(2, "sk: %s", q(e.sk()))
	var nums []*numIndex
	for _, n := range w.d.numeric {
		if n.e == e {
			nums = append(nums, n)
		}
	}
	if len(e.renames) == 0 && len(e.slots) == 0 && len(nums) == 0 && !e.inGSI1() {
		return
	}
	w.line(2, "attributes:")
	if len(e.renames) > 0 {
		w.comment(3, "these columns are named like a key attribute or the entity attribute")
		w.line(3, "rename:")
		for _, r := range e.renames {
			w.line(4, "%s: %s", q(r[0]), q(r[1]))
		}
	}
	if len(e.slots) > 0 || len(nums) > 0 || e.inGSI1() {
		w.set(e, nums)
	}
}

// describe is the comment over an entity: its table, rows, partitions and
// where its items are (their own collection, a join's adjacency items, a
// parent's collection, beside a sibling, in time order).
func (e *entity) describe() string {
	t := e.t
	rows := "rows unknown"
	if n, exact, known := t.Rows(); known {
		rows = fmt.Sprintf("%d rows", n)
		if !exact {
			rows = "about " + rows
		}
	}
	what := fmt.Sprintf("%s (%s)", t.Label(), rows)
	if t.Partitioning != nil {
		what += fmt.Sprintf(", partitioned by %s (%s) into %d partitions, read as one table", t.Partitioning.Strategy, t.Partitioning.Key, len(t.Partitioning.Partitions))
	}
	switch p := e.place; {
	case p == nil && e.referenced:
		what += ": an item collection of its own (other tables refer to it)"
	case p == nil:
		what += ": an item collection of its own"
	case p.other != nil:
		what += fmt.Sprintf(": a join table of %s and %s, written as adjacency items in the item collection of %s "+
			"(foreign key %s), with the key of %s as the sort key; GSI1 reads them from the side of %s (foreign key %s, GSI1PK)",
			p.parent.name, p.other.name, p.parent.name, p.fk.Name, p.other.name, p.other.name, p.otherFK.Name)
	default:
		what += fmt.Sprintf(": placed in the item collection of %s (foreign key %s); GSI1 reads it by its own key (GSI1PK)",
			p.parent.name, p.fk.Name)
		if e.keyInTable() {
			what = strings.TrimSuffix(what, "; GSI1 reads it by its own key (GSI1PK)") +
				"; its table key holds its whole key, so a GetItem reads it by its key and it needs no index"
		}
		if b := e.beside; b != nil {
			what = strings.TrimSuffix(what, "; GSI1 reads it by its own key (GSI1PK)") +
				fmt.Sprintf("; its GSI1 entry is in the GSI1 partition of the %s row it refers to (foreign key %s), beside that row: "+
					"a Query of it returns a %s row with its %s rows, and the foreign key needs no index of its own. "+
					"A %s row is read by its key through the collection of its %s (its sort key holds its whole key), not by an index",
					b.e.name, b.fk.Name, b.e.name, e.name, e.name, p.parent.name)
		}
		if e.at != "" {
			what += fmt.Sprintf(". Its sort key begins with its time, %s, so that a Query of the collection of one %s row "+
				"returns its %s rows oldest first (or newest first, ScanIndexForward false) and a range of them is a key condition: %s",
				e.at, p.parent.name, e.name, e.atWhy)
		}
	}
	if t.Comment != "" {
		what += ". Comment: " + t.Comment
	}
	return what
}

// set writes an entity's set: the key attributes of the indexes it is in
// (GSI1, its overloaded slots, its numeric indexes nums).
func (w *writer) set(e *entity, nums []*numIndex) {
	w.line(3, "set:")
	if p := e.place; e.inGSI1() {
		pk, sk := e.gsi1()
		what := fmt.Sprintf("the %s row by its own key (%s), which its place in the collection of %s does not give",
			e.name, strings.Join(e.key, ", "), p.parent.name)
		if p.other != nil {
			what = fmt.Sprintf("the %s rows of one %s row (foreign key %s), the other side of the N:M", e.name, p.other.name, p.otherFK.Name)
		}
		if b := e.beside; b != nil {
			what = fmt.Sprintf("the %s rows of one %s row (foreign key %s), beside that row's own GSI1 entry", e.name, b.e.name, b.fk.Name)
		}
		w.indexKey(e, "GSI1", what, pk, sk, "")
	}
	for i, l := range e.slots {
		target := l.target
		if l.figures != "" {
			target += "; " + l.figures
		}
		w.indexKey(e, fmt.Sprintf("GSI%d", i+2), target, l.pk, cmp.Or(l.sk, e.ownSK()), l.when)
	}
	for _, n := range nums {
		w.indexKey(e, n.name, n.target, n.pk, "{"+n.col+"}", "")
	}
}

// indexKey writes the two key attributes NAMEPK and NAMESK of an index.
// An item is in a global index only with both: where a column of one half
// is nullable, the other half is written only where that column is not
// NULL (when:), so that no item holds half an index key, which would cost
// its writes and storage and never be read. A sparse path (cond, an SQL
// condition) writes both halves only where cond holds too.
func (w *writer) indexKey(e *entity, ix, target, pk, sk, cond string) {
	pkNull, skNull := w.nullable(e, pk), w.nullable(e, sk)
	w.comment(4, fmt.Sprintf("%s: %s", ix, target))
	pkv, skv := w.when(e, pk, skNull, pkNull, cond), w.when(e, sk, pkNull, skNull, cond)
	if cond != "" {
		w.acks = append(w.acks, ack{mapping.WarnSparseWhen, e.name, ix, fmt.Sprintf("only the %s rows where %s are in %s, "+
			"which is what it is for (a sparse index: its Query reads them alone, and no other row costs it a write)", e.name, cond, ix)})
	}
	w.line(4, "%sPK: %s", ix, pkv)
	w.line(4, "%sSK: %s", ix, skv)
	if cols := slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(pkNull), skNull...)))); len(cols) > 0 {
		reason := fmt.Sprintf("the %s rows whose %s is NULL have nothing to be found by in %s: their items are left out of it on purpose (a sparse index)",
			e.name, strings.Join(cols, " or "), ix)
		w.acks = append(w.acks, ack{mapping.WarnSparseNullable, e.name, ix, reason})
		if strings.HasPrefix(pkv, "{") || strings.HasPrefix(skv, "{") {
			w.acks = append(w.acks, ack{mapping.WarnSparseWhen, e.name, ix, reason + "; the other half of the index key is written under the same condition (when:), so that no item holds half of it"})
		}
	}
}

// nullable are the nullable columns a template reads.
func (w *writer) nullable(e *entity, tpl string) []string {
	var out []string
	for _, m := range placeholderRE.FindAllString(tpl, -1) {
		name, _, _ := strings.Cut(strings.Trim(m, "{}"), "|")
		if c := e.t.Column(name); c != nil && c.Nullable && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// when is the value of an index key attribute: the template, or where the
// other half reads nullable columns this one does not, the long form
// written only where they are not NULL.
func (w *writer) when(e *entity, tpl string, other, own []string, cond string) string {
	var conds []string
	if cond != "" {
		conds = append(conds, cond)
	}
	for _, c := range other {
		if !slices.Contains(own, c) {
			conds = append(conds, ident(w.d.s.Engine, c)+" IS NOT NULL")
		}
	}
	if len(conds) == 0 {
		return q(tpl)
	}
	return fmt.Sprintf("{value: %s, when: %s}", q(tpl), q(strings.Join(conds, " AND ")))
}

// yamlKey writes a map key, quoted unless it is a plain word.
func yamlKey(s string) string {
	switch strings.ToLower(s) {
	case "true", "false", "null", "yes", "no", "on", "off", "y", "n":
		return q(s) // words other YAML readers take for booleans or null
	}
	if plainKey.MatchString(s) {
		return s
	}
	return q(s)
}

var plainKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// camel turns a name into CamelCase words: film_actor → FilmActor.
func camel(s string) string {
	var b strings.Builder
	up := true
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			up = true
			continue
		}
		if up {
			r = unicode.ToUpper(r)
			up = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

func (w *writer) patternName(base string) string {
	n := base
	for i := 2; w.names[n]; i++ {
		n = base + strconv.Itoa(i)
	}
	w.names[n] = true
	return n
}

// pattern writes one access pattern.
type pattern struct {
	name    string
	comment string
	index   string
	pk      string
	sk      string // the whole sk: value, already YAML
	order   string // asc or desc, or ""
	entity  string
	sql     string
	multi   [][2]string // entity → SQL, for an item collection
	shape   *parsed     // what sql reads, when it is not parsed from sql
}

func (w *writer) pattern(p pattern) {
	w.lastName = w.patternName(p.name)
	w.line(1, "%s:", yamlKey(w.lastName))
	w.comment(2, p.comment)
	if p.index != "" {
		w.line(2, "index: %s", p.index)
	}
	if p.sk != "" {
		w.line(2, "query: {pk: %s, sk: %s}", q(p.pk), p.sk)
	} else {
		w.line(2, "query: {pk: %s}", q(p.pk))
	}
	if p.order != "" {
		w.line(2, "order: %s", p.order)
	}
	if len(p.multi) > 0 {
		w.line(2, "sql:")
		for _, kv := range p.multi {
			w.line(3, "%s: %s", yamlKey(kv[0]), q(kv[1]))
		}
		return
	}
	w.line(2, "entity: %s", yamlKey(p.entity))
	w.line(2, "sql: %s", q(p.sql))
	if p.shape != nil {
		w.written = append(w.written, written{name: w.lastName, q: *p.shape})
	} else if sh, why := parseStatement(placeholderRE.ReplaceAllString(p.sql, "$$1")); why == "" {
		w.written = append(w.written, written{name: w.lastName, q: sh})
	}
}

var placeholderRE = regexp.MustCompile(`\{[^}]*\}`)

// statistics lists the statements the source ran most often, each with
// the access pattern that answers it, the one derived from it, or why
// there is none.
func (w *writer) statistics(st *Statistics, verdicts []verdict) {
	if st.Unavailable != "" {
		w.comment(0, fmt.Sprintf("Statement statistics: none read: %s.", st.Unavailable))
		return
	}
	w.comment(0, fmt.Sprintf("Statement statistics (%s): the SELECT statements this database ran most often, "+
		"each with the access pattern below that answers it; a pattern (and the index it needs) is derived "+
		"from a statement that no pattern answers and that one Query can answer (at the end of access_patterns):", st.From))
	for _, v := range verdicts {
		var what string
		switch {
		case v.derived && v.index == "":
			what = fmt.Sprintf("%s (derived from it: a Query of the item collection, no index)", v.pattern)
		case v.derived:
			what = fmt.Sprintf("%s (derived from it, through %s)", v.pattern, v.index)
		case v.pattern != "":
			what = v.pattern
		default:
			what = "no pattern: " + v.why + ": design its key or index by hand"
		}
		w.comment(0, fmt.Sprintf("- %s: %s → %s", calls(v.st.Calls), oneLine(v.st.SQL), what))
	}
}

// hints lists the indexes of the source init took for queries, each
// with the access pattern that answers it, the one derived from it, or
// why there is none.
func (w *writer) hints(hints []hint) {
	if len(hints) == 0 {
		return
	}
	w.comment(0, "Source indexes: an index of the source that is not unique, on columns no foreign key holds, says the application "+
		"reads rows by them; each is listed with the access pattern below that answers it, or the one derived from it (with its index):")
	for _, h := range hints {
		var cols []string
		for _, c := range h.ix.Columns {
			cols = append(cols, c.Column)
		}
		what := h.pattern
		switch {
		case h.derived && h.index == "":
			what += " (derived from it: a Query of the item collection, no index)"
		case h.derived:
			what += fmt.Sprintf(" (derived from it, through %s)", h.index)
		case h.pattern == "":
			what = "no pattern: " + h.why
		}
		w.comment(0, fmt.Sprintf("- %s.%s (%s) → %s", h.e.t.Name, h.ix.Name, strings.Join(cols, ", "), what))
	}
}

func beginsWith(prefix string) string { return "{begins_with: " + q(prefix+"#") + "}" }

// patterns writes the access patterns of an entity: by its key, its item
// collection with its children, the children by parent on each side, and
// the lookups of its overloaded indexes.
func (w *writer) patterns(e *entity) {
	name := camel(e.name)
	w.getPattern(e, name)
	// The item collection of a parent: the parent and what is placed in it.
	var kids []*entity
	for _, c := range w.d.entities {
		if c.place != nil && c.place.parent == e {
			kids = append(kids, c)
		}
	}
	if e.place == nil && len(kids) > 0 {
		multi := [][2]string{{e.name, w.selectWhere(e, e.key, e.key)}}
		var names []string
		for _, c := range kids {
			multi = append(multi, [2]string{c.name, w.selectWhere(c, c.place.fkCols, e.key)})
			names = append(names, c.name)
		}
		w.pattern(pattern{name: "get" + name + "WithItems", pk: e.pk(), multi: multi,
			comment: fmt.Sprintf("one %s row with its item collection (%s): one Query", e.name, strings.Join(names, ", "))})
	}
	if p := e.place; p != nil {
		w.placedPatterns(e, p, name)
	}
	for i, l := range e.slots {
		ix := fmt.Sprintf("GSI%d", i+2)
		if l.fk != nil {
			w.pattern(pattern{name: "list" + name + "By" + camel(strings.Join(l.cols, "_")), index: ix, entity: e.name,
				pk: l.pk, sk: beginsWith(e.prefix), comment: l.target,
				sql: w.selectWhere(e, l.cols, l.cols)})
			continue
		}
		w.pattern(pattern{name: "get" + name + "By" + camel(strings.Join(l.cols, "_")), index: ix, entity: e.name,
			pk: l.pk, comment: l.target, sql: w.selectWhere(e, l.cols, l.cols)})
	}
}

// getPattern writes the pattern that reads one row of e by its key:
// through its own collection, its parent's, or GSI1.
func (w *writer) getPattern(e *entity, name string) {
	keyCols := strings.Join(e.key, ", ")
	switch p := e.place; {
	case p == nil:
		w.pattern(pattern{name: "get" + name, entity: e.name, pk: e.pk(), sk: q(e.sk()),
			comment: fmt.Sprintf("one %s row by its key (%s)", e.name, keyCols),
			sql:     w.selectWhere(e, e.key, e.key)})
	case p.other != nil:
		w.pattern(pattern{name: "get" + name, entity: e.name, pk: e.pk(), sk: q(e.sk()),
			comment: fmt.Sprintf("one %s row by its key (%s)", e.name, keyCols),
			sql:     w.selectWhere(e, e.key, e.key)})
	case e.keyInTable():
		w.pattern(pattern{name: "get" + name, entity: e.name, pk: e.pk(), sk: q(e.sk()),
			comment: fmt.Sprintf("one %s row by its key (%s), which its table key holds whole: no index", e.name, keyCols),
			sql:     w.selectWhere(e, e.key, e.key)})
	case e.beside != nil:
		// Read by its key within its parent's collection: the parent's key
		// (the foreign key) and its own sort key.
		cols := append(slices.Clone(p.fkCols), e.key...)
		w.pattern(pattern{name: "get" + name, entity: e.name, pk: e.pk(), sk: q(e.ownSK()),
			comment: fmt.Sprintf("one %s row by its key (%s) and its %s (%s): its place in the collection of %s",
				e.name, keyCols, p.parent.name, strings.Join(p.fkCols, ", "), p.parent.name),
			sql: w.selectWhere(e, cols, cols)})
		pk, _ := e.gsi1()
		b := e.beside
		w.pattern(pattern{name: "list" + name + "By" + camel(strings.Join(b.cols, "_")), index: "GSI1", entity: e.name,
			pk: pk, sk: beginsWith(e.prefix),
			comment: fmt.Sprintf("the %s rows of one %s row (foreign key %s), through GSI1, beside that row", e.name, b.e.name, b.fk.Name),
			sql:     w.selectWhere(e, b.cols, b.cols)})
	default:
		pk, sk := e.gsi1()
		get := pattern{name: "get" + name, index: "GSI1", entity: e.name, pk: pk,
			comment: fmt.Sprintf("one %s row by its key (%s), through GSI1, where its GSI1PK is its own key", e.name, keyCols),
			sql:     w.selectWhere(e, e.key, e.key)}
		if len(e.besides) > 0 {
			// Its GSI1 partition holds the rows that refer to it too.
			get.sk = beginsWith(p.parent.prefix)
			get.comment += fmt.Sprintf(" (its GSI1SK, %s, tells it from the rows beside it)", sk)
		}
		w.pattern(get)
	}
}

// placedPatterns writes the patterns of an entity placed in its parent's
// collection p: its rows of one parent (in time order where it has one),
// the other side of an N:M, and its unique keys the collection answers.
func (w *writer) placedPatterns(e *entity, p *placement, name string) {
	list := pattern{name: "list" + name + "By" + camel(strings.Join(p.fkCols, "_")), entity: e.name,
		pk: e.pk(), sk: beginsWith(prefixOfSK(e)),
		comment: fmt.Sprintf("the %s rows of one %s row (foreign key %s)", e.name, p.parent.name, p.fk.Name),
		sql:     w.selectWhere(e, p.fkCols, p.fkCols)}
	if by := w.timeOrder(e); by != "" {
		// The statements it answers are those without the order too.
		if sh, why := parseStatement(placeholderRE.ReplaceAllString(list.sql, "$$1")); why == "" {
			list.shape = &sh
		}
		list.comment += fmt.Sprintf(", in time order (%s, then the key: the sort key's order)", e.at)
		list.order, list.sql = "asc", list.sql+" ORDER BY "+by
	}
	w.pattern(list)
	if p.other != nil {
		pk, _ := e.gsi1()
		w.pattern(pattern{name: "list" + name + "By" + camel(strings.Join(p.otherCols, "_")), index: "GSI1", entity: e.name,
			pk: pk, sk: beginsWith(p.parent.prefix),
			comment: fmt.Sprintf("the %s rows of one %s row (foreign key %s): the other side of the N:M, through GSI1",
				e.name, p.other.name, p.otherFK.Name),
			sql: w.selectWhere(e, p.otherCols, p.otherCols)})
	}
	for _, uk := range e.inCollection {
		cols := append(slices.Clone(p.fkCols), e.at)
		w.pattern(pattern{name: "get" + name + "By" + camel(strings.Join(uk.Columns, "_")), entity: e.name, pk: e.pk(), sk: "{begins_with: " + q(e.atPrefix()) + "}",
			comment: fmt.Sprintf("the %s row with a value of unique key %s, without an index: a Query of the collection of one %s "+
				"for the items of one %s (its sort key begins with it) returns the few %s rows of that time, the one with the "+
				"other values of the unique key (%s) among them",
				e.name, uk.Name, p.parent.name, e.at, e.name, strings.Join(slices.DeleteFunc(slices.Clone(uk.Columns), func(c string) bool {
					return slices.Contains(cols, c)
				}), ", ")),
			sql: w.selectWhere(e, cols, cols)})
		e.ukPatterns[uk.Name] = w.lastName
	}
}

// timeOrder is the ORDER BY that sorts e's rows as its time-ordered sort
// key does (the time, then the key's columns), or "" when SQL would not
// sort them so: a key column that is not an integer, a date or a
// timestamp (text sorts by the collation, not by bytes).
func (w *writer) timeOrder(e *entity) string {
	if e.at == "" {
		return ""
	}
	by := []string{ident(w.d.s.Engine, e.at)}
	for _, c := range e.key {
		if c == e.at {
			continue
		}
		switch e.t.Column(c).Kind {
		case introspect.KindInt, introspect.KindDate, introspect.KindTimestamp, introspect.KindTimestampTZ:
		default:
			return ""
		}
		by = append(by, ident(w.d.s.Engine, c))
	}
	return strings.Join(by, ", ")
}

// prefixOfSK is the prefix of the sort keys of e's items in its parent's
// collection: its own name, or the other parent's for a join table.
func prefixOfSK(e *entity) string {
	if e.place != nil && e.place.other != nil {
		return e.place.other.prefix
	}
	return e.prefix
}

// selectWhere is SELECT * FROM e's table WHERE col_i = {param_i}.
func (w *writer) selectWhere(e *entity, cols, params []string) string {
	eng := w.d.s.Engine
	var b strings.Builder
	b.WriteString("SELECT * FROM ")
	if def := eng.Dialect().DefaultSchema(); def != "" && e.t.Schema != def {
		b.WriteString(ident(eng, e.t.Schema) + ".")
	}
	b.WriteString(ident(eng, e.t.Name))
	for i, c := range cols {
		if i == 0 {
			b.WriteString(" WHERE ")
		} else {
			b.WriteString(" AND ")
		}
		fmt.Fprintf(&b, "%s = {%s}", ident(eng, c), params[i])
	}
	return b.String()
}

var (
	lowerPlain   = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)
	anyCasePlain = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	// reserved are words quoted as identifiers on both engines (the
	// reserved words of PostgreSQL and MySQL that name columns and tables
	// in practice, and every one a plain identifier might collide with).
	reserved = map[string]bool{}
)

func init() {
	for _, w := range strings.Fields(`all analyse analyze and any array as asc asymmetric both case cast check collate column
	constraint create current_catalog current_date current_role current_time current_timestamp current_user default
	deferrable desc distinct do else end except false fetch for foreign from grant group having in initially
	intersect into key keys lateral leading limit localtime localtimestamp not null offset on only or order placing
	primary references returning select session_user some symmetric table then to trailing true union unique user
	using variadic when where window with index range rows rank groups interval change condition div dual
	explain fulltext ignore inout lines load lock long match mod natural option outer read release rename repeat
	replace require return schema separator show signal spatial sql ssl starting straight_join terminated trigger
	undo unlock unsigned update usage use values varying while write xor zerofill delete insert exists
	year_month leave loop iterate declare cursor call procedure function database databases int integer`) {
		reserved[w] = true
	}
}

// ident quotes an identifier for the engine when it is not a plain word.
func ident(eng introspect.Engine, name string) string {
	d := eng.Dialect()
	if d.UnquotedKeepsCase() {
		if anyCasePlain.MatchString(name) && !reserved[strings.ToLower(name)] {
			return name
		}
		return d.QuoteIdent(name)
	}
	if lowerPlain.MatchString(name) && !reserved[name] {
		return name
	}
	return d.QuoteIdent(name)
}

// measuredNote says which figures init counted itself, and how, or "".
func (w *writer) measuredNote(m Measured) string {
	if len(m) == 0 {
		return ""
	}
	var whole, sampled []string
	cols := 0
	for _, e := range w.d.entities {
		counted, sample := false, false
		for _, c := range e.t.Columns {
			if n, ok := m.Get(e.t, c.Name); ok {
				counted, sample = true, sample || n.Sample
				cols++
			}
		}
		switch {
		case sample:
			sampled = append(sampled, e.t.Name)
		case counted:
			whole = append(whole, e.t.Name)
		}
	}
	if cols == 0 {
		return ""
	}
	text := fmt.Sprintf("Figures: init counted the distinct values of %d columns of %d tables itself (the columns of the foreign keys, "+
		"the first column of each index, each nullable date or timestamp, the columns a statement compares), with count(DISTINCT ...) in one snapshot, so that the design "+
		"does not depend on the source's statistics (%s), which a database never analysed lacks and one loaded since its last ANALYZE "+
		"has stale: the same design before and after ANALYZE. ", cols, len(whole)+len(sampled), statsSource(w.d.s.Engine))
	if len(whole) > 0 {
		text += fmt.Sprintf("Every row was counted in %s. ", strings.Join(whole, ", "))
	}
	if len(sampled) > 0 {
		text += fmt.Sprintf("In %s, larger than %d rows, the first %d rows the source returned were counted: a lower bound "+
			"(\"at least\"), raised to the source's estimate where that is higher. ", strings.Join(sampled, ", "), MeasureRows, MeasureRows)
	}
	return text + "A figure marked (" + statsSource(w.d.s.Engine) + ") is the source's own estimate, for a column init did not count."
}
