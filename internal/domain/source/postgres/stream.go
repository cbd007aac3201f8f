package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/remodel-dev/remodel/internal/domain/backoff"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/introspect"
)

// statusEvery is how often a PostgreSQL stream tells the server what was
// applied (the server also asks, and ends a replication connection silent
// for wal_sender_timeout, 60 s by default). A variable for the tests.
var statusEvery = 10 * time.Second

// replConn opens a replication connection (replication=database) with the
// source's settings and connect deadline.
func (s *pgSource) replConn(ctx context.Context) (*pgconn.PgConn, error) {
	cfg := s.cfg.Config.Copy()
	cfg.RuntimeParams["replication"] = "database"
	var c *pgconn.PgConn
	err := s.Deadlines.Connect(ctx, func(ctx context.Context) (err error) {
		c, err = pgconn.ConnectConfig(ctx, cfg)
		return err
	})
	if err != nil {
		var na *source.NoAnswerError
		if !errors.As(err, &na) {
			err = unwrapPG(err)
		}
		return nil, fmt.Errorf("source: opening a replication connection to %s as %s: %w", s.where(), s.cfg.User, err)
	}
	return c, nil
}

// CheckFollow checks the server's settings, the user's privileges, a free
// replication slot (unless o.Slot exists) and the replica identity of the
// tables whose old rows are needed whole.
func (s *pgSource) CheckFollow(ctx context.Context, o source.FollowOptions) error {
	return s.step(ctx, "checking that changes can be followed", func(ctx context.Context) error {
		var level string
		if err := s.conn.QueryRow(ctx, "SHOW wal_level").Scan(&level); err != nil {
			return fmt.Errorf("source: reading wal_level: %w", err)
		}
		if level != "logical" {
			return fmt.Errorf("source: following changes needs wal_level = logical on %s, which has %s: set it (ALTER SYSTEM SET wal_level = logical) and restart the server", s.where(), level)
		}
		var repl bool
		if err := s.conn.QueryRow(ctx, "SELECT rolsuper OR rolreplication FROM pg_roles WHERE rolname = current_user").Scan(&repl); err != nil {
			return fmt.Errorf("source: reading the user's privileges: %w", err)
		}
		if !repl {
			return fmt.Errorf("source: following changes needs the REPLICATION privilege, which user %s does not have: ALTER ROLE %s REPLICATION", s.cfg.User, pgIdent(s.cfg.User))
		}
		var exists bool
		var free int
		err := s.conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_replication_slots WHERE slot_name = $1),
			current_setting('max_replication_slots')::int - (SELECT count(*) FROM pg_replication_slots)`, o.Slot).Scan(&exists, &free)
		if err != nil {
			return fmt.Errorf("source: reading the replication slots: %w", err)
		}
		if !exists && free < 1 {
			return fmt.Errorf("source: following changes needs a free replication slot on %s, and all max_replication_slots are used: drop one that is not needed (pg_drop_replication_slot) or raise max_replication_slots", s.where())
		}
		var need []string
		for _, t := range o.FullRows {
			var ident string
			if err := s.conn.QueryRow(ctx, "SELECT relreplident::text FROM pg_class WHERE oid = $1::regclass", pgIdent(t.Schema)+"."+pgIdent(t.Name)).Scan(&ident); err != nil {
				return fmt.Errorf("source: reading the replica identity of %s: %w", t.QualifiedName(), err)
			}
			if ident != "f" {
				need = append(need, "ALTER TABLE "+pgIdent(t.Schema)+"."+pgIdent(t.Name)+" REPLICA IDENTITY FULL;")
			}
		}
		if len(need) > 0 {
			return fmt.Errorf("source: following these tables needs their rows whole before an update or delete (an item key, or an embed's link, uses columns outside the primary key), which PostgreSQL sends only with REPLICA IDENTITY FULL: %s", strings.Join(need, " "))
		}
		return nil
	})
}

// StartFollow creates the publication (unless it exists) and the slot,
// exporting the snapshot of the slot's starting point, and opens n readers
// in that snapshot: the copy they read and the changes the slot keeps meet
// with no gap and no overlap.
func (s *pgSource) StartFollow(ctx context.Context, o source.FollowOptions, n int) (source.FollowStart, error) {
	created, err := s.publish(ctx, o)
	if err != nil {
		return source.FollowStart{}, err
	}
	repl, err := s.replConn(ctx)
	if err != nil {
		return source.FollowStart{}, err
	}
	// The exported snapshot lives until the next command on repl: the
	// readers import it first.
	defer repl.Close(context.Background())
	var res pglogrepl.CreateReplicationSlotResult
	err = s.step(ctx, "creating replication slot "+o.Slot, func(ctx context.Context) (err error) {
		res, err = pglogrepl.CreateReplicationSlot(ctx, repl, o.Slot, "pgoutput", pglogrepl.CreateReplicationSlotOptions{SnapshotAction: "EXPORT_SNAPSHOT", Mode: pglogrepl.LogicalReplication})
		return err
	})
	if err != nil {
		return source.FollowStart{}, fmt.Errorf("source: creating replication slot %s: %w", o.Slot, err)
	}
	snap := &pgSnapshot{}
	if err := s.importSnapshot(ctx, snap, n, res.SnapshotName); err != nil {
		snap.Close()
		return source.FollowStart{}, err
	}
	return source.FollowStart{Snapshot: snap, Position: source.Position(res.ConsistentPoint), PublicationCreated: created}, nil
}

// publish creates the publication of o's tables unless it exists (created
// says it did), and checks that an existing one publishes every table.
func (s *pgSource) publish(ctx context.Context, o source.FollowOptions) (created bool, err error) {
	err = s.step(ctx, "creating publication "+o.Publication, func(ctx context.Context) error {
		rows, err := s.conn.Query(ctx, "SELECT schemaname, tablename FROM pg_publication_tables WHERE pubname = $1", o.Publication)
		if err != nil {
			return fmt.Errorf("source: reading publication %s: %w", o.Publication, err)
		}
		published := map[string]bool{}
		for rows.Next() {
			var schema, table string
			if err := rows.Scan(&schema, &table); err != nil {
				rows.Close()
				return err
			}
			published[schema+"."+table] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("source: reading publication %s: %w", o.Publication, err)
		}
		var exists bool
		if err := s.conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_publication WHERE pubname = $1)", o.Publication).Scan(&exists); err != nil {
			return fmt.Errorf("source: reading publication %s: %w", o.Publication, err)
		}
		var names, missing []string
		for _, t := range o.Tables {
			names = append(names, pgIdent(t.Schema)+"."+pgIdent(t.Name))
			if !published[t.Schema+"."+t.Name] {
				missing = append(missing, t.QualifiedName())
			}
		}
		if exists {
			if len(missing) > 0 {
				return fmt.Errorf("source: publication %s does not publish %s: add them (ALTER PUBLICATION ... ADD TABLE) or name another publication", o.Publication, strings.Join(missing, ", "))
			}
			return nil
		}
		create := "CREATE PUBLICATION " + pgIdent(o.Publication)
		if len(names) > 0 { // none: every entity is diffed at the stop, no table is followed
			create += " FOR TABLE " + strings.Join(names, ", ")
		}
		if _, err := s.conn.Exec(ctx, create); err != nil {
			return fmt.Errorf("source: creating publication %s: %w (a user who cannot create it can name one that exists with --publication)", o.Publication, unwrapPG(err))
		}
		created = true
		return nil
	})
	return created, err
}

// OpenStream starts streaming the slot's changes from where it stands. A
// slot that starts past o.From (what remodel's checkpoint applied) was not
// moved by remodel: the changes between are lost, and it is refused.
func (s *pgSource) OpenStream(ctx context.Context, o source.FollowOptions) (source.Stream, error) {
	var confirmed, status string
	err := s.step(ctx, "reading replication slot "+o.Slot, func(ctx context.Context) error {
		return s.conn.QueryRow(ctx, "SELECT coalesce(confirmed_flush_lsn::text, ''), coalesce(wal_status, '') FROM pg_replication_slots WHERE slot_name = $1", o.Slot).Scan(&confirmed, &status)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("source: replication slot %s does not exist on %s: the changes since the copy are lost; migrate again without --resume", o.Slot, s.where())
	}
	if err != nil {
		return nil, fmt.Errorf("source: reading replication slot %s: %w", o.Slot, err)
	}
	if status == "lost" {
		return nil, fmt.Errorf("source: replication slot %s on %s has lost WAL it needed (max_slot_wal_keep_size): the changes since %s are gone; migrate again without --resume", o.Slot, s.where(), confirmed)
	}
	if err := s.checkSlotStart(o, confirmed); err != nil {
		return nil, err
	}
	generated, err := s.generatedColumns(ctx, o.Tables)
	if err != nil {
		return nil, err
	}
	tables := map[string]*introspect.Table{}
	for _, t := range o.Tables {
		tables[t.Schema+"."+t.Name] = t
	}
	st := &pgStream{
		src: s, tables: tables, generated: generated, rels: map[uint32]*pgRelation{}, types: map[pgTypeMod]string{},
		where: s.where(), slot: o.Slot, partSize: o.PartSize(), silence: pgSilence,
		plugin: []string{"proto_version '1'", "publication_names '" + strings.ReplaceAll(o.Publication, "'", "''") + "'"},
	}
	if lsn, err := pglogrepl.ParseLSN(confirmed); err == nil {
		st.acked, st.handed = lsn, lsn
	}
	if err := st.start(ctx, 0); err != nil {
		return nil, err
	}
	return st, nil
}

// checkSlotStart refuses a slot whose confirmed position is past o.From:
// remodel tells the slot only positions its checkpoint recorded (the
// stream sends only what the follower acknowledged), so a slot ahead of
// the checkpoint was dropped and created again, or moved by another
// client. An empty o.From (or slot position) checks nothing.
func (s *pgSource) checkSlotStart(o source.FollowOptions, confirmed string) error {
	if o.From == "" || confirmed == "" {
		return nil
	}
	from, err := pglogrepl.ParseLSN(string(o.From))
	if err != nil {
		return fmt.Errorf("source: the checkpoint's position %q is not a PostgreSQL WAL position: %w", o.From, err)
	}
	at, err := pglogrepl.ParseLSN(confirmed)
	if err != nil || at <= from {
		return nil
	}
	return fmt.Errorf("source: replication slot %s on %s starts at %s, past the position the checkpoint applied up to (%s): it was dropped and created again, or another client moved it; the changes between are lost; migrate again without --resume", o.Slot, s.where(), at, from)
}

// start opens the stream's replication connection and starts replication
// from the slot at from (0: where the slot stands). The server skips the
// transactions that committed before from.
func (st *pgStream) start(ctx context.Context, from pglogrepl.LSN) error {
	repl, err := st.src.replConn(ctx)
	if err != nil {
		return err
	}
	err = st.src.step(ctx, "starting replication from slot "+st.slot, func(ctx context.Context) error {
		return pglogrepl.StartReplication(ctx, repl, st.slot, from, pglogrepl.StartReplicationOptions{PluginArgs: st.plugin})
	})
	if err != nil {
		repl.Close(context.Background())
		return fmt.Errorf("source: starting replication from slot %s: %w", st.slot, err)
	}
	st.conn = repl
	st.lastStatus, st.heard = time.Now(), time.Now()
	return nil
}

// DropFollow drops the slot (ending the connection that uses it, if any)
// and, when dropPublication, the publication. A slot still in use when the
// set-up deadline ends is an error: it would keep WAL with nobody to know.
func (s *pgSource) DropFollow(ctx context.Context, o source.FollowOptions, dropPublication bool) (dropped bool, err error) {
	err = s.step(ctx, "dropping replication slot "+o.Slot, func(ctx context.Context) error {
		for {
			if _, err := s.conn.Exec(ctx, "SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = $1 AND active_pid IS NOT NULL", o.Slot); err != nil {
				return fmt.Errorf("source: stopping the connection of slot %s: %w", o.Slot, err)
			}
			err := s.conn.QueryRow(ctx, "SELECT count(pg_drop_replication_slot(slot_name)) > 0 FROM pg_replication_slots WHERE slot_name = $1", o.Slot).Scan(&dropped)
			var pe *pgconn.PgError
			if errors.As(err, &pe) && pe.Code == "55006" { // in use: its walsender has not ended yet
				if err := backoff.Sleep(ctx, 100*time.Millisecond); err != nil {
					return fmt.Errorf("source: replication slot %s is still in use: %w", o.Slot, err)
				}
				continue
			}
			if err != nil {
				return fmt.Errorf("source: dropping replication slot %s: %w", o.Slot, err)
			}
			break
		}
		if dropPublication {
			if _, err := s.conn.Exec(ctx, "DROP PUBLICATION IF EXISTS "+pgIdent(o.Publication)); err != nil {
				return fmt.Errorf("source: dropping publication %s: %w", o.Publication, err)
			}
		}
		return nil
	})
	return dropped, err
}

// pgRelation is a relation the stream described: its table, and for each
// of its columns in the stream's order, the table column's index (-1: a
// column remodel does not read).
type pgRelation struct {
	t   *introspect.Table
	idx []int
}

// pgStream reads pgoutput (protocol 1) from a replication connection.
// The goroutine that calls Next owns the replication connection and what
// is not under mu; Ack, Status and Head may be called from others.
type pgStream struct {
	src    *pgSource
	conn   *pgconn.PgConn
	plugin []string // START_REPLICATION's plugin arguments
	tables map[string]*introspect.Table
	// generated are the followed tables' generated columns, which pgoutput
	// does not send (stream_relation.go).
	generated map[string]map[string]bool
	rels      map[uint32]*pgRelation
	types     map[pgTypeMod]string // format_type of the relations' column types
	where     string
	slot      string
	cur       *source.Txn // the transaction being received
	parts     int         // parts of cur handed out already
	// partSize is how many changes a part holds (FollowOptions.TxnPart).
	partSize int
	// failed is what ended the stream: Next returns it again.
	failed error

	// The deadline (stream_silence.go): heard is when the server was
	// last heard, or when Next began to wait; silence is how long it may
	// say nothing; retries counts the connections opened since it was last
	// heard; dead is the backend of the last connection given up.
	heard      time.Time
	silence    time.Duration
	retries    int
	dead       uint32
	lastStatus time.Time

	// admin is the stream's own connection for Head and the catalog
	// (stream_head.go), opened at first use.
	adminMu sync.Mutex
	admin   *pgx.Conn
	closed  bool // Close was called: no admin connection opens

	mu        sync.Mutex
	acked     pglogrepl.LSN // what the follower applied (Ack): all the server is told
	handed    pglogrepl.LSN // the end of the last whole transaction received
	sentEnd   pglogrepl.LSN // where the server's keepalives say it has sent up to
	receiving bool          // a transaction has begun and not committed
	recvAt    time.Time     // when it committed
	pending   []pendingTxn  // handed out, not acknowledged, in order
	lastHead  headReading   // the last head reading (zero: none)
	readings  []headReading // head readings not yet applied, oldest first
	// The wait for the server's next message (receive): waiting while
	// Next waits, so that a head reading may end the wait (wake) and Next
	// asks the server sooner; the connection whose read deadline was last
	// set, and to when (zero: moved by an interruption, set it again).
	waiting      bool
	deadlineConn *pgconn.PgConn
	deadline     time.Time

	// watched is the context Next was last called with, unwatch stops
	// its watch (the Next goroutine's).
	watched context.Context
	unwatch func() bool
}

type pendingTxn struct {
	end    pglogrepl.LSN
	commit time.Time
}

// Close tells the server what was applied, so that a resumed stream does
// not send it again, and closes the connections.
func (st *pgStream) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st.stopWatch()
	st.closeAdmin()
	if st.conn == nil { // a silent connection was closed, no other opened
		return nil
	}
	serr := st.status(ctx, true)
	if err := st.conn.Close(ctx); err != nil {
		return err
	}
	return serr
}

// Ack records that the transactions up to p are applied.
func (st *pgStream) Ack(p source.Position) {
	lsn, err := pglogrepl.ParseLSN(string(p))
	if err != nil {
		return
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if lsn > st.acked {
		st.acked = lsn
	}
	for len(st.pending) > 0 && st.pending[0].end <= st.acked {
		st.pending = st.pending[1:]
	}
}

// KeepAlive tells the server what was applied, so that it does not end
// the connection while the follower is busy (source.KeepAliver).
func (st *pgStream) KeepAlive(ctx context.Context) error {
	if st.conn == nil { // Next opens a new one, or failed
		return st.failed
	}
	return st.status(ctx, false)
}

// received is the furthest position the stream received: the end of the
// last whole transaction, or what a keepalive said was sent. Under mu.
func (st *pgStream) received() pglogrepl.LSN { return max(st.handed, st.sentEnd) }

// applied is the position up to which every change is applied: what was
// acknowledged, or what was received when every transaction received is
// acknowledged and none is being received. Under mu.
func (st *pgStream) applied() pglogrepl.LSN {
	if len(st.pending) == 0 && !st.receiving {
		return max(st.acked, st.received())
	}
	return st.acked
}

// Next returns the next committed transaction.
func (st *pgStream) Next(ctx context.Context) (*source.Txn, error) {
	if st.failed != nil {
		return nil, st.failed
	}
	st.heard = time.Now() // the silence counts while Next waits
	for {
		if st.conn == nil { // ctx ended the last Next before a new connection
			if err := st.silent(ctx); err != nil {
				return nil, err
			}
		}
		if err := st.status(ctx, false); err != nil {
			return nil, err
		}
		msg, err := st.receive(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if !pgconn.Timeout(err) && !errors.Is(err, context.Canceled) {
				return nil, fmt.Errorf("source: receiving changes from slot %s on %s: %w", st.slot, st.where, err)
			}
			if time.Since(st.heard) >= st.silence {
				if err := st.silent(ctx); err != nil {
					return nil, err
				}
			}
			continue // time for a status update, or a head reading woke it
		}
		st.heard, st.retries = time.Now(), 0
		switch m := msg.(type) {
		case *pgproto3.ErrorResponse:
			return nil, fmt.Errorf("source: replication from slot %s on %s: %w", st.slot, st.where, pgconn.ErrorResponseToPgError(m))
		case *pgproto3.CopyData:
			txn, err := st.copyData(ctx, m.Data)
			var stop *source.StopError
			if errors.As(err, &stop) {
				st.failed = err
			}
			if err != nil || txn != nil {
				return txn, err
			}
		}
	}
}

// receive waits for the server's next message until a status update is
// due, the connection has been silent for st.silence, a head reading wakes
// it (Head) or ctx ends. It waits by the connection's read deadline, set
// only when it changes, not by a context per message: that costs a timer
// and a watch of the connection for every message, and the server sends
// several for every change.
func (st *pgStream) receive(ctx context.Context) (pgproto3.BackendMessage, error) {
	st.watch(ctx)
	conn := st.conn
	st.mu.Lock()
	until := st.statusDue()
	if dead := st.heard.Add(st.silence); dead.Before(until) {
		until = dead
	}
	if st.deadlineConn != conn || !st.deadline.Equal(until) {
		if err := conn.Conn().SetReadDeadline(until); err != nil {
			st.mu.Unlock()
			return nil, err
		}
		st.deadlineConn, st.deadline = conn, until
	}
	if err := ctx.Err(); err != nil { // checked after the deadline is set: see watch
		st.mu.Unlock()
		return nil, err
	}
	st.waiting = true
	st.mu.Unlock()
	msg, err := conn.ReceiveMessage(context.Background()) // no watch: the deadline ends the wait
	st.mu.Lock()
	st.waiting = false
	st.mu.Unlock()
	if err != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return msg, err
}

// watch makes ctx's end interrupt the wait for the server's messages, once
// for every context Next is called with (the receiver's, for the stream's
// life), not once a message.
func (st *pgStream) watch(ctx context.Context) {
	if ctx == st.watched {
		return
	}
	st.stopWatch()
	st.watched = ctx
	st.unwatch = context.AfterFunc(ctx, func() {
		st.mu.Lock()
		defer st.mu.Unlock()
		st.interrupt()
	})
}

// stopWatch stops the watch of the context Next was last called with.
func (st *pgStream) stopWatch() {
	if st.unwatch != nil {
		st.unwatch()
	}
	st.watched, st.unwatch = nil, nil
}

// interrupt ends the wait for the server's next message, if one is under
// way, by moving the read deadline to now (under mu); the next wait sets
// it again.
func (st *pgStream) interrupt() {
	if st.deadlineConn != nil {
		_ = st.deadlineConn.Conn().SetReadDeadline(time.Now())
		st.deadline = time.Time{}
	}
}

// copyData handles one message of the stream; it returns a transaction
// when one is complete.
func (st *pgStream) copyData(ctx context.Context, data []byte) (*source.Txn, error) {
	if len(data) == 0 {
		return nil, nil
	}
	switch data[0] {
	case pglogrepl.PrimaryKeepaliveMessageByteID:
		ka, err := pglogrepl.ParsePrimaryKeepaliveMessage(data[1:])
		if err != nil {
			return nil, fmt.Errorf("source: reading a keepalive of slot %s: %w", st.slot, err)
		}
		st.mu.Lock()
		st.sentEnd = max(st.sentEnd, ka.ServerWALEnd)
		st.mu.Unlock()
		if ka.ReplyRequested {
			return nil, st.status(ctx, true)
		}
		return nil, nil
	case pglogrepl.XLogDataByteID:
		xld, err := pglogrepl.ParseXLogData(data[1:])
		if err != nil {
			return nil, fmt.Errorf("source: reading the changes of slot %s: %w", st.slot, err)
		}
		return st.logical(ctx, xld.WALData)
	}
	return nil, nil
}

// logical handles one pgoutput message.
func (st *pgStream) logical(ctx context.Context, data []byte) (*source.Txn, error) {
	msg, err := pglogrepl.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("source: decoding a change of slot %s: %w", st.slot, err)
	}
	switch m := msg.(type) {
	case *pglogrepl.RelationMessage:
		return nil, st.relation(ctx, m)
	case *pglogrepl.BeginMessage:
		st.cur, st.parts = &source.Txn{Commit: m.CommitTime, Xact: uint64(m.Xid)}, 0
		st.mu.Lock()
		st.receiving, st.recvAt = true, m.CommitTime
		st.mu.Unlock()
	case *pglogrepl.InsertMessage:
		return st.part(st.change(m.RelationID, source.Insert, 0, nil, m.Tuple))
	case *pglogrepl.UpdateMessage:
		return st.part(st.change(m.RelationID, source.Update, m.OldTupleType, m.OldTuple, m.NewTuple))
	case *pglogrepl.DeleteMessage:
		return st.part(st.change(m.RelationID, source.Delete, m.OldTupleType, m.OldTuple, nil))
	case *pglogrepl.TruncateMessage:
		var names []string
		for _, id := range m.RelationIDs {
			if r := st.rels[id]; r != nil && r.t != nil {
				names = append(names, r.t.QualifiedName())
			}
		}
		return nil, fmt.Errorf("source: %s was truncated: following a TRUNCATE is not supported (its items would stay); migrate again", strings.Join(names, ", "))
	case *pglogrepl.CommitMessage:
		return st.commit(m), nil
	}
	return nil, nil
}

// commit ends the transaction being received: it is handed out when it
// changed a followed table (or parts of it were), and is applied as it is
// otherwise.
func (st *pgStream) commit(m *pglogrepl.CommitMessage) *source.Txn {
	txn := st.cur
	st.cur = nil
	st.mu.Lock()
	defer st.mu.Unlock()
	st.receiving = false
	st.handed = max(st.handed, m.TransactionEndLSN)
	if txn == nil || len(txn.Changes) == 0 && st.parts == 0 {
		return nil
	}
	txn.End = source.Position(m.TransactionEndLSN.String())
	st.pending = append(st.pending, pendingTxn{end: m.TransactionEndLSN, commit: txn.Commit})
	return txn
}

// part hands out the changes received of the transaction as a part once
// they are partSize (err: the change's).
func (st *pgStream) part(err error) (*source.Txn, error) {
	if err != nil || st.cur == nil || len(st.cur.Changes) < st.partSize {
		return nil, err
	}
	p := &source.Txn{Changes: st.cur.Changes, Commit: st.cur.Commit, Xact: st.cur.Xact, Part: true}
	st.cur.Changes = nil
	st.parts++
	return p, nil
}

// change adds one row change to the transaction being received.
func (st *pgStream) change(rel uint32, kind source.ChangeKind, oldType uint8, old, new *pglogrepl.TupleData) error {
	r := st.rels[rel]
	if r == nil {
		return fmt.Errorf("source: slot %s sent a change of relation %d before describing it", st.slot, rel)
	}
	if r.t == nil || st.cur == nil {
		return nil // a table remodel does not follow
	}
	c := source.Change{Table: r.t, Kind: kind}
	var unchanged []int
	if new != nil {
		c.New, unchanged = st.tuple(r, new)
	}
	if old != nil {
		c.Old, _ = st.tuple(r, old)
		c.OldFull = oldType == pglogrepl.UpdateMessageTupleTypeOld
	}
	// A TOASTed value an update left alone is not sent again: take it from
	// the row before, when the source sent that whole.
	for _, i := range unchanged {
		if c.OldFull {
			c.New[i] = c.Old[i]
		}
	}
	st.cur.Changes = append(st.cur.Changes, c)
	return nil
}

// tuple decodes a tuple's text values into a row of the relation's table;
// it also returns the columns sent as "unchanged TOAST" (no value).
func (st *pgStream) tuple(r *pgRelation, td *pglogrepl.TupleData) ([]any, []int) {
	raw := make([][]byte, len(r.t.Columns))
	var unchanged []int
	for i, col := range td.Columns {
		if i >= len(r.idx) || r.idx[i] < 0 {
			continue
		}
		switch col.DataType {
		case pglogrepl.TupleDataTypeText:
			raw[r.idx[i]] = col.Data
		case pglogrepl.TupleDataTypeToast:
			unchanged = append(unchanged, r.idx[i])
		}
	}
	row := make([]any, len(r.t.Columns))
	source.DecodeRow(r.t.Columns, raw, row, pgDialect)
	for i, c := range r.t.Columns {
		if c.Expr != "" {
			row[i] = nil
		}
	}
	return row, unchanged
}

// statusDue is when the next status update is due: statusEvery after the
// last, or pgHeadAsk after it while a head reading is ahead of what the
// stream received (the server answers each with a keepalive saying where
// it has sent up to). Under mu.
func (st *pgStream) statusDue() time.Time {
	every := statusEvery
	if st.received() < st.lastHead.pos {
		every = min(every, pgHeadAsk)
	}
	return st.lastStatus.Add(every)
}

// status tells the server what the follower acknowledged, when due or
// when the server asks, and asks it to answer (ReplyRequested): its
// keepalive says it is alive (the stream's deadline) and where it has sent
// up to. Only positions given to Ack are ever told: the slot never moves
// past what remodel's checkpoint recorded.
func (st *pgStream) status(ctx context.Context, asked bool) error {
	st.mu.Lock()
	due := st.statusDue()
	acked := st.acked
	st.mu.Unlock()
	if !asked && time.Now().Before(due) {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, st.src.Deadlines.SetUp())
	defer cancel()
	err := pglogrepl.SendStandbyStatusUpdate(ctx, st.conn, pglogrepl.StandbyStatusUpdate{WALWritePosition: acked, ReplyRequested: true})
	if err != nil {
		return fmt.Errorf("source: telling slot %s on %s what was applied: %w", st.slot, st.where, err)
	}
	st.lastStatus = time.Now()
	return nil
}
