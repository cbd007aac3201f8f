package mapping

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/remodel-dev/remodel/introspect"
)

// ChildScan reads the rows of the entity's embed i (the table
// Embeds()[i].Scan gives) and passes each to fn, on a reader of its own in
// the same snapshot as the parent's rows. row is only valid during the
// call, as in the source's ScanTable.
type ChildScan func(ctx context.Context, i int, fn func(row []any) error) error

// StreamEmbedded is Stream for an entity that may have embeds: fn gets
// each parent row with its child rows, kids[i] for embed i (nil when the
// entity has no embeds). WithChildren makes the row Render takes.
//
// The parent's rows and each embed's child rows are read side by side,
// each by one statement, and merged (a merge join): the child rows come
// joined to their parent's key and sorted by it exactly as the parent's
// rows are (the same columns of the same table, in the same snapshot), so
// the child rows of a parent row are the ones that follow, with its key,
// the child rows of the parent before it. No statement runs per row. A
// child row left over when the parent's rows end (the two sides did not
// come in the same order) is an error that stops the read.
func (e *Entity) StreamEmbedded(ctx context.Context, scan func(fn func(row []any) error) error, child ChildScan, fn func(row []any, kids [][][]any, dup *RowError) error) error {
	if len(e.embeds) == 0 {
		return e.Stream(scan, func(row []any, dup *RowError) error { return fn(row, nil, dup) })
	}
	ctx, cancel := context.WithCancel(ctx)
	type feed struct {
		ch    chan []any
		done  chan struct{}
		err   error
		head  []any
		ended bool
	}
	feeds := make([]*feed, len(e.embeds))
	for i := range e.embeds {
		f := &feed{ch: make(chan []any, 256), done: make(chan struct{})}
		feeds[i] = f
		go func() {
			defer close(f.done)
			defer close(f.ch)
			f.err = child(ctx, i, func(row []any) error {
				select {
				case f.ch <- slices.Clone(row):
					return nil
				case <-ctx.Done():
					return ctx.Err()
				}
			})
		}()
	}
	defer func() {
		cancel()
		for _, f := range feeds {
			<-f.done
		}
	}()
	// next is the embed's next child row, nil when they have all come.
	next := func(i int) ([]any, error) {
		f := feeds[i]
		if f.head != nil || f.ended {
			return f.head, nil
		}
		row, ok := <-f.ch
		if !ok {
			<-f.done
			f.ended = true
			if f.err != nil {
				m := e.embeds[i]
				return nil, fmt.Errorf("reading the rows of embed %s (%s): %w", m.Name, m.Child.Label(), f.err)
			}
			return nil, nil
		}
		f.head = row
		return row, nil
	}
	err := e.Stream(scan, func(row []any, dup *RowError) error {
		pk := keyTuple(e.keyColumns(), e.keyCols, row)
		kids := make([][][]any, len(e.embeds))
		for i, m := range e.embeds {
			for {
				k, err := next(i)
				if err != nil {
					return err
				}
				if k == nil || keyTuple(m.parentCol, m.parentKey, k) != pk {
					break
				}
				kids[i] = append(kids[i], k[:len(m.Child.Columns):len(m.Child.Columns)])
				feeds[i].head = nil
			}
		}
		return fn(row, kids, dup)
	})
	if err != nil {
		return err
	}
	for i, m := range e.embeds {
		k, err := next(i)
		if err != nil {
			return err
		}
		if k != nil {
			parent := make([]string, len(m.parentKey))
			for j, p := range m.parentKey {
				parent[j] = m.ParentKey[j] + "=" + valueText(m.parentCol[j], k[p])
			}
			return fmt.Errorf("mapping: entity %s: embed %s: row %s of %s belongs to the row %s, which did not come where the child rows put it (the two reads were not in the same order)",
				e.Name, m.Name, m.childKey(k), m.Child.Label(), strings.Join(parent, ", "))
		}
	}
	return nil
}

// WithChildren is the row Render takes for a parent row and its child rows
// (kids as StreamEmbedded passes them): row itself when the entity has no
// embeds.
func (e *Entity) WithChildren(row []any, kids [][][]any) []any {
	if len(e.embeds) == 0 {
		return row
	}
	out := make([]any, len(e.Columns)+len(e.embeds))
	copy(out, row[:len(e.Columns)])
	for i, m := range e.embeds {
		if i < len(kids) {
			out[m.idx] = kids[i]
		}
	}
	return out
}

// RenderRead is RenderSized for what StreamEmbedded passes on: dup (the
// key names several rows: none becomes an item) when it is not nil, else
// the item of the row with its child rows.
func (e *Entity) RenderRead(row []any, kids [][][]any, dup *RowError) (Item, int, error) {
	if dup != nil {
		return nil, 0, dup
	}
	return e.RenderSized(e.WithChildren(row, kids))
}

// keyColumns are the columns of the entity's key, in key order.
func (e *Entity) keyColumns() []*introspect.Column {
	out := make([]*introspect.Column, len(e.keyCols))
	for i, k := range e.keyCols {
		out[i] = e.Columns[k]
	}
	return out
}

// keyTuple is the text of the key values at idx of row, read by cols: the
// parent's key in a parent row and in a child row compare equal exactly
// when the values are the same.
func keyTuple(cols []*introspect.Column, idx []int, row []any) string {
	var b strings.Builder
	for i, j := range idx {
		s := valueText(cols[i], row[j])
		fmt.Fprintf(&b, "%d:%s;", len(s), s)
	}
	return b.String()
}

// MaxEmbeds is the most embeds one entity has: how many readers besides
// its own reading one entity needs.
func (p *Plan) MaxEmbeds() int {
	n := 0
	for _, e := range p.Entities {
		n = max(n, len(e.embeds))
	}
	return n
}
