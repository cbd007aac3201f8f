package source

import (
	"context"
	"fmt"

	"github.com/jackc/pglogrepl"
)

// FollowInfo is where a followed migration stands on its source, read
// without its stream (remodel status): where the source's log ends now,
// how far that is past what was applied, and, on PostgreSQL, the slot and
// the WAL it holds back.
type FollowInfo struct {
	// Head is where the source's log ends now (pg_current_wal_lsn(), SHOW
	// MASTER STATUS).
	Head Position
	// Ahead says that Head is past the applied position asked about;
	// Behind is by how many bytes of log (-1: not known, as between two
	// binlog files).
	Ahead  bool
	Behind int64
	// Slot says whether the replication slot exists (PostgreSQL; a MySQL
	// binlog keeps no position for remodel: false), Active whether a
	// process streams from it now, Restart its restart_lsn and Retained
	// the bytes of WAL it holds back: Head - restart_lsn (-1: not known).
	Slot     bool
	Active   bool
	Restart  Position
	Retained int64
}

// FollowInspector reads a followed migration's FollowInfo: the slot (""
// on MySQL) and the position applied (its checkpoint's).
type FollowInspector interface {
	FollowInfo(ctx context.Context, slot string, applied Position) (FollowInfo, error)
}

// FollowInfo reads the WAL's head and the slot in pg_replication_slots.
func (s *pgSource) FollowInfo(ctx context.Context, slot string, applied Position) (FollowInfo, error) {
	info := FollowInfo{Behind: -1, Retained: -1}
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
		return info, worded(doing, err)
	}
	info.Head, info.Restart = Position(head), Position(restart)
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

// FollowInfo reads the binlog's head (SHOW MASTER STATUS); a binlog has
// no slot.
func (s *mySource) FollowInfo(ctx context.Context, _ string, applied Position) (FollowInfo, error) {
	info := FollowInfo{Behind: -1, Retained: -1}
	const doing = "reading the binlog's head (SHOW MASTER STATUS)"
	c, err := s.conn(ctx)
	if err != nil {
		return info, err
	}
	defer c.Close()
	var head binlogPos
	err = s.step(ctx, doing, func(ctx context.Context) (err error) {
		head, err = masterStatus(ctx, c)
		return err
	})
	if err != nil {
		return info, worded(doing, err)
	}
	head.GTID = "" // the position, not the GTID state
	info.Head = Position(head.String())
	if applied == "" {
		return info, nil
	}
	a, err := parseBinlogPos(applied)
	if err != nil {
		return info, err
	}
	info.Ahead = head.compare(a) > 0
	if head.File == a.File {
		info.Behind = max(int64(head.Pos)-int64(a.Pos), 0)
	}
	return info, nil
}
