package verify_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/av"

	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/mapping"
	"github.com/remodel-dev/remodel/migrate"
	"github.com/remodel-dev/remodel/verify"
)

// edgeRun is one migration of a small table and the verify after it, with
// the rejects file told to verify.
type edgeRun struct {
	opts    verify.Options
	plan    *mapping.Plan
	migrate *migrate.Report
	verify  *verify.Report
}

// migrateVerify loads script into a fresh database at dsn (made by the
// caller), migrates it by mappingText into a fresh table with a rejects
// file, and verifies the table with those rejects accepted.
func migrateVerify(t *testing.T, dsn, mappingText string) edgeRun {
	t.Helper()
	ctx := context.Background()
	src, err := source.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	db, table := testenv.DynamoDBTable(t)
	plan := compile(t, src, mappingText)
	rejects := t.TempDir() + "/rejects.jsonl"
	mrep, err := migrate.Run(ctx, migrate.Options{Plan: plan, Source: src, DB: db, Table: table, CreateTable: true, MaxRejects: 100, RejectsPath: rejects})
	if err != nil {
		t.Fatalf("migrate: %v", err)
	}
	rj, err := verify.ReadRejects(rejects, plan)
	if err != nil {
		t.Fatal(err)
	}
	o := verify.Options{Plan: plan, Source: src, DB: db, Table: table, Samples: 1, MaxProblems: 50, Rejects: rj}
	return edgeRun{opts: o, plan: plan, migrate: mrep, verify: run(t, o)}
}

// rejected is the reason of each rejected row, by its source key.
func (r edgeRun) rejected() map[string]string {
	m := map[string]string{}
	for _, x := range r.migrate.Rejections {
		m[x.Row] = x.Reason
	}
	return m
}

// TestJSONTheServerCannotConvert: a PostgreSQL json column keeps its text
// as written, so it may hold \u0000 (which no jsonb or text value can) or
// a lone surrogate. The oracle's rendering of the row must not ask the
// server to convert such a document (to_jsonb of the row failed the whole
// item pass with "unsupported Unicode escape sequence"): the \u0000 row
// migrates and is checked, the lone surrogate's row is rejected and
// accepted as such, and verify passes, whatever the column's type and
// whether the mapping keeps the column at all.
func TestJSONTheServerCannotConvert(t *testing.T) {
	dsn := testenv.Postgres(t)
	testenv.ExecPostgres(t, dsn, `CREATE TABLE docs (id int PRIMARY KEY, doc json, note text);
INSERT INTO docs VALUES (1, '{"a":"x\u0000y"}', 'nul'), (2, '"\ud800"', 'surrogate'), (3, '{"a":[1,2.50]}', 'plain'), (4, NULL, 'null');`)
	for _, tc := range []struct {
		name, attrs string
		rejected    bool // whether the surrogate's row is rejected
	}{
		{"default", "", true},
		{"JSON", "attributes: {types: {doc: JSON}}", false},
		{"excluded", "attributes: {exclude: [doc]}", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := migrateVerify(t, dsn, "version: 1\ntable: {name: docs, key: {pk: PK}}\nentities:\n  doc: {from: docs, pk: \"D#{id}\", "+tc.attrs+"}\n")
			got := r.rejected()
			if _, ok := got["id=1"]; ok {
				t.Errorf("the \\u0000 row was rejected: %s", got["id=1"])
			}
			if reason, ok := got["id=2"]; ok != tc.rejected || ok && !strings.Contains(reason, "surrogate") {
				t.Errorf("the surrogate's row: rejected %v (%q), want rejected %v with a reason naming the surrogate", ok, reason, tc.rejected)
			}
			if !r.verify.OK {
				t.Errorf("verify:\n%s", text(r.verify))
			}
		})
	}
}

// TestOracleWideRow: the oracle's PostgreSQL rendering of a row is built
// column by column, in calls of at most 50 columns (a function takes at
// most 100 arguments): a row of 120 columns is checked whole.
func TestOracleWideRow(t *testing.T) {
	dsn := testenv.Postgres(t)
	var cols, vals []string
	for i := 1; i <= 120; i++ {
		cols = append(cols, fmt.Sprintf("c%d int", i))
		vals = append(vals, strconv.Itoa(i*7))
	}
	testenv.ExecPostgres(t, dsn, "CREATE TABLE wide (id int PRIMARY KEY, "+strings.Join(cols, ", ")+"); INSERT INTO wide VALUES (1, "+strings.Join(vals, ", ")+");")
	r := migrateVerify(t, dsn, "version: 1\ntable: {name: wide, key: {pk: PK}}\nentities:\n  wide: {from: wide, pk: \"W#{id}\"}\n")
	if !r.verify.OK || r.migrate.ItemsWritten != 1 {
		t.Errorf("wrote %d items; verify:\n%s", r.migrate.ItemsWritten, text(r.verify))
	}
}

