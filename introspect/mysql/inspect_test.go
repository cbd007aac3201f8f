package mysql_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql" // the "mysql" driver

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
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
	return inspectWith(t, dsn, introspect.DefaultCountLimit)
}

// inspectWith inspects counting tables up to countLimit bytes.
func inspectWith(t *testing.T, dsn string, countLimit int64) *introspect.Schema {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := mysql.New(open(t, dsn)).CountLimit(countLimit).Inspect(ctx)
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
		QueryColumns: func(t *testing.T, dsn, q string) ([]*introspect.Column, error) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			return mysql.New(open(t, dsn)).QueryColumns(ctx, q)
		},
		InspectNoCount: func(t *testing.T, dsn string) *introspect.Schema {
			return inspectWith(t, dsn, 0)
		},
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
		{Name: "mood", Type: "enum('sad','ok','happy')", Kind: introspect.KindString, Values: []string{"sad", "ok", "happy"}},
		{Name: "perms", Type: "set('read','write','admin')", Kind: introspect.KindSet, Nullable: true, Values: []string{"read", "write", "admin"}},
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
		{Name: "le", Type: "enum('a','b')", Kind: introspect.KindString, Nullable: true, Charset: "latin1", Values: []string{"a", "b"}},
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
		name := tbl.Name
		if tbl.View {
			name += " (view)"
		}
		got = append(got, name)
	}
	want := []string{"Zebra", "apple", "apple_view (view)", "nokey"} // bytewise: upper case first
	if isMariaDB(t, dsn) {
		want = append(want, "versioned")
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("tables = %q, want %q (views marked, no sequences)", got, want)
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
	if n, exact, known := track.Rows(); !known || exact || n < 1000 || n > 10000 {
		t.Errorf("Track: rows %s, want about 3503", introspecttest.RowsString(track.Size))
	}
	if c := introspecttest.MustTable(t, s, "Invoice").Column("InvoiceDate"); c == nil || c.Kind != introspect.KindTimestamp {
		t.Errorf("Invoice.InvoiceDate = %+v, want a datetime (KindTimestamp)", c)
	}
}

