package mapping

import (
	"fmt"
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
	PK    KeyAttr
	SK    *KeyAttr
	SKOp  string // "", "=", "begins_with", "between", "<", "<=", ">", ">="

	// Params are the parameters, named like columns, with the column that
	// gives each its kind.
	Params []*introspect.Column
	// Queries hold one SQL per entity the pattern returns.
	Queries []*EntityQuery
	// ParamsSQL samples parameter values; nil means sample distinct values
	// of the params' columns from SampleFrom's table.
	ParamsSQL  *SQLTemplate
	SampleFrom *Entity

	pk *bound
	sk []*bound
}

// EntityQuery is the SQL that returns the source rows of one entity.
type EntityQuery struct {
	Entity *Entity
	SQL    *SQLTemplate
}

func (c *compiler) accessPattern(ad *AccessPatternDef) *AccessPattern {
	path := "access_patterns." + ad.Name.Value
	t := &c.plan.Table
	ap := &AccessPattern{Name: ad.Name.Value, PK: t.PK, SK: t.SK}
	if ad.Index.Value != "" {
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
	}
	nerr := len(c.errs)

	// Entities and their SQL.
	for _, kv := range ad.SQL {
		name, npath := kv.Key.Value, path+".sql."+kv.Key.Value
		pos := kv.Key.Pos
		if name == "" { // a single SQL string
			name, npath, pos = ad.Entity.Value, path+".entity", ad.Entity.Pos
			if name == "" {
				if len(c.f.Entities) != 1 {
					c.errorf(kv.Value.Pos, path+".sql", "say which entity this SQL returns with entity: (one of %s), or give sql as a map of entity name to SQL", c.entityNames())
					continue
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
			continue
		}
		q, err := ParseSQL(kv.Value.Value, c.plan.Schema.Engine == introspect.MySQL)
		if err != nil {
			c.errorf(kv.Value.Pos, path+".sql", "%v", err)
			continue
		}
		ap.Queries = append(ap.Queries, &EntityQuery{Entity: e, SQL: q})
	}
	if len(ap.Queries) > 0 {
		ap.SampleFrom = ap.Queries[0].Entity
	}
	if ad.Params.Value != "" {
		q, err := ParseSQL(ad.Params.Value, c.plan.Schema.Engine == introspect.MySQL)
		if err != nil {
			c.errorf(ad.Params.Pos, path+".params", "%v", err)
		} else if len(q.Params()) > 0 {
			c.errorf(ad.Params.Pos, path+".params", "the sampling SQL cannot itself take parameters")
		} else {
			ap.ParamsSQL = q
		}
	}

	// Parameters: every placeholder of the query and the SQL.
	seen := map[string]bool{}
	var names []string
	add := func(ns []string) {
		for _, n := range ns {
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	pkT, err := ParseTemplate(ad.PK.Value)
	if err != nil {
		c.errorf(ad.PK.Pos, path+".query.pk", "%v", err)
		return nil
	}
	add(pkT.Fields())
	var skTs []*Template
	if ad.SK != nil {
		if ap.SK == nil {
			c.errorf(ad.SK.Pos, path+".query.sk", "%s has no sort key", ap.target())
			return nil
		}
		ap.SKOp = ad.SK.Op
		for i, v := range ad.SK.Values {
			st, err := ParseTemplate(v.Value)
			if err != nil {
				c.errorf(v.Pos, fmt.Sprintf("%s.query.sk[%d]", path, i), "%v", err)
				return nil
			}
			add(st.Fields())
			skTs = append(skTs, st)
		}
	}
	for _, q := range ap.Queries {
		add(q.SQL.Params())
	}
	if len(ap.Queries) == 0 {
		// No SQL compiled, and an error says why (here or at its entity):
		// parameters have no table to be looked up in.
		return nil
	}
	for _, n := range names {
		col := c.paramColumn(ap, n)
		if col == nil {
			where := "the entities' tables"
			if ap.SampleFrom != nil {
				where = "table " + ap.SampleFrom.Table.Name
			}
			c.errorf(ad.Pos, path, "parameter {%s} is not a column of %s: add params: with SQL that returns a %s column", n, where, n)
			continue
		}
		ap.Params = append(ap.Params, col)
	}
	if len(c.errs) > nerr {
		return nil
	}
	if ap.pk, err = pkT.bind(ap.Params); err != nil {
		for _, err := range splitErrors(err) {
			c.errorf(ad.PK.Pos, path+".query.pk", "%v", err)
		}
	}
	for i, st := range skTs {
		b, err := st.bind(ap.Params)
		if err != nil {
			for _, err := range splitErrors(err) {
				c.errorf(ad.SK.Values[i].Pos, path+".query.sk", "%v", err)
			}
			continue
		}
		ap.sk = append(ap.sk, b)
	}
	if len(c.errs) > nerr {
		return nil
	}
	if ap.SKOp == "begins_with" && ap.SK.Type == "N" {
		c.errorf(ad.SK.Pos, path+".query.sk", "begins_with needs a string sort key; %s is a number", ap.SK.Name)
	}
	return ap
}

// paramColumn finds the column that gives a parameter its kind: a column of
// that name in the sampled entity's table, else in any queried table when a
// params SQL samples the values, else (params SQL only) a text column.
func (c *compiler) paramColumn(ap *AccessPattern, name string) *introspect.Column {
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

// KeyCondition renders the Query's key values for one set of parameter
// values (in Params order).
func (ap *AccessPattern) KeyCondition(params []any) (pk types.AttributeValue, sk []types.AttributeValue, err error) {
	s, err := ap.pk.render(params)
	if err != nil {
		return nil, nil, fmt.Errorf("rendering %s: %w", ap.PK.Name, err)
	}
	if pk, err = KeyValue(ap.PK, s); err != nil {
		return nil, nil, err
	}
	for _, b := range ap.sk {
		s, err := b.render(params)
		if err != nil {
			return nil, nil, fmt.Errorf("rendering %s: %w", ap.SK.Name, err)
		}
		v, err := KeyValue(*ap.SK, s)
		if err != nil {
			return nil, nil, err
		}
		sk = append(sk, v)
	}
	return pk, sk, nil
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
