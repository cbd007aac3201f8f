package postgres

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pglogrepl"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/internal/domain/source/sourcetest"
	"github.com/remodel-dev/remodel/internal/testsupport/faultproxy"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/introspect"
)

// The PostgreSQL change stream's tests run on the private server with
// wal_level=logical (testenv.PostgresLogical).

// quickStream lowers the PostgreSQL stream's intervals for a test: status
// updates every 200 ms, asks every 50 ms while a head reading is ahead, a
// connection silent for silence is dead, new connections after 100 ms.
// Call it first: the values come back when the test ends, after its
// streams are closed.
func quickStream(t *testing.T, silence time.Duration) {
	every, ask, quiet, wait := statusEvery, pgHeadAsk, pgSilence, pgReconnectWait
	statusEvery, pgHeadAsk, pgSilence, pgReconnectWait = 200*time.Millisecond, 50*time.Millisecond, silence, 100*time.Millisecond
	t.Cleanup(func() { statusEvery, pgHeadAsk, pgSilence, pgReconnectWait = every, ask, quiet, wait })
}

// pgFollowing is a followed table: the source (perhaps through a relay),
// the options of its stream, where the copy started, and a connection
// straight to the server for the test's statements.
type pgFollowing struct {
	src  source.Source
	o    source.FollowOptions
	from source.Position
	work testenv.SQLConn
}

