package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/remodel-dev/remodel/internal/domain/source"
)

// pgHeadAsk is how often a PostgreSQL stream asks the server where it has
// sent up to while a head reading is ahead of what the stream received: an
// idle server says so in a keepalive, and the stream is caught up. A
// variable for the tests.
var pgHeadAsk = 250 * time.Millisecond

// pgReadings is how many head readings a stream keeps at most; when they
// are that many, the last takes the newer position and keeps its time (the
// lag is overstated, never understated).
const pgReadings = 32

// headReading is where the server's WAL ended when the stream read it.
type headReading struct {
	pos pglogrepl.LSN
	at  time.Time
}

// Head is where the server's WAL ends now: pg_current_wal_lsn() (on a
// standby, what it replayed), read on the stream's own connection. The
// stream keeps the reading until it has received and applied up to it.
func (st *pgStream) Head(ctx context.Context) (source.Position, error) {
	at := time.Now()
	var text string
	err := st.onAdmin(ctx, "reading the WAL's head", func(ctx context.Context, c *pgx.Conn) error {
		return c.QueryRow(ctx, "SELECT (CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_lsn() END)::text").Scan(&text)
	})
	if err != nil {
		return "", err
	}
	lsn, err := pglogrepl.ParseLSN(text)
	if err != nil {
		return "", fmt.Errorf("source: reading the WAL's head on %s: %w", st.where, err)
	}
	st.read(headReading{pos: lsn, at: at})
	return source.Position(lsn.String()), nil
}

// read keeps a head reading and, when the stream has not received up to
// it, wakes Next to ask the server where it has sent up to.
func (st *pgStream) read(r headReading) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.lastHead = r
	if n := len(st.readings); n == pgReadings {
		st.readings[n-1].pos = r.pos
	} else {
		st.readings = append(st.readings, r)
	}
	if st.waiting && st.received() < r.pos {
		st.interrupt()
	}
}

// Status is the stream's lag: see StreamStatus. Readings the stream has
// applied are dropped.
func (st *pgStream) Status() source.StreamStatus {
	st.mu.Lock()
	defer st.mu.Unlock()
	applied := st.applied()
	for len(st.readings) > 0 && st.readings[0].pos <= applied {
		st.readings = st.readings[1:]
	}
	s := source.StreamStatus{
		Source:   source.Position(max(st.received(), st.lastHead.pos).String()),
		Applied:  source.Position(applied.String()),
		HeadRead: st.lastHead.at,
		CaughtUp: !st.lastHead.at.IsZero() && applied >= st.lastHead.pos && len(st.pending) == 0 && !st.receiving,
	}
	var oldest time.Time // the oldest of what is not applied
	since := func(t time.Time) {
		if oldest.IsZero() || t.Before(oldest) {
			oldest = t
		}
	}
	if len(st.pending) > 0 {
		since(st.pending[0].commit)
	}
	if st.receiving {
		since(st.recvAt)
	}
	if len(st.readings) > 0 {
		since(st.readings[0].at)
	}
	if !oldest.IsZero() {
		s.Behind = max(0, time.Since(oldest))
	}
	return s
}

// onAdmin runs fn on the stream's own connection within the source's
// set-up deadline. The stream owns that connection: neither the
// replication connection (which only streams) nor the source's (a pgx.Conn
// is not safe for concurrent use, and Head is called while other code uses
// it). It is opened at first use and kept until Close; one that failed is
// closed, and the next use opens another.
func (st *pgStream) onAdmin(ctx context.Context, doing string, fn func(context.Context, *pgx.Conn) error) error {
	st.adminMu.Lock()
	defer st.adminMu.Unlock()
	if st.closed {
		return fmt.Errorf("source: %s on %s: the stream is closed", doing, st.where)
	}
	if st.admin == nil {
		c, err := st.src.connect(ctx)
		if err != nil {
			return err
		}
		st.admin = c
	}
	err := st.src.step(ctx, doing, func(ctx context.Context) error { return fn(ctx, st.admin) })
	if err == nil {
		return nil
	}
	var pe *pgconn.PgError
	if !errors.As(err, &pe) { // the connection may be in any state
		cctx, cancel := st.src.Deadlines.CleanUp()
		defer cancel()
		st.admin.Close(cctx)
		st.admin = nil
	}
	return source.Worded(doing+" on "+st.where, err)
}

// closeAdmin closes the stream's own connection, if open, for good.
func (st *pgStream) closeAdmin() {
	st.adminMu.Lock()
	defer st.adminMu.Unlock()
	st.closed = true
	if st.admin != nil {
		ctx, cancel := st.src.Deadlines.CleanUp()
		defer cancel()
		st.admin.Close(ctx)
		st.admin = nil
	}
}
