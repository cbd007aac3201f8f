package preview

import (
	"context"
	"encoding/base64"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/embedread"
	"github.com/remodel-dev/remodel/internal/domain/progress"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/mapping"
)

// CollectionOptions choose the item collections Collections shows.
type CollectionOptions struct {
	// Partitions are table partition key values (as text: a number's
	// digits, binary as base64); none: Count are chosen.
	Partitions []string
	// Count is how many partitions are chosen when Partitions is empty
	// (0: 3): among the first ScanRows rows of each entity, the most
	// varied and largest item collections, one at a time, each preferring
	// the entities the ones chosen before do not show (choose).
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
		stats := map[string]*partitionStats{}
		phase := prog.Phase("choose", "rows", renderTasks(p.Entities, o.ScanRows))
		for n, e := range p.Entities {
			err := embedread.StreamFirst(ctx, r, kr, e, o.ScanRows, func(row []any, kids [][][]any, dup *mapping.RowError) error {
				defer phase.Counter(n).Add(1)
				item, _, err := e.RenderRead(row, kids, dup)
				if err != nil {
					return nil // a rejected row is in no partition
				}
				pk := keyText(item[pkName])
				if pk == "" {
					return nil
				}
				st := stats[pk]
				if st == nil {
					st = &partitionStats{key: pk, seen: len(stats), entities: map[string]bool{}}
					stats[pk] = st
				}
				st.items++
				st.entities[e.Name] = true
				return nil
			})
			if err != nil {
				phase.End(false)
				return nil, nil, fmt.Errorf("preview: reading entity %s: %w", e.Name, err)
			}
			phase.Counter(n).Finish()
		}
		phase.End(true)
		chosen = choose(stats, o.Count)
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

// partitionStats is one partition key value among the rows read: its
// items and their entities.
type partitionStats struct {
	key      string
	seen     int // the order it was first seen in
	items    int
	entities map[string]bool
}

// choose picks count partitions, one at a time: the one with the most
// entities the partitions chosen before do not show, then the most
// entities, then the most items, then the first seen. So the example data
// shows the largest, most varied item collections and, between them, as
// many entities as it can (a mapping whose first entity is a lookup table
// does not show only its rows).
func choose(stats map[string]*partitionStats, count int) []string {
	var chosen []string
	shown := map[string]bool{}
	taken := map[string]bool{}
	for len(chosen) < count {
		var best *partitionStats
		bestNew := 0
		for _, st := range stats {
			if taken[st.key] {
				continue
			}
			fresh := 0
			for e := range st.entities {
				if !shown[e] {
					fresh++
				}
			}
			better := best == nil || fresh > bestNew
			if !better && fresh == bestNew {
				switch {
				case len(st.entities) != len(best.entities):
					better = len(st.entities) > len(best.entities)
				case st.items != best.items:
					better = st.items > best.items
				default:
					better = st.seen < best.seen
				}
			}
			if better {
				best, bestNew = st, fresh
			}
		}
		if best == nil {
			break
		}
		taken[best.key] = true
		for e := range best.entities {
			shown[e] = true
		}
		chosen = append(chosen, best.key)
	}
	return chosen
}

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
