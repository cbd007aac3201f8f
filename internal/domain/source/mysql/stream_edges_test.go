package mysql

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-mysql-org/go-mysql/replication"
	"github.com/go-sql-driver/mysql"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/internal/domain/source/sourcetest"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/introspect"
)

// startPosition is where a followed copy of tabs would start now (its
// snapshot closed at once).
func startPosition(t *testing.T, ctx context.Context, src source.Source, o source.FollowOptions) source.Position {
	t.Helper()
	start, err := src.(source.Follower).StartFollow(ctx, o, 1)
	if err != nil {
		t.Fatal(err)
	}
	start.Snapshot.Close()
	return start.Position
}

// readUntil reads the stream, which must have no transaction to send,
// until its status says done, within 20 s.
func readUntil(t *testing.T, ctx context.Context, st source.Stream, what string, done func(source.StreamStatus) bool) source.StreamStatus {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; {
		if s := st.Status(); done(s) {
			return s
		} else if time.Now().After(deadline) {
			t.Fatalf("the stream read for 20 s and is not %s: %+v", what, s)
		}
		rctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		txn, err := st.Next(rctx)
		cancel()
		if err == nil {
			t.Fatalf("Next sent a transaction more: %s", sourcetest.DescribeTxn(txn))
		} else if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Next: %v", err)
		}
	}
}

// receivedTo says whether st received everything whole up to p.
func receivedTo(st source.Stream, p binlogPos) bool {
	my := st.(*myStream)
	my.mu.Lock()
	defer my.mu.Unlock()
	return my.received.compare(p) >= 0
}

// stopError is the *StopError the stream's next transaction ends with.
func stopError(t *testing.T, ctx context.Context, st source.Stream) *source.StopError {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	txn, err := st.Next(ctx)
	var se *source.StopError
	if !errors.As(err, &se) {
		if err == nil {
			t.Fatalf("Next sent %s; want a *StopError", sourcetest.DescribeTxn(txn))
		}
		t.Fatalf("Next: %v; want a *StopError", err)
	}
	return se
}

// TestMyStreamMinimalImage: an update and a delete a session logged with
// binlog_row_image=MINIMAL (a before image of the key only, an after image
// of the changed columns only) stop the stream with the table, the setting
// and what to do, instead of being applied as whole rows.
func TestMyStreamMinimalImage(t *testing.T) {
	ctx := sourcetest.Context(t)
	dsn := testenv.MySQLBinlog(t)
	db := binlogDB(t, dsn)
	mustExec(t, db, `CREATE TABLE mu (id int PRIMARY KEY, category varchar(20), name varchar(20));
		CREATE TABLE md (id int PRIMARY KEY, category varchar(20), name varchar(20));
		INSERT INTO mu VALUES (7, 'catX', 'seven'); INSERT INTO md VALUES (8, 'catX', 'eight')`)
	src := sourcetest.Open(t, ctx, dsn)
	mu, md := sourcetest.InspectTable(t, ctx, src, "mu"), sourcetest.InspectTable(t, ctx, src, "md")
	from := startPosition(t, ctx, src, source.FollowOptions{Slot: "remodel_minimal", Tables: []*introspect.Table{mu, md}})
	// One session's setting is enough; the server's stays FULL.
	mustExec(t, db, `SET SESSION binlog_row_image = MINIMAL;
		UPDATE mu SET category = 'catY' WHERE id = 7; DELETE FROM md WHERE id = 8;
		SET SESSION binlog_row_image = FULL`)
	for _, c := range []struct {
		tab  *introspect.Table
		what string
	}{
		{mu, "an update's row image lacks columns id, category, name: binlog_row_image is not FULL"},
		{md, "a delete's row image lacks columns category, name: binlog_row_image is not FULL"},
	} {
		st := sourcetest.OpenStream(t, ctx, src, source.FollowOptions{Slot: "remodel_minimal", Tables: []*introspect.Table{c.tab}}, from)
		se := stopError(t, ctx, st)
		if se.Table != c.tab.QualifiedName() || se.What != c.what || !strings.Contains(se.Fix, "set binlog_row_image=FULL") {
			t.Errorf("following %s: %v\nwant table %s, %q", c.tab.Name, se, c.tab.QualifiedName(), c.what)
		}
	}
}

