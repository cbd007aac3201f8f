package testenv_test

import (
	"context"
	"database/sql"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// TestPostgresLogical: the server of PostgresLogical decodes its WAL
// (wal_level=logical), a pgoutput slot can be created in the test's
// database and dropped, and a replication connection is let in.
func TestPostgresLogical(t *testing.T) {
	dsn := testenv.PostgresLogical(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var level string
	if err := c.QueryRow(ctx, "SHOW wal_level").Scan(&level); err != nil {
		t.Fatal(err)
	}
	if level != "logical" {
		t.Fatalf("wal_level = %q, want logical", level)
	}

	slot := testenv.UniqueName("slot")
	if _, err := c.Exec(ctx, "SELECT pg_create_logical_replication_slot($1, 'pgoutput')", slot); err != nil {
		t.Fatalf("creating a pgoutput slot: %v", err)
	}
	var plugin, db string
	if err := c.QueryRow(ctx, "SELECT plugin, database FROM pg_replication_slots WHERE slot_name = $1", slot).Scan(&plugin, &db); err != nil {
		t.Fatalf("reading the slot: %v", err)
	}
	if plugin != "pgoutput" || db != dbName(t, dsn) {
		t.Errorf("slot: plugin %q, database %q", plugin, db)
	}
	if _, err := c.Exec(ctx, "SELECT pg_drop_replication_slot($1)", slot); err != nil {
		t.Fatalf("dropping the slot: %v", err)
	}
	var n int
	if err := c.QueryRow(ctx, "SELECT count(*) FROM pg_replication_slots WHERE slot_name = $1", slot).Scan(&n); err != nil || n != 0 {
		t.Errorf("slot left after dropping it: %d, %v", n, err)
	}

	// A logical replication connection, as a change stream opens one.
	rc := replicationConn(ctx, t, dsn)
	defer rc.Close(ctx)
	res, err := rc.Exec(ctx, "IDENTIFY_SYSTEM").ReadAll()
	if err != nil {
		t.Fatalf("IDENTIFY_SYSTEM: %v", err)
	}
	if len(res) != 1 || len(res[0].Rows) != 1 || string(res[0].Rows[0][3]) != dbName(t, dsn) {
		t.Errorf("IDENTIFY_SYSTEM answered %+v", res)
	}
}

// TestPostgresLogicalDropsSlots: the database of PostgresLogical is dropped
// at the end of its test with its slots, an idle one and one streaming to a
// replication connection that is still open (PostgreSQL refuses to drop a
// database whose slot is in use).
func TestPostgresLogicalDropsSlots(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var name string
	var rc *pgconn.PgConn // open until after the subtest's cleanup
	defer func() {
		if rc != nil {
			rc.Close(context.Background())
		}
	}()
	t.Run("streaming", func(t *testing.T) {
		dsn := testenv.PostgresLogical(t)
		name = dbName(t, dsn)
		testenv.ExecPostgres(t, dsn, "CREATE TABLE t (id int PRIMARY KEY); CREATE PUBLICATION p FOR ALL TABLES")
		testenv.ExecPostgres(t, dsn, "SELECT pg_create_logical_replication_slot('idle_"+name+"', 'pgoutput')")
		rc = replicationConn(ctx, t, dsn)
		streamSlot(ctx, t, rc, "busy_"+name)
		var active, all int
		c, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		if err := c.QueryRow(ctx, "SELECT count(*) FILTER (WHERE active), count(*) FROM pg_replication_slots WHERE database = $1",
			name).Scan(&active, &all); err != nil || active != 1 || all != 2 {
			t.Fatalf("slots of the database: %d active of %d (%v); want 1 of 2", active, all, err)
		}
	})
	if name == "" || t.Failed() {
		return
	}
	c, err := pgx.Connect(ctx, os.Getenv("REMODEL_TEST_POSTGRES_LOGICAL"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var dbs, slots int
	if err := c.QueryRow(ctx, "SELECT count(*) FROM pg_database WHERE datname = $1", name).Scan(&dbs); err != nil {
		t.Fatal(err)
	}
	if err := c.QueryRow(ctx, "SELECT count(*) FROM pg_replication_slots WHERE database = $1", name).Scan(&slots); err != nil {
		t.Fatal(err)
	}
	if dbs != 0 || slots != 0 {
		t.Errorf("after the test: %d databases %s, %d slots of it", dbs, name, slots)
	}
}

// replicationConn opens a logical replication connection to dsn's database.
func replicationConn(ctx context.Context, t *testing.T, dsn string) *pgconn.PgConn {
	t.Helper()
	cfg, err := pgconn.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.RuntimeParams["replication"] = "database"
	rc, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("opening a replication connection: %v", err)
	}
	return rc
}

// streamSlot creates the pgoutput slot on rc and starts streaming from it
// (publication p), which makes the slot active while rc stays open.
func streamSlot(ctx context.Context, t *testing.T, rc *pgconn.PgConn, slot string) {
	t.Helper()
	if _, err := rc.Exec(ctx, "CREATE_REPLICATION_SLOT "+slot+" LOGICAL pgoutput").ReadAll(); err != nil {
		t.Fatalf("CREATE_REPLICATION_SLOT: %v", err)
	}
	rc.Frontend().SendQuery(&pgproto3.Query{String: "START_REPLICATION SLOT " + slot + " LOGICAL 0/0 (proto_version '1', publication_names 'p')"})
	if err := rc.Frontend().Flush(); err != nil {
		t.Fatalf("START_REPLICATION: %v", err)
	}
	for {
		msg, err := rc.ReceiveMessage(ctx)
		if err != nil {
			t.Fatalf("START_REPLICATION: %v", err)
		}
		switch msg := msg.(type) {
		case *pgproto3.CopyBothResponse:
			return
		case *pgproto3.ErrorResponse:
			t.Fatalf("START_REPLICATION: %v", pgconn.ErrorResponseToPgError(msg))
		}
	}
}

// TestMySQLBinlog: the server of MySQLBinlog writes a binlog of full row
// images, and a row written in the test's database shows in it.
func TestMySQLBinlog(t *testing.T) {
	dsn := testenv.MySQLBinlog(t)
	db, err := sql.Open("mysql", testenv.MySQLConfig(t, dsn).FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var logBin int
	var format, image string
	if err := db.QueryRow("SELECT @@log_bin, @@binlog_format, @@binlog_row_image").Scan(&logBin, &format, &image); err != nil {
		t.Fatal(err)
	}
	if logBin != 1 || format != "ROW" || image != "FULL" {
		t.Fatalf("log_bin %d, binlog_format %q, binlog_row_image %q; want 1, ROW, FULL", logBin, format, image)
	}
	file, pos := masterStatus(t, db)
	if file == "" || pos < 4 {
		t.Fatalf("SHOW MASTER STATUS: file %q, position %d", file, pos)
	}

	if _, err := db.Exec("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))"); err != nil {
		t.Fatal(err)
	}
	_, from := masterStatus(t, db)
	if _, err := db.Exec("INSERT INTO t VALUES (1, 'one')"); err != nil {
		t.Fatal(err)
	}
	file, to := masterStatus(t, db)
	if to <= from {
		t.Fatalf("the binlog did not grow with an INSERT: %d, then %d", from, to)
	}
	rows, err := db.Query("SHOW BINLOG EVENTS IN '" + file + "' FROM " + strconv.FormatInt(from, 10))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var events []string
	for rows.Next() {
		var log, typ, info string
		var p, server, end int64
		if err := rows.Scan(&log, &p, &typ, &server, &end, &info); err != nil {
			t.Fatal(err)
		}
		events = append(events, typ+" "+info)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	all := strings.Join(events, "\n")
	if !strings.Contains(all, "Write_rows") || !strings.Contains(all, "("+dbName(t, dsn)+".t)") {
		t.Errorf("the INSERT's events are not row events of the test's table:\n%s", all)
	}
}

// masterStatus reads the binlog's current file and position.
func masterStatus(t *testing.T, db *sql.DB) (string, int64) {
	t.Helper()
	rows, err := db.Query("SHOW MASTER STATUS")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	if !rows.Next() {
		t.Fatalf("SHOW MASTER STATUS returned no row (%v)", rows.Err())
	}
	vals := make([]sql.RawBytes, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		t.Fatal(err)
	}
	if len(vals) < 2 {
		t.Fatalf("SHOW MASTER STATUS returned the columns %v", cols)
	}
	pos, err := strconv.ParseInt(string(vals[1]), 10, 64)
	if err != nil {
		t.Fatalf("SHOW MASTER STATUS: position %q", vals[1])
	}
	return string(vals[0]), pos
}

// dbName is the database a DSN names.
func dbName(t *testing.T, dsn string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(u.Path, "/")
}
