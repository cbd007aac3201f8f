package introspecttest

import (
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/introspect"
)

// Target is one engine under test.
type Target struct {
	Engine introspect.Engine
	// Fresh creates an empty database that is dropped when the test ends and
	// returns its DSN (testenv.Postgres, testenv.MySQL).
	Fresh func(testing.TB) string
	// Exec runs a script of several statements in the database at dsn
	// (testenv.ExecPostgres, testenv.ExecMySQL).
	Exec func(tb testing.TB, dsn, script string)
	// Inspect connects to dsn, runs the engine's inspector and fails t on
	// any error.
	Inspect func(t *testing.T, dsn string) *introspect.Schema
	// QueryColumns connects to dsn and has the engine's inspector describe
	// the result columns of query q.
	QueryColumns func(t *testing.T, dsn, q string) ([]*introspect.Column, error)
	// InspectNoCount is Inspect with the inspector's count limit at 0: it
	// counts no table's rows.
	InspectNoCount func(t *testing.T, dsn string) *introspect.Schema
}

// dialect spells the suite's schema in one engine's SQL, and what the
// engine reports where engines differ.
type dialect struct {
	// types maps the suite's placeholders to the engine's types and
	// statements.
	types map[string]string
	// schema is the Table.Schema of tables created in database db.
	schema func(db string) string
	// boolInQuery is the kind a boolean column has in a query's result.
	boolInQuery introspect.Kind
	// aggregatePrecision is the precision of max() over a timestamp(3):
	// PostgreSQL's aggregates drop the type modifier.
	aggregatePrecision int
	// notNullInQuery is whether a query's NOT NULL result columns are
	// known as such.
	notNullInQuery bool
	// primary is the name of the index behind table's primary key.
	primary func(table string) string
	// method is the name of the B-tree access method.
	method string
	// extraIndexes are indexes of users that only this engine can make
	// ({extra} creates them), by name.
	extraIndexes []introspect.Index
	// balanceCheck is how the engine prints CHECK (balance >= 0).
	balanceCheck string
	// readings is what the engine says of the partitioned table readings.
	readings introspect.Partitioning
	// readingsFKs are readings' foreign keys (MySQL's partitioned tables
	// cannot have any).
	readingsFKs func(sch string) []introspect.ForeignKey
	// rows and rowsNoCount are each table's rows as RowsString spells
	// them ("about" alone: any estimate above 0), as inspected normally
	// and without counting.
	rows, rowsNoCount map[string]string
}

