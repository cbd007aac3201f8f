package source_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/internal/domain/source/sourcetest"
	"github.com/remodel-dev/remodel/internal/testsupport/canon"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
)

// A SQL_ASCII database stores whatever bytes it is given and converts
// nothing on the way out: its text need not be UTF-8.
const sqlASCIIOptions = "ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0"

const invalidTextSQL = `
CREATE TABLE words (
  name text PRIMARY KEY,
  note text,
  tags text[],
  doc  json
);
INSERT INTO words VALUES
 (E'caf\xe9', 'ok', NULL, NULL),
 (E'caf\xe8', 'ok', NULL, NULL),
 ('café', E'na\xefve', NULL, NULL),
 ('tags', NULL, ARRAY['ok', E'caf\xe9'], NULL),
 ('doc', NULL, NULL, E'{"s": "caf\xe9"}'),
 ('surrogate', NULL, NULL, '{"s": "\ud800"}'),
 ('fine', 'ok', '{a}', '{"s": "\u00e9"}');
`

func utf8Err(b byte, off int) error {
	return fmt.Errorf("text is not valid UTF-8 (byte 0x%02x at offset %d)", b, off)
}

// TestPostgresInvalidUTF8: text that is not UTF-8, in a plain column, an
// array element or a JSON document (raw or as a lone surrogate escape),
// is an error value; mapping rejects its row naming the column, and the
// rejected row's key keeps its bytes, escaped.
func TestPostgresInvalidUTF8(t *testing.T) {
	dsn := testenv.PostgresWith(t, sqlASCIIOptions)
	testenv.ExecPostgres(t, dsn, invalidTextSQL)
	ctx := sourcetest.Context(t)
	src := sourcetest.Open(t, ctx, dsn)
	tab := sourcetest.InspectTable(t, ctx, src, "words")
	r := sourcetest.Reader(t, ctx, src)

	// Bytewise order: "caf\xc3\xa9" (café in UTF-8) < "caf\xe8" < "caf\xe9".
	want := [][]any{
		{"café", utf8Err(0xef, 2), nil, nil},
		{utf8Err(0xe8, 3), "ok", nil, nil},
		{utf8Err(0xe9, 3), "ok", nil, nil},
		{"doc", nil, nil, []byte(`{"s": "caf` + "\xe9" + `"}`)}, // checked by mapping.Convert
		{"fine", "ok", []any{"a"}, []byte(`{"s": "\u00e9"}`)},
		{"surrogate", nil, nil, []byte(`{"s": "\ud800"}`)},
		{"tags", nil, errors.New("array element 2: " + utf8Err(0xe9, 3).Error()), nil},
	}
	rows := sourcetest.Scan(t, ctx, r, tab, "", 0)
	if len(rows) != len(want) {
		t.Fatalf("ScanTable read %d rows, want %d", len(rows), len(want))
	}
	for i := range want {
		sourcetest.CheckRow(t, "ScanTable row "+strconv.Itoa(i), tab.Columns, rows[i], want[i])
	}
	_, got := sourcetest.Query(t, ctx, r, tab, "SELECT * FROM words ORDER BY name")
	sourcetest.CheckSameRows(t, "Query vs ScanTable", tab.Columns, got, rows)

	// Every row but fine is rejected, with its key and the column.
	plan := sourcetest.CompilePlan(t, ctx, src, `version: 1
table: {name: words, key: {pk: PK}}
entities:
  word: {from: words, pk: "WORD#{name}"}
`)
	e := plan.Entity("word")
	wantRejects := map[string]string{
		"name=café":      "column note (text): text is not valid UTF-8 (byte 0xef at offset 2)",
		`name="caf\xe8"`: "rendering PK: {name}: text is not valid UTF-8 (byte 0xe8 at offset 3)",
		`name="caf\xe9"`: "rendering PK: {name}: text is not valid UTF-8 (byte 0xe9 at offset 3)",
		"name=doc":       "column doc (json): json: not valid UTF-8 (byte offset 10)",
		"name=surrogate": `column doc (json): json: lone UTF-16 surrogate \ud800 at byte offset 7 (not a Unicode character)`,
		"name=tags":      "column tags (text[]): array element 2: text is not valid UTF-8 (byte 0xe9 at offset 3)",
	}
	seen := map[string]bool{}
	for _, row := range rows {
		item, err := e.Render(row)
		var re *mapping.RowError
		if !errors.As(err, &re) {
			if row[0] != "fine" || err != nil {
				t.Errorf("Render(%s) = %v, %v; want a rejection", canon.Show(row[0]), item, err)
			}
			continue
		}
		if seen[re.Key] {
			t.Errorf("two rejected rows print the same key %s", re.Key)
		}
		seen[re.Key] = true
		if wantRejects[re.Key] != re.Reason {
			t.Errorf("rejected %s: %q, want %q", re.Key, re.Reason, wantRejects[re.Key])
		}
		// The key survives JSON (the rejects file) byte for byte: nothing
		// is turned into U+FFFD, and it reads back as it was.
		b, err := json.Marshal(re.Key)
		if err != nil {
			t.Fatal(err)
		}
		var back string
		if err := json.Unmarshal(b, &back); err != nil || back != re.Key || strings.ContainsRune(back, '\uFFFD') {
			t.Errorf("key %s through JSON: %s reads back as %q", re.Key, b, back)
		}
	}
	if len(seen) != len(wantRejects) {
		t.Errorf("rejected %v, want %d rows", seen, len(wantRejects))
	}
}

