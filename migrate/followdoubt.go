package migrate

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/mapping"
)

// Writes in doubt (a followed migration). A BatchWriteItem request that
// got no answer within --request-timeout, a 5xx or a cut connection may
// still be carried out by DynamoDB after the writer gave up on it and wrote
// the items again: long after, on a loaded DynamoDB. Such a request holds
// rows as they were when it was made (the copy's snapshot, or an earlier
// batch of the follower); landing after the follower applied a newer
// change of one of its rows, it would put the older state back (or delete
// an item a newer change put), silently. So the copy and the follower
// record the rows of every request in doubt in the checkpoint (they
// survive a stop and --resume), and the follower writes them again from
// the source as it is now at its clean stop, the cutover, after every
// batch before it: whatever such a request did is undone before the
// switch. An item whose row is gone since is deleted (the late request
// may have brought it back).

// doubtRow is a row of a request in doubt: its entity, its source key and
// the key of the item rendered from it (put or deleted).
type doubtRow struct {
	Entity string     `json:"entity"`
	Key    []keyValue `json:"key"`
	Item   []keyValue `json:"item"` // the item key's attributes, PK then SK: T is S, N or B
}

// followDoubted records the rows of a request in doubt (writer.doubted).
func (tr *tracker) followDoubted(items []pending) error {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	fs := tr.file.Follow
	if fs == nil {
		return nil
	}
	if tr.doubted == nil {
		tr.doubted = map[string]bool{}
		for _, d := range fs.Doubtful {
			tr.doubted[fmt.Sprint(d.Entity, d.Key)] = true
		}
	}
	for _, p := range items {
		if p.ent == nil || p.key == nil {
			continue // not a row's item (none of the copy's or the follower's)
		}
		key, err := encodeKey(p.key)
		if err != nil {
			return fmt.Errorf("migrate: recording a write in doubt of entity %s: %w", p.entity, err)
		}
		id := fmt.Sprint(p.entity, key)
		if tr.doubted[id] {
			continue
		}
		item, err := encodeDoubtKey(tr.plan.Table.KeyOf(p.item), &tr.plan.Table)
		if err != nil {
			return fmt.Errorf("migrate: recording a write in doubt of entity %s: %w", p.entity, err)
		}
		tr.doubted[id] = true
		fs.Doubtful = append(fs.Doubtful, doubtRow{Entity: p.entity, Key: key, Item: item})
	}
	return nil
}

// encodeDoubtKey is an item key's attributes in the table's key order.
func encodeDoubtKey(k mapping.Item, t *mapping.Table) ([]keyValue, error) {
	names := []string{t.PK.Name}
	if t.SK != nil {
		names = append(names, t.SK.Name)
	}
	out := make([]keyValue, 0, len(names))
	for _, n := range names {
		switch v := k[n].(type) {
		case *types.AttributeValueMemberS:
			out = append(out, keyValue{"S", v.Value})
		case *types.AttributeValueMemberN:
			out = append(out, keyValue{"N", v.Value})
		case *types.AttributeValueMemberB:
			out = append(out, keyValue{"B", string(v.Value)})
		default:
			return nil, fmt.Errorf("key attribute %s is %T", n, k[n])
		}
	}
	return out, nil
}

// decodeDoubtKey is encodeDoubtKey's item key.
func decodeDoubtKey(kv []keyValue, t *mapping.Table) (mapping.Item, error) {
	names := []string{t.PK.Name}
	if t.SK != nil {
		names = append(names, t.SK.Name)
	}
	if len(kv) != len(names) {
		return nil, fmt.Errorf("an item key of %d attributes, the table's has %d", len(kv), len(names))
	}
	k := mapping.Item{}
	for i, v := range kv {
		switch v.T {
		case "S":
			k[names[i]] = &types.AttributeValueMemberS{Value: v.V}
		case "N":
			k[names[i]] = &types.AttributeValueMemberN{Value: v.V}
		case "B":
			k[names[i]] = &types.AttributeValueMemberB{Value: []byte(v.V)}
		default:
			return nil, fmt.Errorf("an item key attribute of type %q", v.T)
		}
	}
	return k, nil
}

// doubtful is the checkpoint's rows in doubt, as a touched set: the
// rows to read again, the item keys to delete unless a row renders them.
func (f *follower) doubtful() (touched, error) {
	tc := newTouched()
	if f.tr == nil {
		return tc, nil
	}
	st := f.tr.followState()
	byName := map[string]*mapping.Entity{}
	for _, e := range f.fp.ents {
		byName[e.Name] = e
	}
	for _, d := range st.Doubtful {
		e := byName[d.Entity]
		if e == nil {
			return tc, fmt.Errorf("migrate: the checkpoint's rows in doubt name entity %s, which the mapping does not have", d.Entity)
		}
		k, err := decodeKey(d.Key)
		if err != nil {
			return tc, fmt.Errorf("migrate: the checkpoint's rows in doubt: %w", err)
		}
		item, err := decodeDoubtKey(d.Item, f.w.table)
		if err != nil {
			return tc, fmt.Errorf("migrate: the checkpoint's rows in doubt: %w", err)
		}
		addRow(&tc, e, k)
		tc.dels[f.w.table.KeyString(item)] = pending{item: item, entity: e.Name, del: true}
	}
	return tc, nil
}

// settleDoubts writes the rows in doubt again from the source as it
// is now (see the top of this file); it returns how many rows it read
// again.
func (f *follower) settleDoubts(ctx context.Context) (int, error) {
	tc, err := f.doubtful()
	if err != nil || len(tc.dels) == 0 {
		return 0, err
	}
	if _, err := f.redo(ctx, &tc); err != nil {
		return 0, fmt.Errorf("migrate: --follow: writing again the %d rows of requests in doubt: %w", len(tc.dels), err)
	}
	return len(tc.dels), nil
}
