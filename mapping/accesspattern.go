package mapping

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/introspect"
)

// AccessPattern is a compiled access pattern: a Query on the table or one
// index, and per entity the SQL that returns the rows whose items the Query
// must return.
type AccessPattern struct {
	Name  string
	Index *Index // nil for the table itself
	// PK are the target's partition key attributes, each matched by
	// equality (one, or up to four on a multi-attribute key).
	PK []KeyAttr
	// SK are the target's sort key attributes (none when it has no sort
	// key). The condition matches the first SKEq of them by equality and,
	// when SKOp is set, the next one by SKOp.
	SK   []KeyAttr
	SKEq int
	SKOp string // "", "begins_with", "between", "<", "<=", ">", ">="
	// Order is "asc" or "desc" for a pattern whose items come in sort key
	// order (verify checks the order), "" for a set of items.
	Order string
	// Limit > 0 takes only the first Limit items in Order.
	Limit int

	// Params are the parameters, named like columns, with the column that
	// gives each its kind.
	Params []*introspect.Column
	// Queries hold one SQL per entity the pattern returns.
	Queries []*EntityQuery
	// ParamsSQL samples parameter values; nil means sample distinct values
	// of the params' columns from SampleFrom's table.
	ParamsSQL  *SQLTemplate
	SampleFrom *Entity

	pk   []*bound // one per PK attribute
	skEq []*bound // one per equality on SK
	sk   []*bound // SKOp's values
}

// EntityQuery is the SQL that returns the source rows of one entity.
type EntityQuery struct {
	Entity *Entity
	SQL    *SQLTemplate
	// Pos and Path are where the SQL is written in the mapping file, for
	// a problem found in it later (validate asks the database what it
	// returns).
	Pos  Pos
	Path string
}

func (c *compiler) accessPattern(ad *AccessPatternDef) *AccessPattern {
	path := "access_patterns." + ad.Name.Value
	ap := c.patternTarget(ad, path)
	if ap == nil {
		return nil
	}
	nerr := len(c.errs)
	shapeOK := c.keyShape(ad, path, ap.target(), ap.PK, ap.SK)
	c.patternQueries(ap, ad, path)
	var pn paramNames
	pkTs, ok := c.patternPK(ad, path, &pn)
	if !ok || !shapeOK {
		return nil
	}
	skTs, ok := c.patternSK(ad, path, &pn)
	if !ok {
		return nil
	}
	for _, q := range ap.Queries {
		pn.add(q.SQL.Params())
	}
	if len(ap.Queries) == 0 {
		// No SQL compiled, and an error says why (here or at its entity):
		// parameters have no table to be looked up in.
		return nil
	}
	c.patternParams(ap, ad, path, pn.names)
	if len(c.errs) > nerr {
		return nil
	}
	c.bindPattern(ap, ad, path, pkTs, skTs)
	if len(c.errs) > nerr {
		return nil
	}
	ap.SKEq, ap.SKOp = len(ap.skEq), skOp(ad.SK)
	return ap
}

// patternTarget is the pattern with the keys it queries: the table's, or
// its index's; nil (reported) when the index does not exist.
func (c *compiler) patternTarget(ad *AccessPatternDef, path string) *AccessPattern {
	t := &c.plan.Table
	ap := &AccessPattern{Name: ad.Name.Value, PK: []KeyAttr{t.PK}, Order: ad.Order.Value, Limit: ad.Limit}
	if t.SK != nil {
		ap.SK = []KeyAttr{*t.SK}
	}
	if ad.Index.Value == "" {
		return ap
	}
	ix := t.Index(ad.Index.Value)
	if ix == nil {
		names := make([]string, len(t.Indexes))
		for i, x := range t.Indexes {
			names[i] = x.Name
		}
		c.errorf(ad.Index.Pos, path+".index", "the table has no index %q (indexes: %s)", ad.Index.Value, strings.Join(names, ", "))
		return nil
	}
	ap.Index, ap.PK, ap.SK = ix, ix.PK, ix.SK
	return ap
}

// patternQueries compiles the pattern's SQL per entity (ap.Queries), the
// entity it samples from, and its params: SQL.
func (c *compiler) patternQueries(ap *AccessPattern, ad *AccessPatternDef, path string) {
	for _, kv := range ad.SQL {
		if q := c.patternQuery(ad, kv, path); q != nil {
			ap.Queries = append(ap.Queries, q)
		}
	}
	if len(ap.Queries) > 0 {
		ap.SampleFrom = ap.Queries[0].Entity
	}
	if ad.Params.Value != "" {
		q, err := ParseSQL(ad.Params.Value, c.plan.Schema.Engine.Dialect().BackslashEscapes())
		if err != nil {
			c.errorf(ad.Params.Pos, path+".params", "%v", err)
		} else if len(q.Params()) > 0 {
			c.errorf(ad.Params.Pos, path+".params", "the sampling SQL cannot itself take parameters")
		} else {
			ap.ParamsSQL = q
		}
	}
}

