package source

import (
	"context"
	"time"
)

// VisibilityWaiter is a Source that can wait until the transactions its
// change stream handed out are visible to new snapshots. A stream may hand
// a transaction out a moment before the source shows it to other sessions
// (PostgreSQL's walsender decodes a commit record before the committing
// backend leaves the process array; MySQL sends the binlog before the
// storage engine commits): a snapshot taken in that moment reads the rows
// as they were, and the follower would write the old state back. The
// follower waits here before it takes the snapshot of a batch's rows.
type VisibilityWaiter interface {
	// WaitVisible returns once every transaction of txns is visible to a
	// snapshot taken from then on, or fails after VisibleWithin with the
	// transaction it waited for.
	WaitVisible(ctx context.Context, txns []*Txn) error
}

// VisibleWithin is how long WaitVisible waits for a transaction the stream
// handed out to become visible: the moment is a few microseconds on a
// healthy server; a lock held by a transaction that has not committed yet
// (MySQL) may keep it longer.
var VisibleWithin = 2 * time.Minute

// VisiblePoll is the wait before asking again, growing from 1 ms by half
// each time up to 50 ms.
func VisiblePoll(d time.Duration) time.Duration {
	if d == 0 {
		return time.Millisecond
	}
	return min(d+d/2+time.Millisecond, 50*time.Millisecond)
}