var dialects = map[introspect.Engine]dialect{
	introspect.Postgres: {
		types: map[string]string{
			"{int}":          "integer",
			"{bool}":         "boolean",
			"{decimal}":      "numeric(10,2)",
			"{double}":       "double precision",
			"{varchar}":      "varchar(64)",
			"{text}":         "text",
			"{json}":         "jsonb",
			"{timestamptz3}": "timestamptz(3)",
			"{timestamp3}":   "timestamp(3)",
			"{date}":         "date",
			"{bytes}":        "bytea",
			"{mood}":         "mood",
			"{prelude}":      `CREATE TYPE mood AS ENUM ('sad', 'it''s ok', 'happy');`,
			"{analyze}":      "ANALYZE users; ANALYZE late_fill;",
			"{comments}": `
COMMENT ON TABLE users IS 'People who sign in';
COMMENT ON COLUMN users.email IS 'Where we write, it''s unique';`,
			"{extra}": `
CREATE UNIQUE INDEX users_bio_active_uidx ON users (bio) WHERE active;
CREATE INDEX users_lower_email_idx ON users (lower(email));`,
			"{readings}": `
CREATE TABLE readings (
	user_id  integer NOT NULL,
	taken_on date NOT NULL,
	value    integer,
	PRIMARY KEY (user_id, taken_on),
	CONSTRAINT readings_user_fk FOREIGN KEY (user_id) REFERENCES users (user_id)
) PARTITION BY RANGE (taken_on);
CREATE TABLE readings_2024 PARTITION OF readings FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');
CREATE TABLE readings_2023 PARTITION OF readings FOR VALUES FROM ('2023-01-01') TO ('2024-01-01');`,
		},
		schema:  func(string) string { return "public" },
		primary: func(table string) string { return table + "_pkey" },
		method:  "btree",
		extraIndexes: []introspect.Index{
			{Name: "users_bio_active_uidx", Columns: []introspect.IndexColumn{{Column: "bio"}}, Unique: true, Method: "btree", Where: "active"},
			{Name: "users_lower_email_idx", Columns: []introspect.IndexColumn{{Expression: "lower(email::text)"}}, Method: "btree"},
		},
		balanceCheck: "balance >= 0::numeric",
		readings: introspect.Partitioning{Strategy: "range", Key: "taken_on", Partitions: []*introspect.Partition{
			{Schema: "public", Name: "readings_2023", Bound: "FOR VALUES FROM ('2023-01-01') TO ('2024-01-01')"},
			{Schema: "public", Name: "readings_2024", Bound: "FOR VALUES FROM ('2024-01-01') TO ('2025-01-01')"},
		}},
		readingsFKs: func(sch string) []introspect.ForeignKey {
			return []introspect.ForeignKey{{Name: "readings_user_fk", Columns: []string{"user_id"}, RefSchema: sch, RefTable: "users", RefColumns: []string{"user_id"}}}
		},
		// users was analysed with its rows, late_fill while it was empty;
		// audit_log and the partitions of readings never were: they are
		// counted, or unknown. An empty table has no pages: exactly 0.
		rows: map[string]string{
			"users": "about 3", "services": "exactly 0", "usage_events": "exactly 0",
			"audit_log": "exactly 5", "late_fill": "exactly 4", "readings": "exactly 2",
			"readings_2023": "exactly 2", "readings_2024": "exactly 0",
		},
		rowsNoCount: map[string]string{
			"users": "about 3", "services": "exactly 0", "usage_events": "exactly 0",
			"audit_log": "unknown", "late_fill": "unknown", "readings": "unknown",
			"readings_2023": "unknown", "readings_2024": "exactly 0",
		},
		boolInQuery:        introspect.KindBool,
		aggregatePrecision: 6,
	},
	introspect.MySQL: {
		types: map[string]string{
			"{int}":          "int",
			"{bool}":         "boolean",
			"{decimal}":      "decimal(10,2)",
			"{double}":       "double",
			"{varchar}":      "varchar(64)",
			"{text}":         "text",
			"{json}":         "json", // MariaDB: longtext CHECK (json_valid(settings))
			"{timestamptz3}": "timestamp(3)",
			"{timestamp3}":   "datetime(3)",
			"{date}":         "date",
			"{bytes}":        "varbinary(255)",
			"{mood}":         "enum('sad','it''s ok','happy')",
			"{prelude}":      "",
			"{analyze}":      "ANALYZE TABLE users; ANALYZE TABLE late_fill;",
			"{comments}": `
ALTER TABLE users COMMENT = 'People who sign in';
ALTER TABLE users MODIFY email varchar(64) NOT NULL COMMENT 'Where we write, it''s unique';`,
			"{extra}": "",
			"{readings}": `
CREATE TABLE readings (
	user_id  int NOT NULL,
	taken_on date NOT NULL,
	value    int,
	PRIMARY KEY (user_id, taken_on)
) PARTITION BY RANGE COLUMNS (taken_on) (
	PARTITION readings_2023 VALUES LESS THAN ('2024-01-01'),
	PARTITION readings_2024 VALUES LESS THAN ('2025-01-01')
);`,
		},
		schema:       func(db string) string { return db },
		primary:      func(string) string { return "PRIMARY" },
		method:       "BTREE",
		balanceCheck: "`balance` >= 0",
		readings: introspect.Partitioning{Strategy: "range columns", Key: "`taken_on`", Partitions: []*introspect.Partition{
			{Name: "readings_2023", Bound: "VALUES LESS THAN ('2024-01-01')"},
			{Name: "readings_2024", Bound: "VALUES LESS THAN ('2025-01-01')"},
		}},
		readingsFKs: func(string) []introspect.ForeignKey { return nil },
		// InnoDB's TABLE_ROWS follows inserts, but is an estimate (for a
		// partitioned table, not even the right number: "about" alone is
		// any estimate); a table (or partition) it says is empty is
		// counted, or unknown.
		rows: map[string]string{
			"users": "about 3", "services": "exactly 0", "usage_events": "exactly 0",
			"audit_log": "about 5", "late_fill": "about 4", "readings": "about",
			"readings_2023": "about", "readings_2024": "unknown",
		},
		rowsNoCount: map[string]string{
			"users": "about 3", "services": "unknown", "usage_events": "unknown",
			"audit_log": "about 5", "late_fill": "about 4", "readings": "about",
			"readings_2023": "about", "readings_2024": "unknown",
		},
		// The result metadata says tinyint, not tinyint(1).
		boolInQuery:        introspect.KindInt,
		aggregatePrecision: 3,
		notNullInQuery:     true,
	},
}

