package verify

import (
	"context"
	"fmt"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"
)

// scanSegments is how many parallel Scan segments count the table.
const scanSegments = 4

// counts compares source row counts with item counts per entity, and finds
// items that belong to no entity.
func (v *verifier) counts(ctx context.Context, rep *Report) error {
	per := map[string]int64{}
	var stray StrayItems
	var mu sync.Mutex
	known := map[string]bool{}
	for _, e := range v.o.Plan.Entities {
		known[e.Name] = true
	}
	proj := expression.NamesList(expression.Name(v.t.EntityAttr), expression.Name(v.t.PK.Name))
	if v.t.SK != nil {
		proj = proj.AddNames(expression.Name(v.t.SK.Name))
	}
	expr, err := expression.NewBuilder().WithProjection(proj).Build()
	if err != nil {
		return fmt.Errorf("verify: building the scan projection: %w", err)
	}
	g, gctx := errgroup.WithContext(ctx)
	for seg := range scanSegments {
		g.Go(func() error {
			p := dynamodb.NewScanPaginator(v.o.DB, &dynamodb.ScanInput{
				TableName:                aws.String(v.o.Table),
				ProjectionExpression:     expr.Projection(),
				ExpressionAttributeNames: expr.Names(),
				Segment:                  aws.Int32(int32(seg)),
				TotalSegments:            aws.Int32(scanSegments),
				ConsistentRead:           aws.Bool(true),
			})
			local := map[string]int64{}
			var strays []string
			var nstray int64
			for p.HasMorePages() {
				page, err := p.NextPage(gctx)
				if err != nil {
					return fmt.Errorf("verify: scanning %s: %w", v.o.Table, err)
				}
				for _, it := range page.Items {
					s, ok := it[v.t.EntityAttr].(*types.AttributeValueMemberS)
					if ok && known[s.Value] {
						local[s.Value]++
						continue
					}
					nstray++
					if len(strays) < 10 {
						strays = append(strays, v.t.KeyString(it))
					}
				}
			}
			mu.Lock()
			defer mu.Unlock()
			for k, n := range local {
				per[k] += n
			}
			stray.Count += nstray
			for _, s := range strays {
				if len(stray.Examples) < 10 {
					stray.Examples = append(stray.Examples, s)
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	rep.Stray = stray
	for _, e := range v.o.Plan.Entities {
		n, err := v.r.Count(ctx, e.Table, e.Where)
		if err != nil {
			return fmt.Errorf("verify: counting entity %s: %w", e.Name, err)
		}
		rep.Counts = append(rep.Counts, CountCheck{Entity: e.Name, Source: n, Items: per[e.Name], OK: n == per[e.Name]})
	}
	return nil
}
