package postgres

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5"
	"github.com/remodel-dev/remodel/internal/domain/source"
)

// StartShared is StartFollow for a shard of a job: it creates the slot,
// or, when a sibling shard created it, opens n readers in a snapshot taken
// after the slot's start, whose position is the slot's.
func (s *pgSource) StartShared(ctx context.Context, o source.FollowOptions, n int) (source.FollowStart, error) {
	unlock, err := s.lockSlotName(ctx, o.Slot)
	if err != nil {
		return source.FollowStart{}, err
	}
	defer unlock()
	var confirmed string
	var active bool
	err = s.step(ctx, "reading replication slot "+o.Slot, func(ctx context.Context) error {
		return s.conn.QueryRow(ctx, "SELECT coalesce(confirmed_flush_lsn::text, ''), active FROM pg_replication_slots WHERE slot_name = $1", o.Slot).Scan(&confirmed, &active)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return s.StartFollow(ctx, o, n)
	}
	if err != nil {
		return source.FollowStart{}, fmt.Errorf("source: reading replication slot %s: %w", o.Slot, err)
	}
	if active || confirmed == "" {
		return source.FollowStart{}, fmt.Errorf("source: replication slot %s on %s is in use by another process (a follower of it runs): a shard of a job starts before its follower does; give the job a slot of its own (--slot)", o.Slot, s.where())
	}
	created, err := s.publish(ctx, o)
	if err != nil {
		return source.FollowStart{}, err
	}
	snap, err := s.Snapshot(ctx, n)
	if err != nil {
		return source.FollowStart{}, err
	}
	return source.FollowStart{Snapshot: snap, Position: source.Position(confirmed), PublicationCreated: created}, nil
}

// lockSlotName takes the session's advisory lock on the slot's name, for
// at most sharedStartWait; unlock releases it.
func (s *pgSource) lockSlotName(ctx context.Context, slot string) (unlock func(), err error) {
	h := fnv.New64a()
	h.Write([]byte("remodel slot " + slot))
	key := int64(h.Sum64())
	wctx, cancel := context.WithTimeout(ctx, sharedStartWait)
	defer cancel()
	if _, err := s.conn.Exec(wctx, "SELECT pg_advisory_lock($1)", key); err != nil {
		if ctx.Err() == nil && wctx.Err() != nil {
			return nil, fmt.Errorf("source: waiting %s for a sibling shard that creates replication slot %s on %s: it did not finish", sharedStartWait, slot, s.where())
		}
		return nil, fmt.Errorf("source: taking the advisory lock of replication slot %s: %w", slot, unwrapPG(err))
	}
	return func() {
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.Deadlines.SetUp())
		defer cancel()
		_, _ = s.conn.Exec(uctx, "SELECT pg_advisory_unlock($1)", key) // a session that ends releases it too
	}, nil
}

// Earliest is the earliest of the WAL positions ps.
func (s *pgSource) Earliest(ps []source.Position) (source.Position, error) {
	var best source.Position
	var at pglogrepl.LSN
	for _, p := range ps {
		l, err := pglogrepl.ParseLSN(string(p))
		if err != nil {
			return "", fmt.Errorf("source: %q is not a PostgreSQL WAL position: %w", p, err)
		}
		if best == "" || l < at {
			best, at = p, l
		}
	}
	return best, nil
}

// sharedStartWait bounds how long a shard waits for a sibling that
// creates the slot (the creation waits for the transactions running then).
const sharedStartWait = 5 * time.Minute