// script is the suite's schema. Tables are created in an order that is not
// the order the inspector must return them in; services' key order differs
// from its column order; usage_events' composite foreign key lists its
// columns in an order that differs from the column order.
const script = `
{prelude}
CREATE TABLE users (
	user_id    {int} NOT NULL,
	email      {varchar} NOT NULL,
	bio        {text},
	active     {bool} NOT NULL,
	created_at {timestamptz3} NOT NULL,
	seen_at    {timestamp3},
	birthday   {date},
	avatar     {bytes},
	mood       {mood},
	PRIMARY KEY (user_id),
	CONSTRAINT users_email_uk UNIQUE (email)
);
CREATE TABLE services (
	service  {varchar} NOT NULL,
	user_id  {int} NOT NULL,
	balance  {decimal} NOT NULL,
	score    {double},
	settings {json},
	PRIMARY KEY (user_id, service),
	CONSTRAINT services_user_fk FOREIGN KEY (user_id) REFERENCES users (user_id),
	CONSTRAINT services_balance_check CHECK (balance >= 0)
);
CREATE TABLE usage_events (
	event_id {int} NOT NULL,
	svc      {varchar} NOT NULL,
	uid      {int} NOT NULL,
	note     {varchar},
	PRIMARY KEY (event_id),
	CONSTRAINT usage_events_service_fk FOREIGN KEY (uid, svc) REFERENCES services (user_id, service)
);
CREATE VIEW active_users AS
	SELECT user_id, email, active, created_at FROM users WHERE active;
CREATE INDEX usage_events_uid_svc_idx ON usage_events (uid, svc);
CREATE UNIQUE INDEX usage_events_note_uidx ON usage_events (svc, note);
CREATE INDEX users_created_idx ON users (created_at DESC, user_id);
CREATE TABLE audit_log (id {int} NOT NULL PRIMARY KEY, what {varchar});
CREATE TABLE late_fill (id {int} NOT NULL PRIMARY KEY);
{readings}
{extra}
INSERT INTO users (user_id, email, active, created_at) VALUES
	(1, 'a@example.com', TRUE, '2024-01-02 03:04:05.678'),
	(2, 'b@example.com', FALSE, '2024-01-02 03:04:05.678'),
	(3, 'c@example.com', TRUE, '2024-01-02 03:04:05.678');
{analyze}
INSERT INTO audit_log (id) VALUES (1), (2), (3), (4), (5);
INSERT INTO late_fill (id) VALUES (1), (2), (3), (4);
INSERT INTO readings (user_id, taken_on) VALUES (1, '2023-05-01'), (2, '2023-06-01');
{comments}
`