// TestOracleYearZero: MariaDB's JSON_OBJECT prints a YEAR as its four
// digits, and the year 0 as 0000, which is no JSON number; the oracle asks
// for the number the YEAR is, so a faithful migration of year 0 passes.
func TestOracleYearZero(t *testing.T) {
	dsn := testenv.MySQL(t)
	testenv.ExecMySQL(t, dsn, `CREATE TABLE years (id int PRIMARY KEY, y year NULL);
INSERT INTO years VALUES (1, 0), (2, 2024), (3, NULL), (4, 1901);`)
	r := migrateVerify(t, dsn, "version: 1\ntable: {name: years, key: {pk: PK}}\nentities:\n  year: {from: years, pk: \"Y#{id}\"}\n")
	if !r.verify.OK || r.migrate.ItemsWritten != 4 {
		t.Errorf("wrote %d items; verify:\n%s", r.migrate.ItemsWritten, text(r.verify))
	}
}

// TestNumbersTypedS: a number column typed S is text, not a DynamoDB
// number, so none of N's limits apply: more than 38 significant digits, a
// magnitude N cannot hold and PostgreSQL's NaN and infinities are kept
// (digits by value, as S writes every number; NaN and the infinities as
// the source spells them), and verify agrees on both engines.
func TestNumbersTypedS(t *testing.T) {
	long45 := "123456789012345678901234567890.123456789012345"
	long65 := "12345678901234567890123456789012345.123456789012345678901234567891"
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			dsn := eng.Fresh(t)
			want := map[string][2]string{ // id: n's and d's text
				"1": {long45, "1E-200"},
				"2": {long65, "1.5"},
				"3": {"1.5", "0"},
			}
			script := `CREATE TABLE nums (id int PRIMARY KEY, n decimal(65,30), d double precision);
INSERT INTO nums VALUES (1, ` + long45 + `, 1e-200), (2, ` + long65 + `, 1.5), (3, 1.50, 0);`
			if eng.Name == "postgres" {
				script = strings.Replace(script, "decimal(65,30)", "numeric", 1) +
					`INSERT INTO nums VALUES (4, 'NaN', 'NaN'), (5, 'Infinity', '-Infinity'), (6, '-Infinity', 'Infinity');`
				want["4"] = [2]string{"NaN", "NaN"}
				want["5"] = [2]string{"Infinity", "-Infinity"}
				want["6"] = [2]string{"-Infinity", "Infinity"}
			}
			eng.Exec(t, dsn, script)
			r := migrateVerify(t, dsn, "version: 1\ntable: {name: nums, key: {pk: PK, sk: SK}}\nentities:\n  num: {from: nums, pk: \"N#{id}\", sk: X, attributes: {types: {n: S, d: S}}}\n")
			if len(r.migrate.Rejections) != 0 {
				t.Errorf("rejected: %+v", r.migrate.Rejections)
			}
			for id, w := range want {
				item := getItem(t, r.opts, "N#"+id, "X")
				for i, name := range []string{"n", "d"} {
					if got, ok := item[name].(*types.AttributeValueMemberS); !ok || got.Value != w[i] {
						t.Errorf("row id=%s: %s = %s, want S %s", id, name, av.Text(item[name]), w[i])
					}
				}
			}
			if !r.verify.OK {
				t.Errorf("verify:\n%s", text(r.verify))
			}
		})
	}
}

