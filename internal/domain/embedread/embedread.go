package embedread

import (
	"context"
	"errors"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/mapping"
)

// Readers is how many readers of embedded rows a snapshot needs besides
// its entity readers: enough for each of readers entity readers to read an
// entity with the most embeds at once (none when no entity has embeds).
func Readers(p *mapping.Plan, readers int) int {
	n := 0
	for _, e := range p.Entities {
		if len(e.Embeds()) > 0 {
			n++
		}
	}
	return p.MaxEmbeds() * min(readers, n)
}

// Pool holds the readers of embedded rows, shared by the entity readers.
// A read of an entity with n embeds takes n readers at once, and the
// takers gather theirs one at a time: two that each held a part of what
// the other waited for would wait for ever (two key ranges of an entity
// with two embeds, each holding one reader of a pool of two). The zero
// Pool has no readers: see IsZero.
type Pool struct {
	free   chan source.Reader
	taking chan struct{} // held by the one taker gathering its readers
}

// NewPool makes a pool of the given readers.
func NewPool(readers []source.Reader) Pool {
	p := Pool{free: make(chan source.Reader, len(readers)), taking: make(chan struct{}, 1)}
	for _, r := range readers {
		p.free <- r
	}
	return p
}

// IsZero reports whether p is the zero Pool, made by no NewPool.
func (p Pool) IsZero() bool { return p.free == nil }

// Take takes n readers from the pool, waiting for them; give them back
// with Put. It gathers all n before another taker gathers any: every
// reader it waits for is held by a taker that has all of its own and gives
// them back without taking more.
func (p Pool) Take(ctx context.Context, n int) ([]source.Reader, error) {
	select {
	case p.taking <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-p.taking }()
	out := make([]source.Reader, 0, n)
	for range n {
		select {
		case r := <-p.free:
			out = append(out, r)
		case <-ctx.Done():
			p.Put(out)
			return nil, ctx.Err()
		}
	}
	return out, nil
}

// Put gives readers back to the pool.
func (p Pool) Put(rs []source.Reader) {
	for _, r := range rs {
		p.free <- r
	}
}

// Stream streams the rows of entity e (its where) from r, each with its
// child rows read by readers taken from the pool for the time of the read
// (kids is nil for an entity without embeds); fn is as in
// mapping.Entity.StreamEmbedded, and e.RenderRead renders what it gets.
func Stream(ctx context.Context, r source.Reader, pool Pool, e *mapping.Entity, fn func(row []any, kids [][][]any, dup *mapping.RowError) error) error {
	var kr []source.Reader
	if n := len(e.Embeds()); n > 0 {
		var err error
		if kr, err = pool.Take(ctx, n); err != nil {
			return err
		}
		defer pool.Put(kr)
	}
	return StreamFirst(ctx, r, kr, e, 0, fn)
}

// StreamRange is Stream over the rows of entity e in one range of its key
// (kr), each with its child rows: the child rows of the parents in that
// range, read by the same bounds on the parent's key, which an embed's
// scan is ordered by first.
func StreamRange(ctx context.Context, r source.Reader, pool Pool, e *mapping.Entity, kr source.KeyRange, fn func(row []any, kids [][][]any, dup *mapping.RowError) error) error {
	n := len(e.Embeds())
	if n == 0 {
		return errors.New("embedread: StreamRange of an entity without embeds")
	}
	kids, err := pool.Take(ctx, n)
	if err != nil {
		return err
	}
	defer pool.Put(kids)
	return e.StreamEmbedded(ctx, func(each func([]any) error) error {
		return r.ScanRange(ctx, e.Table, e.Where, kr, each)
	}, func(ctx context.Context, i int, each func([]any) error) error {
		m := e.Embeds()[i]
		return kids[i].ScanRange(ctx, m.Scan(0), m.Where, kr, each)
	}, fn)
}

// StreamKeys streams the rows of entity e whose key is one of keys, read
// by r, each with its child rows, read by kids (one reader per embed of
// e, in the same snapshot as r) by the same keys on the parent's key: the
// parents and the child rows come in the same statements of keys, each in
// key order, so they meet.
func StreamKeys(ctx context.Context, r source.Reader, kids []source.Reader, e *mapping.Entity, keys []source.KeyBound, fn func(row []any, kids [][][]any, dup *mapping.RowError) error) error {
	return e.StreamEmbedded(ctx, func(each func([]any) error) error {
		return r.ScanKeys(ctx, e.Table, e.Where, keys, each)
	}, func(ctx context.Context, i int, each func([]any) error) error {
		m := e.Embeds()[i]
		return kids[i].ScanKeys(ctx, m.Scan(0), m.Where, keys, each)
	}, fn)
}

// StreamFirst streams the first limit rows of entity e (0: all of them)
// from r, each with its child rows, which kr read: one reader of the same
// snapshot per embed of e.
func StreamFirst(ctx context.Context, r source.Reader, kr []source.Reader, e *mapping.Entity, limit int, fn func(row []any, kids [][][]any, dup *mapping.RowError) error) error {
	return e.StreamEmbedded(ctx, func(each func([]any) error) error {
		return r.ScanTable(ctx, e.Table, e.Where, limit, each)
	}, func(ctx context.Context, i int, each func([]any) error) error {
		m := e.Embeds()[i]
		return kr[i].ScanTable(ctx, m.Scan(limit), m.Where, 0, each)
	}, fn)
}
