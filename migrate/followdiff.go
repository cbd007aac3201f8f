package migrate

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/dynamo"
	"github.com/remodel-dev/remodel/internal/domain/embedread"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/mapping"
)

// The diff pass (--follow): a change to a table cannot be traced to the
// items of an entity read from a view or a query (a join, an aggregate, a
// fan-out), so those entities are not followed row by row. When the
// follower is stopped cleanly (SIGINT or SIGTERM: the cutover), each of
// them is synchronised instead: its items in the table are read (a Scan
// filtered on the entity attribute, consistent reads), its rows are read
// from the source as it is now (one snapshot), and only the differences
// are written: an item put where the row renders one that is missing or
// differs, an item deleted where no row renders it any more. Nothing else
// writes these items while it runs (the follower has stopped). The
// entity's items are held in memory for the comparison.

// diffBatch is how many puts the diff pass gathers before it writes them.
const diffBatch = 1000

// FollowDiff is what the diff pass did for one entity read from a view or
// a query.
type FollowDiff struct {
	Entity    string `json:"entity"`
	Rows      int64  `json:"rows"`  // the source's rows, when the pass read them
	Items     int64  `json:"items"` // the entity's items in the table before the pass
	Unchanged int64  `json:"unchanged"`
	Puts      int64  `json:"puts"`
	Deletes   int64  `json:"deletes"`
	Rejected  int64  `json:"rejected"`
}

// diffPass synchronises every entity the follower does not follow row by
// row. ctx is not the run's (which the stop canceled): the pass is part
// of a clean stop.
func (f *follower) diffPass(ctx context.Context) error {
	for _, e := range f.fp.diffed {
		d, err := f.diffEntity(ctx, e)
		f.mu.Lock()
		f.rep.Diffed = append(f.rep.Diffed, d)
		f.mu.Unlock()
		if err != nil {
			return fmt.Errorf("migrate: --follow: the diff pass of entity %s: %w", e.Name, err)
		}
	}
	return nil
}

// diffEntity synchronises the items of entity e with its rows.
func (f *follower) diffEntity(ctx context.Context, e *mapping.Entity) (FollowDiff, error) {
	d := FollowDiff{Entity: e.Name}
	t := &f.o.Plan.Table
	have, err := f.entityItems(ctx, e)
	if err != nil {
		return d, err
	}
	d.Items = int64(len(have))

	snap, err := f.o.Source.Snapshot(ctx, 1+len(e.Embeds()))
	if err != nil {
		return d, err
	}
	defer snap.Close()
	rs := snap.Readers()
	var puts []pending
	flush := func() error {
		if err := f.write(ctx, puts); err != nil {
			return err
		}
		d.Puts += int64(len(puts))
		puts = puts[:0]
		return nil
	}
	rendered := map[string]string{} // item key → the source key of its row
	err = readRows(ctx, rs[0], embedread.NewPool(rs[1:]), e, source.KeyRange{}, func(row []any, kids [][][]any, dup *mapping.RowError) error {
		d.Rows++
		item, _, err := e.RenderRead(row, kids, dup)
		var re *mapping.RowError
		if errors.As(err, &re) {
			return f.diffReject(&d, Rejection{Entity: e.Name, Row: re.Key, Reason: re.Reason})
		}
		if err != nil {
			return err
		}
		k := t.KeyString(item)
		if prev, ok := rendered[k]; ok {
			return f.diffReject(&d, Rejection{Entity: e.Name, Row: e.SourceKey(row),
				Reason: fmt.Sprintf("key collision: renders the same key %s as entity %s row %s", k, e.Name, prev)})
		}
		rendered[k] = e.SourceKey(row)
		old, ok := have[k]
		delete(have, k)
		if ok && mapping.EqualItem(item, old) {
			d.Unchanged++
			return nil
		}
		puts = append(puts, pending{item: item, entity: e.Name, ent: e, key: e.KeyValues(row)})
		if len(puts) >= diffBatch {
			return flush()
		}
		return nil
	})
	if err != nil {
		return d, fmt.Errorf("reading its rows: %w", err)
	}
	if err := flush(); err != nil {
		return d, err
	}
	dels := make([]pending, 0, len(have))
	for _, it := range have {
		dels = append(dels, pending{item: t.KeyOf(it), entity: e.Name, del: true})
	}
	if err := f.write(ctx, dels); err != nil {
		return d, err
	}
	d.Deletes = int64(len(dels))
	f.mu.Lock()
	defer f.mu.Unlock()
	fe := f.entity(e.Name)
	fe.Puts += d.Puts
	fe.Deletes += d.Deletes
	fe.Rejected += d.Rejected
	f.rep.Puts += d.Puts
	f.rep.Deletes += d.Deletes
	return d, nil
}

// diffReject records a row of the diff pass that cannot become an item,
// unless this job rejected it already (the copy, or an earlier pass).
func (f *follower) diffReject(d *FollowDiff, rej Rejection) error {
	added, err := f.rej.addOnce(rej)
	if added {
		if f.tr != nil {
			f.tr.followRejected()
		}
		d.Rejected++
		f.mu.Lock()
		f.rep.Rejected++
		f.mu.Unlock()
	}
	return err
}

// entityItems reads the items of entity e in the table, by their key text.
func (f *follower) entityItems(ctx context.Context, e *mapping.Entity) (map[string]mapping.Item, error) {
	t := &f.o.Plan.Table
	in := dynamodb.ScanInput{
		TableName:                 aws.String(f.o.Table),
		FilterExpression:          aws.String("#e = :e"),
		ExpressionAttributeNames:  map[string]string{"#e": t.EntityAttr},
		ExpressionAttributeValues: map[string]types.AttributeValue{":e": &types.AttributeValueMemberS{Value: e.Name}},
	}
	have := map[string]mapping.Item{}
	var mu sync.Mutex
	err := dynamo.ScanAll(ctx, f.o.DB, in, f.items, func(page *dynamodb.ScanOutput) error {
		mu.Lock()
		defer mu.Unlock()
		for _, it := range page.Items {
			have[t.KeyString(it)] = it
		}
		return nil
	}, dynamo.AttemptTimeout(f.o.RequestTimeout))
	if err != nil {
		return nil, fmt.Errorf("scanning %s for its items: %w", f.o.Table, err)
	}
	return have, nil
}
