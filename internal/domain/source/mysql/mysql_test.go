package mysql

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/remodel-dev/remodel/internal/domain/source/sourcetest"
	"github.com/remodel-dev/remodel/internal/testsupport/canon"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/introspect"
)

const mysqlTypesSQL = `
CREATE TABLE m (
  id    int PRIMARY KEY,
  flag  tinyint(1) NULL,
  tiny  tinyint NULL,
  mood  enum('happy','sad') NULL,
  tags  set('a','b','c') NULL,
  bits  bit(8) NULL,
  wide  bit(64) NULL,
  ubig  bigint unsigned NULL,
  f     float NULL,
  yr    year NULL,
  d     date NULL,
  dt    datetime NULL,
  ts    timestamp NULL DEFAULT NULL,
  tm    time(2) NULL,
  bin   binary(3) NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
SET time_zone = '+00:00';
INSERT INTO m VALUES
 (2, 0, -128, 'sad', '', b'1', b'0', 0, PI(), 1901, '1000-01-01', '1000-01-01 00:00:00',
  '1970-01-01 00:00:01', '12:34:56.50', 'ab'),
 (1, 1, 2, 'happy', 'b,a', b'00110001', b'1111111111111111111111111111111111111111111111111111111111111111',
  18446744073709551615, 16777216, 2024, '2024-01-02', '2024-01-02 03:04:05', '2024-01-02 03:04:05',
  '-838:59:59.00', X'000102'),
 (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
 (5, 1, 0, 'happy', 'a,b,c', b'00110010', b'0', 9223372036854775807, 1.1, 2155, '9999-12-31', '9999-12-31 23:59:59',
  '2038-01-19 03:14:07', '838:59:59.00', X'ffffff');
SET SESSION sql_mode = '';
INSERT INTO m (id, d, dt, ts) VALUES (4, '0000-00-00', '0000-00-00 00:00:00', '0000-00-00 00:00:00');
`

// mysqlTypesRows are the canonical values of m in key order.
var mysqlTypesRows = [][]any{
	{int64(1), true, int64(2), "happy", []string{"a", "b"}, int64(0x31), "18446744073709551615",
		"18446744073709551615", 16777216.0, int64(2024), canon.UTC(2024, 1, 2, 0, 0, 0, 0),
		canon.UTC(2024, 1, 2, 3, 4, 5, 0), canon.UTC(2024, 1, 2, 3, 4, 5, 0), "-838:59:59.00", []byte{0, 1, 2}},
	{int64(2), false, int64(-128), "sad", []string{}, int64(1), int64(0), int64(0), 3.1415927, int64(1901),
		canon.UTC(1000, 1, 1, 0, 0, 0, 0), canon.UTC(1000, 1, 1, 0, 0, 0, 0), canon.UTC(1970, 1, 1, 0, 0, 1, 0), "12:34:56.50",
		[]byte("ab\x00")},
	{int64(3), nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil},
	{int64(4), nil, nil, nil, nil, nil, nil, nil, nil, nil, canon.ErrValue{}, canon.ErrValue{}, canon.ErrValue{}, nil, nil},
	{int64(5), true, int64(0), "happy", []string{"a", "b", "c"}, int64(0x32), int64(0), int64(9223372036854775807),
		1.1, int64(2155), canon.UTC(9999, 12, 31, 0, 0, 0, 0), canon.UTC(9999, 12, 31, 23, 59, 59, 0),
		canon.UTC(2038, 1, 19, 3, 14, 7, 0), "838:59:59.00", []byte{0xff, 0xff, 0xff}},
}

func TestMySQLTypes(t *testing.T) {
	dsn := testenv.MySQL(t)
	testenv.ExecMySQL(t, dsn, mysqlTypesSQL)
	ctx := sourcetest.Context(t)
	src := sourcetest.Open(t, ctx, dsn)
	tab := sourcetest.InspectTable(t, ctx, src, "m")
	wantKinds := map[string]introspect.Kind{
		"flag": introspect.KindBool, "tiny": introspect.KindInt, "mood": introspect.KindString,
		"tags": introspect.KindSet, "bits": introspect.KindInt, "f": introspect.KindFloat,
		"d": introspect.KindDate, "dt": introspect.KindTimestamp, "ts": introspect.KindTimestampTZ,
		"tm": introspect.KindTime, "bin": introspect.KindBytes,
	}
	for name, k := range wantKinds {
		if c := tab.Column(name); c == nil || c.Kind != k {
			t.Fatalf("column %s: %+v, want kind %s", name, c, k)
		}
	}
	r := sourcetest.Reader(t, ctx, src)

	rows := sourcetest.Scan(t, ctx, r, tab, "", 0)
	if len(rows) != len(mysqlTypesRows) {
		t.Fatalf("ScanTable read %d rows, want %d", len(rows), len(mysqlTypesRows))
	}
	for i, want := range mysqlTypesRows {
		sourcetest.CheckRow(t, "ScanTable row "+canon.Show(want[0]), tab.Columns, rows[i], want)
	}

	// The zero dates are error values in their own columns only: the row
	// is there, to be rejected with its key.
	for i, c := range tab.Columns {
		v := rows[3][i]
		if err, ok := v.(error); ok && !strings.Contains(err.Error(), "0000-00-00") {
			t.Errorf("zero %s: error %q does not show the value", c.Name, err)
		}
	}

	// Query (bound parameters: the binary protocol) reads the same values
	// as ScanTable, and so does Query without parameters.
	for _, want := range rows {
		_, got := sourcetest.Query(t, ctx, r, tab, "SELECT * FROM m WHERE id = ?", want[0])
		sourcetest.CheckSameRows(t, "Query vs ScanTable, id "+canon.Show(want[0]), tab.Columns, got, [][]any{want})
	}
	_, all := sourcetest.Query(t, ctx, r, tab, "SELECT * FROM m ORDER BY id")
	sourcetest.CheckSameRows(t, "Query without parameters vs ScanTable", tab.Columns, all, rows)

	// Sample reads the same values too.
	got, err := r.Sample(ctx, tab, []string{"f", "bits", "tags"}, "id IN (1, 2)", 10, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("Sample = %v, want 2 tuples", got)
	}
	for _, tuple := range got {
		ok := false
		for _, row := range mysqlTypesRows[:2] {
			if sourcetest.CanonEqualAll(tuple, []any{row[8], row[5], row[4]}) {
				ok = true
			}
		}
		if !ok {
			t.Errorf("Sample tuple %s is no row's values", sourcetest.ShowAll(tuple))
		}
	}

	// Canonical values bound back as parameters find their rows.
	for _, name := range []string{"flag", "bits", "ubig", "f", "d", "dt", "ts", "bin", "mood"} {
		i := sourcetest.ColumnIndex(t, tab, name)
		_, got := sourcetest.Query(t, ctx, r, tab, "SELECT id FROM m WHERE "+name+" = ? ORDER BY id", mysqlTypesRows[0][i])
		if len(got) == 0 || !canon.Equal(got[0][0], int64(1)) {
			t.Errorf("Query where %s = %s: ids %v, want row 1 first", name, canon.Show(mysqlTypesRows[0][i]), sourcetest.IDs(got))
		}
	}
}

