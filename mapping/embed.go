package mapping

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/introspect"
)

// Embed is a compiled embed: the child rows of one parent row become one
// attribute of its item.
type Embed struct {
	Name string
	// Child is the child table as the schema describes it; a child row
	// holds one value per column of Child, then the parent's key.
	Child *introspect.Table
	// Link names the child's columns that hold the parent's key, in the
	// order of the parent's primary key (ParentKey).
	Link      []string
	ParentKey []string
	// Where is the SQL condition on the child's columns; "" for all rows.
	Where string
	// Order is how the child rows of one parent are ordered: order_by,
	// then the child's primary key.
	Order []OrderCol
	// MapKey is the column whose text keys the map; "" for a list.
	MapKey string

	idx       int // the position of the child rows in the row Render takes
	parentKey []int
	keyCols   []int // the child's primary key, naming a child row
	attrs     []attrRule
	mapKey    int // -1 for a list
	parentCol []*introspect.Column
	scan      func(limit int) *introspect.Table
}

// Embeds lists the entity's embeds, in file order.
func (e *Entity) Embeds() []*Embed { return e.embeds }

// Attributes lists what each element takes from the child's columns
// (Index is the column's position in Child.Columns and in a child row).
func (m *Embed) Attributes() []ColumnAttribute {
	out := make([]ColumnAttribute, len(m.attrs))
	for i, a := range m.attrs {
		out[i] = ColumnAttribute{Attr: a.name, Column: a.col, Index: a.idx, Type: a.typ}
	}
	return out
}

// Scan is what a reader reads for this embed: the child rows joined to the
// keys of the parent rows the entity reads (its where, and only the first
// limit of them when limit > 0), in the parent's key order, then Order.
// A child row holds Child's columns, then the parent's key.
func (m *Embed) Scan(limit int) *introspect.Table { return m.scan(limit) }

// embeds compiles an entity's embed. It runs last: the child rows of
// embed i are at len(e.Columns)+i of the row Render takes.
func (c *compiler) embeds(e *Entity, ed *EntityDef, path string, claim func(string, Pos, string) bool) {
	for i, d := range ed.Embed {
		fpath := path + ".embed." + d.Name.Value
		if !claim(d.Name.Value, d.Name.Pos, fpath) {
			continue
		}
		if _, key := e.table.KeyTypes()[d.Name.Value]; key || d.Name.Value == e.table.TTL {
			c.errorf(d.Name.Pos, fpath, "attribute %s is an index key or the TTL attribute: it cannot hold embedded rows", d.Name.Value)
			continue
		}
		if ed.Query.Value != "" || e.Table.View || ed.Key != nil || len(e.Table.PrimaryKey) == 0 {
			c.errorf(d.Name.Pos, fpath, "embedding needs the entity to read a table with a primary key (from:, without key:): child rows are found by the parent's primary key")
			continue
		}
		if m := c.embed(e, d, fpath); m != nil {
			m.idx = len(e.Columns) + i
			e.embeds = append(e.embeds, m)
		}
	}
}