// Run runs the shared suite against one engine: it creates the suite's
// schema in a fresh database, inspects it, and checks tables, columns,
// keys, indexes, checks, comments, partitions and row counts.
func Run(t *testing.T, tg Target) {
	t.Helper()
	d, ok := dialects[tg.Engine]
	if !ok {
		t.Fatalf("introspecttest: no dialect for engine %q", tg.Engine)
	}
	args := make([]string, 0, 2*len(d.types))
	for k, v := range d.types {
		args = append(args, k, v)
	}
	ddl := strings.NewReplacer(args...).Replace(script)
	if strings.Contains(ddl, "{") {
		t.Fatalf("introspecttest: unreplaced placeholder in the %s script:\n%s", tg.Engine, ddl)
	}

	dsn := tg.Fresh(t)
	tg.Exec(t, dsn, ddl)
	db := DatabaseName(t, dsn)
	sch := d.schema(db)
	s := tg.Inspect(t, dsn)

	sr := &suiteRun{tg: tg, d: d, db: db, sch: sch, s: s, dsn: dsn}
	for _, c := range []struct {
		name string
		fn   func(*testing.T)
	}{
		{"schema", sr.checkSchema},
		{"views", sr.checkViews},
		{"query columns", sr.checkQueryColumns},
		{"columns", sr.checkColumns},
		{"primary keys", sr.checkPrimaryKeys},
		{"unique keys", sr.checkUniqueKeys},
		{"foreign keys", sr.checkForeignKeys},
		{"indexes", sr.checkIndexes},
		{"checks", sr.checkChecks},
		{"comments", sr.checkComments},
		{"partitions", sr.checkPartitions},
		{"row counts", sr.checkRowCounts},
		{"row counts without counting", sr.checkRowCountsWithoutCounting},
		{"deterministic", sr.checkDeterministic},
		{"empty database", sr.checkEmptyDatabase},
	} {
		t.Run(c.name, c.fn)
	}
}

// suiteRun is what the suite's tests check: the engine's inspection s of
// the suite's schema in database db (at dsn; sch is its schema's name),
// with the dialect's expectations d.
type suiteRun struct {
	tg  Target
	d   dialect
	db  string
	sch string
	s   *introspect.Schema
	dsn string
}

// checkSchema is the suite's "schema" test.
func (sr *suiteRun) checkSchema(t *testing.T) {
	s, tg, db, sch := sr.s, sr.tg, sr.db, sr.sch
	if s.Engine != tg.Engine {
		t.Errorf("Engine = %q, want %q", s.Engine, tg.Engine)
	}
	if s.Database != db {
		t.Errorf("Database = %q, want %q", s.Database, db)
	}
	var got []string
	for _, tbl := range s.Tables {
		got = append(got, tbl.QualifiedName())
	}
	// Partitions are not tables: readings stands for them.
	want := []string{sch + ".active_users", sch + ".audit_log", sch + ".late_fill", sch + ".readings", sch + ".services", sch + ".usage_events", sch + ".users"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("tables = %q, want %q (sorted by schema, then name)", got, want)
	}
}

// checkViews is the suite's "views" test.
func (sr *suiteRun) checkViews(t *testing.T) {
	s, tg, sch := sr.s, sr.tg, sr.sch
	v := MustTable(t, s, "active_users")
	if !v.View || len(v.PrimaryKey) != 0 || RowsString(v.Size) != "unknown" || v.Query != "" {
		t.Errorf("active_users: View %v, PrimaryKey %q, rows %s, Query %q; want a view without a key, rows unknown", v.View, v.PrimaryKey, RowsString(v.Size), v.Query)
	}
	if got := v.Label(); got != "view "+sch+".active_users" {
		t.Errorf("Label() = %q", got)
	}
	for _, name := range []string{"users", "services", "usage_events"} {
		if MustTable(t, s, name).View {
			t.Errorf("table %s is marked as a view", name)
		}
	}
	// MySQL's view columns carry their table column's comment.
	emailComment := ""
	if c := v.Column("email"); c != nil && tg.Engine == introspect.MySQL {
		emailComment = c.Comment
	}
	CheckColumns(t, v, []introspect.Column{
		{Name: "user_id", Kind: introspect.KindInt},
		{Name: "email", Kind: introspect.KindString, Comment: emailComment},
		{Name: "active", Kind: introspect.KindBool},
		{Name: "created_at", Kind: introspect.KindTimestampTZ, Precision: 3},
	}, viewNullable(tg.Engine))
}