// TestMySQLSnapshotFailureReleasesReadLock makes Snapshot fail after it has
// taken FLUSH TABLES WITH READ LOCK (the user may open only two
// connections) and checks that writers are not left blocked.
func TestMySQLSnapshotFailureReleasesReadLock(t *testing.T) {
	dsn := testenv.MySQL(t)
	testenv.ExecMySQL(t, dsn, "CREATE TABLE t (id int PRIMARY KEY); INSERT INTO t VALUES (1);")
	ctx := sourcetest.Context(t)
	admin := sourcetest.RootDB(t, dsn)
	cfg, _ := mysqlConfig(dsn)
	user := testenv.UniqueName("remodel_snap")
	for _, q := range []string{
		"CREATE USER '" + user + "'@'%' WITH MAX_USER_CONNECTIONS 2",
		"GRANT RELOAD ON *.* TO '" + user + "'@'%'",
		"GRANT ALL ON `" + cfg.DBName + "`.* TO '" + user + "'@'%'",
	} {
		if _, err := admin.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() { _, _ = admin.Exec("DROP USER IF EXISTS '" + user + "'@'%'") })

	limited := "mysql://" + user + "@" + cfg.Addr + "/" + cfg.DBName
	src := sourcetest.Open(t, ctx, limited)
	snap, err := src.Snapshot(ctx, 3)
	if err == nil {
		snap.Close()
		t.Fatalf("Snapshot(3) succeeded for a user limited to 2 connections")
	}
	t.Logf("Snapshot: %v", err)

	// A writer must get through at once, not wait for a lock a pooled
	// connection of src still holds.
	conn, err := admin.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SET SESSION lock_wait_timeout = 3"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := conn.ExecContext(ctx, "INSERT INTO t VALUES (2)"); err != nil {
		var me *mysql.MySQLError
		if errors.As(err, &me) && me.Number == 1205 {
			t.Fatalf("a writer waited %v for the global read lock of a failed Snapshot: %v", time.Since(start).Round(time.Second), err)
		}
		t.Fatal(err)
	}
}

// TestMySQLSnapshotWithoutReload: a user without RELOAD still gets a
// snapshot, and Warning says it is weaker.
func TestMySQLSnapshotWithoutReload(t *testing.T) {
	dsn := testenv.MySQL(t)
	testenv.ExecMySQL(t, dsn, "CREATE TABLE t (id int PRIMARY KEY); INSERT INTO t VALUES (1), (2);")
	ctx := sourcetest.Context(t)
	admin := sourcetest.RootDB(t, dsn)
	cfg, _ := mysqlConfig(dsn)
	user := testenv.UniqueName("remodel_noreload")
	for _, q := range []string{
		"CREATE USER '" + user + "'@'%'",
		"GRANT SELECT ON `" + cfg.DBName + "`.* TO '" + user + "'@'%'",
	} {
		if _, err := admin.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() { _, _ = admin.Exec("DROP USER IF EXISTS '" + user + "'@'%'") })

	src := sourcetest.Open(t, ctx, "mysql://"+user+"@"+cfg.Addr+"/"+cfg.DBName)
	// One reader needs no global lock, so nothing is weaker and nothing is said.
	if w := sourcetest.OpenSnapshot(t, ctx, src, 1).Warning(); w != "" {
		t.Errorf("Warning() of a one-reader snapshot = %q, want none", w)
	}
	snap := sourcetest.OpenSnapshot(t, ctx, src, 2)
	if w := snap.Warning(); !strings.Contains(w, "snapshot") {
		t.Errorf("Warning() = %q, want it to say the snapshot is not one cut", w)
	}
	tab := &introspect.Table{Schema: cfg.DBName, Name: "t", Columns: []*introspect.Column{{Name: "id", Kind: introspect.KindInt}}, PrimaryKey: []string{"id"}}
	testenv.ExecMySQL(t, dsn, "INSERT INTO t VALUES (3)")
	for i, r := range snap.Readers() {
		n, err := r.Count(ctx, tab, "")
		if err != nil {
			t.Fatal(err)
		}
		if n != 2 {
			t.Errorf("reader %d counts %d rows, want 2", i, n)
		}
	}
}
