package mysql

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"github.com/remodel-dev/remodel/internal/domain/source"

	"github.com/remodel-dev/remodel/introspect"
)

// Estimate is the planner's estimate of the rows of t (a table, view or
// query) matching where, from EXPLAIN: what the source's table statistics
// cannot say for an entity with a where, a view or a query. It costs a
// plan, not a read. ok is false when the plan gives no figure.
func (r *myReader) Estimate(ctx context.Context, t *introspect.Table, w string) (n int64, ok bool, err error) {
	var plan []byte
	if err := r.conn.QueryRowContext(ctx, "EXPLAIN FORMAT=JSON SELECT 1 FROM "+myTable(t)+source.WhereClause(w)).Scan(&plan); err != nil {
		return 0, false, fmt.Errorf("source: estimating the rows of %s: %w", myLabel(t), err)
	}
	n, ok = myPlanRows(plan)
	return n, ok, nil
}

// myPlanRows estimates the rows of MySQL's or MariaDB's EXPLAIN
// FORMAT=JSON: the rows each table of the outer query block reads, times
// the share its conditions keep (filtered, %), multiplied over a nested
// loop.
func myPlanRows(plan []byte) (int64, bool) {
	type table struct {
		Rows     *float64 `json:"rows"`
		Filtered *float64 `json:"filtered"`
	}
	var p struct {
		QueryBlock struct {
			Table      *table `json:"table"`
			NestedLoop []struct {
				Table *table `json:"table"`
			} `json:"nested_loop"`
		} `json:"query_block"`
	}
	if json.Unmarshal(plan, &p) != nil {
		return 0, false
	}
	tables := []*table{p.QueryBlock.Table}
	if p.QueryBlock.Table == nil {
		tables = tables[:0]
		for _, n := range p.QueryBlock.NestedLoop {
			tables = append(tables, n.Table)
		}
	}
	est, any := 1.0, false
	for _, t := range tables {
		if t == nil || t.Rows == nil {
			continue
		}
		share := 1.0
		if t.Filtered != nil {
			share = *t.Filtered / 100
		}
		est *= *t.Rows * share
		any = true
	}
	if !any {
		return 0, false
	}
	return int64(math.Round(est)), true
}