// TestMySQLInvalidUTF8 shows where MariaDB keeps bytes that are not valid
// in a column's character set, and what remodel reads from them.
func TestMySQLInvalidUTF8(t *testing.T) {
	dsn := testenv.MySQL(t)
	testenv.ExecMySQL(t, dsn, `
CREATE TABLE t (
  id int PRIMARY KEY,
  name varchar(20) CHARACTER SET utf8mb4 NULL,
  doc  longtext CHARACTER SET utf8mb4 NULL CHECK (json_valid(doc))
);
INSERT INTO t VALUES (1, 'café', '{"s": "\\u00e9"}');`)
	ctx := sourcetest.Context(t)
	admin := sourcetest.RootDB(t, dsn)

	// MariaDB's json_valid refuses a lone surrogate escape, so a JSON
	// column cannot hold one (PostgreSQL's json can).
	_, err := admin.ExecContext(ctx, `INSERT INTO t (id, doc) VALUES (3, '{"s": "\\ud800"}')`)
	var me *mysql.MySQLError
	if !errors.As(err, &me) || me.Number != 4025 {
		t.Fatalf("insert of a lone surrogate into a JSON column: %v, want error 4025 (CONSTRAINT failed)", err)
	}

	// A utf8mb4 column cannot hold invalid UTF-8: strict mode refuses it,
	// and without strict mode MariaDB stores '?' in its place (a change
	// made at write time, before anything is read).
	_, err = admin.ExecContext(ctx, "INSERT INTO t (id, name) VALUES (2, X'636166E9')")
	if !errors.As(err, &me) || me.Number != 1366 {
		t.Fatalf("strict insert of invalid UTF-8: %v, want error 1366 (Incorrect string value)", err)
	}
	conn, err := admin.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, q := range []string{"SET SESSION sql_mode = ''", "SET NAMES binary", "INSERT INTO t (id, name) VALUES (2, X'636166E9')", "SET NAMES utf8mb4"} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var stored string
	if err := conn.QueryRowContext(ctx, "SELECT HEX(name) FROM t WHERE id = 2").Scan(&stored); err != nil || stored != "6361663F" {
		t.Fatalf("non-strict insert stored %s (%v), want 6361663F (caf?)", stored, err)
	}

	src := sourcetest.Open(t, ctx, dsn)
	tab := sourcetest.InspectTable(t, ctx, src, "t")
	r := sourcetest.Reader(t, ctx, src)
	rows := sourcetest.Scan(t, ctx, r, tab, "", 0)
	want := [][]any{
		{int64(1), "café", []byte(`{"s": "\u00e9"}`)},
		{int64(2), "caf?", nil},
	}
	if len(rows) != len(want) {
		t.Fatalf("ScanTable read %d rows, want %d", len(rows), len(want))
	}
	for i := range want {
		sourcetest.CheckRow(t, "ScanTable row "+strconv.Itoa(i), tab.Columns, rows[i], want[i])
	}

	// A free query can still return bytes that are not UTF-8 under a text
	// column's name (a binary string): an error value, not text.
	_, got := sourcetest.Query(t, ctx, r, tab, "SELECT id, UNHEX('636166E9') AS name, CAST(CONCAT('[\"', UNHEX('E9'), '\"]') AS BINARY) AS doc FROM t WHERE id = 1")
	sourcetest.CheckRow(t, "Query of binary strings", tab.Columns, got[0], []any{int64(1), utf8Err(0xe9, 3), []byte(`["` + "\xe9" + `"]`)})
	if c := tab.Column("doc"); c.Kind != introspect.KindJSON {
		t.Fatalf("doc: %+v, want KindJSON", c)
	}
}

