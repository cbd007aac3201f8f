package initmap

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/remodel-dev/remodel/introspect"
)

// The migrationContract.json of AWS's database-modernization workshop
// (aws-samples/aws-dynamodb-examples, workshops/modernizr:
// contracts/migration_contract_schema.json): tables, each with its name,
// type (single-entity or multi-entity), source_table, pk and sk (attribute
// names), gsis, and either attributes (single-entity: the key attributes
// among them, by name) or entities (entity_type, source_table, pk_template
// and sk_template with {name} placeholders, attributes). An attribute
// names its source_table and source_column, and may carry a join, a
// calculation or a transformation; satisfies lists access pattern ids.

type contractFile struct {
	Tables []contractTable `json:"tables"`
}

type contractTable struct {
	Table       string  `json:"table"`
	Type        string  `json:"type"`
	SourceTable string  `json:"source_table"`
	PK          string  `json:"pk"`
	SK          *string `json:"sk"`
	GSIs        []struct {
		IndexName           string   `json:"index_name"`
		PK                  string   `json:"pk"`
		SK                  *string  `json:"sk"`
		Projection          string   `json:"projection"`
		ProjectedAttributes []string `json:"projected_attributes"`
	} `json:"gsis"`
	Entities   []contractEntity `json:"entities"`
	Attributes []contractAttr   `json:"attributes"`
	Satisfies  []string         `json:"satisfies"`
	Size       json.RawMessage  `json:"estimated_item_size_bytes"`
}

type contractEntity struct {
	EntityType  string         `json:"entity_type"`
	SourceTable string         `json:"source_table"`
	PKTemplate  string         `json:"pk_template"`
	SKTemplate  string         `json:"sk_template"`
	Attributes  []contractAttr `json:"attributes"`
}

type contractAttr struct {
	Name           string                 `json:"name"`
	Type           string                 `json:"type"`
	SourceTable    string                 `json:"source_table"`
	SourceColumn   json.RawMessage        `json:"source_column"`
	Join           *contractJoin          `json:"join"`
	Calculation    *struct{ Type string } `json:"calculation"`
	Transformation *struct {
		Type   string `json:"type"`
		Format string `json:"format"`
	} `json:"transformation"`
}

type contractJoin struct {
	Type          string `json:"type"`
	TargetTable   string `json:"target_table"`
	JoinCondition string `json:"join_condition"`
	SelectColumn  string `json:"select_column"`
}

// column is the attribute's one source column ("" for a list or none).
func (a contractAttr) column() string {
	var s string
	if json.Unmarshal(a.SourceColumn, &s) == nil {
		return s
	}
	return ""
}

// plain reports whether the attribute is a column as it is.
func (a contractAttr) plain() bool {
	return a.Join == nil && a.Calculation == nil && a.Transformation == nil && a.column() != ""
}