// checkQueryColumns is the suite's "query columns" test.
func (sr *suiteRun) checkQueryColumns(t *testing.T) {
	tg, d, dsn := sr.tg, sr.d, sr.dsn
	if tg.QueryColumns == nil {
		t.Fatalf("introspecttest: the target has no QueryColumns")
	}
	cols, err := tg.QueryColumns(t, dsn, `SELECT u.user_id, u.email, u.active, s.balance, s.score,
       count(e.event_id) AS events, max(u.seen_at) AS last_seen, u.birthday, u.avatar
  FROM users u
  LEFT JOIN services s ON s.user_id = u.user_id
  LEFT JOIN usage_events e ON e.uid = s.user_id AND e.svc = s.service
 GROUP BY u.user_id, u.email, u.active, s.balance, s.score, u.birthday, u.avatar -- the end`)
	if err != nil {
		t.Fatalf("QueryColumns: %v", err)
	}
	nn := !d.notNullInQuery // what a NOT NULL column is in a query's result
	CheckColumns(t, &introspect.Table{Name: "query", Columns: cols}, []introspect.Column{
		{Name: "user_id", Kind: introspect.KindInt, Nullable: nn},
		{Name: "email", Kind: introspect.KindString, Nullable: nn},
		{Name: "active", Kind: d.boolInQuery, Nullable: nn},
		{Name: "balance", Kind: introspect.KindDecimal, Nullable: true},
		{Name: "score", Kind: introspect.KindFloat, Nullable: true},
		{Name: "events", Kind: introspect.KindInt, Nullable: nn},
		{Name: "last_seen", Kind: introspect.KindTimestamp, Nullable: true, Precision: d.aggregatePrecision},
		{Name: "birthday", Kind: introspect.KindDate, Nullable: true},
		{Name: "avatar", Kind: introspect.KindBytes, Nullable: true},
	})
	if _, err := tg.QueryColumns(t, dsn, "SELECT nope FROM users"); err == nil {
		t.Errorf("QueryColumns of a query naming no column succeeded")
	}
}

// checkColumns is the suite's "columns" test.
func (sr *suiteRun) checkColumns(t *testing.T) {
	s := sr.s
	CheckColumns(t, MustTable(t, s, "users"), []introspect.Column{
		{Name: "user_id", Kind: introspect.KindInt},
		{Name: "email", Kind: introspect.KindString, Comment: "Where we write, it's unique"},
		{Name: "bio", Kind: introspect.KindString, Nullable: true},
		{Name: "active", Kind: introspect.KindBool},
		{Name: "created_at", Kind: introspect.KindTimestampTZ, Precision: 3},
		{Name: "seen_at", Kind: introspect.KindTimestamp, Nullable: true, Precision: 3},
		{Name: "birthday", Kind: introspect.KindDate, Nullable: true},
		{Name: "avatar", Kind: introspect.KindBytes, Nullable: true},
		// An enum's values are data, in declared order, quotes and all.
		{Name: "mood", Kind: introspect.KindString, Nullable: true, Values: []string{"sad", "it's ok", "happy"}},
	})
	CheckColumns(t, MustTable(t, s, "services"), []introspect.Column{
		{Name: "service", Kind: introspect.KindString},
		{Name: "user_id", Kind: introspect.KindInt},
		{Name: "balance", Kind: introspect.KindDecimal},
		{Name: "score", Kind: introspect.KindFloat, Nullable: true},
		{Name: "settings", Kind: introspect.KindJSON, Nullable: true},
	})
	CheckColumns(t, MustTable(t, s, "usage_events"), []introspect.Column{
		{Name: "event_id", Kind: introspect.KindInt},
		{Name: "svc", Kind: introspect.KindString},
		{Name: "uid", Kind: introspect.KindInt},
		{Name: "note", Kind: introspect.KindString, Nullable: true},
	})
}

