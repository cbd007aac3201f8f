package mysql_test

import (
	"context"
	"database/sql"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql" // the "mysql" driver

	"github.com/remodel-dev/remodel/internal/testenv"
	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/introspect/introspecttest"
	"github.com/remodel-dev/remodel/introspect/mysql"
)

// open opens a mysql:// URL with go-sql-driver (parseTime stays off).
func open(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("mysql", testenv.MySQLConfig(t, dsn).FormatDSN())
	if err != nil {
		t.Fatalf("opening MySQL: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func inspect(t *testing.T, dsn string) *introspect.Schema {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := mysql.New(open(t, dsn)).Inspect(ctx)
	if err != nil {
		t.Fatalf("Inspect: %v", err)
	}
	return s
}

func TestSuite(t *testing.T) {
	introspecttest.Run(t, introspecttest.Target{
		Engine:  introspect.MySQL,
		Fresh:   testenv.MySQL,
		Exec:    testenv.ExecMySQL,
		Inspect: inspect,
	})
}

func isMariaDB(t *testing.T, dsn string) bool {
	t.Helper()
	var v string
	if err := open(t, dsn).QueryRow("SELECT VERSION()").Scan(&v); err != nil {
		t.Fatal(err)
	}
	return strings.Contains(strings.ToLower(v), "mariadb")
}

func TestTypes(t *testing.T) {
	dsn := testenv.MySQL(t)
	testenv.ExecMySQL(t, dsn, `
CREATE TABLE kinds (
	id       bigint unsigned NOT NULL AUTO_INCREMENT PRIMARY KEY,
	flag     boolean NOT NULL,
	flag1    tinyint(1),
	flag_u   tinyint(1) unsigned,
	tiny     tinyint,
	small    smallint,
	medium   mediumint unsigned,
	yr       year,
	b1       bit(1),
	b8       bit(8),
	price    decimal(12,3),
	ratio    float,
	mood     enum('sad','ok','happy') NOT NULL,
	perms    set('read','write','admin'),
	code     char(3),
	bin      binary(16),
	doc      blob,
	t2       time(2),
	t0       time,
	dt       datetime,
	dt6      datetime(6),
	ts       timestamp NULL,
	j        json,
	j_table  longtext,
	j_and    longtext,
	j_or     longtext,
	plain    longtext,
	vj       varchar(255),
	shape    geometry,
	pt       point REF_SYSTEM_ID=4326,
	area     polygon NOT NULL,
	gc       geometrycollection,
	l1       varchar(10) CHARACTER SET latin1,
	asc_c    char(2) CHARACTER SET ascii,
	le       enum('a','b') CHARACTER SET latin1,
	u3       varchar(5) CHARACTER SET utf8mb3,
	jb       blob,
	CONSTRAINT jb_valid CHECK (json_valid(jb)),
	CONSTRAINT j_table_valid CHECK (json_valid(j_table)),
	CONSTRAINT j_and_valid CHECK (json_valid(j_and) AND code <> ''),
	CONSTRAINT j_or_valid CHECK (json_valid(j_or) OR j_or = ''),
	CONSTRAINT vj_valid CHECK (json_valid(vj))
);
-- Same column names, other table: CHECKs are matched per table. MariaDB
-- names a column's CHECK after the column and scopes names to a table, so
-- this table's constraint j must not be confused with kinds' j (JSON).
CREATE TABLE other (id int PRIMARY KEY, j_table longtext, j longtext, CONSTRAINT j CHECK (id > 0));
`)
	s := inspect(t, dsn)
	introspecttest.CheckColumns(t, introspecttest.MustTable(t, s, "kinds"), []introspect.Column{
		{Name: "id", Kind: introspect.KindInt},
		{Name: "flag", Type: "tinyint(1)", Kind: introspect.KindBool},
		{Name: "flag1", Type: "tinyint(1)", Kind: introspect.KindBool, Nullable: true},
		{Name: "flag_u", Kind: introspect.KindInt, Nullable: true},
		{Name: "tiny", Kind: introspect.KindInt, Nullable: true},
		{Name: "small", Kind: introspect.KindInt, Nullable: true},
		{Name: "medium", Kind: introspect.KindInt, Nullable: true},
		{Name: "yr", Kind: introspect.KindInt, Nullable: true},
		{Name: "b1", Type: "bit(1)", Kind: introspect.KindInt, Nullable: true},
		{Name: "b8", Type: "bit(8)", Kind: introspect.KindInt, Nullable: true},
		{Name: "price", Type: "decimal(12,3)", Kind: introspect.KindDecimal, Nullable: true},
		{Name: "ratio", Type: "float", Kind: introspect.KindFloat, Nullable: true},
		{Name: "mood", Type: "enum('sad','ok','happy')", Kind: introspect.KindString},
		{Name: "perms", Type: "set('read','write','admin')", Kind: introspect.KindSet, Nullable: true},
		{Name: "code", Type: "char(3)", Kind: introspect.KindString, Nullable: true},
		{Name: "bin", Type: "binary(16)", Kind: introspect.KindBytes, Nullable: true},
		{Name: "doc", Type: "blob", Kind: introspect.KindBytes, Nullable: true},
		{Name: "t2", Type: "time(2)", Kind: introspect.KindTime, Nullable: true, Precision: 2},
		{Name: "t0", Type: "time", Kind: introspect.KindTime, Nullable: true, Precision: 0},
		{Name: "dt", Type: "datetime", Kind: introspect.KindTimestamp, Nullable: true, Precision: 0},
		{Name: "dt6", Type: "datetime(6)", Kind: introspect.KindTimestamp, Nullable: true, Precision: 6},
		{Name: "ts", Type: "timestamp", Kind: introspect.KindTimestampTZ, Nullable: true, Precision: 0},
		{Name: "j", Kind: introspect.KindJSON, Nullable: true},
		{Name: "j_table", Type: "longtext", Kind: introspect.KindJSON, Nullable: true},
		{Name: "j_and", Type: "longtext", Kind: introspect.KindJSON, Nullable: true},
		{Name: "j_or", Type: "longtext", Kind: introspect.KindString, Nullable: true},
		{Name: "plain", Type: "longtext", Kind: introspect.KindString, Nullable: true},
		{Name: "vj", Type: "varchar(255)", Kind: introspect.KindJSON, Nullable: true},
		{Name: "shape", Type: "geometry", Kind: introspect.KindGeometry, Nullable: true},
		{Name: "pt", Type: "point", Kind: introspect.KindGeometry, Nullable: true},
		{Name: "area", Type: "polygon", Kind: introspect.KindGeometry},
		{Name: "gc", Type: "geometrycollection", Kind: introspect.KindGeometry, Nullable: true},
		// Text in a character set that is not UTF-8 says which.
		{Name: "l1", Type: "varchar(10)", Kind: introspect.KindString, Nullable: true, Charset: "latin1"},
		{Name: "asc_c", Type: "char(2)", Kind: introspect.KindString, Nullable: true, Charset: "ascii"},
		{Name: "le", Type: "enum('a','b')", Kind: introspect.KindString, Nullable: true, Charset: "latin1"},
		{Name: "u3", Type: "varchar(5)", Kind: introspect.KindString, Nullable: true},
		// Only text columns become JSON: a blob stays bytes.
		{Name: "jb", Type: "blob", Kind: introspect.KindBytes, Nullable: true},
	})
	if c := introspecttest.MustTable(t, s, "kinds").Column("id"); !strings.HasSuffix(c.Type, " unsigned") {
		t.Errorf("kinds.id: Type = %q, want an unsigned bigint", c.Type)
	}
	introspecttest.CheckColumns(t, introspecttest.MustTable(t, s, "other"), []introspect.Column{
		{Name: "id", Kind: introspect.KindInt},
		{Name: "j_table", Type: "longtext", Kind: introspect.KindString, Nullable: true},
		{Name: "j", Type: "longtext", Kind: introspect.KindString, Nullable: true},
	})
	if isMariaDB(t, dsn) {
		// MariaDB's JSON is longtext plus CHECK (json_valid(`j`)).
		if c := introspecttest.MustTable(t, s, "kinds").Column("j"); c.Type != "longtext" {
			t.Errorf("kinds.j on MariaDB: Type = %q, want longtext", c.Type)
		}
	}
}

func TestTablesAndForeignKeys(t *testing.T) {
	// Cleanups run last-in first-out: the database that references the
	// other one must be dropped first, so it is created second.
	other := testenv.MySQL(t)
	dsn := testenv.MySQL(t)
	otherDB := introspecttest.DatabaseName(t, other)
	testenv.ExecMySQL(t, other, `CREATE TABLE regions (code char(2) PRIMARY KEY);`)
	testenv.ExecMySQL(t, dsn, `
CREATE TABLE Zebra (id int PRIMARY KEY);
CREATE TABLE apple (
	id        int PRIMARY KEY,
	parent_id int,
	region    char(2),
	zebra_id  int,
	CONSTRAINT b_parent FOREIGN KEY (parent_id) REFERENCES apple (id),
	CONSTRAINT a_region FOREIGN KEY (region) REFERENCES `+otherDB+`.regions (code),
	CONSTRAINT c_zebra FOREIGN KEY (zebra_id) REFERENCES Zebra (id)
);
CREATE TABLE nokey (x int);
CREATE VIEW apple_view AS SELECT id FROM apple;
`)
	if isMariaDB(t, dsn) {
		testenv.ExecMySQL(t, dsn, `
CREATE TABLE versioned (id int PRIMARY KEY, v int) WITH SYSTEM VERSIONING;
CREATE SEQUENCE seq;
`)
	}
	s := inspect(t, dsn)
	var got []string
	for _, tbl := range s.Tables {
		got = append(got, tbl.Name)
	}
	want := []string{"Zebra", "apple", "nokey"} // bytewise: upper case first
	if isMariaDB(t, dsn) {
		want = append(want, "versioned")
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("tables = %q, want %q (no views or sequences)", got, want)
	}
	db := introspecttest.DatabaseName(t, dsn)
	apple := introspecttest.MustTable(t, s, "apple")
	introspecttest.CheckForeignKeys(t, apple, []introspect.ForeignKey{
		{Name: "a_region", Columns: []string{"region"}, RefSchema: otherDB, RefTable: "regions", RefColumns: []string{"code"}},
		{Name: "b_parent", Columns: []string{"parent_id"}, RefSchema: db, RefTable: "apple", RefColumns: []string{"id"}},
		{Name: "c_zebra", Columns: []string{"zebra_id"}, RefSchema: db, RefTable: "Zebra", RefColumns: []string{"id"}},
	})
	if pk := introspecttest.MustTable(t, s, "nokey").PrimaryKey; pk != nil {
		t.Errorf("nokey: PrimaryKey = %q, want none", pk)
	}
	if isMariaDB(t, dsn) {
		v := introspecttest.MustTable(t, s, "versioned")
		// The hidden row_start/row_end columns are invisible to SELECT *
		// but are columns of the table all the same.
		if v.Column("id") == nil || v.Column("v") == nil {
			t.Errorf("versioned: columns %+v, want id and v among them", v.Columns)
		}
	}
}

func TestInspectOverConn(t *testing.T) {
	dsn := testenv.MySQL(t)
	testenv.ExecMySQL(t, dsn, `CREATE TABLE t (id int PRIMARY KEY, b boolean);`)
	ctx := context.Background()
	conn, err := open(t, dsn).Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	s, err := mysql.New(conn).Inspect(ctx)
	if err != nil {
		t.Fatalf("Inspect: %v", err)
	}
	introspecttest.CheckColumns(t, introspecttest.MustTable(t, s, "t"), []introspect.Column{
		{Name: "id", Kind: introspect.KindInt},
		{Name: "b", Kind: introspect.KindBool, Nullable: true},
	})
}

func TestNoDatabaseSelected(t *testing.T) {
	dsn := testenv.MySQL(t)
	u, _ := url.Parse(dsn)
	u.Path = ""
	_, err := mysql.New(open(t, u.String())).Inspect(context.Background())
	const want = "introspect/mysql: reading the current database: no database selected: name one in the DSN"
	if err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}
}

// TestChinook inspects Chinook, a sample database nobody here wrote,
// loaded into a fresh database (its script's own database lines removed).
func TestChinook(t *testing.T) {
	path := testenv.Dataset(t, "chinook/Chinook_MySql.sql")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	script := string(b)
	for _, stmt := range []string{"DROP DATABASE IF EXISTS `Chinook`;", "CREATE DATABASE `Chinook`;", "USE `Chinook`;"} {
		if !strings.Contains(script, stmt) {
			t.Fatalf("%s no longer contains %q: update this test", path, stmt)
		}
		script = strings.Replace(script, stmt, "", 1)
	}
	dsn := testenv.MySQL(t)
	testenv.ExecMySQL(t, dsn, script+"\nANALYZE TABLE `Track`;")
	s := inspect(t, dsn)

	want := "Album Artist Customer Employee Genre Invoice InvoiceLine MediaType Playlist PlaylistTrack Track"
	if got := strings.Join(s.TableNames(), " "); got != want {
		t.Errorf("tables = %s, want %s", got, want)
	}
	db := introspecttest.DatabaseName(t, dsn)
	pt := introspecttest.MustTable(t, s, "PlaylistTrack")
	if got := strings.Join(pt.PrimaryKey, ","); got != "PlaylistId,TrackId" {
		t.Errorf("PlaylistTrack: PrimaryKey = %s, want PlaylistId,TrackId", got)
	}
	introspecttest.CheckForeignKeys(t, pt, []introspect.ForeignKey{
		{Name: "FK_PlaylistTrackPlaylistId", Columns: []string{"PlaylistId"}, RefSchema: db, RefTable: "Playlist", RefColumns: []string{"PlaylistId"}},
		{Name: "FK_PlaylistTrackTrackId", Columns: []string{"TrackId"}, RefSchema: db, RefTable: "Track", RefColumns: []string{"TrackId"}},
	})
	introspecttest.CheckForeignKeys(t, introspecttest.MustTable(t, s, "Employee"), []introspect.ForeignKey{
		{Name: "FK_EmployeeReportsTo", Columns: []string{"ReportsTo"}, RefSchema: db, RefTable: "Employee", RefColumns: []string{"EmployeeId"}},
	})
	track := introspecttest.MustTable(t, s, "Track")
	introspecttest.CheckColumns(t, track, []introspect.Column{
		{Name: "TrackId", Kind: introspect.KindInt},
		{Name: "Name", Type: "varchar(200)", Kind: introspect.KindString},
		{Name: "AlbumId", Kind: introspect.KindInt, Nullable: true},
		{Name: "MediaTypeId", Kind: introspect.KindInt},
		{Name: "GenreId", Kind: introspect.KindInt, Nullable: true},
		{Name: "Composer", Type: "varchar(220)", Kind: introspect.KindString, Nullable: true},
		{Name: "Milliseconds", Kind: introspect.KindInt},
		{Name: "Bytes", Kind: introspect.KindInt, Nullable: true},
		{Name: "UnitPrice", Type: "decimal(10,2)", Kind: introspect.KindDecimal},
	})
	// 3503 rows; InnoDB's estimate is approximate.
	if track.RowEstimate < 1000 || track.RowEstimate > 10000 {
		t.Errorf("Track: RowEstimate = %d, want about 3503", track.RowEstimate)
	}
	if c := introspecttest.MustTable(t, s, "Invoice").Column("InvoiceDate"); c == nil || c.Kind != introspect.KindTimestamp {
		t.Errorf("Invoice.InvoiceDate = %+v, want a datetime (KindTimestamp)", c)
	}
}
