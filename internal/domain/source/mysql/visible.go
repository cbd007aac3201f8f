package mysql

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/remodel-dev/remodel/internal/domain/source"
)

// WaitVisible waits, by a locking read of one row each changed (LOCK IN
// SHARE MODE, in a statement of its own), until the transactions of txns
// hold no lock: InnoDB releases a transaction's locks once it has
// committed, so a snapshot taken after shows it. MariaDB, and MySQL with
// binlog_order_commits (its default), commit transactions in the binlog's
// order: the last of txns with a row to lock is enough; otherwise every
// one is waited for.
func (s *mySource) WaitVisible(ctx context.Context, txns []*source.Txn) error {
	if len(txns) == 0 {
		return nil
	}
	ordered, err := s.ordersCommits(ctx)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(source.VisibleWithin)
	for i := len(txns) - 1; i >= 0; i-- { // the last first
		q, args := lockingRead(txns[i])
		if q == "" {
			continue // no row with a primary key: an earlier one stands for it
		}
		if err := s.waitUnlocked(ctx, q, args, deadline); err != nil {
			return err
		}
		if ordered {
			return nil // the earlier ones committed before it
		}
	}
	return nil
}

// waitUnlocked runs the locking read q until it is granted (a lock wait
// timeout is asked again until deadline).
func (s *mySource) waitUnlocked(ctx context.Context, q string, args []any, deadline time.Time) error {
	for {
		rows, err := s.db.QueryContext(ctx, q, args...)
		if err == nil {
			rows.Close()
			return nil
		}
		var me *mysql.MySQLError
		if !errors.As(err, &me) || me.Number != 1205 || time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("source: waiting until a transaction the binlog handed out is visible to new snapshots of %s (%s): %w", s.where(), q, err)
		}
	}
}

// ordersCommits reports whether the server commits transactions in the
// binlog's order (binlog_order_commits), read once.
func (s *mySource) ordersCommits(ctx context.Context) (bool, error) {
	s.visMu.Lock()
	defer s.visMu.Unlock()
	if s.ordered != nil {
		return *s.ordered, nil
	}
	v := "ON" // MariaDB has no such setting: it always commits in the binlog's order
	err := s.step(ctx, "reading binlog_order_commits", func(ctx context.Context) error {
		err := s.db.QueryRowContext(ctx, "SELECT @@GLOBAL.binlog_order_commits").Scan(&v)
		var me *mysql.MySQLError
		if errors.As(err, &me) && me.Number == 1193 { // unknown system variable
			return nil
		}
		return err
	})
	if err != nil {
		return false, source.Worded("reading binlog_order_commits", err)
	}
	ordered := v == "1" || strings.EqualFold(v, "ON")
	s.ordered = &ordered
	return ordered, nil
}

// lockingRead is the locking read of the first row txn changed that has a
// primary key ("" when none has).
func lockingRead(txn *source.Txn) (string, []any) {
	d := myDialect
	for _, c := range txn.Changes {
		row := c.New
		if row == nil {
			row = c.Old
		}
		t := c.Table
		if t == nil || row == nil || len(t.PrimaryKey) == 0 {
			continue
		}
		conds := make([]string, 0, len(t.PrimaryKey))
		args := make([]any, 0, len(t.PrimaryKey))
		for _, name := range t.PrimaryKey {
			i := t.ColumnIndex(name)
			if i < 0 || i >= len(row) || row[i] == nil {
				conds = nil
				break
			}
			conds = append(conds, d.QuoteIdent(name)+" = ?")
			args = append(args, row[i])
		}
		if conds == nil {
			continue
		}
		return "SELECT 1 FROM " + d.TableRef(t) + " WHERE " + strings.Join(conds, " AND ") + " LOCK IN SHARE MODE", args
	}
	return "", nil
}