// TestMyStreamTrailingUnrelated: a transaction of no followed table after
// one of the followed table is applied with it: once that one is
// acknowledged, Applied reaches the head read after both and the stream is
// caught up.
func TestMyStreamTrailingUnrelated(t *testing.T) {
	ctx := sourcetest.Context(t)
	dsn := testenv.MySQLBinlog(t)
	db := binlogDB(t, dsn)
	mustExec(t, db, "CREATE TABLE tf (id int PRIMARY KEY); CREATE TABLE tg (id int PRIMARY KEY)")
	src := sourcetest.Open(t, ctx, dsn)
	tab := sourcetest.InspectTable(t, ctx, src, "tf")
	from := startPosition(t, ctx, src, followOptions(t, tab))
	mustExec(t, db, "INSERT INTO tf VALUES (1)")
	mustExec(t, db, "INSERT INTO tg VALUES (1)")
	st := sourcetest.OpenStream(t, ctx, src, followOptions(t, tab), from)
	txn := sourcetest.Next(t, ctx, st)
	head, err := st.Head(ctx)
	if err != nil {
		t.Fatalf("Head: %v", err)
	}
	hp := mustBinlogPos(t, head)
	if hp.compare(mustBinlogPos(t, txn.End)) <= 0 {
		t.Fatalf("head %s is not past the insert's end %s", head, txn.End)
	}
	// Received to the head (the trailing transaction with it), but the
	// insert is not acknowledged.
	s := readUntil(t, ctx, st, "at the head", func(source.StreamStatus) bool { return receivedTo(st, hp) })
	if s.CaughtUp || s.Applied != from || s.Behind <= 0 {
		t.Errorf("status before the Ack: %+v; want not caught up, applied %s, behind", s, from)
	}
	st.Ack(txn.End)
	s = readUntil(t, ctx, st, "caught up", func(s source.StreamStatus) bool { return s.CaughtUp })
	if mustBinlogPos(t, s.Applied).compare(hp) < 0 || s.Behind != 0 {
		t.Errorf("caught up: %+v; want applied at the head %s or further, 0 behind", s, head)
	}
	// A position Status gave may be acknowledged.
	st.Ack(s.Applied)
	if s2 := st.Status(); mustBinlogPos(t, s2.Applied).compare(mustBinlogPos(t, s.Applied)) < 0 {
		t.Errorf("after Ack(%s): applied %s", s.Applied, s2.Applied)
	}
}

// TestMyStreamHeadAhead: an idle stream is caught up once it received the
// head; a head read while the stream is not read further says it is not,
// and Behind grows from the reading, until the stream received and
// applied everything up to it.
func TestMyStreamHeadAhead(t *testing.T) {
	hb, rt := myHeartbeat, myReadTimeout
	myHeartbeat, myReadTimeout = 300*time.Millisecond, 1500*time.Millisecond
	defer func() { myHeartbeat, myReadTimeout = hb, rt }()
	ctx := sourcetest.Context(t)
	dsn := testenv.MySQLBinlog(t)
	db := binlogDB(t, dsn)
	mustExec(t, db, "CREATE TABLE ha (id int PRIMARY KEY)")
	src := sourcetest.Open(t, ctx, dsn)
	tab := sourcetest.InspectTable(t, ctx, src, "ha")
	st := sourcetest.OpenStream(t, ctx, src, followOptions(t, tab), startPosition(t, ctx, src, followOptions(t, tab)))
	if s := st.Status(); s.CaughtUp || !s.HeadRead.IsZero() {
		t.Errorf("status before any head was read: %+v", s)
	}
	if _, err := st.Head(ctx); err != nil {
		t.Fatalf("Head: %v", err)
	}
	readUntil(t, ctx, st, "caught up while idle", func(s source.StreamStatus) bool { return s.CaughtUp })

	mustExec(t, db, "INSERT INTO ha VALUES (1)")
	before := time.Now()
	head, err := st.Head(ctx)
	if err != nil {
		t.Fatalf("Head: %v", err)
	}
	read := time.Now()
	for _, wait := range []time.Duration{0, 300 * time.Millisecond} {
		if wait > 0 {
			<-time.After(wait) // Behind must grow while the stream stands
		}
		least := time.Since(read)
		s := st.Status()
		if s.CaughtUp || s.Behind < least || s.HeadRead.Before(before) || s.HeadRead.After(read) {
			t.Errorf("status with the head %s unread (read %s after it): %+v; want not caught up, at least %s behind", head, time.Since(read), s, least)
		}
		if mustBinlogPos(t, s.Source).compare(mustBinlogPos(t, head)) < 0 {
			t.Errorf("source %s is before the head %s", s.Source, head)
		}
	}
	txn := sourcetest.Next(t, ctx, st)
	if s := st.Status(); s.CaughtUp {
		t.Errorf("caught up with the insert not acknowledged: %+v", s)
	}
	st.Ack(txn.End)
	readUntil(t, ctx, st, "caught up again", func(s source.StreamStatus) bool { return s.CaughtUp && s.Behind == 0 })
}