// TestVectors: PostgreSQL's int2vector and oidvector are arrays whose text
// is their elements separated by spaces ("1 2 3"), which the array reader
// rejected ("bad array text: expected { at offset 0"). They become lists of
// their elements (int2 as numbers, oid as text, as an oid column is), an
// empty vector an empty list, and verify agrees with to_jsonb's arrays.
func TestVectors(t *testing.T) {
	dsn := testenv.Postgres(t)
	testenv.ExecPostgres(t, dsn, `CREATE TABLE vecs (id int PRIMARY KEY, a int2vector, o oidvector);
INSERT INTO vecs VALUES (1, '1 2 -3', '4 5'), (2, '', ''), (3, NULL, NULL), (4, '7', '4294967295');`)
	r := migrateVerify(t, dsn, "version: 1\ntable: {name: vecs, key: {pk: PK, sk: SK}}\nentities:\n  vec: {from: vecs, pk: \"V#{id}\", sk: X}\n")
	if len(r.migrate.Rejections) != 0 {
		t.Errorf("rejected: %+v", r.migrate.Rejections)
	}
	for id, want := range map[string][2]string{
		"1": {`L [N 1, N 2, N -3]`, `L [S "4", S "5"]`},
		"2": {`L []`, `L []`},
		"3": {`nothing`, `nothing`},
		"4": {`L [N 7]`, `L [S "4294967295"]`},
	} {
		item := getItem(t, r.opts, "V#"+id, "X")
		for i, name := range []string{"a", "o"} {
			if got := av.Text(item[name]); got != want[i] {
				t.Errorf("row id=%s: %s = %s, want %s", id, name, got, want[i])
			}
		}
	}
	if !r.verify.OK {
		t.Errorf("verify:\n%s", text(r.verify))
	}
}

// TestTinyintTypedN: MySQL's tinyint(1) is read as a boolean by default;
// typed N it is the number it holds (2 stays 2, -1 stays -1), and verify
// agrees, while an untyped tinyint(1) column of the same table is still a
// BOOL.
func TestTinyintTypedN(t *testing.T) {
	dsn := testenv.MySQL(t)
	testenv.ExecMySQL(t, dsn, `CREATE TABLE flags (id int PRIMARY KEY, level tinyint(1) NULL, ok tinyint(1) NULL);
INSERT INTO flags VALUES (1, 2, 1), (2, 0, 0), (3, -1, NULL), (4, NULL, 1), (5, 127, 0);`)
	r := migrateVerify(t, dsn, "version: 1\ntable: {name: flags, key: {pk: PK, sk: SK}}\nentities:\n  flag: {from: flags, pk: \"F#{id}\", sk: X, attributes: {types: {level: N}}}\n")
	if len(r.migrate.Rejections) != 0 {
		t.Errorf("rejected: %+v", r.migrate.Rejections)
	}
	for id, want := range map[string][2]string{
		"1": {`N 2`, `BOOL true`},
		"2": {`N 0`, `BOOL false`},
		"3": {`N -1`, `nothing`},
		"4": {`nothing`, `BOOL true`},
		"5": {`N 127`, `BOOL false`},
	} {
		item := getItem(t, r.opts, "F#"+id, "X")
		for i, name := range []string{"level", "ok"} {
			if got := av.Text(item[name]); got != want[i] {
				t.Errorf("row id=%s: %s = %s, want %s", id, name, got, want[i])
			}
		}
	}
	if !r.verify.OK {
		t.Errorf("verify:\n%s", text(r.verify))
	}
}

// TestCollatedKeyRejects: a declared key (key:) the table does not
// enforce, on a column of a case-insensitive collation holding 'a', 'A' and
// 'a' again. MariaDB sorts the three as equal, in any order, so the two
// 'a' rows need not be adjacent: the repeated-key check missed them, the
// key collision check rejected only the later one, and the rejects file's
// "name=a" then also named the row that has its item, which verify reported
// as "accepted as rejected, but the table holds its item". Now both 'a'
// rows are rejected as sharing their key (a key that names no row), 'A' is
// migrated, and verify, told of the rejects, passes and names both rows.
func TestCollatedKeyRejects(t *testing.T) {
	dsn := testenv.MySQL(t)
	testenv.ExecMySQL(t, dsn, `CREATE TABLE tags (id int, name varchar(10) COLLATE utf8mb4_general_ci NOT NULL, note varchar(10));
INSERT INTO tags VALUES (1, 'a', 'first'), (2, 'A', 'second'), (3, 'b', 'third'), (4, 'a', 'fourth'), (5, 'á', 'fifth'), (6, 'B ', 'sixth');`)
	for _, tmpl := range []string{"T#{name|lower}", "T#{name}", "T#{note}"} {
		t.Run(tmpl, func(t *testing.T) {
			r := migrateVerify(t, dsn, "version: 1\ntable: {name: tags, key: {pk: PK, sk: SK}}\nentities:\n  tag: {from: tags, key: [name], pk: \""+tmpl+"\", sk: X}\n")
			var rows []string
			for _, x := range r.migrate.Rejections {
				rows = append(rows, x.Row)
				if x.Row != "name=a" || !strings.Contains(x.Reason, "2 rows have this key (name)") {
					t.Errorf("rejected row %s: %s; want only the two rows name=a, as sharing their key", x.Row, x.Reason)
				}
			}
			if len(rows) != 2 || r.migrate.ItemsWritten != 4 {
				t.Errorf("rejected %v and wrote %d items, want the two rows name=a and 4 items", rows, r.migrate.ItemsWritten)
			}
			if !r.verify.OK {
				t.Errorf("verify:\n%s", text(r.verify))
			}
			if rj := r.verify.Rejects; rj == nil || len(rj.Rows) != 1 || rj.Rows[0].Row != "name=a" {
				t.Errorf("verify's accepted rejects: %+v, want the row name=a", rj)
			}
		})
	}
}

