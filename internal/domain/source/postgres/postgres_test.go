package postgres

import (
	"math"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/domain/source/sourcetest"
	"github.com/remodel-dev/remodel/internal/testsupport/canon"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/introspect"
)

const postgresTypesSQL = `
CREATE TYPE mood AS ENUM ('happy', 'sad');
CREATE TABLE kinds (
  id      integer PRIMARY KEY,
  tags    text[],
  grid    integer[],
  bounded integer[],
  blobs   bytea[],
  stamps  timestamptz[],
  mood    mood,
  uid     uuid,
  num     numeric,
  f       double precision,
  r       real,
  d       date,
  ts      timestamp,
  tstz    timestamptz,
  tm      time(2)
);
INSERT INTO kinds VALUES
 (2, '{}', '{{NULL,2}}', NULL, NULL, '{}', 'sad', NULL, 'Infinity', '-Infinity', 'NaN',
  '-infinity', 'infinity', '-infinity', NULL),
 (1, ARRAY['a,b', 'c"d', NULL, 'NULL', '', 'back\slash', 'x y', E'\u00a0nbsp', '{braces}', 'Zoë'],
  '{{1,2},{3,4}}', '[0:1]={1,2}', ARRAY['\x0102'::bytea, '\x'::bytea],
  ARRAY['2024-01-02 08:34:05+05:30'::timestamptz], 'happy', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
  'NaN', 'Infinity', 3.1415927, 'infinity', '2024-01-02 03:04:05 BC', '2024-01-02 03:04:05.123456+00',
  '03:04:05.5'),
 (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, '-Infinity', 'NaN', NULL, '0044-03-15 BC',
  '2024-02-29 23:59:59.999999', '10000-01-01 00:00:00+00', NULL);
`

var postgresTypesRows = [][]any{
	{int64(1),
		[]any{"a,b", `c"d`, nil, "NULL", "", `back\slash`, "x y", "\u00a0nbsp", "{braces}", "Zoë"},
		[]any{[]any{int64(1), int64(2)}, []any{int64(3), int64(4)}},
		&boundsError{"[0:1]"}, // a list cannot say it starts at 0
		[]any{[]byte{1, 2}, []byte{}},
		[]any{canon.UTC(2024, 1, 2, 3, 4, 5, 0)},
		"happy", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "NaN", math.Inf(1), 3.1415927,
		canon.ErrValue{}, canon.ErrValue{}, canon.UTC(2024, 1, 2, 3, 4, 5, 123456e3), "03:04:05.5"},
	{int64(2), []any{}, []any{[]any{nil, int64(2)}}, nil, nil, []any{}, "sad", nil, "Infinity", math.Inf(-1), canon.NaN{},
		canon.ErrValue{}, canon.ErrValue{}, canon.ErrValue{}, nil},
	{int64(3), nil, nil, nil, nil, nil, nil, nil, "-Infinity", canon.NaN{}, nil,
		canon.ErrValue{}, canon.UTC(2024, 2, 29, 23, 59, 59, 999999e3), canon.ErrValue{}, nil},
}

func TestPostgresTypes(t *testing.T) {
	dsn := testenv.Postgres(t)
	testenv.ExecPostgres(t, dsn, postgresTypesSQL)
	ctx := sourcetest.Context(t)
	src := sourcetest.Open(t, ctx, dsn)
	tab := sourcetest.InspectTable(t, ctx, src, "kinds")
	for name, want := range map[string][2]introspect.Kind{
		"tags": {introspect.KindArray, introspect.KindString}, "grid": {introspect.KindArray, introspect.KindInt},
		"blobs": {introspect.KindArray, introspect.KindBytes}, "stamps": {introspect.KindArray, introspect.KindTimestampTZ},
		"mood": {introspect.KindString}, "uid": {introspect.KindString}, "num": {introspect.KindDecimal},
	} {
		if c := tab.Column(name); c == nil || c.Kind != want[0] || c.Elem != want[1] {
			t.Fatalf("column %s: %+v, want kind %s elem %q", name, c, want[0], want[1])
		}
	}
	r := sourcetest.Reader(t, ctx, src)

	rows := sourcetest.Scan(t, ctx, r, tab, "", 0)
	if len(rows) != len(postgresTypesRows) {
		t.Fatalf("ScanTable read %d rows, want %d", len(rows), len(postgresTypesRows))
	}
	for i, want := range postgresTypesRows {
		sourcetest.CheckRow(t, "ScanTable row "+canon.Show(want[0]), tab.Columns, rows[i], want)
	}
	for _, want := range rows {
		_, got := sourcetest.Query(t, ctx, r, tab, "SELECT * FROM kinds WHERE id = $1", want[0])
		sourcetest.CheckSameRows(t, "Query vs ScanTable, id "+canon.Show(want[0]), tab.Columns, got, [][]any{want})
	}

	// Enum and uuid values bound back as parameters find their rows.
	for _, name := range []string{"mood", "uid"} {
		_, got := sourcetest.Query(t, ctx, r, tab, "SELECT id FROM kinds WHERE "+name+" = $1", postgresTypesRows[0][sourcetest.ColumnIndex(t, tab, name)])
		if !reflect.DeepEqual(sourcetest.IDs(got), []any{int64(1)}) {
			t.Errorf("Query where %s: ids %v, want [1]", name, sourcetest.IDs(got))
		}
	}
	// Sample of an enum.
	got, err := r.Sample(ctx, tab, []string{"mood"}, "", 10, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Errorf("Sample(mood) = %v, want happy and sad", got)
	}
}

