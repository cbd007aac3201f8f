package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/remodel-dev/remodel/internal/domain/backoff"
)

// pgSilence is how long a PostgreSQL replication connection may bring
// nothing, no change and not even the keepalive each status update asks
// for, before the stream takes it for dead. A variable for the tests.
var pgSilence = 3 * statusEvery

// pgReconnects is how many new connections in a row a stream opens when
// the server is not heard before it gives up.
const pgReconnects = 3

// pgReconnectWait is how long a stream waits before its first new
// connection; the n-th waits n times as long. A variable for the tests.
var pgReconnectWait = time.Second

// silent handles a replication connection silent for st.silence: it is
// closed, and a new one streams from the slot, up to pgReconnects times
// while the server is not heard; then the stream fails with the reason.
// When ctx ends first, the stream is left without a connection, and the
// next Next goes on from there.
func (st *pgStream) silent(ctx context.Context) error {
	var last error
	for st.retries < pgReconnects {
		st.retries++
		st.drop()
		if err := backoff.Sleep(ctx, time.Duration(st.retries)*pgReconnectWait); err != nil {
			return err
		}
		if last = st.reopen(ctx); last == nil {
			return nil
		}
		if ctx.Err() != nil { // Next opens one again, if called again
			return ctx.Err()
		}
	}
	what := fmt.Sprintf("source: following slot %s on %s: nothing received for %s, not even the keepalives asked for", st.slot, st.where, st.silence)
	if last != nil {
		st.failed = fmt.Errorf("%s; %d new connections in a row failed: %w", what, st.retries, last)
	} else {
		st.failed = fmt.Errorf("%s, on %d new connections in a row", what, st.retries)
	}
	return st.failed
}

// drop closes the replication connection, remembering its backend: the
// server may not know yet that it is gone, and keeps the slot for it.
func (st *pgStream) drop() {
	if st.conn == nil {
		return
	}
	st.dead = st.conn.PID()
	ctx, cancel := st.src.Deadlines.CleanUp()
	defer cancel()
	st.conn.Close(ctx)
	st.conn = nil
}

// reopen ends the backend of the connection given up, if it still holds
// the slot, and streams from the slot again after the last whole
// transaction received: the server skips what committed before it, and
// sends again what was received of the next one, which is dropped here.
func (st *pgStream) reopen(ctx context.Context) error {
	err := st.onAdmin(ctx, "ending the silent connection of slot "+st.slot, func(ctx context.Context, c *pgx.Conn) error {
		_, err := c.Exec(ctx, "SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = $1 AND active_pid = $2", st.slot, int64(st.dead))
		return err
	})
	if err != nil {
		return err
	}
	st.mu.Lock()
	from := max(st.handed, st.acked)
	st.receiving = false
	st.mu.Unlock()
	st.cur, st.parts = nil, 0
	st.rels = map[uint32]*pgRelation{} // the new connection describes them again
	return st.start(ctx, from)
}
