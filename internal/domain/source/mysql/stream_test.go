package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/internal/domain/source/sourcetest"
	"github.com/remodel-dev/remodel/internal/testsupport/canon"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/introspect"
)

// The MySQL change stream's tests run on the private MariaDB with a row
// binlog (testenv.MySQLBinlog); the shared one (testenv.MySQL) has none.

// followKindsSQL is a table of the main column kinds, and rows written
// before the copy's snapshot.
const followKindsSQL = `
CREATE TABLE k (
  id    int PRIMARY KEY,
  ubig  bigint unsigned NULL,
  umed  mediumint unsigned NULL,
  num   decimal(10,2) NULL,
  name  varchar(40) NULL,
  ch    char(5) NULL,
  lat   varchar(10) CHARACTER SET latin1 NULL,
  blb   blob NULL,
  bin   binary(4) NULL,
  d     date NULL,
  dt    datetime(6) NULL,
  ts    timestamp(3) NULL DEFAULT NULL,
  tm    time(2) NULL,
  mood  enum('happy','sad') NULL,
  tags  set('a','b','c') NULL,
  doc   json NULL,
  flag  tinyint(1) NULL,
  bits  bit(64) NULL,
  f     float NULL,
  yr    year NULL,
  twice int AS (id * 2) VIRTUAL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
INSERT INTO k (id, name) VALUES (1, 'one'), (2, 'two'), (3, 'three');
`

// followKindsRow is an INSERT's column list and values with every kind set.
const followKindsRow = `(id, ubig, umed, num, name, ch, lat, blb, bin, d, dt, ts, tm, mood, tags, doc, flag, bits, f, yr)
 VALUES (%d, 18446744073709551615, 16777215, -1234.50, 'héllo 🌍', 'ab  ', 'café €', X'00ff10', X'0102',
  '2024-02-29', '2024-01-02 03:04:05.123456', '2024-01-02 03:04:05.678', '-12:34:56.70', 'sad', 'c,a',
  '{"a": [1, 2.50, "x"], "b": null}', 1, b'1111111111111111111111111111111111111111111111111111111111111111',
  16777216, 2155)`

