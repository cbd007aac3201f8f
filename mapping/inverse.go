package mapping

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/introspect"
)

// The inverse of an entity (the way back, follow-back): an item of the
// entity read back into the source row it stands for, and its embedded
// lists into child rows. An entity is followed back when every column the
// item's rendering reads can be read back from the item exactly: from a
// column attribute (inverse_value.go) or from a key template's placeholder
// whose formatters can be undone (inverse_template.go). Otherwise it is
// declared not followable back, with the reason (FollowBack).
//
// An item read back is rendered again (Render) and must give the item
// itself, attribute for attribute: what the mapping cannot make of any row
// (an attribute it does not write, a set attribute that disagrees with
// the columns it is made of, a key that does not parse) is an error, never
// a guess.

// NotFollowableError is an entity that cannot be followed back.
type NotFollowableError struct {
	Entity string
	Reason string
}

func (e *NotFollowableError) Error() string {
	return fmt.Sprintf("entity %s cannot be followed back: %s", e.Entity, e.Reason)
}

// inverse is what an entity's way back needs, worked out once.
type inverse struct {
	why string // "": followable back
	// carried are the indexes in Entity.Columns of the stored columns an
	// item carries back (attributes and key placeholders), in column order.
	carried []int
}

var inverses sync.Map // *Entity → *inverse

func (e *Entity) inverse() *inverse {
	if v, ok := inverses.Load(e); ok {
		return v.(*inverse)
	}
	v, _ := inverses.LoadOrStore(e, e.buildInverse())
	return v.(*inverse)
}

// FollowBack says whether the entity's items can be written back into the
// source (nil), or why not (a *NotFollowableError).
func (e *Entity) FollowBack() error {
	if why := e.inverse().why; why != "" {
		return &NotFollowableError{Entity: e.Name, Reason: why}
	}
	return nil
}

func (e *Entity) buildInverse() *inverse {
	inv := &inverse{}
	inv.why = e.followBackReason(inv)
	return inv
}

// followBackReason is why the entity cannot be followed back, or "".
func (e *Entity) followBackReason(inv *inverse) string {
	switch {
	case e.Table.Query != "":
		return "it reads a query (query:): its rows are no table's rows to write"
	case e.Table.View:
		return fmt.Sprintf("it reads %s: its rows are no table's rows to write", e.Table.Label())
	}
	if why := e.spatialReason(); why != "" {
		return why
	}
	t := e.table
	for _, k := range []*KeyAttr{&t.PK, t.SK} {
		if k != nil && k.Type == "B" {
			return fmt.Sprintf("the table's key %s is binary: its templates are not parsed back", k.Name)
		}
	}
	known := map[int]string{} // column index → where it comes back from
	for _, a := range e.attrs {
		if why := invertibleKind(a.col, a.typ); why != "" {
			return why
		}
		known[a.idx] = "attribute " + a.name
	}
	for _, b := range []*bound{e.pk, e.sk} {
		if b == nil {
			continue
		}
		for i, p := range b.t.parts {
			if p.field == "" || known[b.idx[i]] != "" {
				continue
			}
			if lossyFormatter(b.cols[i], p.fmts) == "" {
				known[b.idx[i]] = "key template " + b.t.Src
			}
		}
	}
	need := func(idx int, what string) string {
		if known[idx] != "" {
			return ""
		}
		c := e.Columns[idx]
		return fmt.Sprintf("column %s, which %s reads, is in no attribute and in no key placeholder that can be read back", c.Name, what)
	}
	for _, k := range e.keyCols {
		if why := need(k, "the row's key"); why != "" {
			return why
		}
	}
	for _, b := range []*bound{e.pk, e.sk} {
		if b == nil {
			continue
		}
		for i, p := range b.t.parts {
			if p.field == "" {
				continue
			}
			if f := lossyFormatter(b.cols[i], p.fmts); f != "" && known[b.idx[i]] == "" {
				return fmt.Sprintf("placeholder {%s} of %s loses its value (%s), and no attribute carries column %s", p.field, b.t.Src, f, p.field)
			}
		}
	}
	for _, s := range e.sets {
		for i, p := range s.t.t.parts {
			if p.field != "" {
				if why := need(s.t.idx[i], "attribute "+s.name); why != "" {
					return why
				}
			}
		}
	}
	if e.ttl != nil {
		if why := need(e.ttl.idx, "the TTL attribute"); why != "" {
			return why
		}
	}
	for _, m := range e.embeds {
		if why := m.followBackReason(); why != "" {
			return why
		}
	}
	for idx := range e.Columns {
		if known[idx] != "" {
			inv.carried = append(inv.carried, idx)
		}
	}
	return ""
}

