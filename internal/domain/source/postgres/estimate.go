package postgres

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
	qerr := r.conn.QueryRow(ctx, "EXPLAIN (FORMAT JSON) SELECT 1 FROM "+pgTable(t)+source.WhereClause(w)).Scan(&plan)
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