// TestQueryColumnTypes: the kinds of a query's result columns come from
// the result's metadata: what a table column of that type would be, less
// the display width (a tinyint(1) is an integer) and MariaDB's JSON check.
func TestQueryColumnTypes(t *testing.T) {
	dsn := testenv.MySQL(t)
	testenv.ExecMySQL(t, dsn, `CREATE TABLE k (
	id BIGINT UNSIGNED NOT NULL PRIMARY KEY, b BOOLEAN, bits BIT(3), y YEAR, d DECIMAL(12,3), f FLOAT, g DOUBLE,
	c CHAR(2), e ENUM('a','b'), s SET('x','y'), bin VARBINARY(8), bl BLOB, tx TEXT, l VARCHAR(9) CHARACTER SET latin1,
	dt DATETIME(3), ts TIMESTAMP(6) NULL, tm TIME(2), dd DATE, j JSON, pt POINT);`)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cols, err := mysql.New(open(t, dsn)).QueryColumns(ctx, "SELECT k.*, NULL AS nothing, id + 1 AS next, b IS NULL AS no_b FROM k")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cols {
		s := c.Name + " " + c.Type + " " + string(c.Kind)
		if c.Precision > 0 {
			s += fmt.Sprintf(" %d", c.Precision)
		}
		if !c.Nullable {
			s += " not null"
		}
		got = append(got, s)
	}
	j := "j text string" // MariaDB: a longtext with a json_valid check, sent as a text
	if !isMariaDB(t, dsn) {
		j = "j json json"
	}
	want := []string{
		"id bigint unsigned int not null", "b tinyint int", "bits bit int", "y year int", "d decimal(12,3) decimal",
		"f float float", "g double float", "c char string", "e enum string", "s set set", "bin varbinary bytes",
		"bl blob bytes", "tx text string", "l varchar string", "dt datetime(3) timestamp 3", "ts timestamp(6) timestamptz 6",
		"tm time(2) time 2", "dd date date", j, "pt geometry geometry", "nothing null string", "next bigint unsigned int not null",
		"no_b int int not null",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("QueryColumns:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestERDDetails covers what the shared suite cannot spell in both
// dialects: member lists that need escaping, SET, prefix and descending
// index parts, column-level checks, subpartitions, and engines whose
// TABLE_ROWS is exact.
func TestERDDetails(t *testing.T) {
	dsn := testenv.MySQL(t)
	testenv.ExecMySQL(t, dsn, `
CREATE TABLE tricky (
	id    int NOT NULL PRIMARY KEY,
	e     enum('it''s','b\\c','x,y','') NOT NULL,
	s     set('r','w'),
	name  varchar(100),
	code  varchar(10) CHECK (code <> ''),
	UNIQUE KEY name_prefix (name(10)),
	UNIQUE KEY code_uk (code),
	KEY name_desc (name DESC, id)
) COMMENT 'it''s tricky';
CREATE TABLE counted (id int PRIMARY KEY) ENGINE=MyISAM;
INSERT INTO counted VALUES (1), (2);
CREATE TABLE parts (
	id int NOT NULL,
	d  date NOT NULL,
	PRIMARY KEY (id, d)
) PARTITION BY RANGE (year(d)) SUBPARTITION BY HASH (id) SUBPARTITIONS 2 (
	PARTITION p10 VALUES LESS THAN (2024),
	PARTITION p9 VALUES LESS THAN MAXVALUE
);
`)
	s := inspect(t, dsn)
	tricky := introspecttest.MustTable(t, s, "tricky")
	if got, want := tricky.Column("e").Values, []string{"it's", `b\c`, "x,y", ""}; !reflect.DeepEqual(got, want) {
		t.Errorf("tricky.e: Values = %q, want %q", got, want)
	}
	if got, want := tricky.Column("s").Values, []string{"r", "w"}; !reflect.DeepEqual(got, want) {
		t.Errorf("tricky.s: Values = %q, want %q", got, want)
	}
	if tricky.Comment != "it's tricky" {
		t.Errorf("tricky: Comment = %q", tricky.Comment)
	}
	// A unique prefix index does not keep whole values unique.
	if got, want := tricky.UniqueKeys, []introspect.UniqueKey{{Name: "code_uk", Columns: []string{"code"}}}; !reflect.DeepEqual(got, want) {
		t.Errorf("tricky: UniqueKeys = %+v, want %+v", got, want)
	}
	var desc, prefix *introspect.Index
	for i := range tricky.Indexes {
		switch tricky.Indexes[i].Name {
		case "name_desc":
			desc = &tricky.Indexes[i]
		case "name_prefix":
			prefix = &tricky.Indexes[i]
		}
	}
	if desc == nil || !reflect.DeepEqual(desc.Columns, []introspect.IndexColumn{{Column: "name", Desc: true}, {Column: "id"}}) {
		t.Errorf("tricky: index name_desc = %+v, want (name DESC, id)", desc)
	}
	if prefix == nil || !reflect.DeepEqual(prefix.Columns, []introspect.IndexColumn{{Column: "name", Prefix: 10}}) || !prefix.Unique {
		t.Errorf("tricky: index name_prefix = %+v, want unique (name(10))", prefix)
	}
	if got, want := tricky.Checks, []introspect.Check{{Name: "code", Expression: "`code` <> ''"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("tricky: Checks = %+v, want %+v", got, want)
	}
	if got := introspecttest.RowsString(introspecttest.MustTable(t, s, "counted").Size); got != "exactly 2" {
		t.Errorf("counted (MyISAM): rows %s, want exactly 2", got)
	}
	parts := introspecttest.MustTable(t, s, "parts")
	p := parts.Partitioning
	if p == nil || p.Strategy != "range" || p.Key != "year(`d`)" || len(p.Partitions) != 2 {
		t.Fatalf("parts: Partitioning = %+v, want range on year(`d`) with 2 partitions", p)
	}
	// In declared order, not by name.
	for i, want := range []struct{ name, bound string }{{"p10", "VALUES LESS THAN (2024)"}, {"p9", "VALUES LESS THAN MAXVALUE"}} {
		got := p.Partitions[i]
		if got.Name != want.name || got.Bound != want.bound {
			t.Errorf("parts: partition %d = %s %s, want %s %s", i, got.Name, got.Bound, want.name, want.bound)
		}
		sub := got.Partitioning
		if sub == nil || sub.Strategy != "hash" || sub.Key != "`id`" || len(sub.Partitions) != 2 || sub.Partitions[0].Name != want.name+"sp0" {
			t.Errorf("parts: partition %s: subpartitions %+v, want hash on `id`, %ssp0 and %ssp1", want.name, sub, want.name, want.name)
		}
	}
	// Empty: counted, and so are its partitions.
	if got := introspecttest.RowsString(parts.Size); got != "exactly 0" {
		t.Errorf("parts: rows %s, want exactly 0", got)
	}
	if got := introspecttest.RowsString(p.Partitions[1].Partitioning.Partitions[1].Size); got != "exactly 0" {
		t.Errorf("parts: subpartition p9sp1: rows %s, want exactly 0", got)
	}
}

// TestReadOnlyUser: a source user with only SELECT on the database (the
// usual grant for a migration) sees the same primary, unique and foreign
// keys as root. MariaDB hides TABLE_CONSTRAINTS and
// REFERENTIAL_CONSTRAINTS rows from such a user, so keys read from there
// came out empty: every table "had no primary key".
func TestReadOnlyUser(t *testing.T) {
	dsn := testenv.MySQL(t)
	testenv.ExecMySQL(t, dsn, `
CREATE TABLE parent (a int, b varchar(10), name varchar(20) NOT NULL, PRIMARY KEY (b, a), UNIQUE KEY parent_name (name));
CREATE TABLE child (id int PRIMARY KEY, pa int, pb varchar(10),
  CONSTRAINT child_parent FOREIGN KEY (pb, pa) REFERENCES parent (b, a));`)
	cfg := testenv.MySQLConfig(t, dsn)
	user := testenv.UniqueName("ro")
	testenv.ExecMySQL(t, dsn, "CREATE USER '"+user+"'@'%'; GRANT SELECT ON `"+cfg.DBName+"`.* TO '"+user+"'@'%';")
	t.Cleanup(func() { testenv.ExecMySQL(t, dsn, "DROP USER IF EXISTS '"+user+"'@'%'") })

	keys := func(s *introspect.Schema) string {
		var b strings.Builder
		for _, tb := range s.Tables {
			fmt.Fprintf(&b, "%s pk=%v uniques=%d", tb.Name, tb.PrimaryKey, len(tb.UniqueKeys))
			for _, fk := range tb.ForeignKeys {
				fmt.Fprintf(&b, " fk %s %v→%s%v", fk.Name, fk.Columns, fk.RefTable, fk.RefColumns)
			}
			b.WriteString("; ")
		}
		return b.String()
	}
	want := "child pk=[id] uniques=0 fk child_parent [pb pa]→parent[b a]; parent pk=[b a] uniques=1; "
	if got := keys(inspect(t, dsn)); got != want {
		t.Errorf("as root: %s\nwant        %s", got, want)
	}
	if got := keys(inspect(t, "mysql://"+user+"@"+cfg.Addr+"/"+cfg.DBName)); got != want {
		t.Errorf("as a SELECT-only user: %s\nwant                    %s", got, want)
	}
}