func (c *compiler) embed(e *Entity, d *EmbedDef, path string) *Embed {
	parent := e.Table
	child, err := c.plan.Schema.Table(d.From.Value)
	if err != nil {
		c.errorf(d.From.Pos, path+".from", "%v in the source database (tables: %s)", err, strings.Join(c.plan.Schema.TableNames(), ", "))
		return nil
	}
	if len(child.PrimaryKey) == 0 {
		c.errorf(d.From.Pos, path+".from", "%s has no primary key: embedded rows are ordered and named by it", child.Label())
		return nil
	}
	m := &Embed{Name: d.Name.Value, Child: child, ParentKey: parent.PrimaryKey, Where: d.Where.Value, mapKey: -1}
	if !c.embedLink(m, d, parent, path) {
		return nil
	}
	ok := c.embedLinkKinds(m, d, parent, path)
	selected, selOK := c.embedSelected(m, d, path)
	rename, renOK := c.renames(d.Rename, child, func(name string) bool { return selected[name] }, "the embedded attributes", path)
	colTypes, typesOK := c.embedTypes(d, child, m.Link, selected, path)
	attrsOK := c.embedAttrs(m, d, selected, rename, colTypes, path)
	if len(m.attrs) == 0 && ok && selOK && renOK && typesOK && attrsOK {
		c.errorf(d.Pos, path+".attributes", "no column of %s is left to embed", child.Label())
		ok = false
	}
	orderOK := c.embedOrder(m, d, path)
	mapOK := c.embedMapKey(m, d, path)
	if !(ok && selOK && renOK && typesOK && attrsOK && orderOK && mapOK) {
		return nil
	}
	for _, k := range child.PrimaryKey {
		m.keyCols = append(m.keyCols, child.ColumnIndex(k))
	}
	m.build(c.plan.Schema.Engine, parent, e.Where)
	return m
}

// embedLink sets the link (m.Link): the child's columns that hold the
// parent's key, named by on: or found as the child's foreign key.
func (c *compiler) embedLink(m *Embed, d *EmbedDef, parent *introspect.Table, path string) bool {
	child := m.Child
	if d.On == nil {
		m.Link = c.foreignKey(child, parent, d, path)
		return m.Link != nil
	}
	if len(d.On) != len(parent.PrimaryKey) {
		c.errorf(d.OnPos, path+".on", "on names %d columns, but the primary key of %s has %d (%s)", len(d.On), parent.Label(), len(parent.PrimaryKey), strings.Join(parent.PrimaryKey, ", "))
		return false
	}
	ok := true
	for j, s := range d.On {
		if child.Column(s.Value) == nil {
			c.errorf(s.Pos, fmt.Sprintf("%s.on[%d]", path, j), "%s", noColumn(child, s.Value))
			ok = false
		}
		m.Link = append(m.Link, s.Value)
	}
	return ok
}

// embedLinkKinds checks that each link column can hold the values of the
// parent's key column it stands for, and keeps those columns.
func (c *compiler) embedLinkKinds(m *Embed, d *EmbedDef, parent *introspect.Table, path string) bool {
	ok := true
	for j, l := range m.Link {
		lc, pc := m.Child.Column(l), parent.Column(parent.PrimaryKey[j])
		if !sameKind(lc.Kind, pc.Kind) {
			p, fp := d.From.Pos, path+".from"
			if d.On != nil {
				p, fp = d.On[j].Pos, fmt.Sprintf("%s.on[%d]", path, j)
			}
			c.errorf(p, fp, "column %s of %s is %s, but the parent's key column %s is %s: they cannot hold the same values", l, m.Child.Label(), typeName(lc), pc.Name, typeName(pc))
			ok = false
		}
		m.parentCol = append(m.parentCol, pc)
	}
	return ok
}

// embedSelected are the columns that become the element's attributes: by
// default every column but the link (the parent's item has its key
// already).
func (c *compiler) embedSelected(m *Embed, d *EmbedDef, path string) (map[string]bool, bool) {
	child, ok := m.Child, true
	selected := map[string]bool{}
	if d.Include != nil {
		for j, s := range d.Include {
			if child.Column(s.Value) == nil {
				c.errorf(s.Pos, fmt.Sprintf("%s.attributes.include[%d]", path, j), "%s", noColumn(child, s.Value))
				ok = false
				continue
			}
			selected[s.Value] = true
		}
		return selected, ok
	}
	excluded := map[string]bool{}
	for _, l := range m.Link {
		excluded[l] = true
	}
	for j, s := range d.Exclude {
		if child.Column(s.Value) == nil {
			c.errorf(s.Pos, fmt.Sprintf("%s.attributes.exclude[%d]", path, j), "%s", noColumn(child, s.Value))
			ok = false
		}
		excluded[s.Value] = true
	}
	for _, col := range child.Columns {
		if !excluded[col.Name] {
			selected[col.Name] = true
		}
	}
	return selected, ok
}

