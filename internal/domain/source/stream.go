package source

import (
	"context"
	"fmt"
	"time"

	"github.com/remodel-dev/remodel/introspect"
)

// Position is a place in a source's history of committed changes: on
// PostgreSQL a WAL position (LSN, "0/16B3748"). Only the engine's own code
// compares positions; elsewhere they are shown and saved as they are.
type Position string

// ChangeKind is what a change did to a row.
type ChangeKind int

// The kinds of change.
const (
	Insert ChangeKind = iota + 1
	Update
	Delete
)

func (k ChangeKind) String() string {
	switch k {
	case Insert:
		return "insert"
	case Update:
		return "update"
	case Delete:
		return "delete"
	}
	return fmt.Sprintf("change(%d)", int(k))
}

// Change is one row a committed transaction inserted, updated or deleted.
// Old and New hold one canonical value per column of Table (as ScanTable
// reads them) or are nil: New for a delete, Old when the source did not
// send the row before (an update that kept the key of a table whose
// replica identity is its key). OldFull says whether Old holds every
// column (replica identity FULL) or only the key's (the other columns are
// nil).
type Change struct {
	Table   *introspect.Table
	Kind    ChangeKind
	Old     []any
	OldFull bool
	New     []any
}

// MaxTxnPart is how many changes of one transaction a stream holds in
// memory at most: a larger transaction (an UPDATE of a million rows) is
// handed over in parts of this many changes.
const MaxTxnPart = 10000

// Txn is the changes of one committed transaction to the followed tables,
// in the order it made them, or a part of them.
type Txn struct {
	Changes []Change
	// Part is set on every part of a transaction larger than MaxTxnPart
	// but the last: it has no End, and the parts after it follow; the
	// last part has End (and may hold no change).
	Part bool
	// End is where the transaction ends in the source's history:
	// acknowledging it (Stream.Ack) lets the source free what it kept.
	End Position
	// Commit is when it committed, by the source's clock.
	Commit time.Time
	// Xact is the source's number of the transaction where snapshots can
	// be asked whether they show it (WaitVisible), 0 where not.
	Xact uint64
}

// Stream is a source's change stream: the committed transactions to the
// followed tables, in commit order, from where the last run acknowledged.
// It is not safe for concurrent use, but Ack, Status and Head may be
// called while Next waits.
type Stream interface {
	// Next returns the next committed transaction, waiting for one until
	// ctx is done. A stream never waits without a deadline: a connection
	// that brings nothing (no change, no keepalive or heartbeat) for longer
	// than the source promises is opened again from the last whole
	// transaction handed out, a few times, and then Next fails with the
	// reason. A change the stream cannot hand over exactly (a schema change
	// of a followed table, a row image without the columns the follower
	// needs) ends Next with a *StopError, never a skipped change.
	Next(ctx context.Context) (*Txn, error)
	// Ack records that every transaction up to p is applied and recorded
	// in remodel's checkpoint; the source is told at the next status
	// update, and keeps nothing before it. Only positions given to Ack are
	// ever told to the source, so the source never holds less than the
	// checkpoint needs.
	Ack(p Position)
	// Status is where the source is and what was applied.
	Status() StreamStatus
	// Head reads where the source's history ends now from the server
	// itself (pg_current_wal_lsn(), SHOW MASTER STATUS), on a connection
	// of its own, within the source's deadlines: never from what the
	// stream said. The stream keeps the reading: until it has received
	// every change up to that head and every one of them is applied,
	// Status says it is not caught up, and Behind is at least the time
	// since the reading.
	Head(ctx context.Context) (Position, error)
	Close() error
}

// StopError is a change the stream cannot hand over exactly: a schema
// change of a followed table, a row image without the columns the follower
// needs. The follower stops with it, and --follow --resume is refused with
// the same reason: going on cannot make the table exact.
type StopError struct {
	// Table is the followed table's qualified name.
	Table string
	// What happened ("column note was dropped", "an update's row image
	// lacks column category: binlog_row_image is MINIMAL").
	What string
	// Fix is what to do.
	Fix string
}

func (e *StopError) Error() string {
	return "source: " + e.Table + ": " + e.What + "; " + e.Fix
}