// patternQuery compiles one entity's SQL of the pattern: kv is entity →
// SQL, or (no key) the single SQL of entity: (or of the only entity).
func (c *compiler) patternQuery(ad *AccessPatternDef, kv KV, path string) *EntityQuery {
	name, npath := kv.Key.Value, path+".sql."+kv.Key.Value
	pos := kv.Key.Pos
	if name == "" { // a single SQL string
		name, npath, pos = ad.Entity.Value, path+".entity", ad.Entity.Pos
		if name == "" {
			if len(c.f.Entities) != 1 {
				c.errorf(kv.Value.Pos, path+".sql", "say which entity this SQL returns with entity: (one of %s), or give sql as a map of entity name to SQL", c.entityNames())
				return nil
			}
			name = c.f.Entities[0].Name.Value
		}
	} else if ad.Entity.Value != "" {
		c.errorf(ad.Entity.Pos, path+".entity", "entity is only for a single sql string; this sql is a map of entity to SQL")
	}
	e := c.plan.Entity(name)
	if e == nil {
		if !c.entityDeclared(name) {
			c.errorf(pos, npath, "no entity %q (entities: %s)", name, c.entityNames())
		}
		return nil
	}
	q, err := ParseSQL(kv.Value.Value, c.plan.Schema.Engine.Dialect().BackslashEscapes())
	if err != nil {
		c.errorf(kv.Value.Pos, path+".sql", "%v", err)
		return nil
	}
	qpath := path + ".sql"
	if kv.Key.Value != "" {
		qpath += "." + kv.Key.Value
	}
	return &EntityQuery{Entity: e, SQL: q, Pos: kv.Value.Pos, Path: qpath}
}

// paramNames are a pattern's parameters, each once, in the order first
// named.
type paramNames struct {
	seen  map[string]bool
	names []string
}

func (pn *paramNames) add(ns []string) {
	if pn.seen == nil {
		pn.seen = map[string]bool{}
	}
	for _, n := range ns {
		if !pn.seen[n] {
			pn.seen[n] = true
			pn.names = append(pn.names, n)
		}
	}
}

// patternPK parses the query's pk templates, adding their fields to pn;
// ok is false when one does not parse (reported).
func (c *compiler) patternPK(ad *AccessPatternDef, path string, pn *paramNames) (pkTs []*Template, ok bool) {
	for i, v := range ad.PK {
		pt, err := ParseTemplate(v.Value)
		if err != nil {
			c.errorf(v.Pos, pkPath(path, ad, i), "%v", err)
			continue
		}
		pn.add(pt.Fields())
		pkTs = append(pkTs, pt)
	}
	return pkTs, len(pkTs) == len(ad.PK)
}

// patternSK parses the query's sk templates (none without sk:), adding
// their fields to pn; ok is false at the first that does not parse
// (reported).
func (c *compiler) patternSK(ad *AccessPatternDef, path string, pn *paramNames) (skTs []*Template, ok bool) {
	if ad.SK == nil {
		return nil, true
	}
	for i, v := range skTemplates(ad.SK) {
		st, err := ParseTemplate(v.Value)
		if err != nil {
			c.errorf(v.Pos, fmt.Sprintf("%s.query.sk[%d]", path, i), "%v", err)
			return nil, false
		}
		pn.add(st.Fields())
		skTs = append(skTs, st)
	}
	return skTs, true
}

// patternParams finds the column that gives each parameter its kind
// (ap.Params), reporting a parameter no column gives.
func (c *compiler) patternParams(ap *AccessPattern, ad *AccessPatternDef, path string, names []string) {
	for _, n := range names {
		col := c.paramColumn(ap, ad.Params.Value, n)
		if col == nil {
			where := "the entities' tables"
			if ap.SampleFrom != nil {
				where = relName(ap.SampleFrom.Table)
			}
			c.errorf(ad.Pos, path, "parameter {%s} is not a column of %s: add params: with SQL that returns a %s column", n, where, n)
			continue
		}
		ap.Params = append(ap.Params, col)
	}
}

// bindPattern binds the key templates to the parameters: the pk's, the
// sk's equalities and its range.
func (c *compiler) bindPattern(ap *AccessPattern, ad *AccessPatternDef, path string, pkTs, skTs []*Template) {
	for i, pt := range pkTs {
		b, err := pt.bind(ap.Params)
		if err != nil {
			for _, err := range splitErrors(err) {
				c.errorf(ad.PK[i].Pos, pkPath(path, ad, i), "%v", err)
			}
			continue
		}
		ap.pk = append(ap.pk, b)
	}
	tmpls := skTemplates(ad.SK)
	for i, st := range skTs {
		b, err := st.bind(ap.Params)
		if err != nil {
			for _, err := range splitErrors(err) {
				c.errorf(tmpls[i].Pos, path+".query.sk", "%v", err)
			}
			continue
		}
		if i < len(ad.SK.Eq) {
			ap.skEq = append(ap.skEq, b)
		} else {
			ap.sk = append(ap.sk, b)
		}
	}
}

