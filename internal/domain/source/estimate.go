package source

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"github.com/remodel-dev/remodel/internal/domain/introspect"
)

// Estimate is the planner's estimate of the rows of t (a table, view or
// query) matching where, from EXPLAIN: what the source's table statistics
// cannot say for an entity with a where, a view or a query. It costs a
// plan, not a read. ok is false when the plan gives no figure.

func (r *pgReader) Estimate(ctx context.Context, t *introspect.Table, w string) (n int64, ok bool, err error) {
	// A reader of a snapshot is in a transaction, which a failed statement
	// would abort for the reads that follow: the EXPLAIN goes inside a
	// savepoint, released or rolled back to.
	inTx := r.conn.PgConn().TxStatus() == 'T'
	if inTx {
		if _, err := r.conn.Exec(ctx, "SAVEPOINT remodel_estimate"); err != nil {
			return 0, false, fmt.Errorf("source: estimating the rows of %s: %w", pgLabel(t), err)
		}
	}
	var plan []byte
	qerr := r.conn.QueryRow(ctx, "EXPLAIN (FORMAT JSON) SELECT 1 FROM "+pgTable(t)+where(w)).Scan(&plan)
	if inTx {
		end := "RELEASE SAVEPOINT remodel_estimate"
		if qerr != nil {
			end = "ROLLBACK TO SAVEPOINT remodel_estimate"
		}
		if _, err := r.conn.Exec(ctx, end); err != nil {
			return 0, false, fmt.Errorf("source: estimating the rows of %s: %w", pgLabel(t), err)
		}
	}
	if qerr != nil {
		return 0, false, fmt.Errorf("source: estimating the rows of %s: %w", pgLabel(t), qerr)
	}
	n, ok = pgPlanRows(plan)
	return n, ok, nil
}

// pgPlanRows reads the top node's "Plan Rows" of PostgreSQL's EXPLAIN
// (FORMAT JSON).
func pgPlanRows(plan []byte) (int64, bool) {
	var p []struct {
		Plan struct {
			Rows *float64 `json:"Plan Rows"`
		} `json:"Plan"`
	}
	if json.Unmarshal(plan, &p) != nil || len(p) == 0 || p[0].Plan.Rows == nil {
		return 0, false
	}
	return int64(math.Round(*p[0].Plan.Rows)), true
}

func (r *myReader) Estimate(ctx context.Context, t *introspect.Table, w string) (n int64, ok bool, err error) {
	var plan []byte
	if err := r.conn.QueryRowContext(ctx, "EXPLAIN FORMAT=JSON SELECT 1 FROM "+myTable(t)+where(w)).Scan(&plan); err != nil {
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

// RowsTotal is a total for progress of the rows of t matching where: the
// table statistics' row count (exact or estimated) for a table read whole,
// or else the planner's estimate (a where, a view, a query), with exact
// false; known is false when neither gives one. A failed estimate is not
// an error: the total is then unknown.
func RowsTotal(ctx context.Context, r Reader, t *introspect.Table, where string) (n int64, exact, known bool) {
	if n, exact, known := t.Size.Rows(); known && where == "" {
		return n, exact, true
	}
	if n, ok, err := r.Estimate(ctx, t, where); err == nil && ok {
		return n, false, true
	}
	if n, _, known := t.Size.Rows(); known {
		return n, false, true // the table's rows: more than the where keeps
	}
	return 0, false, false
}