// TestEmbeddedJSONTheServerCannotConvert: an embedded child row's json
// document holding \u0000 is rendered by the oracle's aggregate as its
// text (json_agg of to_jsonb(c.*) converted it to jsonb and failed the item
// pass of the whole table); the oracle parses the text and compares it, so
// the migration passes verify, and a changed embedded document is still
// reported.
func TestEmbeddedJSONTheServerCannotConvert(t *testing.T) {
	dsn := testenv.Postgres(t)
	testenv.ExecPostgres(t, dsn, `CREATE TABLE boxes (id int PRIMARY KEY);
CREATE TABLE notes (id int PRIMARY KEY, box_id int NOT NULL REFERENCES boxes, doc json);
INSERT INTO boxes VALUES (1), (2);
INSERT INTO notes VALUES (1, 1, '{"a":"x\u0000y"}'), (2, 1, '[1, 2.50]'), (3, 2, NULL);`)
	r := migrateVerify(t, dsn, `version: 1
table: {name: boxes, key: {pk: PK, sk: SK}}
entities:
  box:
    from: boxes
    pk: "B#{id}"
    sk: X
    embed:
      notes: {from: notes, on: box_id, order_by: id}
`)
	if len(r.migrate.Rejections) != 0 || !r.verify.OK {
		t.Fatalf("rejected %+v; verify:\n%s", r.migrate.Rejections, text(r.verify))
	}
	item := getItem(t, r.opts, "B#1", "X")
	notes := item["notes"].(*types.AttributeValueMemberL)
	notes.Value[0].(*types.AttributeValueMemberM).Value["doc"] = &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"a": &types.AttributeValueMemberS{Value: "xy"}}}
	putItem(t, r.opts, item)
	rep := run(t, r.opts)
	if rep.OK || !strings.Contains(text(rep), "notes[0].doc") {
		t.Errorf("verify of a changed embedded document:\n%s", text(rep))
	}
}

// TestEmbeddedRepeatedJSONKey: on both engines an embedded document that
// holds a key twice rejects its parent's row, and verify, told of the
// rejects, passes: the oracle's aggregate hands it the child documents as
// their text (MariaDB's as before through CAST, now explicitly).
func TestEmbeddedRepeatedJSONKey(t *testing.T) {
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			dsn := eng.Fresh(t)
			eng.Exec(t, dsn, `CREATE TABLE boxes (id int PRIMARY KEY);
CREATE TABLE notes (id int PRIMARY KEY, box_id int NOT NULL, doc json);
INSERT INTO boxes VALUES (1), (2);
INSERT INTO notes VALUES (1, 1, '{"a": 1, "a": 2}'), (2, 2, '{"b": [1, 2.50]}');`)
			r := migrateVerify(t, dsn, `version: 1
table: {name: boxes, key: {pk: PK, sk: SK}}
entities:
  box:
    from: boxes
    pk: "B#{id}"
    sk: X
    embed:
      notes: {from: notes, on: box_id, order_by: id}
`)
			if rej := r.rejected(); len(rej) != 1 || !strings.Contains(rej["id=1"], "twice") {
				t.Errorf("rejected %v, want the row id=1 for its repeated key", rej)
			}
			if !r.verify.OK || r.migrate.ItemsWritten != 1 {
				t.Errorf("wrote %d items; verify:\n%s", r.migrate.ItemsWritten, text(r.verify))
			}
		})
	}
}