// paramColumn finds the column that gives a parameter its kind: a column of
// that name in the sampled entity's table, else in any queried table when a
// params SQL samples the values, else the column of that name the params
// SQL returns when the source has described its result (Schema.Query: a
// timestamp takes iso and the other formatters, and is bound as one),
// else (params SQL only) a text column.
func (c *compiler) paramColumn(ap *AccessPattern, params string, name string) *introspect.Column {
	if ap.SampleFrom != nil {
		if col := ap.SampleFrom.Table.Column(name); col != nil {
			return col
		}
	}
	if ap.ParamsSQL == nil {
		return nil
	}
	for _, q := range ap.Queries {
		if col := q.Entity.Table.Column(name); col != nil {
			return col
		}
	}
	if d := c.plan.Schema.Query(params); d != nil {
		if col := d.Column(name); col != nil {
			return col
		}
	}
	return &introspect.Column{Name: name, Type: "text", Kind: introspect.KindString}
}

func (c *compiler) entityNames() string {
	names := make([]string, len(c.f.Entities))
	for i, e := range c.f.Entities {
		names[i] = e.Name.Value
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func (c *compiler) entityDeclared(name string) bool {
	for _, e := range c.f.Entities {
		if e.Name.Value == name {
			return true
		}
	}
	return false
}

func (ap *AccessPattern) target() string {
	if ap.Index != nil {
		return "index " + ap.Index.Name
	}
	return "the table"
}

// Target names what the pattern queries: "table" or "index GSI1".
func (ap *AccessPattern) Target() string { return ap.target() }

// KeyCond is the key condition of one Query, rendered for one set of
// parameter values: PK holds one value per partition key attribute, SKEq
// the values the first sort key attributes must equal, and SK the values
// of the range condition (SKOp) on the next one.
type KeyCond struct {
	PK, SKEq, SK []types.AttributeValue
}

// KeyCondition renders the Query's key values for one set of parameter
// values (in Params order), each typed as its key attribute.
func (ap *AccessPattern) KeyCondition(params []any) (KeyCond, error) {
	var kc KeyCond
	render := func(bs []*bound, attr func(int) KeyAttr, out *[]types.AttributeValue) error {
		for i, b := range bs {
			k := attr(i)
			s, err := b.render(params)
			if err != nil {
				return fmt.Errorf("rendering %s: %w", k.Name, err)
			}
			v, err := KeyValue(k, s)
			if err != nil {
				return err
			}
			*out = append(*out, v)
		}
		return nil
	}
	if err := render(ap.pk, func(i int) KeyAttr { return ap.PK[i] }, &kc.PK); err != nil {
		return KeyCond{}, err
	}
	if err := render(ap.skEq, func(i int) KeyAttr { return ap.SK[i] }, &kc.SKEq); err != nil {
		return KeyCond{}, err
	}
	if err := render(ap.sk, func(int) KeyAttr { return ap.SK[ap.SKEq] }, &kc.SK); err != nil {
		return KeyCond{}, err
	}
	return kc, nil
}

// KeyValue makes the attribute value of a rendered key of the given type.
func KeyValue(k KeyAttr, s string) (types.AttributeValue, error) {
	if k.Type == "N" {
		n, err := normalizeNumber(s)
		if err != nil {
			return nil, fmt.Errorf("key %s must be a number: %w", k.Name, err)
		}
		return &types.AttributeValueMemberN{Value: n}, nil
	}
	return &types.AttributeValueMemberS{Value: s}, nil
}

// RowFor lays out a result row (column names and values) in the entity's
// column order, for Render. A key column the result lacks is an error.
func (e *Entity) RowFor(names []string, vals []any) ([]any, error) {
	row := make([]any, len(e.Columns))
	found := make([]bool, len(e.Columns))
	for i, n := range names {
		for j, c := range e.Columns {
			if c.Name == n {
				row[j], found[j] = vals[i], true
			}
		}
	}
	for _, b := range []*bound{e.pk, e.sk} {
		if b == nil {
			continue
		}
		for i, idx := range b.idx {
			if idx >= 0 && !found[idx] {
				return nil, fmt.Errorf("the SQL returns no column %s, which entity %s's key needs", b.cols[i].Name, e.Name)
			}
		}
	}
	return row, nil
}

// MissingKeyColumns are the columns the entity's table key is rendered
// from that a result with these column names lacks, in key order, each
// once: what RowFor refuses, known before a row is read.
func (e *Entity) MissingKeyColumns(names []string) []string {
	var out []string
	for _, b := range []*bound{e.pk, e.sk} {
		if b == nil {
			continue
		}
		for i, idx := range b.idx {
			if idx < 0 {
				continue
			}
			if n := b.cols[i].Name; !slices.Contains(names, n) && !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}