func fromContract(data []byte, s *introspect.Schema, o FromOptions) (*imported, error) {
	var f contractFile
	if err := decodeStrict(data, &f); err != nil {
		return nil, fmt.Errorf("reading migrationContract.json: %w", err)
	}
	var names []string
	for _, t := range f.Tables {
		names = append(names, t.Table)
	}
	i, err := pickTable(names, o.Table)
	if err != nil {
		return nil, err
	}
	t := f.Tables[i]
	if t.PK == "" {
		return nil, fmt.Errorf("table %s has no pk", t.Table)
	}
	if o.Table == "" && t.Table == "" {
		return nil, fmt.Errorf("a table has no name (table)")
	}
	im := &imported{Table: cmpOr(o.Table, t.Table)}
	if len(names) > 1 {
		im.note("the file's other tables (%s) are not in this mapping: init --from with --name TABLE maps each", strings.Join(slices.Delete(slices.Clone(names), i, i+1), ", "))
	}
	if len(t.Satisfies) > 0 {
		im.note("satisfies names access patterns (%s) that the contract does not define: none is written; add each with its query and SQL", strings.Join(t.Satisfies, ", "))
	}
	if len(t.Size) > 0 {
		im.note("estimated_item_size_bytes (%s) is not carried: remodel preview --analyze measures the items' sizes from the rows", strings.TrimSpace(string(t.Size)))
	}
	ents := t.Entities
	if t.Type != "multi-entity" && len(ents) == 0 {
		ents = []contractEntity{{EntityType: cmpOr(t.SourceTable, t.Table), SourceTable: t.SourceTable, Attributes: t.Attributes}}
	} else if len(t.Attributes) > 0 {
		im.note("the table's own attributes are ignored: a multi-entity table's attributes are its entities'")
	}
	keyTypes := map[string]string{}
	for _, e := range ents {
		for _, a := range e.Attributes {
			if (a.Type == "N" || a.Type == "B") && keyTypes[a.Name] == "" {
				keyTypes[a.Name] = a.Type
			}
		}
	}
	key := func(name string) *impKey {
		if name == "" {
			return nil
		}
		return &impKey{Name: name, Type: keyTypes[name]}
	}
	im.PK = key(t.PK)
	if t.SK != nil {
		im.SK = key(*t.SK)
	}
	gsiKeys := map[string]bool{}
	for _, g := range t.GSIs {
		if g.IndexName == "" || g.PK == "" {
			im.note("an index of gsis without an index_name or a pk is left out")
			continue
		}
		ix := &impIndex{Name: g.IndexName, PK: key(g.PK), Projection: g.Projection, Include: g.ProjectedAttributes}
		if g.SK != nil {
			ix.SK = key(*g.SK)
			gsiKeys[*g.SK] = true
		}
		gsiKeys[g.PK] = true
		im.Indexes = append(im.Indexes, ix)
	}
	seen := map[string]bool{}
	for _, ce := range ents {
		base := strings.ToLower(cmpOr(cmpOr(ce.EntityType, ce.SourceTable), "entity"))
		name := base
		for n := 2; seen[name]; n++ {
			name = fmt.Sprintf("%s_%d", base, n)
		}
		seen[name] = true
		e := &impEntity{Name: name, columns: map[string]string{}}
		im.Entities = append(im.Entities, e)
		contractEntityOf(s, im, e, ce, t.Type == "multi-entity" || len(t.Entities) > 0, gsiKeys)
	}
	return im, nil
}

var (
	joinCondRE = regexp.MustCompile(`^\s*([A-Za-z_][\w$]*)\.([A-Za-z_][\w$]*)\s*=\s*([A-Za-z_][\w$]*)\.([A-Za-z_][\w$]*)\s*$`)
	selectRE   = regexp.MustCompile(`^\s*(?:([A-Za-z_][\w$]*)\.)?([A-Za-z_][\w$]*)\s*$`)
)

// joined is a join an attribute's value comes through: a LEFT JOIN
// of the target table on one equality with the source table, and the
// target's column it selects.
type joined struct {
	result, alias, target, on, column string
}

// parseJoin reads a foreign-key or lookup-table join; why says why it
// cannot be one.
func parseJoin(j *contractJoin, source string, n int) (joined, string) {
	if j.Type != "foreign-key" && j.Type != "lookup-table" {
		return joined{}, fmt.Sprintf("its join (%s) has no remodel equivalent (an entity's query: with the join written by hand can hold it)", j.Type)
	}
	m := joinCondRE.FindStringSubmatch(j.JoinCondition)
	if m == nil {
		return joined{}, fmt.Sprintf("its join condition %q is not one equality of two table.column", j.JoinCondition)
	}
	bare := func(t string) string {
		if _, n, ok := strings.Cut(t, "."); ok {
			return n
		}
		return t
	}
	src, tgt := bare(source), bare(j.TargetTable)
	if src == tgt {
		return joined{}, fmt.Sprintf("its join of %s with itself cannot tell the two sides of %q apart", src, j.JoinCondition)
	}
	alias := fmt.Sprintf("j%d", n)
	side := func(t, c string) (string, bool) {
		switch t {
		case tgt:
			return alias + "." + c, true
		case src:
			return "s." + c, true
		}
		return "", false
	}
	l, ok1 := side(m[1], m[2])
	r, ok2 := side(m[3], m[4])
	if !ok1 || !ok2 || (strings.HasPrefix(l, "s.") == strings.HasPrefix(r, "s.")) {
		return joined{}, fmt.Sprintf("its join condition %q does not compare %s with %s", j.JoinCondition, src, tgt)
	}
	sm := selectRE.FindStringSubmatch(j.SelectColumn)
	if sm == nil || (sm[1] != "" && sm[1] != tgt) {
		return joined{}, fmt.Sprintf("its select_column %q is not a column of %s", j.SelectColumn, tgt)
	}
	return joined{alias: alias, target: j.TargetTable, on: l + " = " + r, column: sm[2]}, ""
}