// checkPrimaryKeys is the suite's "primary keys" test.
func (sr *suiteRun) checkPrimaryKeys(t *testing.T) {
	s := sr.s
	for name, want := range map[string][]string{
		"active_users": nil,
		"users":        {"user_id"},
		"services":     {"user_id", "service"},
		"usage_events": {"event_id"},
		"readings":     {"user_id", "taken_on"},
	} {
		if got := MustTable(t, s, name).PrimaryKey; !reflect.DeepEqual(got, want) {
			t.Errorf("%s: PrimaryKey = %q, want %q", name, got, want)
		}
	}
}

// checkUniqueKeys is the suite's "unique keys" test.
func (sr *suiteRun) checkUniqueKeys(t *testing.T) {
	s := sr.s
	// A UNIQUE constraint and a unique index are unique keys; a
	// partial unique index (PostgreSQL) and the primary key are not.
	for name, want := range map[string][]introspect.UniqueKey{
		"users":        {{Name: "users_email_uk", Columns: []string{"email"}}},
		"services":     nil,
		"usage_events": {{Name: "usage_events_note_uidx", Columns: []string{"svc", "note"}}},
	} {
		if got := MustTable(t, s, name).UniqueKeys; !reflect.DeepEqual(got, want) {
			t.Errorf("%s: UniqueKeys = %+v, want %+v", name, got, want)
		}
	}
}

// checkForeignKeys is the suite's "foreign keys" test.
func (sr *suiteRun) checkForeignKeys(t *testing.T) {
	s, d, sch := sr.s, sr.d, sr.sch
	CheckForeignKeys(t, MustTable(t, s, "users"), nil)
	CheckForeignKeys(t, MustTable(t, s, "services"), []introspect.ForeignKey{{
		Name: "services_user_fk", Columns: []string{"user_id"},
		RefSchema: sch, RefTable: "users", RefColumns: []string{"user_id"},
	}})
	CheckForeignKeys(t, MustTable(t, s, "usage_events"), []introspect.ForeignKey{{
		Name: "usage_events_service_fk", Columns: []string{"uid", "svc"},
		RefSchema: sch, RefTable: "services", RefColumns: []string{"user_id", "service"},
	}})
	// A foreign key declared on a partitioned table is the table's.
	CheckForeignKeys(t, MustTable(t, s, "readings"), d.readingsFKs(sch))
}

// checkIndexes is the suite's "indexes" test.
func (sr *suiteRun) checkIndexes(t *testing.T) {
	s, d := sr.s, sr.d
	col := func(names ...string) []introspect.IndexColumn {
		out := []introspect.IndexColumn{}
		for _, n := range names {
			out = append(out, introspect.IndexColumn{Column: n})
		}
		return out
	}
	users := append([]introspect.Index{
		{Name: d.primary("users"), Columns: col("user_id"), Unique: true, Primary: true, Method: d.method},
		{Name: "users_created_idx", Columns: []introspect.IndexColumn{{Column: "created_at", Desc: true}, {Column: "user_id"}}, Method: d.method},
		{Name: "users_email_uk", Columns: col("email"), Unique: true, Method: d.method},
	}, d.extraIndexes...)
	for name, want := range map[string][]introspect.Index{
		"users":    users,
		"services": {{Name: d.primary("services"), Columns: col("user_id", "service"), Unique: true, Primary: true, Method: d.method}},
		"usage_events": {
			{Name: d.primary("usage_events"), Columns: col("event_id"), Unique: true, Primary: true, Method: d.method},
			{Name: "usage_events_note_uidx", Columns: col("svc", "note"), Unique: true, Method: d.method},
			{Name: "usage_events_uid_svc_idx", Columns: col("uid", "svc"), Method: d.method},
		},
		"readings": {{Name: d.primary("readings"), Columns: col("user_id", "taken_on"), Unique: true, Primary: true, Method: d.method}},
	} {
		got := MustTable(t, s, name).Indexes
		sortIndexes(want)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: Indexes:\n got  %+v\n want %+v", name, got, want)
		}
	}
}

