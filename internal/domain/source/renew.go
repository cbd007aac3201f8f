package source

import (
	"context"
	"errors"
)

// Renewable is a Snapshot whose connections can take a new snapshot of the
// source: the follower reads the changed rows of each batch in a snapshot
// of its own, and renews one on the connections it keeps rather than
// opening new ones (a connection, a transaction and an exported snapshot
// each time cost more than the reads of a small batch).
type Renewable interface {
	Snapshot
	// Release ends the readers' transactions, so that the source holds
	// nothing for them between batches; the connections stay open.
	Release(ctx context.Context) error
	// Renew starts the readers' transactions again, in one new snapshot of
	// the source as it is now (after Release). On an error the snapshot
	// is to be closed.
	Renew(ctx context.Context) error
}

// ErrNotRenewable is Renew's answer when a snapshot of several readers
// cannot line them up again on its connections.
var ErrNotRenewable = errors.New("source: this snapshot cannot be renewed on its connections")