// binlogDB opens the test's database on the binlog server for statements.
func binlogDB(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	cfg := testenv.MySQLConfig(t, dsn)
	cfg.MultiStatements = true
	cfg.Params = map[string]string{"time_zone": "'+00:00'"}
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func mustExec(t *testing.T, db interface {
	Exec(string, ...any) (sql.Result, error)
}, q string, args ...any) {
	t.Helper()
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// followOptions are the options following table tab.
func followOptions(t *testing.T, tab *introspect.Table) source.FollowOptions {
	return source.FollowOptions{Slot: "remodel_" + strings.ToLower(t.Name()), Tables: []*introspect.Table{tab}}
}

// scanByID reads tab in a fresh snapshot, its rows by id.
func scanByID(t *testing.T, ctx context.Context, src source.Source, tab *introspect.Table) map[int64][]any {
	t.Helper()
	snap, err := src.Snapshot(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close() // it would hold TRUNCATE back
	out := map[int64][]any{}
	for _, r := range sourcetest.Scan(t, ctx, snap.Readers()[0], tab, "", 0) {
		out[r[0].(int64)] = r
	}
	return out
}

// TestMyStreamFollow: the copy's snapshot and the stream meet at one point
// (rows inserted while the snapshot is taken are in one of them, exactly
// once); the changes after it come out as whole transactions, in order,
// with the values ScanTable reads before and after; a stream reopened from
// an acknowledged position starts after it; a TRUNCATE of the table stops
// the stream.
func TestMyStreamFollow(t *testing.T) {
	ctx := sourcetest.Context(t)
	dsn := testenv.MySQLBinlog(t)
	db := binlogDB(t, dsn)
	mustExec(t, db, followKindsSQL)
	src := sourcetest.Open(t, ctx, dsn)
	tab := sourcetest.InspectTable(t, ctx, src, "k")
	fol, err := source.AsFollower(src)
	if err != nil {
		t.Fatal(err)
	}
	o := followOptions(t, tab)
	if err := fol.CheckFollow(ctx, o); err != nil {
		t.Fatalf("CheckFollow: %v", err)
	}

	// Rows inserted, one transaction each, while the snapshot is taken.
	var mu sync.Mutex
	var inserted []int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for id := int64(1000); ; id++ {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := db.Exec("INSERT INTO k (id, name) VALUES (?, 'during')", id); err != nil {
				t.Errorf("insert %d: %v", id, err)
				return
			}
			mu.Lock()
			inserted = append(inserted, id)
			mu.Unlock()
		}
	}()
	waitInserted := func(n int) {
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			mu.Lock()
			k := len(inserted)
			mu.Unlock()
			if k >= n {
				return
			}
		}
		t.Fatalf("the inserts do not go on")
	}
	waitInserted(20)
	start, err := fol.StartFollow(ctx, o, 2)
	if err != nil {
		close(stop)
		wg.Wait()
		t.Fatalf("StartFollow: %v", err)
	}
	t.Cleanup(func() { start.Snapshot.Close() })
	mu.Lock()
	k := len(inserted)
	mu.Unlock()
	waitInserted(k + 20)
	close(stop)
	wg.Wait()
	if start.PublicationCreated {
		t.Errorf("StartFollow says it created a publication")
	}
	if w := start.Snapshot.Warning(); w != "" {
		t.Errorf("the snapshot's warning: %s", w)
	}
	pos, err := parseBinlogPos(start.Position)
	if err != nil || pos.GTID == "" {
		t.Fatalf("StartFollow's position %q: want FILE:OFFSET gtid STATE on MariaDB (%v)", start.Position, err)
	}

	// Both readers see one cut.
	var seen []map[int64]bool
	for _, r := range start.Snapshot.Readers() {
		m := map[int64]bool{}
		for _, row := range sourcetest.Scan(t, ctx, r, tab, "", 0) {
			m[row[0].(int64)] = true
		}
		seen = append(seen, m)
	}
	if len(seen[0]) != len(seen[1]) {
		t.Fatalf("the readers see %d and %d rows", len(seen[0]), len(seen[1]))
	}
	inSnapshot := seen[0]
	start.Snapshot.Close()
	var after []int64 // inserted after the snapshot
	for _, id := range inserted {
		if !inSnapshot[id] {
			after = append(after, id)
		}
	}
	t.Logf("%d rows inserted while the snapshot was taken, %d of them after it (at %s)", len(inserted), len(after), start.Position)
	if len(after) == 0 || len(after) == len(inserted) {
		t.Fatalf("of %d rows inserted while the snapshot was taken, %d are after it: the test did not insert across it", len(inserted), len(after))
	}

	before := scanByID(t, ctx, src, tab) // rows 1, 2, 3 as they are before the changes
	// One transaction of three statements, then one of one.
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, tx, "INSERT INTO k "+fmt.Sprintf(followKindsRow, 10))
	mustExec(t, tx, `UPDATE k SET ubig = 42, umed = 7, num = 0.05, name = 'ÿ', ch = 'x', lat = '€ÿ', blb = '', bin = X'FFFFFFFF',
		d = '1000-01-01', dt = '9999-12-31 23:59:59.999999', ts = '1970-01-01 00:00:01.000', tm = '838:59:59.00', mood = 'happy',
		tags = '', doc = '[]', flag = 0, bits = b'0', f = 1.5, yr = 1901 WHERE id = 1`)
	mustExec(t, tx, "DELETE FROM k WHERE id = 2")
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, "UPDATE k SET name = 'drei', lat = 'é' WHERE id = 3")
	now := scanByID(t, ctx, src, tab)

	st := sourcetest.OpenStream(t, ctx, src, followOptions(t, tab), start.Position)
	for _, id := range after {
		txn := sourcetest.Next(t, ctx, st)
		if len(txn.Changes) != 1 || txn.Changes[0].Kind != source.Insert || txn.Changes[0].New[0] != id {
			t.Fatalf("transaction %s, want the insert of %d (the rows inserted after the snapshot, in order)", sourcetest.DescribeTxn(txn), id)
		}
		if txn.Changes[0].Table != tab {
			t.Errorf("the change's table is not the followed table")
		}
	}
	multi := sourcetest.Next(t, ctx, st)
	if len(multi.Changes) != 3 {
		t.Fatalf("the three statements' transaction came as %s", sourcetest.DescribeTxn(multi))
	}
	if time.Since(multi.Commit) > time.Minute || time.Until(multi.Commit) > 2*time.Second {
		t.Errorf("commit time %s", multi.Commit)
	}
	ins, upd, del := multi.Changes[0], multi.Changes[1], multi.Changes[2]
	if ins.Kind != source.Insert || ins.Old != nil {
		t.Errorf("first change: %s with old row %v", ins.Kind, ins.Old)
	}
	sourcetest.CheckSameRows(t, "inserted row", tab.Columns, [][]any{ins.New}, [][]any{now[10]})
	if upd.Kind != source.Update || !upd.OldFull {
		t.Errorf("second change: %s, old full %v", upd.Kind, upd.OldFull)
	}
	sourcetest.CheckSameRows(t, "updated row before", tab.Columns, [][]any{upd.Old}, [][]any{before[1]})
	sourcetest.CheckSameRows(t, "updated row after", tab.Columns, [][]any{upd.New}, [][]any{now[1]})
	if del.Kind != source.Delete || !del.OldFull || del.New != nil {
		t.Errorf("third change: %s, old full %v, new %v", del.Kind, del.OldFull, del.New)
	}
	sourcetest.CheckSameRows(t, "deleted row", tab.Columns, [][]any{del.Old}, [][]any{before[2]})
	single := sourcetest.Next(t, ctx, st)
	if len(single.Changes) != 1 || single.Changes[0].Kind != source.Update {
		t.Fatalf("the update of row 3 came as %s", sourcetest.DescribeTxn(single))
	}
	sourcetest.CheckSameRows(t, "row 3 before", tab.Columns, [][]any{single.Changes[0].Old}, [][]any{before[3]})
	sourcetest.CheckSameRows(t, "row 3 after", tab.Columns, [][]any{single.Changes[0].New}, [][]any{now[3]})
	sourcetest.NoMore(t, ctx, st)

	// Positions grow; the lag is that of what is not acknowledged.
	mp, _ := parseBinlogPos(multi.End)
	sp, _ := parseBinlogPos(single.End)
	if mp.compare(pos) <= 0 || sp.compare(mp) <= 0 {
		t.Errorf("positions %s, %s, %s do not grow", pos, mp, sp)
	}
	if s := st.Status(); s.Behind <= 0 || s.Applied != start.Position {
		t.Errorf("status before any Ack: %+v", s)
	}
	st.Ack(multi.End)
	if s := st.Status(); s.Applied != multi.End {
		t.Errorf("status after Ack(%s): %+v", multi.End, s)
	}
	st.Ack(single.End)
	// With nothing left to acknowledge, Applied is all that was received
	// (the server's other databases write too).
	if s := st.Status(); s.Behind != 0 || mustBinlogPos(t, s.Applied).compare(sp) < 0 {
		t.Errorf("status after the last Ack: %+v", s)
	}
	st.Close()

	// A stream opened from an acknowledged position starts after it: by
	// GTID state, and by file and offset alone.
	for _, from := range []binlogPos{mp, {File: mp.File, Pos: mp.Pos}} {
		st := sourcetest.OpenStream(t, ctx, src, followOptions(t, tab), source.Position(from.String()))
		txn := sourcetest.Next(t, ctx, st)
		if txn.End != single.End && !(from.GTID == "" && strings.HasPrefix(string(single.End), string(txn.End)+" ")) {
			t.Errorf("reopened at %s: first transaction %s, want the update of row 3 at %s", from, sourcetest.DescribeTxn(txn), single.End)
		}
		sourcetest.NoMore(t, ctx, st)
		st.Close()
	}

	// TRUNCATE stops the stream.
	st = sourcetest.OpenStream(t, ctx, src, followOptions(t, tab), single.End)
	mustExec(t, db, "TRUNCATE TABLE k")
	ctx2, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if txn, err := st.Next(ctx2); err == nil || !strings.Contains(err.Error(), "was truncated") {
		t.Errorf("after TRUNCATE: %v, %v; want the error that it was truncated", txn, err)
	}
}

