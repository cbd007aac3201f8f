package postgres

import (
	"context"
	"fmt"
)

// Guard runs fn inside a savepoint: PostgreSQL aborts the whole transaction
// at a statement's first error, and the snapshot would be lost for every
// later statement.
func (r *pgReader) Guard(ctx context.Context, fn func() error) error {
	if _, err := r.conn.Exec(ctx, "SAVEPOINT remodel_guard"); err != nil {
		return fmt.Errorf("source: setting a savepoint: %w", err)
	}
	if err := fn(); err != nil {
		if _, rerr := r.conn.Exec(ctx, "ROLLBACK TO SAVEPOINT remodel_guard"); rerr != nil {
			return fmt.Errorf("%w (and rolling back to the savepoint: %v)", err, rerr)
		}
		_, _ = r.conn.Exec(ctx, "RELEASE SAVEPOINT remodel_guard")
		return err
	}
	if _, err := r.conn.Exec(ctx, "RELEASE SAVEPOINT remodel_guard"); err != nil {
		return fmt.Errorf("source: releasing a savepoint: %w", err)
	}
	return nil
}
