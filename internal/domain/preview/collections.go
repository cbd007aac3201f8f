package preview

import (
	"context"
	"encoding/base64"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/embedread"
	"github.com/remodel-dev/remodel/internal/domain/mapping"
	"github.com/remodel-dev/remodel/internal/domain/progress"
	"github.com/remodel-dev/remodel/internal/domain/source"
)

// CollectionOptions choose the item collections Collections shows.
type CollectionOptions struct {
	// Partitions are table partition key values (as text: a number's
	// digits, binary as base64); none: Count are chosen.
	Partitions []string
	// Count is how many partitions are chosen when Partitions is empty:
	// the partition of the first item of each entity whose items no chosen
	// partition holds yet, in mapping order (0: 3).
	Count int
	// ScanRows is how many rows of each entity are read, in key order, to
	// find the items of the partitions (0: 10 000).
	ScanRows int
}

// Collections renders a few item collections whole: every item of every
// entity whose table partition key is one of the chosen partitions (found
// among the first ScanRows rows of each entity), so that a reader sees a
// partition as DynamoDB holds it, across entities. It returns the result
// (each entity's items of those partitions) and the partitions, in order.
// prog (nil: none) gets a "render" phase: per entity, the rows read.
func Collections(ctx context.Context, p *mapping.Plan, src source.Source, o CollectionOptions, prog *progress.Tracker) (*Result, []string, error) {
	if o.Count <= 0 {
		o.Count = 3
	}
	if o.ScanRows <= 0 {
		o.ScanRows = 10000
	}
	snap, err := src.Snapshot(ctx, 1+p.MaxEmbeds())
	if err != nil {
		return nil, nil, err
	}
	defer snap.Close()
	r, kr := snap.Readers()[0], snap.Readers()[1:]
	pkName := p.Table.PK.Name
	chosen := slices.Clone(o.Partitions)
	if len(chosen) == 0 {
		for _, e := range p.Entities {
			if len(chosen) == o.Count {
				break
			}
			// One read of the entity's first rows: its first item's
			// partition, and whether a chosen partition holds its items.
			var first string
			held, n := false, 0
			err := embedread.StreamFirst(ctx, r, kr, e, heldRows, func(row []any, kids [][][]any, dup *mapping.RowError) error {
				n++
				item, _, err := e.RenderRead(row, kids, dup)
				if err != nil {
					return nil // a row of no partition
				}
				pk := keyText(item[pkName])
				if n == 1 {
					first = pk
				}
				held = held || slices.Contains(chosen, pk)
				return nil
			})
			if err != nil {
				return nil, nil, fmt.Errorf("preview: reading entity %s: %w", e.Name, err)
			}
			if first != "" && !held {
				chosen = append(chosen, first)
			}
		}
	}
	want := map[string]bool{}
	for _, pk := range chosen {
		want[pk] = true
	}
	res := &Result{Version: ResultVersion, Table: Table(&p.Table)}
	phase := prog.Phase("render", "rows", renderTasks(p.Entities, o.ScanRows))
	complete := false
	defer func() { phase.End(complete) }()
	res.Entities, err = renderFirst(ctx, r, kr, p.Entities, o.ScanRows, phase, func(item mapping.Item) bool {
		return want[keyText(item[pkName])]
	})
	if err != nil {
		return nil, nil, err
	}
	complete = true
	return res, chosen, nil
}

// heldRows is how many of an entity's first rows tell whether a chosen
// partition already holds its items.
const heldRows = 100

// keyText is a key attribute's value as text: a string as it is, a
// number's digits, binary as base64; "" for none.
func keyText(v types.AttributeValue) string {
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		return x.Value
	case *types.AttributeValueMemberN:
		return x.Value
	case *types.AttributeValueMemberB:
		return base64.StdEncoding.EncodeToString(x.Value)
	}
	return ""
}