// pgFollow creates table with ddl on the logical server (dsn), opens the
// source at srcDSN, and starts following the table there (a slot of its
// own name, publication remodel).
func pgFollow(t *testing.T, ctx context.Context, dsn, srcDSN, ddl, table string) *pgFollowing {
	t.Helper()
	testenv.ExecPostgres(t, dsn, ddl)
	src, err := source.OpenWith(ctx, srcDSN, source.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	tab := sourcetest.InspectTable(t, ctx, src, table)
	o := source.FollowOptions{
		Slot:        fmt.Sprintf("remodel_%s_%x", table, rand.Uint32()), // slots are the server's, not the database's
		Publication: "remodel_" + table,
		Tables:      []*introspect.Table{tab},
	}
	start, err := src.(source.Follower).StartFollow(ctx, o, 1)
	if err != nil {
		t.Fatal(err)
	}
	start.Snapshot.Close()
	return &pgFollowing{src: src, o: o, from: start.Position, work: testenv.ConnectPostgres(t, dsn)}
}

// exec runs statements straight on the server, in one transaction.
func (f *pgFollowing) exec(t *testing.T, ctx context.Context, stmts ...string) {
	t.Helper()
	if err := f.work.Exec(ctx, stmts...); err != nil {
		t.Fatal(err)
	}
}

// stream opens the stream from where the copy started.
func (f *pgFollowing) stream(t *testing.T, ctx context.Context) source.Stream {
	t.Helper()
	return sourcetest.OpenStream(t, ctx, f.src, f.o, f.from)
}

// lsn parses a PostgreSQL position.
func lsn(t *testing.T, p source.Position) pglogrepl.LSN {
	t.Helper()
	l, err := pglogrepl.ParseLSN(string(p))
	if err != nil {
		t.Fatalf("position %q: %v", p, err)
	}
	return l
}

// insertedID is the id of the one row the transaction inserted.
func insertedID(t *testing.T, txn *source.Txn) any {
	t.Helper()
	if len(txn.Changes) != 1 || txn.Changes[0].Kind != source.Insert {
		t.Fatalf("want one insert, got %s", sourcetest.DescribeTxn(txn))
	}
	return txn.Changes[0].New[0]
}

// TestPGStreamSilent: a replication connection through a proxy that stops
// forwarding ends Next, within a bounded time, with an error naming the
// slot, the server and the silence, after trying new connections; Next
// says it again after.
func TestPGStreamSilent(t *testing.T) {
	quickStream(t, time.Second)
	dsn := testenv.PostgresLogical(t)
	ctx := sourcetest.Context(t)
	r := faultproxy.NewRelay(t, sourcetest.HostOf(t, dsn))
	f := pgFollow(t, ctx, dsn, sourcetest.Through(t, dsn, r.Addr), "CREATE TABLE t (id int PRIMARY KEY, note text)", "t")
	st := f.stream(t, ctx)
	f.exec(t, ctx, "INSERT INTO t VALUES (1, 'one')")
	txn := sourcetest.Next(t, ctx, st)
	if id := insertedID(t, txn); id != int64(1) {
		t.Fatalf("inserted %v, want 1", id)
	}
	st.Ack(txn.End)
	r.Mute()
	f.exec(t, ctx, "INSERT INTO t VALUES (2, 'two')")
	start := time.Now()
	nctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	_, err := st.Next(nctx)
	sourcetest.Within(t, "Next through a silenced proxy", start, 15*time.Second)
	want := regexp.MustCompile(`^source: following slot ` + f.o.Slot + ` on PostgreSQL at 127\.0\.0\.1:\d+: nothing received for 1s, not even the keepalives asked for; 3 new connections in a row failed: source: connecting to PostgreSQL at 127\.0\.0\.1:\d+ as postgres: no answer within 1s \(--source-timeout\)$`)
	if err == nil || !want.MatchString(err.Error()) {
		t.Fatalf("Next through a silenced proxy: %v\nwant %s", err, want)
	}
	if _, again := st.Next(ctx); again == nil || again.Error() != err.Error() {
		t.Errorf("Next after the failure: %v, want the same error", again)
	}
}

// TestPGStreamSilentOnce: a replication connection that freezes (a proxy
// stops forwarding it, both ways: the server keeps the slot for it), when a
// new one does not, is replaced: Next hands the next transaction (once,
// and not the one handed before the silence).
func TestPGStreamSilentOnce(t *testing.T) {
	quickStream(t, time.Second)
	dsn := testenv.PostgresLogical(t)
	ctx := sourcetest.Context(t)
	r := faultproxy.NewRelay(t, sourcetest.HostOf(t, dsn))
	f := pgFollow(t, ctx, dsn, sourcetest.Through(t, dsn, r.Addr), "CREATE TABLE t (id int PRIMARY KEY, note text)", "t")
	st := f.stream(t, ctx)
	f.exec(t, ctx, "INSERT INTO t VALUES (1, 'one')")
	txn := sourcetest.Next(t, ctx, st)
	if id := insertedID(t, txn); id != int64(1) {
		t.Fatalf("inserted %v, want 1", id)
	}
	r.FreezeOpen()
	f.exec(t, ctx, "INSERT INTO t VALUES (2, 'two')")
	start := time.Now()
	if id := insertedID(t, sourcetest.Next(t, ctx, st)); id != int64(2) {
		t.Fatalf("after a new connection: inserted %v, want 2", id)
	}
	sourcetest.Within(t, "Next through a connection frozen once", start, 15*time.Second)
	f.exec(t, ctx, "INSERT INTO t VALUES (3, 'three')")
	if id := insertedID(t, sourcetest.Next(t, ctx, st)); id != int64(3) {
		t.Fatalf("then: inserted %v, want 3", id)
	}
}

// TestPGStreamHead: while the replication connection is frozen and the
// server goes on, a head reading says the stream is not caught up, and
// Behind grows from the reading; once the stream has received and applied
// up to it on an idle server, it is caught up, and again after a new
// reading with nothing new.
func TestPGStreamHead(t *testing.T) {
	quickStream(t, 4*time.Second)
	dsn := testenv.PostgresLogical(t)
	ctx := sourcetest.Context(t)
	r := faultproxy.NewRelay(t, sourcetest.HostOf(t, dsn))
	f := pgFollow(t, ctx, dsn, sourcetest.Through(t, dsn, r.Addr), "CREATE TABLE t (id int PRIMARY KEY, note text); CREATE TABLE other (id int)", "t")
	st := f.stream(t, ctx)
	if s := st.Status(); s.CaughtUp || !s.HeadRead.IsZero() {
		t.Errorf("before any head reading: %+v, want not caught up, no reading", s)
	}
	txns, _ := sourcetest.Follow(t, ctx, st)
	r.FreezeOpen()
	f.exec(t, ctx, "INSERT INTO t VALUES (1, 'one')")
	before := time.Now()
	head, err := st.Head(ctx)
	if err != nil {
		t.Fatalf("Head while the stream is frozen: %v", err)
	}
	s1 := st.Status()
	if s1.CaughtUp || s1.HeadRead.Before(before) || lsn(t, s1.Source) < lsn(t, head) || lsn(t, s1.Applied) >= lsn(t, head) {
		t.Fatalf("frozen, head %s: %+v, want not caught up, the reading, the source at the head, applied before it", head, s1)
	}
	sourcetest.Eventually(t, 3*time.Second, "Behind to grow while frozen", func() bool {
		s := st.Status()
		if s.CaughtUp {
			t.Fatalf("caught up while frozen: %+v", s)
		}
		return s.Behind >= s1.Behind+300*time.Millisecond
	})
	// The silence ends the frozen connection; a new one brings the row.
	txn := sourcetest.Received(t, txns)
	if id := insertedID(t, txn); id != int64(1) {
		t.Fatalf("inserted %v, want 1", id)
	}
	if s := st.Status(); s.CaughtUp || s.Behind <= 0 {
		t.Errorf("received, not acknowledged: %+v, want not caught up and behind", s)
	}
	st.Ack(txn.End)
	sourcetest.Eventually(t, 10*time.Second, "caught up on an idle server", func() bool { return st.Status().CaughtUp })
	if s := st.Status(); s.Behind != 0 || lsn(t, s.Applied) < lsn(t, head) || s.Source != s.Applied {
		t.Errorf("caught up: %+v, want applied at the source, past head %s, not behind", s, head)
	}
	f.exec(t, ctx, "INSERT INTO other VALUES (1)") // not followed: the WAL goes on
	head2, err := st.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sourcetest.Eventually(t, 5*time.Second, "caught up again after a head reading with nothing new", func() bool { return st.Status().CaughtUp })
	if s := st.Status(); lsn(t, s.Applied) < lsn(t, head2) || lsn(t, head2) <= lsn(t, txn.End) {
		t.Errorf("caught up: %+v, want applied past head %s, past the transaction's end %s", s, head2, txn.End)
	}
}

// TestPGStreamTellsOnlyAcked: Status().Applied goes past the last
// transaction to what the server said it sent when everything is
// acknowledged (a head reading makes the stream ask the server soon, not
// at the next status update), but the slot is told only what Ack was
// given; a stream opened from a position the slot is past is refused.
func TestPGStreamTellsOnlyAcked(t *testing.T) {
	quickStream(t, 30*time.Second)
	statusEvery = 10 * time.Second // a head reading asks sooner
	dsn := testenv.PostgresLogical(t)
	ctx := sourcetest.Context(t)
	f := pgFollow(t, ctx, dsn, dsn, "CREATE TABLE t (id int PRIMARY KEY, note text); CREATE TABLE other (id int)", "t")
	st := f.stream(t, ctx)
	txns, stop := sourcetest.Follow(t, ctx, st)
	f.exec(t, ctx, "INSERT INTO t VALUES (1, 'one')")
	txn := sourcetest.Received(t, txns)
	if s := st.Status(); s.Applied != f.from {
		t.Errorf("before Ack: applied %s, want %s", s.Applied, f.from)
	}
	st.Ack(txn.End)
	f.exec(t, ctx, "INSERT INTO other VALUES (1)") // not followed: the WAL goes on
	head, err := st.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if lsn(t, head) <= lsn(t, txn.End) {
		t.Fatalf("head %s not past the transaction's end %s", head, txn.End)
	}
	sourcetest.Eventually(t, 3*time.Second, "caught up", func() bool { return st.Status().CaughtUp })
	applied := st.Status().Applied
	if lsn(t, applied) < lsn(t, head) {
		t.Fatalf("applied %s, want past head %s", applied, head)
	}
	// confirmed is where the slot stands once its walsender has ended
	// (it handles the last status update after Close returns).
	confirmed := func() source.Position {
		t.Helper()
		sourcetest.Eventually(t, 10*time.Second, "the walsender to end", func() bool {
			n, err := f.work.Int(ctx, "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '"+f.o.Slot+"' AND active")
			if err != nil {
				t.Fatal(err)
			}
			return n == 0
		})
		n, err := f.work.Int(ctx, "SELECT ('"+string(applied)+"'::pg_lsn - confirmed_flush_lsn)::bigint FROM pg_replication_slots WHERE slot_name = '"+f.o.Slot+"'")
		if err != nil {
			t.Fatal(err)
		}
		return source.Position((lsn(t, applied) - pglogrepl.LSN(n)).String())
	}
	stop()
	st.Close()
	if got := confirmed(); got != txn.End {
		t.Errorf("the slot was told %s, want only what was acknowledged (%s)", got, txn.End)
	}
	st2 := sourcetest.OpenStream(t, ctx, f.src, f.o, txn.End)
	st2.Ack(applied)
	st2.Close()
	if got := confirmed(); got != applied {
		t.Errorf("the slot was told %s, want %s", got, applied)
	}
	f.o.From = txn.End
	if _, err := f.src.(source.Follower).OpenStream(ctx, f.o); err == nil || !strings.Contains(err.Error(), "starts at "+string(applied)+", past the position the checkpoint applied up to ("+string(txn.End)+")") {
		t.Errorf("OpenStream from before the slot: %v, want it refused", err)
	}
}

// TestPGStreamRecreatedSlot: a slot dropped and created again under the
// same name starts past the checkpoint's position: OpenStream refuses it.
// Without a position to check (From empty) it opens.
func TestPGStreamRecreatedSlot(t *testing.T) {
	dsn := testenv.PostgresLogical(t)
	ctx := sourcetest.Context(t)
	f := pgFollow(t, ctx, dsn, dsn, "CREATE TABLE t (id int PRIMARY KEY, note text)", "t")
	if _, err := f.src.(source.Follower).DropFollow(ctx, f.o, false); err != nil {
		t.Fatal(err)
	}
	f.exec(t, ctx, "UPDATE t SET note = 'lost'", "INSERT INTO t VALUES (9, 'lost')")
	f.exec(t, ctx, "SELECT pg_create_logical_replication_slot('"+f.o.Slot+"', 'pgoutput')")
	f.o.From = f.from
	_, err := f.src.(source.Follower).OpenStream(ctx, f.o)
	want := regexp.MustCompile(`^source: replication slot ` + f.o.Slot + ` on PostgreSQL at 127\.0\.0\.1:\d+ starts at [0-9A-F]+/[0-9A-F]+, past the position the checkpoint applied up to \(` + regexp.QuoteMeta(string(f.from)) + `\): it was dropped and created again, or another client moved it; the changes between are lost; migrate again without --resume$`)
	if err == nil || !want.MatchString(err.Error()) {
		t.Fatalf("OpenStream of a recreated slot: %v\nwant %s", err, want)
	}
	sourcetest.OpenStream(t, ctx, f.src, f.o, "")
}

// TestPGStreamSchemaChange: a change of a followed table's columns ends
// Next with a *StopError naming the table and the column, at the first
// change after it; the changes before it (a table with a generated column,
// which the stream does not send) pass.
func TestPGStreamSchemaChange(t *testing.T) {
	dsn := testenv.PostgresLogical(t)
	ctx := sourcetest.Context(t)
	for _, c := range []struct{ name, alter, want string }{
		{"dropped", "ALTER TABLE %s DROP COLUMN note", "column note was dropped (the stream's columns are now id, n)"},
		{"added", "ALTER TABLE %s ADD COLUMN extra int", "column extra was added (the stream's columns are now id, note, n, extra)"},
		{"retyped", "ALTER TABLE %s ALTER COLUMN note TYPE varchar(20)", "column note's type changed from text to character varying(20) (the stream's columns are now id, note, n)"},
		{"renamed", "ALTER TABLE %s RENAME COLUMN note TO memo", "column note was dropped or renamed, column memo was added (the stream's columns are now id, memo, n)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			table := "t_" + c.name
			f := pgFollow(t, ctx, dsn, dsn, fmt.Sprintf("CREATE TABLE %s (id int PRIMARY KEY, note text, n int, g int GENERATED ALWAYS AS (n * 2) STORED)", table), table)
			st := f.stream(t, ctx)
			f.exec(t, ctx, fmt.Sprintf("INSERT INTO %s (id, note, n) VALUES (1, 'one', 1)", table))
			if id := insertedID(t, sourcetest.Next(t, ctx, st)); id != int64(1) {
				t.Fatalf("inserted %v, want 1", id)
			}
			f.exec(t, ctx, fmt.Sprintf(c.alter, table))
			f.exec(t, ctx, fmt.Sprintf("INSERT INTO %s (id, n) VALUES (2, 2)", table))
			nctx, cancel := context.WithTimeout(ctx, 20*time.Second)
			defer cancel()
			txn, err := st.Next(nctx)
			var stop *source.StopError
			if !errors.As(err, &stop) {
				if txn != nil {
					t.Fatalf("Next after %s: %s, want a *StopError", c.alter, sourcetest.DescribeTxn(txn))
				}
				t.Fatalf("Next after %s: %v, want a *StopError", c.alter, err)
			}
			if stop.Table != "public."+table || stop.What != c.want || stop.Fix != pgSchemaFix {
				t.Errorf("Next after %s: %+v\nwant table public.%s, what %q", c.alter, stop, table, c.want)
			}
			if _, again := st.Next(ctx); !errors.As(again, &stop) {
				t.Errorf("Next after the stop: %v, want the *StopError again", again)
			}
		})
	}
}