// contractEntityOf fills one entity of the contract: its source, keys,
// attributes and the joins its attributes need (then it reads a query).
func contractEntityOf(s *introspect.Schema, im *imported, e *impEntity, ce contractEntity, templated bool, gsiKeys map[string]bool) {
	src := cmpOr(ce.SourceTable, e.Name)
	t, err := s.Table(src)
	if err != nil {
		e.leftOut = fmt.Sprintf("its source_table %s: %v", src, err)
		return
	}
	e.From = tableRef(s, t)
	b := newEntityBuild(e, t, ce.Attributes, templated)
	if why := b.keys(im, ce); why != "" {
		e.leftOut = why
		return
	}
	b.attributes(s, im, ce.Attributes, gsiKeys)
	if len(b.joins) > 0 {
		contractQuery(s, e, t, b.joins)
	}
}

// entityBuild is what the keys and the attributes of one contract entity
// share while it is filled: its table, its attributes by name, and the
// joins they add.
type entityBuild struct {
	e         *impEntity
	t         *introspect.Table
	templated bool                    // a multi-entity table: the keys are templates
	byName    map[string]contractAttr // the first attribute of each name
	joins     []joined
	joinCols  map[string]bool // the query's result columns the joins add
}

func newEntityBuild(e *impEntity, t *introspect.Table, attrs []contractAttr, templated bool) *entityBuild {
	b := &entityBuild{e: e, t: t, templated: templated, byName: map[string]contractAttr{}, joinCols: map[string]bool{}}
	for _, a := range attrs {
		if _, dup := b.byName[a.Name]; !dup {
			b.byName[a.Name] = a
		}
	}
	return b
}

// addJoin adds the join of a, its column named alias in the query's
// result; why says why it cannot.
func (b *entityBuild) addJoin(a contractAttr, alias string) (why string) {
	j, why := parseJoin(a.Join, b.t.Name, len(b.joins)+1)
	if why != "" {
		return why
	}
	if b.t.Column(alias) != nil || b.joinCols[alias] {
		return fmt.Sprintf("its join's column would be named %s, which table %s has already", alias, b.t.Name)
	}
	j.result = alias
	b.joins = append(b.joins, j)
	b.joinCols[alias] = true
	return ""
}

// col resolves a template's placeholder: an attribute that is a column
// as it is, a column of the table, a join's column.
func (b *entityBuild) col(name string) string {
	if a, ok := b.byName[name]; ok && a.plain() && b.t.Column(a.column()) != nil {
		return a.column()
	}
	if b.t.Column(name) != nil || b.joinCols[name] {
		return name
	}
	return ""
}

// keys sets the entity's key templates; why says why they cannot be.
func (b *entityBuild) keys(im *imported, ce contractEntity) (why string) {
	if b.e.PK, why = b.keyTemplate(im.PK.Name, ce.PKTemplate); why != "" {
		return why
	}
	if im.SK != nil {
		if b.e.SK, why = b.keyTemplate(im.SK.Name, ce.SKTemplate); why != "" {
			return why
		}
	}
	return ""
}

// keyTemplate converts the template of key k: tpl, the contract's, on a
// multi-entity table, else the one the key attribute says. why says why it
// cannot.
func (b *entityBuild) keyTemplate(k string, tpl string) (out, why string) {
	a, has := b.byName[k]
	if !b.templated {
		if tpl, why = b.attrKeyTemplate(k, a, has); why != "" {
			return "", why
		}
	} else if has && a.Join != nil {
		// The key attribute's join gives the template's one placeholder.
		if ph := placeholders(tpl); len(ph) == 1 && b.col(ph[0]) == "" {
			if why := b.addJoin(a, ph[0]); why != "" {
				return "", fmt.Sprintf("key %s: %s", k, why)
			}
		}
	}
	out, err := convertTemplate(tpl, b.col)
	if err != nil {
		return "", fmt.Sprintf("key %s: %v", k, err)
	}
	return out, ""
}

// attrKeyTemplate is the template of key k on a single-entity table, where
// the key attribute a (has: there is one) says it.
func (b *entityBuild) attrKeyTemplate(k string, a contractAttr, has bool) (tpl, why string) {
	switch {
	case !has:
		return "", fmt.Sprintf("no attribute gives its key %s", k)
	case a.Transformation != nil && a.Transformation.Type == "string-format":
		return a.Transformation.Format, ""
	case a.plain():
		return "{" + a.column() + "}", ""
	case a.Join != nil:
		if why := b.addJoin(a, k); why != "" {
			return "", fmt.Sprintf("key %s: %s", k, why)
		}
		return "{" + k + "}", ""
	default:
		return "", fmt.Sprintf("key %s: its calculation or transformation has no remodel equivalent", k)
	}
}