// TestMySQLUnconvertibleCharset: an ascii or cp1251 column can hold bytes
// its character set has no Unicode character for (MariaDB accepts them even
// in strict mode), and the server would send each as '?' to a utf8mb4
// connection. The table scan reads such a value as an error value instead,
// and every convertible value as its UTF-8 text; the primary key order is
// the column's collation, not the order of the expression that reads it.
func TestMySQLUnconvertibleCharset(t *testing.T) {
	dsn := testenv.MySQL(t)
	testenv.ExecMySQL(t, dsn, `
CREATE TABLE legacy (
  name varchar(20) CHARACTER SET latin1 COLLATE latin1_swedish_ci PRIMARY KEY,
  a    varchar(20) CHARACTER SET ascii NULL,
  c    varchar(20) CHARACTER SET cp1251 NULL,
  tags set('x','é') CHARACTER SET latin1 NULL
);
INSERT INTO legacy VALUES
 ('zoë', X'636166E9', NULL, NULL),
 ('café', 'ok', X'CFF0E8E2E5F2', 'x,é'),
 ('B', NULL, X'D098', ''),
 ('a', 'ok  ', NULL, NULL);
CREATE TABLE codes (code char(4) CHARACTER SET ascii PRIMARY KEY);
INSERT INTO codes VALUES (X'636166E9'), (X'636166E8'), ('cafe');`)
	ctx := sourcetest.Context(t)
	src := sourcetest.Open(t, ctx, dsn)
	tab := sourcetest.InspectTable(t, ctx, src, "legacy")
	r := sourcetest.Reader(t, ctx, src)

	ascii := &source.UnconvertibleTextError{Charset: "ascii", Text: "caf\xe9"}
	cp1251 := &source.UnconvertibleTextError{Charset: "cp1251", Text: "\xd0\x98"}
	if got := ascii.Error(); got != `text "caf\xe9" has bytes that character set ascii has no Unicode character for (the server would send them as '?')` {
		t.Errorf("error text %s", got)
	}
	want := [][]any{
		{"a", "ok  ", nil, nil},
		{"B", nil, cp1251, []string{}},
		{"café", "ok", "Привет", []string{"x", "é"}},
		{"zoë", ascii, nil, nil},
	}
	rows := sourcetest.Scan(t, ctx, r, tab, "", 0)
	if len(rows) != len(want) {
		t.Fatalf("ScanTable read %d rows, want %d", len(rows), len(want))
	}
	for i := range want {
		sourcetest.CheckRow(t, "ScanTable row "+strconv.Itoa(i), tab.Columns, rows[i], want[i])
	}
	sampled, err := r.Sample(ctx, tab, []string{"a"}, "name = 'zoë'", 5, 1)
	if err != nil || len(sampled) != 1 || !canon.Equal(sampled[0][0], ascii) {
		t.Errorf("Sample(a) = %v, %v; want the error value", sampled, err)
	}

	plan := sourcetest.CompilePlan(t, ctx, src, `version: 1
table: {name: legacy, key: {pk: PK}}
entities:
  row: {from: legacy, pk: "ROW#{name}"}
`)
	e := plan.Entity("row")
	for _, tc := range []struct {
		row    []any
		key    string
		reason string
	}{
		{rows[1], "name=B", `column c (varchar(20)): text "\xd0\x98" has bytes that character set cp1251 has no Unicode character for (the server would send them as '?')`},
		{rows[3], "name=zoë", `column a (varchar(20)): text "caf\xe9" has bytes that character set ascii has no Unicode character for (the server would send them as '?')`},
	} {
		_, err := e.Render(tc.row)
		var re *mapping.RowError
		if !errors.As(err, &re) || re.Key != tc.key || re.Reason != tc.reason {
			t.Errorf("Render(%s) = %v, want the row rejected: %s", tc.key, err, tc.reason)
		}
	}

	// A key that does not convert names its row by its bytes, escaped.
	codes := sourcetest.InspectTable(t, ctx, src, "codes")
	plan = sourcetest.CompilePlan(t, ctx, src, `version: 1
table: {name: codes, key: {pk: PK}}
entities:
  code: {from: codes, pk: "CODE#{code}"}
`)
	var keys []string
	for _, row := range sourcetest.Scan(t, ctx, r, codes, "", 0) {
		_, err := plan.Entity("code").Render(row)
		var re *mapping.RowError
		if errors.As(err, &re) {
			keys = append(keys, re.Key)
		} else if err != nil || row[0] != "cafe" {
			t.Errorf("Render(%s): %v", canon.Show(row[0]), err)
		}
	}
	if strings.Join(keys, " ") != `code="caf\xe8" code="caf\xe9"` {
		t.Errorf("rejected keys %q, want the two escaped codes", keys)
	}

	// SQL you write is read as the server converts it: there the '?' cannot
	// be told from a real one (docs/mapping.md says so).
	_, got := sourcetest.Query(t, ctx, r, tab, "SELECT name, a FROM legacy WHERE name = 'zoë'")
	if len(got) != 1 || got[0][1] != "caf?" {
		t.Errorf("Query(a) = %v, want the server's caf?", got)
	}
}
