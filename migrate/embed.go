package migrate

import (
	"context"

	"github.com/remodel-dev/remodel/mapping"
	"github.com/remodel-dev/remodel/source"
)

// Embedded rows are read beside their parent's rows, each embed by a
// reader of its own in the same snapshot (mapping.Entity.StreamEmbedded).
// Those readers come from a pool shared by the entity readers: enough for
// every entity reader to read an entity with the most embeds at once.

// embedReaders is how many readers the pool needs.
func embedReaders(p *mapping.Plan, readers int) int {
	n := 0
	for _, e := range p.Entities {
		if len(e.Embeds()) > 0 {
			n++
		}
	}
	return p.MaxEmbeds() * min(readers, n)
}

// readerPool holds the readers of embedded rows.
type readerPool chan source.Reader

func newReaderPool(readers []source.Reader) readerPool {
	p := make(readerPool, len(readers))
	for _, r := range readers {
		p <- r
	}
	return p
}

// take takes n readers from the pool, waiting for them; give them back
// with put.
func (p readerPool) take(ctx context.Context, n int) ([]source.Reader, error) {
	out := make([]source.Reader, 0, n)
	for range n {
		select {
		case r := <-p:
			out = append(out, r)
		case <-ctx.Done():
			p.put(out)
			return nil, ctx.Err()
		}
	}
	return out, nil
}

func (p readerPool) put(rs []source.Reader) {
	for _, r := range rs {
		p <- r
	}
}

// streamRows streams the rows of one entity from r, with their child rows
// read by readers from the pool.
func streamRows(ctx context.Context, r source.Reader, pool readerPool, e *mapping.Entity, fn func(row []any, kids [][][]any, dup *mapping.RowError) error) error {
	var kr []source.Reader
	if n := len(e.Embeds()); n > 0 {
		var err error
		if kr, err = pool.take(ctx, n); err != nil {
			return err
		}
		defer pool.put(kr)
	}
	return e.StreamEmbedded(ctx, func(each func([]any) error) error {
		return r.ScanTable(ctx, e.Table, e.Where, 0, each)
	}, func(ctx context.Context, i int, each func([]any) error) error {
		m := e.Embeds()[i]
		return kr[i].ScanTable(ctx, m.Scan(0), m.Where, 0, each)
	}, fn)
}