// spatialReason says why a spatial attribute of the entity or of its
// embeds cannot be written back (the engine does not write its text
// back), or "".
func (e *Entity) spatialReason() string {
	rules := slices.Clone(e.attrs)
	for _, m := range e.embeds {
		rules = append(rules, m.attrs...)
	}
	for _, a := range rules {
		if a.col.Kind == introspect.KindGeometry && a.typ == "" && (e.dialect == nil || e.dialect.SpatialFromText(a.col, "?") == "") {
			return fmt.Sprintf("column %s is a spatial value (%s), which follow-back does not write back on this engine (PostGIS's are)", a.col.Name, a.col.Type)
		}
	}
	return ""
}

// followBackReason is why an embed's elements cannot be read back into
// child rows, or "".
func (m *Embed) followBackReason() string {
	has := map[int]bool{}
	for _, a := range m.attrs {
		if why := invertibleKind(a.col, a.typ); why != "" {
			return "embed " + m.Name + ": " + why
		}
		has[a.idx] = true
	}
	if m.mapKey >= 0 {
		has[m.mapKey] = true
	}
	for _, l := range m.Link {
		has[m.Child.ColumnIndex(l)] = true
	}
	for _, k := range m.keyCols {
		if !has[k] {
			return fmt.Sprintf("embed %s: column %s of the key of %s is not embedded: its child rows cannot be named", m.Name, m.Child.Columns[k].Name, m.Child.Label())
		}
	}
	return ""
}

// Row is a source row read back from an item: one value per column of
// the entity (Entity.Columns; the child rows of embed i at
// len(Columns)+i), and which of them the item carries.
type Row struct {
	Entity *Entity
	Values []any
	// carried lists the stored columns the item carries back.
	carried []int
}

// RowOf reads an item of the entity back into its source row: the
// attributes' values, the keys' placeholders, the embeds' child rows. The
// row, rendered again, must be the item; an item it is not is an error
// that says how.
func (e *Entity) RowOf(item Item) (*Row, error) {
	inv := e.inverse()
	if inv.why != "" {
		return nil, &NotFollowableError{Entity: e.Name, Reason: inv.why}
	}
	row := make([]any, len(e.Columns)+len(e.embeds))
	known := make([]bool, len(row))
	for _, a := range e.attrs {
		v, err := ValueOf(a.col, a.typ, item[a.name])
		if err != nil {
			return nil, fmt.Errorf("attribute %s: %w", a.name, err)
		}
		row[a.idx], known[a.idx] = v, true
	}
	t := e.table
	keys := []struct {
		b *bound
		k *KeyAttr
	}{{e.pk, &t.PK}, {e.sk, t.SK}}
	for _, k := range keys {
		if k.b == nil {
			continue
		}
		text, err := keyAttrText(item[k.k.Name], k.k.Name)
		if err != nil {
			return nil, err
		}
		found, err := k.b.parseKey(text, func(i int) (any, bool) { return row[i], known[i] })
		switch {
		case err != nil:
			return nil, fmt.Errorf("key %s %q: %w", k.k.Name, text, err)
		case len(found) == 0:
			return nil, fmt.Errorf("key %s %q is not what %s renders", k.k.Name, text, k.b.t.Src)
		case len(found) > 1:
			return nil, fmt.Errorf("key %s %q parses as %s in more than one way", k.k.Name, text, k.b.t.Src)
		}
		for i, v := range found[0] {
			row[i], known[i] = v, true
		}
	}
	for _, s := range e.sets {
		if s.when >= 0 {
			_, has := item[s.name]
			row[s.when] = has
		}
	}
	for _, m := range e.embeds {
		kids, err := m.childRows(e, row, item[m.Name])
		if err != nil {
			return nil, fmt.Errorf("embed %s: %w", m.Name, err)
		}
		row[m.idx] = kids
	}
	back, err := e.Render(row)
	if err != nil {
		var re *RowError
		if errors.As(err, &re) {
			return nil, fmt.Errorf("the row it reads back as cannot become an item: %s", re.Reason)
		}
		return nil, err
	}
	if why := itemDiff(back, item); why != "" {
		return nil, fmt.Errorf("it is not the item the mapping makes of the row it reads back as: %s", why)
	}
	return &Row{Entity: e, Values: row, carried: inv.carried}, nil
}

// keyAttrText is the text a template rendered into a key attribute.
func keyAttrText(av types.AttributeValue, name string) (string, error) {
	switch x := av.(type) {
	case *types.AttributeValueMemberS:
		return x.Value, nil
	case *types.AttributeValueMemberN:
		return x.Value, nil
	case nil:
		return "", fmt.Errorf("the item has no key attribute %s", name)
	}
	return "", fmt.Errorf("key attribute %s is of type %s, which no template renders", name, AVType(av))
}