// embedAttrs adds the element's attribute rules, renamed and typed, each
// name produced once.
func (c *compiler) embedAttrs(m *Embed, d *EmbedDef, selected map[string]bool, rename map[string]Str, colTypes map[string]ColType, path string) bool {
	ok := true
	names := map[string]string{}
	for j, col := range m.Child.Columns {
		if !selected[col.Name] {
			continue
		}
		name := col.Name
		if r, found := rename[col.Name]; found {
			name = r.Value
		}
		if prev, dup := names[name]; dup {
			c.errorf(d.Pos, path+".attributes", "columns %s and %s both become the element attribute %s", prev, col.Name, name)
			ok = false
			continue
		}
		names[name] = col.Name
		m.attrs = append(m.attrs, attrRule{name: name, idx: j, col: col, typ: colTypes[col.Name]})
	}
	return ok
}

// embedOrder sets the elements' order: order_by, then the child's primary
// key (so it is total).
func (c *compiler) embedOrder(m *Embed, d *EmbedDef, path string) bool {
	child, ok := m.Child, true
	inOrder := map[string]bool{}
	for j, o := range d.OrderBy {
		fp := fmt.Sprintf("%s.order_by", path)
		if len(d.OrderBy) > 1 {
			fp = fmt.Sprintf("%s.order_by[%d]", path, j)
		}
		col := child.Column(o.Column.Value)
		if col == nil {
			c.errorf(o.Column.Pos, fp, "%s", noColumn(child, o.Column.Value))
			ok = false
			continue
		}
		switch col.Kind {
		case introspect.KindJSON, introspect.KindArray, introspect.KindSet, introspect.KindGeometry:
			c.errorf(o.Column.Pos, fp, "cannot order by %s, which is %s", col.Name, typeName(col))
			ok = false
			continue
		}
		if inOrder[col.Name] {
			c.errorf(o.Column.Pos, fp, "column %s is already in order_by", col.Name)
			ok = false
			continue
		}
		inOrder[col.Name] = true
		m.Order = append(m.Order, OrderCol{Column: col.Name, Desc: o.Desc})
	}
	for _, k := range child.PrimaryKey {
		if !inOrder[k] {
			inOrder[k] = true
			m.Order = append(m.Order, OrderCol{Column: k})
		}
	}
	return ok
}

// embedMapKey sets the column whose value keys the elements in a map
// (map_key:), which must render as text.
func (c *compiler) embedMapKey(m *Embed, d *EmbedDef, path string) bool {
	if d.MapKey.Value == "" {
		return true
	}
	col := m.Child.Column(d.MapKey.Value)
	switch {
	case col == nil:
		c.errorf(d.MapKey.Pos, path+".map_key", "%s", noColumn(m.Child, d.MapKey.Value))
		return false
	case !kindFits(col.Kind, "S") && col.Kind != introspect.KindInt && col.Kind != introspect.KindDecimal:
		c.errorf(d.MapKey.Pos, path+".map_key", "a map key is text: %s is %s", col.Name, typeName(col))
		return false
	}
	m.MapKey = col.Name
	m.mapKey = m.Child.ColumnIndex(col.Name)
	return true
}