// TestMyFollowApart: readers whose snapshots a write came between are
// told apart (MariaDB without the read lock takes them again), readers of
// one point are not.
func TestMyFollowApart(t *testing.T) {
	ctx := sourcetest.Context(t)
	dsn := testenv.MySQLBinlog(t)
	db := binlogDB(t, dsn)
	mustExec(t, db, "CREATE TABLE a (id int PRIMARY KEY)")
	s := sourcetest.Open(t, ctx, dsn).(*mySource)
	one := func() *mySnapshot {
		snap, err := s.snapshot(ctx, 1, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { snap.Close() })
		return snap
	}
	a, b := one(), one()
	mustExec(t, db, "INSERT INTO a VALUES (1)")
	c := one()
	for _, x := range []struct {
		readers []*myReader
		apart   bool
	}{
		{[]*myReader{a.readers[0], b.readers[0]}, false},
		{[]*myReader{a.readers[0], b.readers[0], c.readers[0]}, true},
		{[]*myReader{c.readers[0], a.readers[0]}, true},
	} {
		pos, apart, err := s.cutPosition(ctx, &mySnapshot{readers: x.readers}, false, true)
		if err != nil {
			t.Fatal(err)
		}
		if apart != x.apart {
			t.Errorf("%d readers at %s: apart %v, want %v", len(x.readers), pos, apart, x.apart)
		}
	}
	// A user without RELOAD gets no read lock: with no writes, the
	// readers StartFollow takes are at one point all the same.
	norl := sourcetest.Open(t, ctx, binlogUser(t, db, dsn, "REPLICATION SLAVE, BINLOG MONITOR"))
	start, err := norl.(source.Follower).StartFollow(ctx, source.FollowOptions{Slot: "remodel_apart"}, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer start.Snapshot.Close()
	if start.Snapshot.Warning() != "" || len(start.Snapshot.Readers()) != 3 {
		t.Errorf("StartFollow without the lock: warning %q, %d readers", start.Snapshot.Warning(), len(start.Snapshot.Readers()))
	}
	if pos, err := parseBinlogPos(start.Position); err != nil || pos.GTID == "" {
		t.Errorf("StartFollow without the lock: position %q (%v)", start.Position, err)
	}
}

// binlogUser creates a user of the test's database that has the global
// privileges grants (none: "") and returns its DSN; it is dropped when the
// test ends.
func binlogUser(t *testing.T, db *sql.DB, dsn, grants string) string {
	t.Helper()
	u, _ := url.Parse(dsn)
	name := strings.TrimPrefix(u.Path, "/")
	user := name + "_u"
	mustExec(t, db, fmt.Sprintf("DROP USER IF EXISTS '%s'@'%%'; CREATE USER '%s'@'%%' IDENTIFIED BY 'pw'; GRANT SELECT ON `%s`.* TO '%s'@'%%'", user, user, name, user))
	if grants != "" {
		mustExec(t, db, fmt.Sprintf("GRANT %s ON *.* TO '%s'@'%%'", grants, user))
	}
	t.Cleanup(func() { db.Exec(fmt.Sprintf("DROP USER IF EXISTS '%s'@'%%'", user)) })
	u.User = url.UserPassword(user, "pw")
	return u.String()
}

// TestMyStreamZeroDates: values ScanTable cannot decode (zero dates) are
// the same error values in the stream.
func TestMyStreamZeroDates(t *testing.T) {
	ctx := sourcetest.Context(t)
	dsn := testenv.MySQLBinlog(t)
	db := binlogDB(t, dsn)
	mustExec(t, db, "CREATE TABLE z (id int PRIMARY KEY, d date, dt datetime, ts timestamp NULL DEFAULT NULL)")
	src := sourcetest.Open(t, ctx, dsn)
	tab := sourcetest.InspectTable(t, ctx, src, "z")
	start, err := src.(source.Follower).StartFollow(ctx, followOptions(t, tab), 1)
	if err != nil {
		t.Fatal(err)
	}
	start.Snapshot.Close()
	mustExec(t, db, "SET SESSION sql_mode = ''; INSERT INTO z VALUES (1, '0000-00-00', '0000-00-00 00:00:00', '0000-00-00 00:00:00'), (2, '2024-01-01', '2024-01-01 00:00:00', '2024-01-01 00:00:00')")
	want := sourcetest.Scan(t, ctx, sourcetest.Reader(t, ctx, src), tab, "", 0)
	st := sourcetest.OpenStream(t, ctx, src, followOptions(t, tab), start.Position)
	txn := sourcetest.Next(t, ctx, st)
	var got [][]any
	for _, c := range txn.Changes {
		got = append(got, c.New)
	}
	if _, ok := want[0][1].(error); !ok {
		t.Fatalf("ScanTable reads the zero date as %s", canon.Show(want[0][1]))
	}
	sourcetest.CheckSameRows(t, "rows with zero dates", tab.Columns, got, want)
}

// TestMyStreamReconnects: a stream whose connection the server ends opens
// a new one and goes on from the last whole transaction, sending nothing
// twice.
func TestMyStreamReconnects(t *testing.T) {
	ctx := sourcetest.Context(t)
	dsn := testenv.MySQLBinlog(t)
	db := binlogDB(t, dsn)
	mustExec(t, db, "CREATE TABLE r (id int PRIMARY KEY)")
	src := sourcetest.Open(t, ctx, dsn)
	tab := sourcetest.InspectTable(t, ctx, src, "r")
	start, err := src.(source.Follower).StartFollow(ctx, followOptions(t, tab), 1)
	if err != nil {
		t.Fatal(err)
	}
	start.Snapshot.Close()
	mustExec(t, db, "INSERT INTO r VALUES (1)")
	st := sourcetest.OpenStream(t, ctx, src, followOptions(t, tab), start.Position)
	if txn := sourcetest.Next(t, ctx, st); txn.Changes[0].New[0] != int64(1) {
		t.Fatalf("first transaction %s", sourcetest.DescribeTxn(txn))
	}
	id := st.(*myStream).syncer.LastConnectionID()
	mustExec(t, db, fmt.Sprintf("KILL %d", id))
	mustExec(t, db, "INSERT INTO r VALUES (2)")
	if txn := sourcetest.Next(t, ctx, st); txn.Changes[0].New[0] != int64(2) {
		t.Fatalf("after the connection was killed: %s, want the insert of 2", sourcetest.DescribeTxn(txn))
	}
	if st.(*myStream).syncer.LastConnectionID() == id {
		t.Errorf("the stream did not open a new connection")
	}
	sourcetest.NoMore(t, ctx, st)
}

// TestMyStreamHeartbeat: the server's heartbeats keep a stream that has
// nothing to read within its read deadline (the connection stays).
func TestMyStreamHeartbeat(t *testing.T) {
	hb, rt := myHeartbeat, myReadTimeout
	myHeartbeat, myReadTimeout = 300*time.Millisecond, 1500*time.Millisecond
	defer func() { myHeartbeat, myReadTimeout = hb, rt }()
	ctx := sourcetest.Context(t)
	dsn := testenv.MySQLBinlog(t)
	db := binlogDB(t, dsn)
	mustExec(t, db, "CREATE TABLE h (id int PRIMARY KEY)")
	src, err := source.OpenWith(ctx, dsn, source.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	tab := sourcetest.InspectTable(t, ctx, src, "h")
	start, err := src.(source.Follower).StartFollow(ctx, followOptions(t, tab), 1)
	if err != nil {
		t.Fatal(err)
	}
	start.Snapshot.Close()
	st := sourcetest.OpenStream(t, ctx, src, followOptions(t, tab), start.Position)
	id := st.(*myStream).syncer.LastConnectionID()
	idle, cancel := context.WithTimeout(ctx, 4*time.Second)
	defer cancel()
	if txn, err := st.Next(idle); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Next on an idle stream: %v, %v", txn, err)
	}
	if got := st.(*myStream).syncer.LastConnectionID(); got != id || st.(*myStream).retries != 0 {
		t.Errorf("the idle stream's connection %d was replaced by %d (%d new connections)", id, got, st.(*myStream).retries)
	}
	mustExec(t, db, "INSERT INTO h VALUES (1)")
	if txn := sourcetest.Next(t, ctx, st); txn.Changes[0].New[0] != int64(1) {
		t.Errorf("after the idle time: %s", sourcetest.DescribeTxn(txn))
	}
}

// TestMyStreamSavepoint: a transaction that rolls back to a savepoint is
// still one transaction (the binlog has the SAVEPOINT and ROLLBACK TO
// statements when a non-transactional table was written after it).
func TestMyStreamSavepoint(t *testing.T) {
	ctx := sourcetest.Context(t)
	dsn := testenv.MySQLBinlog(t)
	db := binlogDB(t, dsn)
	mustExec(t, db, "CREATE TABLE sp (id int PRIMARY KEY) ENGINE=InnoDB; CREATE TABLE spm (id int PRIMARY KEY) ENGINE=MyISAM")
	src := sourcetest.Open(t, ctx, dsn)
	tab := sourcetest.InspectTable(t, ctx, src, "sp")
	start, err := src.(source.Follower).StartFollow(ctx, followOptions(t, tab), 1)
	if err != nil {
		t.Fatal(err)
	}
	start.Snapshot.Close()
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"INSERT INTO sp VALUES (1)", "SAVEPOINT s", "INSERT INTO spm VALUES (1)", "INSERT INTO sp VALUES (2)", "ROLLBACK TO SAVEPOINT s", "INSERT INTO sp VALUES (3)"} {
		mustExec(t, tx, q)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	st := sourcetest.OpenStream(t, ctx, src, followOptions(t, tab), start.Position)
	txn := sourcetest.Next(t, ctx, st)
	var got []any
	for _, c := range txn.Changes {
		got = append(got, c.New[0])
	}
	if !slices.Contains(got, any(int64(1))) || !slices.Contains(got, any(int64(3))) {
		t.Errorf("the transaction came as %s", sourcetest.DescribeTxn(txn))
	}
	sourcetest.NoMore(t, ctx, st)
}

// TestMyStreamPurged: a stream whose binlog file the server no longer has
// is refused up front.
func TestMyStreamPurged(t *testing.T) {
	ctx := sourcetest.Context(t)
	dsn := testenv.MySQLBinlog(t)
	src := sourcetest.Open(t, ctx, dsn)
	files, err := src.(*mySource).binaryLogs(ctx)
	if err != nil || len(files) == 0 {
		t.Fatalf("SHOW BINARY LOGS: %v %v", files, err)
	}
	base, _ := binlogSeq(files[0])
	gone := base + ".000000"
	for _, from := range []string{gone + ":4", gone + ":4 gtid 0-77-1"} {
		_, err := src.(source.Follower).OpenStream(ctx, source.FollowOptions{Slot: "remodel_purged", From: source.Position(from)})
		if err == nil || !strings.Contains(err.Error(), "binlog "+gone+", where the changes to follow start") || !strings.Contains(err.Error(), "purged") {
			t.Errorf("OpenStream from %s: %v; want the error that it was purged", from, err)
		}
	}
	if _, err := src.(source.Follower).OpenStream(ctx, source.FollowOptions{Slot: "remodel_purged"}); err == nil {
		t.Errorf("OpenStream without a position: no error")
	}
}

// TestMyFollowRefused: CheckFollow refuses a server without a row binlog
// and a user without the replication privileges, saying what to change.
func TestMyFollowRefused(t *testing.T) {
	ctx := sourcetest.Context(t)
	// The shared server writes no binlog.
	shared := sourcetest.Open(t, ctx, testenv.MySQL(t))
	err := shared.(source.Follower).CheckFollow(ctx, source.FollowOptions{})
	if err == nil || !strings.Contains(err.Error(), "log_bin is off") || !strings.Contains(err.Error(), "--log-bin") {
		t.Errorf("CheckFollow on a server without a binlog: %v", err)
	}

	dsn := testenv.MySQLBinlog(t)
	db := binlogDB(t, dsn)
	for _, c := range []struct {
		grants string
		want   string // "": accepted
	}{
		{"", "needs the REPLICATION SLAVE, REPLICATION CLIENT privileges, which user %s does not have: GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO '%s'@'%%'"},
		{"REPLICATION SLAVE", "needs the REPLICATION CLIENT privilege, which user %s does not have: GRANT REPLICATION CLIENT ON *.* TO '%s'@'%%'"},
		{"REPLICATION CLIENT", "needs the REPLICATION SLAVE privilege, which"},
		{"REPLICATION SLAVE, REPLICATION CLIENT", ""},
	} {
		udsn := binlogUser(t, db, dsn, c.grants)
		u, _ := url.Parse(udsn)
		user := u.User.Username()
		src := sourcetest.Open(t, ctx, udsn)
		err := src.(source.Follower).CheckFollow(ctx, source.FollowOptions{})
		want := c.want
		if strings.Contains(want, "%s") {
			want = fmt.Sprintf(want, user+"@%", user)
		}
		switch {
		case want == "" && err != nil:
			t.Errorf("CheckFollow with %q: %v", c.grants, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("CheckFollow with %q: %v\nwant: %s", c.grants, err, want)
		}
		src.Close()
	}
}

// TestMyFollowChecks: the settings and grants CheckFollow refuses, as the
// servers word them.
func TestMyFollowChecks(t *testing.T) {
	for _, c := range []struct {
		logBin, format, image, want string
	}{
		{"1", "ROW", "FULL", ""},
		{"ON", "row", "full", ""},
		{"0", "ROW", "FULL", "log_bin is off"},
		{"1", "MIXED", "FULL", "needs binlog_format=ROW on MySQL at h, which has MIXED: set binlog_format=ROW (server option --binlog-format=ROW) and restart"},
		{"1", "ROW", "MINIMAL", "needs binlog_row_image=FULL on MySQL at h, which has MINIMAL: set binlog_row_image=FULL (server option --binlog-row-image=FULL) and restart"},
	} {
		err := checkBinlogSettings("MySQL at h", c.logBin, c.format, c.image)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("log_bin %s, binlog_format %s, binlog_row_image %s: %v; want %q", c.logBin, c.format, c.image, err, c.want)
		}
	}
	for _, c := range []struct {
		grants []string
		maria  bool
		want   string
	}{
		{[]string{"GRANT ALL PRIVILEGES ON *.* TO `root`@`localhost` WITH GRANT OPTION"}, false, ""},
		{[]string{"GRANT RELOAD, REPLICATION SLAVE, BINLOG MONITOR ON *.* TO `u`@`%`"}, true, ""},
		{[]string{"GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO `u`@`%`"}, false, "needs the RELOAD privilege"},
		{[]string{"GRANT RELOAD, REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO `u`@`%`"}, false, ""},
		{[]string{"GRANT USAGE ON *.* TO `u`@`%`", "GRANT ALL PRIVILEGES ON `db`.* TO `u`@`%`"}, true, "REPLICATION SLAVE, REPLICATION CLIENT privileges"},
	} {
		err := checkFollowGrants(c.grants, "u@%", c.maria)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("grants %q: %v; want %q", c.grants, err, c.want)
		}
	}
	// A primary key whose binlog form is not read is refused.
	tab := &introspect.Table{Schema: "db", Name: "t", PrimaryKey: []string{"id"}, Columns: []*introspect.Column{{Name: "id", Type: "uuid", Kind: introspect.KindString}}}
	if why := binlogUnreadable(tab.Columns[0]); why == "" {
		t.Errorf("a uuid key is read from the binlog")
	}
}

