package introspecttest

import (
	"net/url"
	"reflect"
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
}

// dialect spells the suite's schema in one engine's SQL.
type dialect struct {
	// types maps the suite's type placeholders to the engine's types.
	types map[string]string
	// analyze refreshes the row statistics of the users table.
	analyze string
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
		},
		analyze:            "ANALYZE users;",
		schema:             func(string) string { return "public" },
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
		},
		analyze: "ANALYZE TABLE users;",
		schema:  func(db string) string { return db },
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
CREATE TABLE users (
	user_id    {int} NOT NULL,
	email      {varchar} NOT NULL,
	bio        {text},
	active     {bool} NOT NULL,
	created_at {timestamptz3} NOT NULL,
	seen_at    {timestamp3},
	birthday   {date},
	avatar     {bytes},
	PRIMARY KEY (user_id)
);
CREATE TABLE services (
	service  {varchar} NOT NULL,
	user_id  {int} NOT NULL,
	balance  {decimal} NOT NULL,
	score    {double},
	settings {json},
	PRIMARY KEY (user_id, service),
	CONSTRAINT services_user_fk FOREIGN KEY (user_id) REFERENCES users (user_id)
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
INSERT INTO users (user_id, email, active, created_at) VALUES
	(1, 'a@example.com', TRUE, '2024-01-02 03:04:05.678'),
	(2, 'b@example.com', FALSE, '2024-01-02 03:04:05.678'),
	(3, 'c@example.com', TRUE, '2024-01-02 03:04:05.678');
`

// Run runs the shared suite against one engine: it creates the suite's
// schema in a fresh database, inspects it, and checks tables, columns,
// keys and row estimates.
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
	tg.Exec(t, dsn, ddl+d.analyze)
	db := DatabaseName(t, dsn)
	sch := d.schema(db)
	s := tg.Inspect(t, dsn)

	t.Run("schema", func(t *testing.T) {
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
		want := []string{sch + ".active_users", sch + ".services", sch + ".usage_events", sch + ".users"}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("tables = %q, want %q (sorted by schema, then name)", got, want)
		}
	})

	t.Run("views", func(t *testing.T) {
		v := MustTable(t, s, "active_users")
		if !v.View || len(v.PrimaryKey) != 0 || v.RowEstimate != 0 || v.Query != "" {
			t.Errorf("active_users: View %v, PrimaryKey %q, RowEstimate %d, Query %q; want a view without a key or estimate", v.View, v.PrimaryKey, v.RowEstimate, v.Query)
		}
		if got := v.Label(); got != "view "+sch+".active_users" {
			t.Errorf("Label() = %q", got)
		}
		for _, name := range []string{"users", "services", "usage_events"} {
			if MustTable(t, s, name).View {
				t.Errorf("table %s is marked as a view", name)
			}
		}
		CheckColumns(t, v, []introspect.Column{
			{Name: "user_id", Kind: introspect.KindInt},
			{Name: "email", Kind: introspect.KindString},
			{Name: "active", Kind: introspect.KindBool},
			{Name: "created_at", Kind: introspect.KindTimestampTZ, Precision: 3},
		}, viewNullable(tg.Engine))
	})

	t.Run("query columns", func(t *testing.T) {
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
	})

	t.Run("columns", func(t *testing.T) {
		CheckColumns(t, MustTable(t, s, "users"), []introspect.Column{
			{Name: "user_id", Kind: introspect.KindInt},
			{Name: "email", Kind: introspect.KindString},
			{Name: "bio", Kind: introspect.KindString, Nullable: true},
			{Name: "active", Kind: introspect.KindBool},
			{Name: "created_at", Kind: introspect.KindTimestampTZ, Precision: 3},
			{Name: "seen_at", Kind: introspect.KindTimestamp, Nullable: true, Precision: 3},
			{Name: "birthday", Kind: introspect.KindDate, Nullable: true},
			{Name: "avatar", Kind: introspect.KindBytes, Nullable: true},
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
	})

	t.Run("primary keys", func(t *testing.T) {
		for name, want := range map[string][]string{
			"active_users": nil,
			"users":        {"user_id"},
			"services":     {"user_id", "service"},
			"usage_events": {"event_id"},
		} {
			if got := MustTable(t, s, name).PrimaryKey; !reflect.DeepEqual(got, want) {
				t.Errorf("%s: PrimaryKey = %q, want %q", name, got, want)
			}
		}
	})

	t.Run("foreign keys", func(t *testing.T) {
		CheckForeignKeys(t, MustTable(t, s, "users"), nil)
		CheckForeignKeys(t, MustTable(t, s, "services"), []introspect.ForeignKey{{
			Name: "services_user_fk", Columns: []string{"user_id"},
			RefSchema: sch, RefTable: "users", RefColumns: []string{"user_id"},
		}})
		CheckForeignKeys(t, MustTable(t, s, "usage_events"), []introspect.ForeignKey{{
			Name: "usage_events_service_fk", Columns: []string{"uid", "svc"},
			RefSchema: sch, RefTable: "services", RefColumns: []string{"user_id", "service"},
		}})
	})

	t.Run("row estimates", func(t *testing.T) {
		// users was analysed after three inserts; the other tables are
		// empty (PostgreSQL reports -1 for a table never analysed, which
		// must come out as 0).
		for name, want := range map[string]int64{"users": 3, "services": 0, "usage_events": 0, "active_users": 0} {
			if got := MustTable(t, s, name).RowEstimate; got != want {
				t.Errorf("%s: RowEstimate = %d, want %d", name, got, want)
			}
		}
	})

	t.Run("deterministic", func(t *testing.T) {
		if again := tg.Inspect(t, dsn); !reflect.DeepEqual(again, s) {
			t.Errorf("a second Inspect returned a different schema")
		}
	})

	t.Run("empty database", func(t *testing.T) {
		dsn := tg.Fresh(t)
		s := tg.Inspect(t, dsn)
		if s.Tables == nil || len(s.Tables) != 0 {
			t.Errorf("Tables = %#v, want an empty, non-nil slice", s.Tables)
		}
		if want := DatabaseName(t, dsn); s.Database != want {
			t.Errorf("Database = %q, want %q", s.Database, want)
		}
	})
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
// element kind, nullability and precision always, the declared type only
// where want gives one. With allNullable, every column is expected to be
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
		if len(allNullable) > 0 && allNullable[0] {
			w.Nullable = true
		}
		if g != w {
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