// foreignKey finds the child's one foreign key to the parent's primary key
// and returns its columns in the order of the parent's key.
func (c *compiler) foreignKey(child, parent *introspect.Table, d *EmbedDef, path string) []string {
	var found [][]string
	var names []string
	for _, fk := range child.ForeignKeys {
		if fk.RefTable != parent.Name || (fk.RefSchema != "" && parent.Schema != "" && fk.RefSchema != parent.Schema) || len(fk.RefColumns) != len(parent.PrimaryKey) {
			continue
		}
		cols := make([]string, len(parent.PrimaryKey))
		for j, k := range parent.PrimaryKey {
			for r, rc := range fk.RefColumns {
				if rc == k {
					cols[j] = fk.Columns[r]
				}
			}
			if cols[j] == "" {
				cols = nil
				break
			}
		}
		if cols != nil {
			found = append(found, cols)
			names = append(names, fk.Name)
		}
	}
	switch len(found) {
	case 0:
		c.errorf(d.From.Pos, path+".from", "%s has no foreign key to the primary key of %s (%s): name the columns that hold it with on: [...]", child.Label(), parent.Label(), strings.Join(parent.PrimaryKey, ", "))
		return nil
	case 1:
		return found[0]
	}
	c.errorf(d.From.Pos, path+".from", "%s has %d foreign keys to %s (%s): choose the link with on: [...]", child.Label(), len(found), parent.Label(), strings.Join(names, ", "))
	return nil
}

// sameKind reports whether a child's link column can hold the values of
// the parent's key column.
func sameKind(a, b introspect.Kind) bool {
	num := func(k introspect.Kind) bool { return k == introspect.KindInt || k == introspect.KindDecimal }
	return a == b || num(a) && num(b)
}

// build prepares Scan: the child's rows and the parent's key, read as a
// query in the engine's SQL.
func (m *Embed) build(engine introspect.Engine, parent *introspect.Table, parentWhere string) {
	d := engine.Dialect()
	ident, table := d.QuoteIdent, d.TableRef
	child := m.Child
	cols := append([]*introspect.Column(nil), child.Columns...)
	var sel, on, pk []string
	for j, k := range m.ParentKey {
		alias := fmt.Sprintf("remodel_parent_%d", j+1)
		for child.Column(alias) != nil {
			alias += "_"
		}
		pc := *m.parentCol[j]
		pc.Name = alias
		cols = append(cols, &pc)
		m.parentKey = append(m.parentKey, len(cols)-1)
		sel = append(sel, "p."+ident(k)+" AS "+ident(alias))
		on = append(on, "c."+ident(m.Link[j])+" = p."+ident(k))
		pk = append(pk, ident(k))
	}
	keyOrder := make([]string, 0, len(m.ParentKey)+len(m.Order))
	var desc []bool
	for _, j := range m.parentKey {
		keyOrder = append(keyOrder, cols[j].Name)
		desc = append(desc, false)
	}
	for _, o := range m.Order {
		keyOrder = append(keyOrder, o.Column)
		desc = append(desc, o.Desc)
	}
	m.scan = func(limit int) *introspect.Table {
		sub := "SELECT " + strings.Join(pk, ", ") + " FROM " + table(parent)
		if strings.TrimSpace(parentWhere) != "" {
			sub += " WHERE (" + parentWhere + "\n)"
		}
		if limit > 0 {
			sub += " ORDER BY " + strings.Join(pk, ", ") + " LIMIT " + strconv.Itoa(limit)
		}
		q := "SELECT c.*, " + strings.Join(sel, ", ") + " FROM " + table(child) + " c JOIN (" + sub + ") p ON " + strings.Join(on, " AND ")
		return &introspect.Table{Schema: child.Schema, Name: child.Name, Columns: cols, PrimaryKey: keyOrder, KeyDesc: desc, Query: q}
	}
}

