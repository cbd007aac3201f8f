package postgres

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/source"
)

// WaitVisible asks a new snapshot of the server (pg_current_snapshot, on a
// connection of its own) until it shows every transaction of txns
// committed: a snapshot taken after one that shows them shows them too.
func (s *pgSource) WaitVisible(ctx context.Context, txns []*source.Txn) error {
	if len(txns) == 0 {
		return nil
	}
	s.vis.Lock()
	defer s.vis.Unlock()
	deadline := time.Now().Add(source.VisibleWithin)
	var wait time.Duration
	for {
		snap, err := s.currentSnapshot(ctx)
		if err != nil {
			return err
		}
		x, ok := snap.firstInvisible(txns)
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("source: transaction %d, which the change stream handed out as committed, is not visible to new snapshots of %s after %s", x, s.where(), source.VisibleWithin)
		}
		wait = source.VisiblePoll(wait)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
}

// currentSnapshot is a new snapshot of the server, on the connection
// WaitVisible keeps (opened on first use; closed with the source).
func (s *pgSource) currentSnapshot(ctx context.Context) (pgSnapshotIDs, error) {
	if s.visConn == nil {
		c, err := s.connect(ctx)
		if err != nil {
			return pgSnapshotIDs{}, err
		}
		s.visConn = c
	}
	var text string
	err := source.Worded("reading the current snapshot", s.step(ctx, "reading the current snapshot", func(ctx context.Context) error {
		return s.visConn.QueryRow(ctx, "SELECT pg_current_snapshot()::text").Scan(&text)
	}))
	if err != nil {
		s.visConn.Close(context.Background())
		s.visConn = nil
		return pgSnapshotIDs{}, err
	}
	return parsePGSnapshot(text)
}

// closeVisible closes WaitVisible's connection.
func (s *pgSource) closeVisible() {
	s.vis.Lock()
	defer s.vis.Unlock()
	if s.visConn != nil {
		s.visConn.Close(context.Background())
		s.visConn = nil
	}
}

// pgSnapshotIDs is a snapshot's transaction ids (pg_snapshot's text form
// xmin:xmax:xip,...): every transaction before xmin is finished, none from
// xmax on is visible, and those in xip were running when it was taken.
type pgSnapshotIDs struct {
	xmin, xmax uint64
	xip        map[uint64]bool
}

// parsePGSnapshot reads pg_snapshot's text form.
func parsePGSnapshot(text string) (pgSnapshotIDs, error) {
	parts := strings.Split(text, ":")
	if len(parts) != 3 {
		return pgSnapshotIDs{}, fmt.Errorf("source: reading the current snapshot: %q is not xmin:xmax:xip", text)
	}
	var s pgSnapshotIDs
	var err error
	if s.xmin, err = strconv.ParseUint(parts[0], 10, 64); err == nil {
		s.xmax, err = strconv.ParseUint(parts[1], 10, 64)
	}
	if err != nil {
		return pgSnapshotIDs{}, fmt.Errorf("source: reading the current snapshot %q: %w", text, err)
	}
	s.xip = map[uint64]bool{}
	if parts[2] != "" {
		for _, x := range strings.Split(parts[2], ",") {
			id, err := strconv.ParseUint(x, 10, 64)
			if err != nil {
				return pgSnapshotIDs{}, fmt.Errorf("source: reading the current snapshot %q: %w", text, err)
			}
			s.xip[id] = true
		}
	}
	return s, nil
}

// firstInvisible is the first transaction of txns (by its 32-bit id, as
// the stream has it) the snapshot does not show committed; ok when it
// shows them all.
func (s pgSnapshotIDs) firstInvisible(txns []*source.Txn) (uint64, bool) {
	for _, t := range txns {
		if t.Xact == 0 {
			continue
		}
		if x := s.full(uint32(t.Xact)); !s.visible(x) {
			return uint64(uint32(t.Xact)), false
		}
	}
	return 0, true
}

// full is a 32-bit transaction id as the 64-bit one of the snapshot's
// epoch: the latest such id before xmax.
func (s pgSnapshotIDs) full(x uint32) uint64 {
	f := s.xmax&^0xffffffff | uint64(x)
	if f >= s.xmax && f >= 1<<32 {
		f -= 1 << 32
	}
	return f
}

// visible says whether the transaction x is finished in the snapshot (a
// transaction the stream handed out committed: finished is committed).
func (s pgSnapshotIDs) visible(x uint64) bool {
	return x < s.xmin || x < s.xmax && !s.xip[x]
}