// checkChecks is the suite's "checks" test.
func (sr *suiteRun) checkChecks(t *testing.T) {
	s, d := sr.s, sr.d
	// MariaDB's own CHECK (json_valid(settings)) for a JSON column is
	// not listed: the column's kind says it.
	want := []introspect.Check{{Name: "services_balance_check", Expression: d.balanceCheck}}
	if got := MustTable(t, s, "services").Checks; !reflect.DeepEqual(got, want) {
		t.Errorf("services: Checks = %+v, want %+v", got, want)
	}
	if got := MustTable(t, s, "users").Checks; len(got) != 0 {
		t.Errorf("users: Checks = %+v, want none", got)
	}
}

// checkComments is the suite's "comments" test.
func (sr *suiteRun) checkComments(t *testing.T) {
	s := sr.s
	if got := MustTable(t, s, "users").Comment; got != "People who sign in" {
		t.Errorf("users: Comment = %q, want %q", got, "People who sign in")
	}
	if got := MustTable(t, s, "services").Comment; got != "" {
		t.Errorf("services: Comment = %q, want none", got)
	}
}

// checkPartitions is the suite's "partitions" test.
func (sr *suiteRun) checkPartitions(t *testing.T) {
	s, d := sr.s, sr.d
	got := MustTable(t, s, "readings").Partitioning
	if got == nil {
		t.Fatal("readings: Partitioning is nil")
	}
	// Compare without sizes, which the row counts test checks.
	shape := *got
	shape.Partitions = nil
	for _, p := range got.Partitions {
		c := *p
		c.Size = introspect.Size{}
		shape.Partitions = append(shape.Partitions, &c)
	}
	if !reflect.DeepEqual(shape, d.readings) {
		t.Errorf("readings: Partitioning:\n got  %s\n want %s", dump(shape), dump(d.readings))
	}
	if tbl := MustTable(t, s, "readings"); tbl.Column("taken_on") == nil {
		t.Errorf("readings: columns %+v, want taken_on among them", tbl.Columns)
	}
}

// checkRowCounts is the suite's "row counts" test.
func (sr *suiteRun) checkRowCounts(t *testing.T) {
	s, d := sr.s, sr.d
	checkRows(t, s, d.rows)
	users := MustTable(t, s, "users")
	if users.DataBytes <= 0 || users.IndexBytes <= 0 {
		t.Errorf("users: DataBytes %d, IndexBytes %d, want both above 0", users.DataBytes, users.IndexBytes)
	}
	r := MustTable(t, s, "readings")
	var sum int64
	for _, p := range r.Partitioning.Partitions {
		sum += p.DataBytes
	}
	if r.DataBytes != sum || sum <= 0 {
		t.Errorf("readings: DataBytes %d, want the sum over its partitions, %d, above 0", r.DataBytes, sum)
	}
}

// checkRowCountsWithoutCounting is the suite's "row counts without counting" test.
func (sr *suiteRun) checkRowCountsWithoutCounting(t *testing.T) {
	tg, d, dsn := sr.tg, sr.d, sr.dsn
	checkRows(t, tg.InspectNoCount(t, dsn), d.rowsNoCount)
}

// checkDeterministic is the suite's "deterministic" test.
func (sr *suiteRun) checkDeterministic(t *testing.T) {
	s, tg, dsn := sr.s, sr.tg, sr.dsn
	if again := tg.Inspect(t, dsn); !reflect.DeepEqual(again, s) {
		t.Errorf("a second Inspect returned a different schema")
	}
}

// checkEmptyDatabase is the suite's "empty database" test.
func (sr *suiteRun) checkEmptyDatabase(t *testing.T) {
	tg := sr.tg
	dsn := tg.Fresh(t)
	s := tg.Inspect(t, dsn)
	if s.Tables == nil || len(s.Tables) != 0 {
		t.Errorf("Tables = %#v, want an empty, non-nil slice", s.Tables)
	}
	if want := DatabaseName(t, dsn); s.Database != want {
		t.Errorf("Database = %q, want %q", s.Database, want)
	}
}