// renderEmbeds adds each embed's attribute: the parent's child rows (at
// row[m.idx], as Stream attaches them) as a list of maps, or a map keyed
// by MapKey. A parent without child rows gets no attribute.
func (e *Entity) renderEmbeds(row []any, item Item) error {
	for _, m := range e.embeds {
		if len(row) <= m.idx {
			return fmt.Errorf("mapping: entity %s: the rows of embed %s were not read with the row (read it with StreamEmbedded)", e.Name, m.Name)
		}
		kids, ok := row[m.idx].([][]any)
		if !ok && row[m.idx] != nil {
			return fmt.Errorf("mapping: entity %s: embed %s holds a %T, not child rows", e.Name, m.Name, row[m.idx])
		}
		if len(kids) == 0 {
			continue // no child rows: the attribute is left out
		}
		if m.mapKey < 0 {
			l := make([]types.AttributeValue, 0, len(kids))
			for _, k := range kids {
				el, err := e.renderChild(m, row, k)
				if err != nil {
					return err
				}
				l = append(l, el)
			}
			item[m.Name] = &types.AttributeValueMemberL{Value: l}
			continue
		}
		mm := make(map[string]types.AttributeValue, len(kids))
		kc := m.Child.Columns[m.mapKey]
		for _, k := range kids {
			var key string
			switch v := k[m.mapKey].(type) {
			case nil:
				return e.reject(row, "embed %s: row %s of %s has no map key (%s is NULL)", m.Name, m.childKey(k), m.Child.Label(), kc.Name)
			case error:
				return e.reject(row, "embed %s: row %s of %s: column %s (%s): %v", m.Name, m.childKey(k), m.Child.Label(), kc.Name, kc.Type, v)
			default:
				s, err := scalarText(kc, v)
				if err != nil {
					return e.reject(row, "embed %s: row %s of %s: map key %s: %v", m.Name, m.childKey(k), m.Child.Label(), kc.Name, err)
				}
				key = s
			}
			if key == "" {
				return e.reject(row, "embed %s: row %s of %s has an empty map key (%s; DynamoDB refuses an empty attribute name)", m.Name, m.childKey(k), m.Child.Label(), kc.Name)
			}
			if _, dup := mm[key]; dup {
				return e.reject(row, "embed %s: two rows of %s have the map key %s=%s (a map keeps one value per key)", m.Name, m.Child.Label(), kc.Name, keyText(key))
			}
			el, err := e.renderChild(m, row, k)
			if err != nil {
				return err
			}
			mm[key] = el
		}
		item[m.Name] = &types.AttributeValueMemberM{Value: mm}
	}
	return nil
}

// renderChild converts one child row into a map; a value that cannot be
// stored rejects the parent row.
func (e *Entity) renderChild(m *Embed, row, k []any) (types.AttributeValue, error) {
	el := make(map[string]types.AttributeValue, len(m.attrs))
	for _, a := range m.attrs {
		var av types.AttributeValue
		var err error
		if a.typ != "" {
			av, err = ConvertAs(a.col, a.typ, k[a.idx])
		} else {
			av, err = Convert(a.col, k[a.idx])
		}
		if err != nil {
			if a.typ != "" {
				return nil, e.reject(row, "embed %s: row %s of %s: column %s (%s) as %s: %v", m.Name, m.childKey(k), m.Child.Label(), a.col.Name, a.col.Type, a.typ, err)
			}
			return nil, e.reject(row, "embed %s: row %s of %s: column %s (%s): %v", m.Name, m.childKey(k), m.Child.Label(), a.col.Name, a.col.Type, err)
		}
		if av != nil {
			el[a.name] = av
		}
	}
	return &types.AttributeValueMemberM{Value: el}, nil
}

// childKey names a child row by its primary key: "server_id=3".
func (m *Embed) childKey(k []any) string {
	var b strings.Builder
	for i, j := range m.keyCols {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(m.Child.Columns[j].Name)
		b.WriteByte('=')
		b.WriteString(valueText(m.Child.Columns[j], k[j]))
	}
	return b.String()
}

// valueText is a key value as SourceKey writes it.
func valueText(c *introspect.Column, v any) string {
	switch v := v.(type) {
	case nil:
		return "NULL"
	case []byte:
		return fmt.Sprintf("%x", v)
	case error:
		return "?"
	}
	if s, err := scalarText(c, v); err == nil {
		return keyText(s)
	}
	return fmt.Sprint(v)
}