// TestMyStreamCompressed: MariaDB's compressed events (log_bin_compress:
// Write/Update/Delete_rows_compressed_v1, Query_compressed) are followed
// as the others: the rows whole, a TRUNCATE noticed.
func TestMyStreamCompressed(t *testing.T) {
	ctx := sourcetest.Context(t)
	dsn := testenv.MySQLBinlog(t)
	db := binlogDB(t, dsn)
	mustExec(t, db, "CREATE TABLE cz (id int PRIMARY KEY, note text)")
	src := sourcetest.Open(t, ctx, dsn)
	tab := sourcetest.InspectTable(t, ctx, src, "cz")
	from := startPosition(t, ctx, src, followOptions(t, tab))
	long := strings.Repeat("compressible ", 100)
	// log_bin_compress is global only: set for the statements, restored.
	var was string
	if err := db.QueryRow("SELECT @@GLOBAL.log_bin_compress").Scan(&was); err != nil {
		t.Fatal(err)
	}
	restore := func() { db.Exec("SET GLOBAL log_bin_compress = " + was) }
	t.Cleanup(restore)
	mustExec(t, db, "SET GLOBAL log_bin_compress = ON")
	mustExec(t, db, "INSERT INTO cz VALUES (1, ?)", long)
	mustExec(t, db, "UPDATE cz SET note = ? WHERE id = 1", long+"!")
	mustExec(t, db, "DELETE FROM cz WHERE id = 1")
	mustExec(t, db, "TRUNCATE TABLE cz /* "+long+" */")
	restore()

	fp := mustBinlogPos(t, from)
	kinds := map[string]bool{}
	rows, err := db.Query(fmt.Sprintf("SHOW BINLOG EVENTS IN '%s' FROM %d", fp.File, fp.Pos))
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var log, kind, info string
		var pos, server, end int64
		if err := rows.Scan(&log, &pos, &kind, &server, &end, &info); err != nil {
			t.Fatal(err)
		}
		kinds[kind] = true
	}
	rows.Close()
	for _, k := range []string{"Write_rows_compressed_v1", "Update_rows_compressed_v1", "Delete_rows_compressed_v1", "Query_compressed"} {
		if !kinds[k] {
			t.Fatalf("the binlog has no %s event (it has %v): log_bin_compress did not take", k, kinds)
		}
	}

	st := sourcetest.OpenStream(t, ctx, src, followOptions(t, tab), from)
	for _, want := range []struct {
		kind     source.ChangeKind
		old, new any
	}{{source.Insert, nil, long}, {source.Update, long, long + "!"}, {source.Delete, long + "!", nil}} {
		txn := sourcetest.Next(t, ctx, st)
		if len(txn.Changes) != 1 || txn.Changes[0].Kind != want.kind {
			t.Fatalf("transaction %s, want one %s", sourcetest.DescribeTxn(txn), want.kind)
		}
		c := txn.Changes[0]
		if got := noteOf(c.Old); got != want.old {
			t.Errorf("%s: old note %v, want %v", want.kind, got, want.old)
		}
		if got := noteOf(c.New); got != want.new {
			t.Errorf("%s: new note %v, want %v", want.kind, got, want.new)
		}
	}
	if se := stopError(t, ctx, st); se.Table != tab.QualifiedName() || !strings.Contains(se.What, "truncated") {
		t.Errorf("after a compressed TRUNCATE: %v; want the stop that it was truncated", se)
	}
}

// noteOf is the second column of row, or nil.
func noteOf(row []any) any {
	if row == nil {
		return nil
	}
	return row[1]
}

// syntheticStream is a stream of table db.t (id int, doc json) at
// binlog.000001:100 with no connection: events are handed to it as the
// syncer would.
func syntheticStream() (*myStream, *introspect.Table) {
	tab := &introspect.Table{Schema: "db", Name: "t", PrimaryKey: []string{"id"}, Columns: []*introspect.Column{
		{Name: "id", Type: "int", Kind: introspect.KindInt},
		{Name: "doc", Type: "json", Kind: introspect.KindString},
	}}
	at := binlogPos{File: "binlog.000001", Pos: 100}
	st := &myStream{
		src:    &mySource{cfg: &mysql.Config{Addr: "h:3306"}},
		tables: map[string]*myFollowed{"db.t": {t: tab, stored: []int{0, 1}}},
		file:   at.File, part: source.MaxTxnPart,
		acked: at, handed: at, source: at, received: at,
	}
	return st, tab
}

