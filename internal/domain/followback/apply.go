package followback

import (
	"context"
	"errors"
	"fmt"

	"time"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/mapping"
)

// errLoop stops follow-back when a forward run (migrate) writes into the
// table: its changes must never come back.
var errLoop = errors.New("a migrate run took the table's lock while follow-back runs: its writes would be applied back; follow-back stops (stop the migrate run, then follow-back --resume)")

// outcome is what became of one record.
type outcome int

const (
	done     outcome = iota // applied, found applied, or dead-lettered
	deferred                // refused for now: retried
)

// readBack reads an image back into its entity's row: exactly one entity
// must match it and be followed back. It returns the entity's name, for
// the dead letter, and why it cannot when it cannot.
func readBack(p *mapping.Plan, img mapping.Item) (*mapping.Row, string, string) {
	if img == nil {
		return nil, "", ""
	}
	es := p.MatchItem(img)
	switch len(es) {
	case 0:
		return nil, "", fmt.Sprintf("the item %s matches no entity's key templates", p.Table.KeyString(img))
	case 1:
	default:
		return nil, "", fmt.Sprintf("the item %s matches the key templates of several entities (%s): an item is never given to one by a guess", p.Table.KeyString(img), mapping.EntityNames(es))
	}
	e := es[0]
	r, err := e.RowOf(img)
	if err != nil {
		return nil, e.Name, err.Error()
	}
	return r, e.Name, ""
}

// apply writes one record's item change back into the source.
func (f *follower) apply(ctx context.Context, r *record) (outcome, string, error) {
	old, oldEntity, why := readBack(f.o.Plan, r.old)
	entity := oldEntity
	if why == "" {
		var newEntity string
		var nw *mapping.Row
		nw, newEntity, why = readBack(f.o.Plan, r.new)
		if newEntity != "" {
			entity = newEntity
		}
		if why == "" {
			return f.write(ctx, r, entity, mapping.RowChanges(old, nw))
		}
		if r.old != nil {
			why = "new image: " + why
		}
	} else if r.new != nil {
		why = "old image: " + why
	}
	return done, "", f.deadLetter(r, entity, why)
}

// write applies the row changes of a record in one transaction.
func (f *follower) write(ctx context.Context, r *record, entity string, cs []mapping.RowChange) (outcome, string, error) {
	if len(cs) == 0 {
		f.count(entity, func(c *EntityCount) { c.Applied++ })
		return done, "", nil
	}
	ws := make([]source.RowWrite, len(cs))
	for i, c := range cs {
		ws[i] = source.RowWrite{Op: source.WriteOp(c.Op), Table: c.Table, Key: values(c.Key), Old: values(c.Old), New: values(c.New), Row: c.Row}
	}
	out, err := f.wb.Apply(ctx, ws)
	if err != nil {
		return done, "", err
	}
	switch out.Kind {
	case source.Applied:
		f.count(entity, func(c *EntityCount) {
			c.Applied++
			c.Rows += int64(len(ws) - out.Already)
		})
		f.mu.Lock()
		f.rep.AlreadyApplied += int64(out.Already)
		f.mu.Unlock()
		return done, "", nil
	case source.Conflict:
		return done, "", f.deadLetter(r, entity, "conflict: "+out.Reason+"; the row is left as the source has it")
	}
	return deferred, out.Reason, nil
}

// values converts the mapping's column values into the source's.
func values(cvs []mapping.ColumnValue) []source.ColumnValue {
	out := make([]source.ColumnValue, len(cvs))
	for i, cv := range cvs {
		out[i] = source.ColumnValue{Column: cv.Column, Value: cv.Value}
	}
	return out
}

// deadLetter writes the record to the dead-letter file; past
// --max-dead-letters it stops the run.
func (f *follower) deadLetter(r *record, entity, reason string) error {
	if err := f.dl.write(r, entity, reason); err != nil {
		return err
	}
	f.count(entity, func(c *EntityCount) { c.DeadLetters++ })
	f.mu.Lock()
	f.rep.DeadLetters++
	n := f.rep.DeadLetters
	f.mu.Unlock()
	if n > f.o.MaxDeadLetters {
		return &TooManyError{N: n, Max: f.o.MaxDeadLetters, Path: f.dl.path, Last: reason}
	}
	return nil
}

// TooManyError stops a run whose dead letters are more than
// --max-dead-letters.
type TooManyError struct {
	N, Max int64
	Path   string
	Last   string
}

func (e *TooManyError) Error() string {
	return fmt.Sprintf("followback: %d dead letters, more than --max-dead-letters %d (see %s); the last: %s", e.N, e.Max, e.Path, e.Last)
}

// count updates an entity's counts ("" counts under no entity).
func (f *follower) count(entity string, fn func(*EntityCount)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if entity == "" {
		entity = "(none)"
	}
	c := f.per[entity]
	if c == nil {
		c = &EntityCount{Entity: entity}
		f.per[entity] = c
	}
	fn(c)
}

// waiting is a record deferred, with the records of the same item after
// it, which wait behind it: one item's changes apply in stream order.
type waiting struct {
	recs   []*inflight
	since  time.Time
	reason string
}

// retry applies the deferred records again, each item's in order; one
// refused for longer than DeferFor becomes a dead letter.
func (f *follower) retry(ctx context.Context) error {
	for _, key := range f.waitOrder {
		w := f.waiting[key]
		for len(w.recs) > 0 {
			in := w.recs[0]
			out, why, err := f.apply(ctx, in.r)
			if err != nil {
				return err
			}
			if out == deferred {
				w.reason = why
				if time.Since(w.since) < f.o.DeferFor {
					break
				}
				if err := f.deadLetter(in.r, "", fmt.Sprintf("refused for %s, retried: %s", f.o.DeferFor, why)); err != nil {
					in.done = true
					w.recs = w.recs[1:]
					f.done(in.r)
					return err
				}
			}
			in.done = true
			w.recs = w.recs[1:]
			f.done(in.r)
			w.since = time.Now()
		}
	}
	keep := f.waitOrder[:0]
	for _, key := range f.waitOrder {
		if len(f.waiting[key].recs) > 0 {
			keep = append(keep, key)
		} else {
			delete(f.waiting, key)
		}
	}
	f.waitOrder = keep
	return nil
}