// TestMyFollowPositions: positions are ordered by file number, then offset.
func TestMyFollowPositions(t *testing.T) {
	ps := []string{"binlog.000002:4", "binlog.000002:900 gtid 0-1-5", "binlog.000010:4", "binlog.000010:120"}
	for i := range ps {
		for j := range ps {
			a, err1 := parseBinlogPos(source.Position(ps[i]))
			b, err2 := parseBinlogPos(source.Position(ps[j]))
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			if got, want := a.compare(b), cmpInt(i, j); got != want {
				t.Errorf("compare(%s, %s) = %d, want %d", ps[i], ps[j], got, want)
			}
			if source.Position(a.String()) != source.Position(ps[i]) {
				t.Errorf("%s reads back as %s", ps[i], a)
			}
		}
	}
	for _, bad := range []string{"", "binlog", "binlog:x", ":4"} {
		if _, err := parseBinlogPos(source.Position(bad)); err == nil {
			t.Errorf("%q reads as a position", bad)
		}
	}
	if id := mySlotServerID("remodel_x", 0); id == 0 || id == mySlotServerID("remodel_y", 0) || mySlotServerID("remodel_x", id) == id {
		t.Errorf("server ids: %d", id)
	}
	if !slices.Equal([]string{truncatedPair("TABLE `a``b`", "d")}, []string{"d.a`b"}) || truncatedPair("x.y", "d") != "x.y" || truncatedPair("` s `.`t` ", "d") != " s .t" {
		t.Errorf("TRUNCATE names: %s, %s", truncatedPair("TABLE `a``b`", "d"), truncatedPair("x.y", "d"))
	}
}

func truncatedPair(rest, db string) string {
	s, t := truncatedTable(rest, db)
	return s + "." + t
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func mustBinlogPos(t *testing.T, p source.Position) binlogPos {
	t.Helper()
	pos, err := parseBinlogPos(p)
	if err != nil {
		t.Fatal(err)
	}
	return pos
}