// synthetic is an event of type typ ending at end.
func synthetic(typ replication.EventType, end uint32, e replication.Event) *replication.BinlogEvent {
	return &replication.BinlogEvent{Header: &replication.EventHeader{EventType: typ, LogPos: end}, Event: e}
}

// update is an update event of db.t from before to after (MySQL's
// partial update event: go-mysql's only rows event a test can make).
func update(end uint32, before, after []any) *replication.BinlogEvent {
	tm := &replication.TableMapEvent{Schema: []byte("db"), Table: []byte("t"), ColumnCount: 2}
	return synthetic(replication.PARTIAL_UPDATE_ROWS_EVENT, end, &replication.RowsEvent{
		Table: tm, ColumnCount: 2, ColumnBitmap1: []byte{3}, ColumnBitmap2: []byte{3},
		Rows: [][]any{before, after}, SkippedColumns: [][]int{{}, {}},
	})
}

func begin(end uint32) *replication.BinlogEvent {
	return synthetic(replication.QUERY_EVENT, end, &replication.QueryEvent{Query: []byte("BEGIN")})
}

func xid(end uint32) *replication.BinlogEvent {
	return synthetic(replication.XID_EVENT, end, &replication.XIDEvent{})
}

// handleAll hands events to st; txns are the transactions they ended.
func handleAll(st *myStream, evs ...*replication.BinlogEvent) (txns []*source.Txn, err error) {
	for _, ev := range evs {
		txn, err := st.handle(ev)
		if err != nil {
			return txns, err
		}
		if txn != nil {
			txns = append(txns, txn)
		}
	}
	return txns, nil
}

// TestMyStreamSyntheticApplied: a transaction of no followed table after
// a pending one is applied once that one is acknowledged; a heartbeat of
// an idle server covers the head read; an artificial event and an open
// transaction do not.
func TestMyStreamSyntheticApplied(t *testing.T) {
	st, _ := syntheticStream()
	txns, err := handleAll(st, begin(120), update(150, []any{int32(1), "{}"}, []any{int32(1), "[]"}), xid(200), begin(220), xid(300))
	if err != nil || len(txns) != 1 || txns[0].End != "binlog.000001:200" {
		t.Fatalf("transactions %v, %v", txns, err)
	}
	st.heads.add(myHead{pos: binlogPos{File: "binlog.000001", Pos: 400}, at: time.Now()})
	if s := st.Status(); s.Applied != "binlog.000001:100" || s.CaughtUp || s.Source != "binlog.000001:400" {
		t.Errorf("before the Ack: %+v", s)
	}
	st.Ack(txns[0].End)
	if s := st.Status(); s.Applied != "binlog.000001:300" || s.CaughtUp || s.Behind <= 0 {
		t.Errorf("after the Ack, the head unreceived: %+v; want applied at 300", s)
	}
	artificial := synthetic(replication.HEARTBEAT_EVENT, 400, &replication.HeartbeatEvent{Version: 1})
	artificial.Header.Flags = replication.LOG_EVENT_ARTIFICIAL_F
	if _, err := handleAll(st, begin(350), synthetic(replication.HEARTBEAT_EVENT, 400, &replication.HeartbeatEvent{Version: 1})); err != nil {
		t.Fatal(err)
	}
	if s := st.Status(); s.CaughtUp || s.Applied != "binlog.000001:300" {
		t.Errorf("a heartbeat inside a transaction: %+v", s)
	}
	st.cur = nil
	if _, err := handleAll(st, artificial); err != nil {
		t.Fatal(err)
	}
	if s := st.Status(); s.CaughtUp {
		t.Errorf("an artificial event covers the head: %+v", s)
	}
	if _, err := handleAll(st, synthetic(replication.HEARTBEAT_EVENT, 400, &replication.HeartbeatEvent{Version: 1})); err != nil {
		t.Fatal(err)
	}
	if s := st.Status(); !s.CaughtUp || s.Applied != "binlog.000001:400" || s.Behind != 0 {
		t.Errorf("after the idle server's heartbeat: %+v; want caught up at 400", s)
	}
}