// checkRows checks the rows of each table (or partition) of s named in
// want: "exactly N", "about N", or "about" for any estimate above 0.
func checkRows(t *testing.T, s *introspect.Schema, want map[string]string) {
	t.Helper()
	for name, w := range want {
		var size introspect.Size
		if p := partition(s, name); p != nil {
			size = p.Size
		} else {
			size = MustTable(t, s, name).Size
		}
		got := RowsString(size)
		if w == "about" && strings.HasPrefix(got, "about ") && got != "about 0" {
			continue
		}
		if got != w {
			t.Errorf("%s: rows %s, want %s", name, got, w)
		}
	}
}

// RowsString spells a Size's rows for comparison: "exactly N", "about N"
// or "unknown".
func RowsString(s introspect.Size) string {
	n, exact, known := s.Rows()
	switch {
	case !known:
		return "unknown"
	case exact:
		return fmt.Sprintf("exactly %d", n)
	}
	return fmt.Sprintf("about %d", n)
}

// partition finds a partition of any table by name, or nil.
func partition(s *introspect.Schema, name string) *introspect.Partition {
	for _, t := range s.Tables {
		if t.Partitioning == nil {
			continue
		}
		for _, p := range t.Partitioning.Partitions {
			if p.Name == name {
				return p
			}
		}
	}
	return nil
}

func sortIndexes(ix []introspect.Index) {
	sort.Slice(ix, func(a, b int) bool { return ix[a].Name < ix[b].Name })
}

func dump(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// DatabaseName returns the database named by a postgres:// or mysql:// DSN.
func DatabaseName(t testing.TB, dsn string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatalf("introspecttest: DSN is not a URL: %v", err)
	}
	return strings.TrimPrefix(u.Path, "/")
}

// MustTable returns the table called name ("name" or "schema.name") or
// stops the test.
func MustTable(t testing.TB, s *introspect.Schema, name string) *introspect.Table {
	t.Helper()
	tbl, err := s.Table(name)
	if err != nil {
		t.Fatalf("%v; tables: %q", err, s.TableNames())
	}
	return tbl
}

// viewNullable is whether the engine reports a view's columns as nullable
// whatever the underlying table says (PostgreSQL does).
func viewNullable(e introspect.Engine) bool { return e == introspect.Postgres }

// CheckColumns compares tbl's columns, in order, with want: name, kind,
// element kind, nullability and precision always, the declared type and
// the distinct values (statistics) only where want gives them. With allNullable, every column is expected to be
// nullable.
func CheckColumns(t testing.TB, tbl *introspect.Table, want []introspect.Column, allNullable ...bool) {
	t.Helper()
	var gotNames, wantNames []string
	for _, c := range tbl.Columns {
		gotNames = append(gotNames, c.Name)
	}
	for _, c := range want {
		wantNames = append(wantNames, c.Name)
	}
	if !reflect.DeepEqual(gotNames, wantNames) {
		t.Errorf("%s: columns = %q, want %q", tbl.QualifiedName(), gotNames, wantNames)
		return
	}
	for i, w := range want {
		g := *tbl.Columns[i]
		if g.Type == "" {
			t.Errorf("%s.%s: Type is empty", tbl.QualifiedName(), g.Name)
		}
		if w.Type == "" {
			w.Type = g.Type
		}
		if w.Distinct == nil { // statistics: checked where want gives them
			w.Distinct = g.Distinct
		}
		if len(allNullable) > 0 && allNullable[0] {
			w.Nullable = true
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s.%s:\n got  %+v\n want %+v", tbl.QualifiedName(), g.Name, g, w)
		}
	}
}

// CheckForeignKeys compares tbl's foreign keys, in order, with want.
func CheckForeignKeys(t testing.TB, tbl *introspect.Table, want []introspect.ForeignKey) {
	t.Helper()
	if len(tbl.ForeignKeys) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(tbl.ForeignKeys, want) {
		t.Errorf("%s: foreign keys:\n got  %+v\n want %+v", tbl.QualifiedName(), tbl.ForeignKeys, want)
	}
}