// TestPostgresSessionSettings: whatever the database's defaults for the
// settings that shape text output, values read the same.
func TestPostgresSessionSettings(t *testing.T) {
	dsn := testenv.Postgres(t)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	db := strings.TrimPrefix(u.Path, "/")
	testenv.ExecPostgres(t, dsn, sourcetest.ItemsSQL["postgres"]+`
ALTER DATABASE `+db+` SET DateStyle = 'SQL, DMY';
ALTER DATABASE `+db+` SET TimeZone = 'Asia/Kolkata';
ALTER DATABASE `+db+` SET bytea_output = 'escape';
ALTER DATABASE `+db+` SET extra_float_digits = -2;
ALTER DATABASE `+db+` SET IntervalStyle = 'sql_standard';`)
	ctx := sourcetest.Context(t)
	src := sourcetest.Open(t, ctx, dsn)
	tab := sourcetest.InspectTable(t, ctx, src, "items")
	rows := sourcetest.Scan(t, ctx, sourcetest.Reader(t, ctx, src), tab, "", 0)
	if len(rows) != len(sourcetest.ItemsRows) {
		t.Fatalf("ScanTable read %d rows, want %d", len(rows), len(sourcetest.ItemsRows))
	}
	for i, want := range sourcetest.ItemsRows {
		sourcetest.CheckRow(t, "row "+canon.Show(want[0]), tab.Columns, rows[i], want)
	}
}

func TestPostgresPartitionedTable(t *testing.T) {
	dsn := testenv.Postgres(t)
	testenv.ExecPostgres(t, dsn, `
CREATE TABLE payments (
  id     integer,
  paid   date,
  amount numeric(10,2),
  PRIMARY KEY (id, paid)
) PARTITION BY RANGE (paid);
CREATE TABLE payments_2023 PARTITION OF payments FOR VALUES FROM ('2023-01-01') TO ('2024-01-01');
CREATE TABLE payments_2024 PARTITION OF payments FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');
INSERT INTO payments VALUES
  (2, '2024-03-01', 1.50), (1, '2024-01-01', 3.25), (3, '2023-12-31', 4.00), (1, '2023-05-01', 2.00);`)
	ctx := sourcetest.Context(t)
	src := sourcetest.Open(t, ctx, dsn)
	s, err := src.Inspect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if names := s.TableNames(); !reflect.DeepEqual(names, []string{"payments"}) {
		t.Fatalf("tables %v, want only the parent [payments]", names)
	}
	tab := sourcetest.InspectTable(t, ctx, src, "payments")
	r := sourcetest.Reader(t, ctx, src)

	want := [][]any{
		{int64(1), canon.UTC(2023, 5, 1, 0, 0, 0, 0), "2.00"},
		{int64(1), canon.UTC(2024, 1, 1, 0, 0, 0, 0), "3.25"},
		{int64(2), canon.UTC(2024, 3, 1, 0, 0, 0, 0), "1.50"},
		{int64(3), canon.UTC(2023, 12, 31, 0, 0, 0, 0), "4.00"},
	}
	rows := sourcetest.Scan(t, ctx, r, tab, "", 0)
	sourcetest.CheckSameRows(t, "ScanTable of the parent", tab.Columns, rows, want)
	sourcetest.CheckSameRows(t, "ScanTable of the parent with where", tab.Columns, sourcetest.Scan(t, ctx, r, tab, "paid >= '2024-01-01'", 0), want[1:3])
	sourcetest.CheckSameRows(t, "ScanTable of the parent with limit", tab.Columns, sourcetest.Scan(t, ctx, r, tab, "", 3), want[:3])
	n, err := r.Count(ctx, tab, "")
	if err != nil {
		t.Fatal(err)
	}
	if n != 4 {
		t.Errorf("Count = %d, want 4", n)
	}
	sample, err := r.Sample(ctx, tab, []string{"id"}, "", 10, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(sample) != 3 {
		t.Errorf("Sample(id) = %v, want the 3 distinct ids", sample)
	}
}