// TestPGStreamIdleNotSilent: an idle stream whose every position is
// acknowledged (the server has nothing to tell it) is not taken for
// silent: its status updates ask for a keepalive, and the connection
// stays.
func TestPGStreamIdleNotSilent(t *testing.T) {
	quickStream(t, time.Second)
	dsn := testenv.PostgresLogical(t)
	ctx := sourcetest.Context(t)
	f := pgFollow(t, ctx, dsn, dsn, "CREATE TABLE t (id int PRIMARY KEY, note text)", "t")
	st := f.stream(t, ctx)
	txns, _ := sourcetest.Follow(t, ctx, st)
	f.exec(t, ctx, "INSERT INTO t VALUES (1, 'one')")
	st.Ack(sourcetest.Received(t, txns).End)
	if _, err := st.Head(ctx); err != nil {
		t.Fatal(err)
	}
	sourcetest.Eventually(t, 10*time.Second, "caught up", func() bool { return st.Status().CaughtUp })
	st.Ack(st.Status().Applied)
	walsender := func() int64 {
		pid, err := f.work.Int(ctx, "SELECT coalesce(active_pid, 0) FROM pg_replication_slots WHERE slot_name = '"+f.o.Slot+"'")
		if err != nil {
			t.Fatal(err)
		}
		return pid
	}
	pid := walsender()
	select { // three times the silence, with nothing to send
	case r := <-txns:
		t.Fatalf("Next on an idle server: %v %v", r.Txn, r.Err)
	case <-time.After(3 * time.Second):
	}
	if now := walsender(); now != pid {
		t.Errorf("the walsender is %d, was %d: the idle connection was taken for silent", now, pid)
	}
}