// KeepAliver is a Stream that must tell the source it is alive while
// nobody calls Next (the follower is busy applying): PostgreSQL ends a
// replication connection silent for wal_sender_timeout. The goroutine that
// calls Next calls KeepAlive instead, at least every few seconds, while it
// waits to hand a transaction on.
type KeepAliver interface {
	KeepAlive(ctx context.Context) error
}

// StreamStatus is the lag of a change stream.
type StreamStatus struct {
	// Source is the furthest of what the stream received and what the
	// server said its head is (Head). Applied is the position up to which
	// every change is applied: the last acknowledged, or, when every
	// transaction received is acknowledged, the last position received
	// (a transaction of no followed table needs nothing applied).
	Source, Applied Position
	// Behind is how long ago the oldest transaction received but not
	// acknowledged committed, or, when longer, how long ago the oldest
	// head reading that the stream has not yet received and applied was
	// read (0 only when caught up).
	Behind time.Duration
	// CaughtUp says that the last head reading (Head) has been received
	// and everything received is applied. False before any reading.
	CaughtUp bool
	// HeadRead is when the head was last read (zero: never).
	HeadRead time.Time
}

// FollowOptions say which changes a stream carries and how the source keeps
// them for the follower.
type FollowOptions struct {
	// Slot names what keeps the changes for the follower (PostgreSQL: a
	// logical replication slot).
	Slot string
	// Publication is the PostgreSQL publication of the tables; remodel
	// creates it when it does not exist.
	Publication string
	// Tables are the tables followed; FullRows are those whose rows are
	// needed whole before an update or delete (their replica identity must
	// be FULL).
	Tables, FullRows []*introspect.Table
	// From is where OpenStream starts: the last position the follower
	// applied (or the copy's start), as remodel's checkpoint saved it. A
	// PostgreSQL slot keeps its own position and does not need it; a
	// source without slots (MySQL's binlog) starts there.
	From Position
	// TxnPart is how many changes of one transaction the stream hands
	// over at most at a time (0: MaxTxnPart; tests set it low).
	TxnPart int
}

// PartSize is o's part size: TxnPart, or MaxTxnPart when it is 0.
func (o FollowOptions) PartSize() int {
	if o.TxnPart > 0 {
		return o.TxnPart
	}
	return MaxTxnPart
}

// FollowStart is where a followed copy starts: its snapshot's readers, the
// position of that snapshot in the source's history (the stream's first
// change comes after it), and whether the publication was created for it.
type FollowStart struct {
	Snapshot           Snapshot
	Position           Position
	PublicationCreated bool
}

// Follower is a source that can follow its changes.
type Follower interface {
	// CheckFollow checks, before anything is created, that the source can
	// follow o's tables, and says what to change when it cannot.
	CheckFollow(ctx context.Context, o FollowOptions) error
	// StartFollow creates what keeps the changes for the follower (a
	// publication and a replication slot) and opens n readers in a
	// snapshot of the very point the stream starts from.
	StartFollow(ctx context.Context, o FollowOptions, n int) (FollowStart, error)
	// StartShared is StartFollow for one shard of a job whose shards copy
	// in separate processes (sharedstart.go): the first shard creates what
	// keeps the changes, a later one takes a snapshot after its start.
	StartShared(ctx context.Context, o FollowOptions, n int) (FollowStart, error)
	// Earliest is the earliest of positions of this source's history.
	Earliest(ps []Position) (Position, error)
	// OpenStream starts the change stream from where the slot stands.
	OpenStream(ctx context.Context, o FollowOptions) (Stream, error)
	// DropFollow removes the slot and, when dropPublication, the
	// publication; dropped says whether there was a slot to drop.
	DropFollow(ctx context.Context, o FollowOptions, dropPublication bool) (dropped bool, err error)
}

// AsFollower is src as a Follower, or an error naming the engine when it
// cannot follow its changes.
func AsFollower(src Source) (Follower, error) {
	if f, ok := src.(Follower); ok {
		return f, nil
	}
	return nil, fmt.Errorf("source: following changes of %s is not supported", src.Engine())
}
