package source

import (
	"context"
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
