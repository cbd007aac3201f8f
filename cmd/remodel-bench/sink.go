package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/remodel-dev/remodel/internal/domain/backoff"
	"github.com/remodel-dev/remodel/internal/domain/dynamo"
	"github.com/remodel-dev/remodel/internal/domain/embedread"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/mapping"
	"github.com/remodel-dev/remodel/migrate"
)

// pool is a set of items rendered by remodel's own mapping from the source's
// rows: the raw sink writes these, so its items have the size distribution
// remodel's have.
type pool struct {
	items    []mapping.Item
	pk       string // the table's partition key attribute (type S)
	rejected int    // rows the mapping rejected (left out of the pool)
	// DynamoDB sizes of the pool's items, in bytes.
	sizeSum, sizeMin, sizeMax int
}

func (p *pool) meanSize() float64 {
	if len(p.items) == 0 {
		return 0
	}
	return float64(p.sizeSum) / float64(len(p.items))
}

// buildPool renders about most items, taking from each entity the first rows
// in proportion to its share of the rows (every row when the source has at
// most that many rows).
func buildPool(ctx context.Context, plan *mapping.Plan, src source.Source, counts map[string]int64, most int) (*pool, error) {
	if plan.Table.PK.Type != "S" {
		return nil, fmt.Errorf("bench: the raw sink needs a string partition key; %s is %s", plan.Table.PK.Name, plan.Table.PK.Type)
	}
	var total int64
	for _, n := range counts {
		total += n
	}
	snap, err := src.Snapshot(ctx, 1+plan.MaxEmbeds())
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	r, kr := snap.Readers()[0], snap.Readers()[1:] // kr read embedded rows, as preview does
	p := &pool{pk: plan.Table.PK.Name, sizeMin: math.MaxInt}
	for _, e := range plan.Entities {
		limit := 0 // every row
		if total > int64(most) {
			limit = int(math.Ceil(float64(counts[e.Name]) * float64(most) / float64(total)))
		}
		err := embedread.StreamFirst(ctx, r, kr, e, limit, func(row []any, kids [][][]any, dup *mapping.RowError) error {
			item, size, err := e.RenderRead(row, kids, dup)
			if err != nil {
				var re *mapping.RowError
				if errors.As(err, &re) {
					p.rejected++
					return nil
				}
				return err
			}
			p.sizeSum += size
			p.sizeMin = min(p.sizeMin, size)
			p.sizeMax = max(p.sizeMax, size)
			p.items = append(p.items, item)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if len(p.items) == 0 {
		return nil, errors.New("bench: the mapping renders no item from the source")
	}
	return p, nil
}

// item returns the pool's i-th item, cycling through the pool. The items
// of the first cycle are the pool's own; later cycles append "~cycle" to the
// partition key, so every item written has a key of its own (a put onto an
// existing key would replace an item and the table would hold fewer).
func (p *pool) item(i int64) mapping.Item {
	n := int64(len(p.items))
	it := p.items[i%n]
	cycle := i / n
	if cycle == 0 {
		return it
	}
	out := make(mapping.Item, len(it))
	for k, v := range it {
		out[k] = v
	}
	pk := it[p.pk].(*types.AttributeValueMemberS)
	out[p.pk] = &types.AttributeValueMemberS{Value: pk.Value + "~" + strconv.FormatInt(cycle, 10)}
	return out
}

// rawSink writes n items from the pool into the table with BatchWriteItem,
// 25 per request, from writers goroutines sharing one client, through the
// client path remodel's writers use, retrying what comes back unprocessed. It returns the time the writes took.
func rawSink(ctx context.Context, db *dynamo.Client, table string, p *pool, n int64, writers int) (time.Duration, error) {
	const batch = 25
	var next atomic.Int64
	batches := (n + batch - 1) / batch
	start := time.Now()
	g, ctx := errgroup.WithContext(ctx)
	for range writers {
		g.Go(func() error {
			for {
				b := next.Add(1) - 1
				if b >= batches {
					return nil
				}
				lo, hi := b*batch, min((b+1)*batch, n)
				reqs := make([]types.WriteRequest, 0, hi-lo)
				for i := lo; i < hi; i++ {
					reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: p.item(i)}})
				}
				if err := writeBatch(ctx, db, table, reqs); err != nil {
					return err
				}
			}
		})
	}
	err := g.Wait()
	return time.Since(start), err
}

// writeBatch writes one batch as remodel's writers send it
// (dynamo.Client.WriteBatch: the direct path, one attempt with a deadline,
// no ReturnConsumedCapacity), retrying what comes back unprocessed with
// the same backoff, until its deadline.
func writeBatch(ctx context.Context, db *dynamo.Client, table string, reqs []types.WriteRequest) error {
	err := backoff.Default.Do(ctx, func(int) (bool, error) {
		out, err := db.WriteBatch(ctx, &dynamodb.BatchWriteItemInput{
			RequestItems: map[string][]types.WriteRequest{table: reqs},
		}, migrate.DefaultRequestTimeout)
		if err != nil {
			return false, fmt.Errorf("bench: writing %d items: %w", len(reqs), err)
		}
		reqs = out.UnprocessedItems[table]
		return len(reqs) > 0, nil
	})
	if errors.As(err, new(*backoff.GaveUp)) {
		return fmt.Errorf("bench: %d items still unprocessed after %s", len(reqs), backoff.Default.Deadline)
	}
	return err
}
