package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pglogrepl"
	"github.com/remodel-dev/remodel/internal/domain/source"
)

// FollowInfo reads the WAL's head and the slot in pg_replication_slots.
func (s *pgSource) FollowInfo(ctx context.Context, slot string, applied source.Position) (source.FollowInfo, error) {
	info := source.FollowInfo{Behind: -1, Retained: -1}
	const q = `WITH h AS (SELECT CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_lsn() END AS lsn)
SELECT h.lsn::text, s.slot_name IS NOT NULL, coalesce(s.active, false), coalesce(s.restart_lsn::text, ''),
       coalesce(pg_wal_lsn_diff(h.lsn, s.restart_lsn)::bigint, -1)
FROM h LEFT JOIN pg_replication_slots s ON s.slot_name = $1`
	var head, restart string
	doing := "reading replication slot " + slot
	err := s.step(ctx, doing, func(ctx context.Context) error {
		return s.conn.QueryRow(ctx, q, slot).Scan(&head, &info.Slot, &info.Active, &restart, &info.Retained)
	})
	if err != nil {
		return info, source.Worded(doing, err)
	}
	info.Head, info.Restart = source.Position(head), source.Position(restart)
	h, err := pglogrepl.ParseLSN(head)
	if err != nil {
		return info, fmt.Errorf("source: %s: the WAL's head %q: %w", doing, head, err)
	}
	if applied == "" {
		return info, nil
	}
	a, err := pglogrepl.ParseLSN(string(applied))
	if err != nil {
		return info, fmt.Errorf("source: %q is not a PostgreSQL WAL position: %w", applied, err)
	}
	info.Ahead = h > a
	info.Behind = max(int64(h)-int64(a), 0)
	return info, nil
}