// attributes adds the entity's attributes other than the keys, with a
// note for each one left out.
func (b *entityBuild) attributes(s *introspect.Schema, im *imported, attrs []contractAttr, gsiKeys map[string]bool) {
	isKey := func(n string) bool { return n == im.PK.Name || (im.SK != nil && n == im.SK.Name) }
	included := map[string]string{}
	for _, a := range attrs {
		if isKey(a.Name) {
			continue
		}
		if why := b.e.contractAttr(s, b.t, a, gsiKeys[a.Name], b.col, b.addJoin, included); why != "" {
			b.e.note("attribute %s is left out: %s", a.Name, why)
		}
	}
}

// contractAttr adds one attribute; why says why it cannot.
func (e *impEntity) contractAttr(s *introspect.Schema, t *introspect.Table, a contractAttr, indexKey bool, col func(string) string, addJoin func(contractAttr, string) string, included map[string]string) string {
	if a.SourceTable != "" && a.SourceTable != t.Name && a.SourceTable != e.From && a.Join == nil {
		return fmt.Sprintf("its source_table %s is not the entity's (%s), and it has no join", a.SourceTable, t.Name)
	}
	switch {
	case a.Calculation != nil:
		return fmt.Sprintf("its calculation (%s) has no remodel equivalent (an entity's query: can compute it)", a.Calculation.Type)
	case a.Transformation != nil && a.Transformation.Type == "string-format":
		tpl, err := convertTemplate(a.Transformation.Format, col)
		if err != nil {
			return err.Error()
		}
		if a.Type != "" && a.Type != "S" && !indexKey {
			e.note("attribute %s is a template, which remodel writes as a string, not %s", a.Name, a.Type)
		}
		e.addSet(a.Name, tpl)
	case a.Transformation != nil:
		return fmt.Sprintf("its transformation %s has no remodel equivalent (a formatter in a set template, or attributes.types, may be close)", a.Transformation.Type)
	case a.Join != nil:
		if why := addJoin(a, a.Name); why != "" {
			return why
		}
		if indexKey {
			e.addSet(a.Name, "{"+a.Name+"}")
		} else {
			e.Include = append(e.Include, a.Name)
		}
	case a.column() == "":
		return "its source_column is a list of columns, which only a join or calculation reads"
	default:
		c := t.Column(a.column())
		if c == nil {
			return fmt.Sprintf("table %s has no column %s", t.Name, a.column())
		}
		if indexKey {
			e.addSet(a.Name, "{"+c.Name+"}")
			return ""
		}
		if other, dup := included[c.Name]; dup {
			return fmt.Sprintf("column %s is attribute %s already (a column becomes one attribute)", c.Name, other)
		}
		included[c.Name] = a.Name
		e.Include = append(e.Include, c.Name)
		if a.Name != c.Name {
			e.Rename = append(e.Rename, [2]string{c.Name, a.Name})
		}
		if a.Type != "" && a.Type != defaultType(c) {
			switch a.Type {
			case "S", "N", "BOOL", "B", "SS", "NS", "BS", "L", "M":
				e.Types = append(e.Types, [2]string{c.Name, a.Type})
			default:
				e.note("attribute %s: type %s is not one remodel writes a column as: the column's default, %s, is written", a.Name, a.Type, defaultType(c))
			}
		}
	}
	return ""
}

// contractQuery makes the entity read its table joined to the tables its
// attributes' joins name.
func contractQuery(s *introspect.Schema, e *impEntity, t *introspect.Table, joins []joined) {
	if len(t.PrimaryKey) == 0 {
		e.leftOut = fmt.Sprintf("its attributes need joins, so it reads a query, whose key: is the table's primary key, and table %s has none", t.Name)
		return
	}
	d := s.Engine.Dialect()
	sel := []string{"s.*"}
	from := e.From + " s"
	for _, j := range joins {
		sel = append(sel, j.alias+"."+d.QuoteIdent(j.column)+" AS "+d.QuoteIdent(j.result))
		from += " LEFT JOIN " + j.target + " " + j.alias + " ON " + j.on
	}
	e.Query = "SELECT " + strings.Join(sel, ", ") + " FROM " + from
	e.Key = t.PrimaryKey
	e.From = ""
	e.note("it reads a query: its table joined to %d other table(s) for the attributes the contract joins in", len(joins))
}