// TestMyStreamSyntheticRefused: rows events the stream cannot hand over
// exactly end Next with the reason: a partial JSON value, a table altered,
// an image without columns, a rows event without its table, a compressed
// payload of two transactions (never only the first) or of none, and an
// incident (LOST_EVENTS).
func TestMyStreamSyntheticRefused(t *testing.T) {
	partial := update(150, []any{int32(1), "{}"}, []any{int32(1), &replication.JsonDiff{Path: "$.a", Value: "1"}})
	altered := update(150, []any{int32(1), "{}"}, []any{int32(1), "[]"})
	altered.Event.(*replication.RowsEvent).Table.ColumnCount = 3
	minimal := update(150, []any{int32(1), nil}, []any{nil, "[]"})
	minimal.Event.(*replication.RowsEvent).ColumnBitmap1 = []byte{1}
	minimal.Event.(*replication.RowsEvent).ColumnBitmap2 = []byte{2}
	noTable := update(150, []any{int32(1), "{}"}, []any{int32(1), "[]"})
	noTable.Event.(*replication.RowsEvent).Table = nil
	two := synthetic(replication.TRANSACTION_PAYLOAD_EVENT, 500, &replication.TransactionPayloadEvent{UncompressedSize: 1, Events: []*replication.BinlogEvent{
		begin(0), update(0, []any{int32(1), "{}"}, []any{int32(1), "[]"}), xid(0),
		begin(0), update(0, []any{int32(1), "[]"}, []any{int32(1), "{}"}), xid(0),
	}})
	incident := synthetic(replication.INCIDENT_EVENT, 150, &replication.GenericEvent{Data: []byte{1, 0, 4, 'l', 'o', 's', 't'}})
	empty := synthetic(replication.TRANSACTION_PAYLOAD_EVENT, 500, &replication.TransactionPayloadEvent{UncompressedSize: 10})
	for _, c := range []struct {
		name string
		ev   *replication.BinlogEvent
		stop string // the StopError's What; "": another error
		err  string
	}{
		{"partial JSON", partial, "an update's row image holds only the change of JSON column doc, not its value: binlog_row_value_options is PARTIAL_JSON", ""},
		{"altered", altered, "the binlog has 3 columns of it, which had 2 when remodel read its schema: it was altered", ""},
		{"minimal", minimal, "an update's row image lacks columns id, doc: binlog_row_image is not FULL", ""},
		{"no table", noTable, "", "without its table"},
		{"two in a payload", two, "", "holds more than one transaction"},
		{"empty payload", empty, "", "decoded into no event"},
		{"incident", incident, "", "has an incident at binlog.000001:150 (changes may be missing from it: lost)"},
	} {
		st, tab := syntheticStream()
		txns, err := handleAll(st, begin(120), c.ev, xid(600))
		var se *source.StopError
		switch {
		case c.stop != "" && (!errors.As(err, &se) || se.Table != tab.QualifiedName() || se.What != c.stop):
			t.Errorf("%s: %d transactions, %v; want the stop %q", c.name, len(txns), err, c.stop)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: %d transactions, %v; want an error %q", c.name, len(txns), err, c.err)
		}
	}
	// One transaction in a payload is handed out whole.
	st, _ := syntheticStream()
	one := synthetic(replication.TRANSACTION_PAYLOAD_EVENT, 500, &replication.TransactionPayloadEvent{UncompressedSize: 1, Events: []*replication.BinlogEvent{
		begin(0), update(0, []any{int32(1), "{}"}, []any{int32(1), "[]"}), update(0, []any{int32(1), "[]"}, []any{int32(1), "{}"}), xid(0),
	}})
	if txns, err := handleAll(st, one); err != nil || len(txns) != 1 || len(txns[0].Changes) != 2 || txns[0].End != "binlog.000001:500" {
		t.Errorf("a payload of one transaction: %v, %v", txns, err)
	}
}

// TestMyStreamHeadsThinned: past myHeadReadings readings, the two closest
// in time become one with the older time and the further position, so
// that Behind is never less than it should be.
func TestMyStreamHeadsThinned(t *testing.T) {
	var hs myHeads
	t0 := time.Now()
	gap := func(i int) time.Duration { // readings 10 and 11 are the closest
		if i == 11 {
			return time.Duration(i)*time.Second - 500*time.Millisecond
		}
		return time.Duration(i) * time.Second
	}
	for i := 0; i <= myHeadReadings; i++ {
		hs.add(myHead{pos: binlogPos{File: "binlog.000001", Pos: uint32(100 * i)}, at: t0.Add(gap(i))})
	}
	if len(hs.open) != myHeadReadings || hs.last.pos.Pos != 100*myHeadReadings {
		t.Fatalf("%d readings kept, the last at %s", len(hs.open), hs.last.pos)
	}
	if m := hs.open[10]; m.pos.Pos != 1100 || !m.at.Equal(t0.Add(gap(10))) {
		t.Errorf("the merged reading: %s at %s; want 1100 at %s", m.pos, m.at.Sub(t0), gap(10))
	}
	if n := hs.open[11]; n.pos.Pos != 1200 {
		t.Errorf("the reading after the merged one is at %s", n.pos)
	}
}
