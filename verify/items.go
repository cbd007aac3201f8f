package verify

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/mapping"
)

// ItemCheck compares every row's expected item with the stored one.
type ItemCheck struct {
	Entity    string   `json:"entity"`
	Compared  int64    `json:"compared"`
	Missing   int64    `json:"missing"`
	Different int64    `json:"different"`
	Rejected  int64    `json:"unrenderable_rows"`
	Problems  Problems `json:"problems"`
	OK        bool     `json:"ok"`
}

// getBatch is BatchGetItem's limit on keys per request.
const getBatch = 100

type expected struct {
	item mapping.Item
	row  string
}

// items renders every row of the entity and compares the expected item with
// the stored one, attribute by attribute, 100 keys per BatchGetItem.
func (v *verifier) items(ctx context.Context, e *mapping.Entity) (ItemCheck, error) {
	ic := ItemCheck{Entity: e.Name, Problems: v.problems()}
	batch := make(map[string]expected, getBatch)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		got, err := v.batchGet(ctx, batch)
		if err != nil {
			return err
		}
		for k, exp := range batch {
			ic.Compared++
			have, ok := got[k]
			if !ok {
				ic.Missing++
				ic.Problems.Addf(Problem{Kind: KindMissing, Entity: e.Name, Key: k, SourceKey: exp.row}, "missing item %s (entity %s, row %s)", k, e.Name, exp.row)
				continue
			}
			v.claim(k)
			if diffs := Diff(exp.item, have); len(diffs) > 0 {
				ic.Different++
				ic.Problems.Addf(Problem{Kind: KindDifferent, Entity: e.Name, Key: k, SourceKey: exp.row}, "item %s (entity %s, row %s) differs: %s", k, e.Name, exp.row, joinDiffs(diffs))
			}
		}
		clear(batch)
		return nil
	}
	err := v.r.ScanTable(ctx, e.Table, e.Where, 0, func(row []any) error {
		if v.acceptedReject(e, row) {
			return nil
		}
		item, err := e.Render(row)
		if err != nil {
			var re *mapping.RowError
			if !errors.As(err, &re) {
				return err
			}
			ic.Rejected++
			ic.Problems.Addf(Problem{Kind: KindUnrenderable, Entity: e.Name, SourceKey: re.Key}, "row %s of entity %s cannot become an item: %s", re.Key, e.Name, re.Reason)
			return nil
		}
		k := v.t.KeyString(item)
		if prev, dup := batch[k]; dup {
			ic.Problems.Addf(Problem{Kind: KindDuplicateKey, Entity: e.Name, Key: k, SourceKey: e.SourceKey(row)}, "rows %s and %s of entity %s render the same key %s", prev.row, e.SourceKey(row), e.Name, k)
			ic.Different++
			return nil
		}
		batch[k] = expected{item: item, row: e.SourceKey(row)}
		if len(batch) == getBatch {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	if err != nil {
		return ic, fmt.Errorf("verify: comparing items of entity %s: %w", e.Name, err)
	}
	ic.OK = ic.Missing == 0 && ic.Different == 0 && ic.Rejected == 0
	return ic, nil
}

// batchGet fetches the items with the batch's keys (consistent reads),
// retrying unprocessed keys, and returns them by key string.
func (v *verifier) batchGet(ctx context.Context, batch map[string]expected) (map[string]mapping.Item, error) {
	keys := make([]map[string]types.AttributeValue, 0, len(batch))
	for _, exp := range batch {
		keys = append(keys, v.t.KeyOf(exp.item))
	}
	got := make(map[string]mapping.Item, len(batch))
	for attempt := 0; len(keys) > 0; attempt++ {
		if attempt > 0 {
			if attempt > 12 {
				return nil, fmt.Errorf("%d keys still unprocessed after %d attempts", len(keys), attempt)
			}
			wait := time.Duration(rand.N(int64(min(5*time.Second, 50*time.Millisecond<<attempt))))
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(wait):
			}
		}
		out, err := v.o.DB.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{
			RequestItems: map[string]types.KeysAndAttributes{v.o.Table: {Keys: keys, ConsistentRead: aws.Bool(true)}},
		})
		if err != nil {
			return nil, fmt.Errorf("reading items from %s: %w", v.o.Table, err)
		}
		for _, it := range out.Responses[v.o.Table] {
			got[v.t.KeyString(it)] = it
		}
		keys = out.UnprocessedKeys[v.o.Table].Keys
	}
	return got, nil
}
