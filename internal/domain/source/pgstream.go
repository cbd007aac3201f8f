package source

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
	"github.com/remodel-dev/remodel/internal/domain/introspect"
)

// statusEvery is how often a PostgreSQL stream tells the server what was
// applied (the server also asks, and ends a replication connection silent
// for wal_sender_timeout, 60 s by default).
const statusEvery = 10 * time.Second

// replConn opens a replication connection (replication=database) with the
// source's settings and connect deadline.
func (s *pgSource) replConn(ctx context.Context) (*pgconn.PgConn, error) {
	cfg := s.cfg.Config.Copy()
	cfg.RuntimeParams["replication"] = "database"
	var c *pgconn.PgConn
	err := s.deadlines.connect.run(ctx, func(ctx context.Context) (err error) {
		c, err = pgconn.ConnectConfig(ctx, cfg)
		return err
	})
	if err != nil {
		var na *NoAnswerError
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
func (s *pgSource) CheckFollow(ctx context.Context, o FollowOptions) error {
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
func (s *pgSource) StartFollow(ctx context.Context, o FollowOptions, n int) (FollowStart, error) {
	created, err := s.publish(ctx, o)
	if err != nil {
		return FollowStart{}, err
	}
	repl, err := s.replConn(ctx)
	if err != nil {
		return FollowStart{}, err
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
		return FollowStart{}, fmt.Errorf("source: creating replication slot %s: %w", o.Slot, err)
	}
	snap := &pgSnapshot{}
	if err := s.importSnapshot(ctx, snap, n, res.SnapshotName); err != nil {
		snap.Close()
		return FollowStart{}, err
	}
	return FollowStart{Snapshot: snap, Position: Position(res.ConsistentPoint), PublicationCreated: created}, nil
}

// publish creates the publication of o's tables unless it exists (created
// says it did), and checks that an existing one publishes every table.
func (s *pgSource) publish(ctx context.Context, o FollowOptions) (created bool, err error) {
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

// OpenStream starts streaming the slot's changes from where it stands.
func (s *pgSource) OpenStream(ctx context.Context, o FollowOptions) (Stream, error) {
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
	tables := map[string]*introspect.Table{}
	for _, t := range o.Tables {
		tables[t.Schema+"."+t.Name] = t
	}
	repl, err := s.replConn(ctx)
	if err != nil {
		return nil, err
	}
	err = s.step(ctx, "starting replication from slot "+o.Slot, func(ctx context.Context) error {
		return pglogrepl.StartReplication(ctx, repl, o.Slot, 0, pglogrepl.StartReplicationOptions{
			PluginArgs: []string{"proto_version '1'", "publication_names '" + strings.ReplaceAll(o.Publication, "'", "''") + "'"},
		})
	})
	if err != nil {
		repl.Close(context.Background())
		return nil, fmt.Errorf("source: starting replication from slot %s: %w", o.Slot, err)
	}
	st := &pgStream{conn: repl, tables: tables, rels: map[uint32]*pgRelation{}, where: s.where(), slot: o.Slot, partSize: o.txnPart()}
	if lsn, err := pglogrepl.ParseLSN(confirmed); err == nil {
		st.acked, st.sent, st.handed = lsn, lsn, lsn
	}
	st.lastStatus = time.Now()
	return st, nil
}

// DropFollow drops the slot (ending the connection that uses it, if any)
// and, when dropPublication, the publication. A slot still in use when the
// set-up deadline ends is an error: it would keep WAL with nobody to know.
func (s *pgSource) DropFollow(ctx context.Context, o FollowOptions, dropPublication bool) (dropped bool, err error) {
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
type pgStream struct {
	conn   *pgconn.PgConn
	tables map[string]*introspect.Table
	rels   map[uint32]*pgRelation
	where  string
	slot   string
	cur    *Txn // the transaction being received
	parts  int  // parts of cur handed out already
	// partSize is how many changes a part holds (FollowOptions.TxnPart).
	partSize int

	mu         sync.Mutex
	acked      pglogrepl.LSN // what the follower applied (Ack)
	sent       pglogrepl.LSN // what the server was last told
	handed     pglogrepl.LSN // the end of the last transaction Next returned
	serverEnd  pglogrepl.LSN // the server's WAL end, from its messages (for the lag)
	sentEnd    pglogrepl.LSN // where the server's keepalives say it has sent up to
	pending    []pendingTxn  // handed out, not acknowledged, in order
	lastStatus time.Time
}

type pendingTxn struct {
	end    pglogrepl.LSN
	commit time.Time
}

// Close tells the server what was applied, so that a resumed stream does
// not send it again, and closes the connection.
func (st *pgStream) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	serr := st.status(ctx, true)
	if err := st.conn.Close(ctx); err != nil {
		return err
	}
	return serr
}

// Ack records that the transactions up to p are applied.
func (st *pgStream) Ack(p Position) {
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
func (st *pgStream) KeepAlive(ctx context.Context) error { return st.status(ctx, false) }

// Status is the stream's lag.
func (st *pgStream) Status() StreamStatus {
	st.mu.Lock()
	defer st.mu.Unlock()
	s := StreamStatus{Source: Position(max(st.serverEnd, st.handed).String()), Applied: Position(st.acked.String())}
	if len(st.pending) > 0 {
		s.Behind = time.Since(st.pending[0].commit)
	}
	return s
}

// Next returns the next committed transaction.
func (st *pgStream) Next(ctx context.Context) (*Txn, error) {
	for {
		if err := st.status(ctx, false); err != nil {
			return nil, err
		}
		rctx, cancel := context.WithDeadline(ctx, st.lastStatus.Add(statusEvery))
		msg, err := st.conn.ReceiveMessage(rctx)
		cancel()
		if err != nil {
			if ctx.Err() == nil && pgconn.Timeout(err) {
				continue // time for a status update
			}
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("source: receiving changes from slot %s on %s: %w", st.slot, st.where, err)
		}
		switch m := msg.(type) {
		case *pgproto3.ErrorResponse:
			return nil, fmt.Errorf("source: replication from slot %s on %s: %w", st.slot, st.where, pgconn.ErrorResponseToPgError(m))
		case *pgproto3.CopyData:
			txn, err := st.copyData(ctx, m.Data)
			if err != nil || txn != nil {
				return txn, err
			}
		}
	}
}

// copyData handles one message of the stream; it returns a transaction
// when one is complete.
func (st *pgStream) copyData(ctx context.Context, data []byte) (*Txn, error) {
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
		st.serverEnd = max(st.serverEnd, ka.ServerWALEnd)
		st.sentEnd = max(st.sentEnd, ka.ServerWALEnd)
		st.mu.Unlock()
		return nil, st.status(ctx, ka.ReplyRequested)
	case pglogrepl.XLogDataByteID:
		xld, err := pglogrepl.ParseXLogData(data[1:])
		if err != nil {
			return nil, fmt.Errorf("source: reading the changes of slot %s: %w", st.slot, err)
		}
		st.mu.Lock()
		st.serverEnd = max(st.serverEnd, xld.ServerWALEnd)
		st.mu.Unlock()
		return st.logical(xld.WALData)
	}
	return nil, nil
}

// logical handles one pgoutput message.
func (st *pgStream) logical(data []byte) (*Txn, error) {
	msg, err := pglogrepl.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("source: decoding a change of slot %s: %w", st.slot, err)
	}
	switch m := msg.(type) {
	case *pglogrepl.RelationMessage:
		st.relation(m)
	case *pglogrepl.BeginMessage:
		st.cur, st.parts = &Txn{Commit: m.CommitTime}, 0
	case *pglogrepl.InsertMessage:
		return st.part(st.change(m.RelationID, Insert, 0, nil, m.Tuple))
	case *pglogrepl.UpdateMessage:
		return st.part(st.change(m.RelationID, Update, m.OldTupleType, m.OldTuple, m.NewTuple))
	case *pglogrepl.DeleteMessage:
		return st.part(st.change(m.RelationID, Delete, m.OldTupleType, m.OldTuple, nil))
	case *pglogrepl.TruncateMessage:
		var names []string
		for _, id := range m.RelationIDs {
			if r := st.rels[id]; r != nil && r.t != nil {
				names = append(names, r.t.QualifiedName())
			}
		}
		return nil, fmt.Errorf("source: %s was truncated: following a TRUNCATE is not supported (its items would stay); migrate again", strings.Join(names, ", "))
	case *pglogrepl.CommitMessage:
		txn := st.cur
		st.cur = nil
		if txn == nil {
			return nil, nil
		}
		txn.End = Position(m.TransactionEndLSN.String())
		st.mu.Lock()
		defer st.mu.Unlock()
		nothingPending := len(st.pending) == 0 && st.acked >= st.handed
		st.handed = m.TransactionEndLSN
		if len(txn.Changes) == 0 && st.parts == 0 { // nothing of the followed tables: applied as it is
			if nothingPending {
				st.acked = max(st.acked, m.TransactionEndLSN)
			}
			return nil, nil
		}
		st.pending = append(st.pending, pendingTxn{end: m.TransactionEndLSN, commit: txn.Commit})
		return txn, nil
	}
	return nil, nil
}

// part hands out the changes received of the transaction as a part once
// they are partSize (err: the change's).
func (st *pgStream) part(err error) (*Txn, error) {
	if err != nil || st.cur == nil || len(st.cur.Changes) < st.partSize {
		return nil, err
	}
	p := &Txn{Changes: st.cur.Changes, Commit: st.cur.Commit, Part: true}
	st.cur.Changes = nil
	st.parts++
	return p, nil
}

// relation records the columns of a relation the stream describes.
func (st *pgStream) relation(m *pglogrepl.RelationMessage) {
	r := &pgRelation{t: st.tables[m.Namespace+"."+m.RelationName]}
	for _, c := range m.Columns {
		idx := -1
		if r.t != nil {
			for i, tc := range r.t.Columns {
				if tc.Name == c.Name && tc.Expr == "" {
					idx = i
					break
				}
			}
		}
		r.idx = append(r.idx, idx)
	}
	st.rels[m.RelationID] = r
}

// change adds one row change to the transaction being received.
func (st *pgStream) change(rel uint32, kind ChangeKind, oldType uint8, old, new *pglogrepl.TupleData) error {
	r := st.rels[rel]
	if r == nil {
		return fmt.Errorf("source: slot %s sent a change of relation %d before describing it", st.slot, rel)
	}
	if r.t == nil || st.cur == nil {
		return nil // a table remodel does not follow
	}
	c := Change{Table: r.t, Kind: kind}
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
	decodeRow(r.t.Columns, raw, row, pgDialect)
	for i, c := range r.t.Columns {
		if c.Expr != "" {
			row[i] = nil
		}
	}
	return row, unchanged
}

// status tells the server what was applied, every statusEvery or when it
// asks.
func (st *pgStream) status(ctx context.Context, asked bool) error {
	if !asked && time.Since(st.lastStatus) < statusEvery {
		return nil
	}
	st.mu.Lock()
	acked := st.acked
	// Nothing handed out waits, and nothing is being received: what the
	// server says it has sent (a keepalive's position, which follows every
	// change sent before it) holds nothing more for this slot.
	if len(st.pending) == 0 && st.cur == nil && st.acked >= st.handed {
		acked = max(acked, st.sentEnd)
		st.acked = acked
	}
	st.mu.Unlock()
	err := pglogrepl.SendStandbyStatusUpdate(ctx, st.conn, pglogrepl.StandbyStatusUpdate{WALWritePosition: acked})
	if err != nil {
		return fmt.Errorf("source: telling slot %s what was applied: %w", st.slot, err)
	}
	st.sent = acked
	st.lastStatus = time.Now()
	return nil
}

// Head is where the server's WAL ends now (pg_current_wal_lsn()).
func (st *pgStream) Head(ctx context.Context) (Position, error) {
	return "", errors.New("source: reading the WAL's head: not written yet")
}
