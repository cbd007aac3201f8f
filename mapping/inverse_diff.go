package mapping

import (
	"fmt"
	"strings"

	"github.com/remodel-dev/remodel/introspect"
)

// RowOp is what a RowChange does to a source row.
type RowOp int

// The operations of a RowChange.
const (
	RowInsert RowOp = iota + 1
	RowUpdate
	RowDelete
)

func (o RowOp) String() string {
	switch o {
	case RowInsert:
		return "insert"
	case RowUpdate:
		return "update"
	case RowDelete:
		return "delete"
	}
	return "?"
}

// ColumnValue is a column and a canonical value of it.
type ColumnValue struct {
	Column *introspect.Column
	Value  any
}

// RowChange is one row written back into the source for an item change:
// an insert of New, or an update (to New) or a delete of the row whose key
// is Key, guarded by Old: it applies only where the row still holds Old's
// values (the item's old image, read back), never over a row changed
// since.
type RowChange struct {
	Op    RowOp
	Table *introspect.Table // the table written (its schema and name)
	Key   []ColumnValue     // the row's primary key
	Old   []ColumnValue     // update, delete: every column the old item carries
	New   []ColumnValue     // insert: every column the new item carries; update: those that changed
	// Row names the row for people: "order id=5", "embed lines of order id=5, row line_no=3".
	Row string
}

// RowChanges is what an item change does to the source: old and new are
// the item's old and new images read back (nil: the item did not exist,
// or no longer does). The changes are in the order the source's foreign
// keys accept within one transaction: a parent's insert before its child
// rows', a parent's delete after theirs.
func RowChanges(old, new *Row) []RowChange {
	if old != nil && new != nil && (old.Entity != new.Entity || !sameKey(old, new)) {
		return append(RowChanges(old, nil), RowChanges(nil, new)...)
	}
	var out []RowChange
	switch {
	case old == nil && new != nil:
		out = append(out, RowChange{Op: RowInsert, Table: new.Entity.Table, Key: new.key(), New: new.carriedValues(), Row: new.label()})
		for i, m := range new.Entity.embeds {
			for _, k := range new.kids(i) {
				out = append(out, m.change(RowInsert, new, nil, k))
			}
		}
	case old != nil && new == nil:
		for i, m := range old.Entity.embeds {
			for _, k := range old.kids(i) {
				out = append(out, m.change(RowDelete, old, k, nil))
			}
		}
		out = append(out, RowChange{Op: RowDelete, Table: old.Entity.Table, Key: old.key(), Old: old.carriedValues(), Row: old.label()})
	case old != nil && new != nil:
		if set := changed(old.carriedValues(), new.carriedValues()); len(set) > 0 {
			out = append(out, RowChange{Op: RowUpdate, Table: new.Entity.Table, Key: new.key(), Old: old.carriedValues(), New: set, Row: new.label()})
		}
		for i, m := range new.Entity.embeds {
			out = append(out, m.diff(old, new, i)...)
		}
	}
	return out
}

// diff is the child row changes of embed i between two images of one
// parent: deletes, then updates, then inserts.
func (m *Embed) diff(old, new *Row, i int) []RowChange {
	olds, news := map[string][]any{}, map[string][]any{}
	var order []string
	for _, k := range old.kids(i) {
		olds[m.childKey(k)] = k
	}
	for _, k := range new.kids(i) {
		key := m.childKey(k)
		news[key] = k
		order = append(order, key)
	}
	var dels, ups, ins []RowChange
	for _, k := range old.kids(i) {
		if _, ok := news[m.childKey(k)]; !ok {
			dels = append(dels, m.change(RowDelete, old, k, nil))
		}
	}
	for _, key := range order {
		n := news[key]
		o, ok := olds[key]
		switch {
		case !ok:
			ins = append(ins, m.change(RowInsert, new, nil, n))
		case len(changed(m.values(o), m.values(n))) > 0:
			ups = append(ups, m.change(RowUpdate, new, o, n))
		}
	}
	return append(append(dels, ups...), ins...)
}

// change is one child row's change.
func (m *Embed) change(op RowOp, parent *Row, old, new []any) RowChange {
	c := RowChange{Op: op, Table: m.Child}
	k := new
	if k == nil {
		k = old
	}
	for _, j := range m.keyCols {
		c.Key = append(c.Key, ColumnValue{m.Child.Columns[j], k[j]})
	}
	c.Row = fmt.Sprintf("embed %s of %s, row %s", m.Name, parent.label(), m.childKey(k))
	if old != nil {
		c.Old = m.values(old)
	}
	switch op {
	case RowInsert:
		c.New = m.values(new)
	case RowUpdate:
		c.New = changed(c.Old, m.values(new))
	}
	return c
}

// values are the child columns an element carries: its attributes, the
// map key, the link to the parent.
func (m *Embed) values(k []any) []ColumnValue {
	has := map[int]bool{}
	for _, a := range m.attrs {
		has[a.idx] = true
	}
	if m.mapKey >= 0 {
		has[m.mapKey] = true
	}
	for _, l := range m.Link {
		has[m.Child.ColumnIndex(l)] = true
	}
	var out []ColumnValue
	for j, c := range m.Child.Columns {
		if has[j] {
			out = append(out, ColumnValue{c, k[j]})
		}
	}
	return out
}

// changed is the values of new that differ from old's (same columns, in
// the same order).
func changed(old, new []ColumnValue) []ColumnValue {
	var out []ColumnValue
	for i, n := range new {
		if i >= len(old) || old[i].Column.Name != n.Column.Name || !sameCanon(old[i].Value, n.Value) {
			out = append(out, n)
		}
	}
	return out
}

// kids are the child rows of embed i.
func (r *Row) kids(i int) [][]any {
	k, _ := r.Values[len(r.Entity.Columns)+i].([][]any)
	return k
}

// key is the row's primary key.
func (r *Row) key() []ColumnValue {
	out := make([]ColumnValue, len(r.Entity.keyCols))
	for i, k := range r.Entity.keyCols {
		out[i] = ColumnValue{r.Entity.Columns[k], r.Values[k]}
	}
	return out
}

// carriedValues are the stored columns the item carries, with their values.
func (r *Row) carriedValues() []ColumnValue {
	out := make([]ColumnValue, len(r.carried))
	for i, k := range r.carried {
		out[i] = ColumnValue{r.Entity.Columns[k], r.Values[k]}
	}
	return out
}

func sameKey(a, b *Row) bool {
	ka, kb := a.key(), b.key()
	for i := range ka {
		if !sameCanon(ka[i].Value, kb[i].Value) {
			return false
		}
	}
	return true
}

// label names the row: "order id=5".
func (r *Row) label() string {
	return r.Entity.Name + " " + r.Entity.SourceKey(r.Values)
}

// Key names the row by its source key: "id=5".
func (r *Row) Key() string { return r.Entity.SourceKey(r.Values) }

// String lists a change for people: "update order id=5".
func (c RowChange) String() string {
	var b strings.Builder
	b.WriteString(c.Op.String())
	b.WriteByte(' ')
	b.WriteString(c.Row)
	return b.String()
}