// itemDiff names the first attribute in which the item the mapping makes
// (want) and the one in the table (got) differ, or "".
func itemDiff(want, got Item) string {
	names := make([]string, 0, len(want)+len(got))
	for k := range want {
		names = append(names, k)
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	for _, k := range names {
		w, inWant := want[k]
		g, inGot := got[k]
		switch {
		case !inWant:
			return fmt.Sprintf("attribute %s is not one the mapping writes", k)
		case !inGot:
			return fmt.Sprintf("attribute %s is missing (the mapping makes it %s)", k, describeAV(w))
		case !EqualValue(w, g):
			return fmt.Sprintf("attribute %s is %s, the mapping makes it %s", k, describeAV(g), describeAV(w))
		}
	}
	return ""
}

// childRows reads an embed's attribute back into child rows (each: the
// child's columns, then the parent's key).
func (m *Embed) childRows(e *Entity, parent []any, av types.AttributeValue) ([][]any, error) {
	var elems []types.AttributeValue
	var mapKeys []string
	switch x := av.(type) {
	case nil:
		return nil, nil
	case *types.AttributeValueMemberL:
		if m.mapKey >= 0 {
			return nil, fmt.Errorf("is a list, the mapping makes a map (map_key %s)", m.MapKey)
		}
		elems = x.Value
	case *types.AttributeValueMemberM:
		if m.mapKey < 0 {
			return nil, errors.New("is a map, the mapping makes a list")
		}
		for k := range x.Value {
			mapKeys = append(mapKeys, k)
		}
		slices.Sort(mapKeys)
		for _, k := range mapKeys {
			elems = append(elems, x.Value[k])
		}
	default:
		return nil, fmt.Errorf("is %s, not a list or map of rows", describeAV(av))
	}
	width := len(m.Child.Columns) + len(m.ParentKey)
	var kids [][]any
	for i, el := range elems {
		mm, ok := el.(*types.AttributeValueMemberM)
		if !ok {
			return nil, fmt.Errorf("element %d is %s, not a map", i+1, describeAV(el))
		}
		k := make([]any, width)
		for j, name := range m.ParentKey {
			v := parent[slices.IndexFunc(e.Columns, func(c *introspect.Column) bool { return c.Name == name })]
			k[m.Child.ColumnIndex(m.Link[j])] = v
			k[len(m.Child.Columns)+j] = v
		}
		if m.mapKey >= 0 {
			kc := m.Child.Columns[m.mapKey]
			v, ok := ParseScalarText(kc, mapKeys[i])
			if !ok {
				return nil, fmt.Errorf("map key %q is not a value of column %s (%s)", mapKeys[i], kc.Name, kc.Type)
			}
			k[m.mapKey] = v
		}
		for _, a := range m.attrs {
			v, err := ValueOf(a.col, a.typ, mm.Value[a.name])
			if err != nil {
				return nil, fmt.Errorf("element %d, attribute %s: %w", i+1, a.name, err)
			}
			k[a.idx] = v
		}
		kids = append(kids, k)
	}
	return kids, nil
}

// MatchItem lists the entities whose key templates the item's keys parse
// as (a placeholder that loses its value matches any text). An item that
// records its entity (the table's entity attribute) is matched only to an
// entity of that name. One entity is the item's; none or several are for
// the caller to refuse: an item is never given to an entity by a guess.
func (p *Plan) MatchItem(item Item) []*Entity {
	t := &p.Table
	var out []*Entity
	named := ""
	if s, ok := item[t.EntityAttr].(*types.AttributeValueMemberS); ok && t.EntityAttr != "" {
		named = s.Value
	}
	for _, e := range p.Entities {
		if named != "" && e.Name != named {
			continue
		}
		if e.keysParse(item) {
			out = append(out, e)
		}
	}
	return out
}

// keysParse says whether the item's table keys parse as e's templates.
func (e *Entity) keysParse(item Item) bool {
	t := e.table
	for _, k := range []struct {
		b *bound
		k *KeyAttr
	}{{e.pk, &t.PK}, {e.sk, t.SK}} {
		if k.b == nil {
			continue
		}
		text, err := keyAttrText(item[k.k.Name], k.k.Name)
		if err != nil {
			return false
		}
		found, err := k.b.parseKey(text, func(int) (any, bool) { return nil, false })
		if err != nil || len(found) == 0 {
			return false
		}
	}
	return true
}

// EntityNames names entities for messages: "order, order_line".
func EntityNames(es []*Entity) string {
	names := make([]string, len(es))
	for i, e := range es {
		names[i] = e.Name
	}
	return strings.Join(names, ", ")
}

// FollowBackSupport says, for people, which entities follow-back writes
// back into the source and why the others cannot be (validate prints it).
func (p *Plan) FollowBackSupport() string {
	var ok, not []string
	for _, e := range p.Entities {
		if err := e.FollowBack(); err != nil {
			not = append(not, e.Name+" ("+e.inverse().why+")")
			continue
		}
		ok = append(ok, e.Name)
	}
	switch {
	case len(not) == 0:
		return "follow-back: every entity is written back (" + strings.Join(ok, ", ") + ")"
	case len(ok) == 0:
		return "follow-back: no entity is written back; a change to their items is a dead letter: " + strings.Join(not, "; ")
	}
	return "follow-back: written back: " + strings.Join(ok, ", ") + "; a change to these entities' items is a dead letter: " + strings.Join(not, "; ")
}
