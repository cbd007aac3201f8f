package verify_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/av"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/mapping"
	"github.com/remodel-dev/remodel/migrate"
	"github.com/remodel-dev/remodel/verify"
)

// typedSQL is a table per engine whose columns the mapping gives another
// type (attributes.types), with edge values of each: NULLs, empty arrays
// and sets, a zero with a sign, instants before 1970, text that is not
// UTF-8 or not convertible from its character set, spatial values with and
// without an SRID.
var typedSQL = map[string]string{
	"postgres": `
CREATE TABLE typed (
  id int PRIMARY KEY, n_text text, price money, flag_int int, flag_txt char(3), flag_b boolean,
  amount numeric(8,2), note text, tags text[], nums numeric[], blobs bytea[], doc jsonb, list json,
  raw json, at timestamp(3), day date, created timestamptz(0)
);
INSERT INTO typed VALUES
 (1, '12.50', '1234.56', 1, 'Y', true, 1.50, 'héllo', '{"b","a"}', '{1.50,-2}', '{"\\x01","\\x"}',
  '{"a": {"b": [1, 2.50]}}', '[1, "x", null]', '{"b": 1,  "a": [true]}', '2024-01-02 03:04:05.123',
  '2024-01-02', '2024-01-02 03:04:05+00'),
 (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
 (3, '-0.0', '-92233720368547758.08', 0, 'no ', false, -0.00, '', '{}', '{}', '{}', '{}', '[]', 'null',
  '1969-12-31 23:59:59.999', '1969-12-31', '1970-01-01 00:00:00+00'),
 (4, '1e-3', '0', 1, 'T', NULL, 999999.99, 'a''b', '{""}', '{1e-130}', '{"\\xff00"}', '{"k": "é"}',
  '[[]]', '"str"', '9999-12-31 23:59:59.999', '0001-01-01', '2038-01-19 03:14:08+00');
`,
	"mysql": `
SET time_zone = '+00:00';
CREATE TABLE typed (
  id int PRIMARY KEY, n_text varchar(20) NULL, flag_int tinyint NULL, flag_txt char(3) NULL,
  flag_b boolean NULL, amount decimal(8,2) NULL, note varchar(20) NULL,
  note_l varchar(20) CHARACTER SET latin1 NULL, note_a varchar(20) CHARACTER SET ascii NULL,
  shape geometry NULL, opts set('a','b','c') NULL, optl set('a','b','c') NULL, doc json NULL, list json NULL,
  raw json NULL, at datetime(3) NULL, day date NULL, created timestamp NULL DEFAULT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
INSERT INTO typed VALUES
 (1, '12.50', 1, 'Y', true, 1.50, 'héllo', 'zoë', 'plain', ST_GeomFromText('POINT(1.5 -2)'), 'b,a', 'c,a',
  '{"a": {"b": [1, 2.50]}}', '[1, "x", null]', '{"b": 1,  "a": [true]}', '2024-01-02 03:04:05.123',
  '2024-01-02', '2024-01-02 03:04:05'),
 (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
 (3, '-0.0', 0, 'no', false, -0.00, '', '', X'636166E9', ST_GeomFromText('LINESTRING(0 0, 1 1)', 4326), '', '',
  '{}', '[]', 'null', '1969-12-31 23:59:59.999', '1969-12-31', '1970-01-01 00:00:01'),
 (4, '1e-3', 1, 'T', NULL, 999999.99, 'a''b', 'é', 'ok', ST_GeomFromText('POLYGON((0 0, 1 0, 1 1, 0 0))'), 'c', 'b',
  '{"k": "é"}', '[[]]', '"str"', '9999-12-31 23:59:59.999', '1000-01-01', '2038-01-19 03:14:07');
`,
}

var typedMapping = map[string]string{
	"postgres": `version: 1
table: {name: typed, key: {pk: PK, sk: SK}}
entities:
  typed:
    from: typed
    pk: "T#{id}"
    sk: "T#"
    attributes:
      rename: {at: atMs}
      types: {n_text: N, price: N, flag_int: BOOL, flag_txt: BOOL, flag_b: S, amount: S, note: B,
              tags: SS, nums: NS, blobs: BS, doc: M, list: L, raw: JSON, at: unixms, day: unix, created: unix}
  q:
    query: SELECT id, note AS q_note, at AS q_at, price AS q_price, created AS q_iso FROM typed
    key: [id]
    pk: "Q#{id}"
    sk: "Q#"
    attributes:
      types: {q_note: B, q_at: unixms, q_price: N, q_iso: iso}
`,
	"mysql": `version: 1
table: {name: typed, key: {pk: PK, sk: SK}}
entities:
  typed:
    from: typed
    pk: "T#{id}"
    sk: "T#"
    attributes:
      rename: {at: atMs}
      types: {n_text: N, flag_int: BOOL, flag_txt: BOOL, flag_b: S, amount: S, note: B, note_l: B, note_a: B,
              shape: B, opts: SS, optl: L, doc: M, list: L, raw: JSON, at: unixms, day: unix, created: unix}
  q:
    query: SELECT id, note AS q_note, at AS q_at, shape AS q_shape, created AS q_iso FROM typed
    key: [id]
    pk: "Q#{id}"
    sk: "Q#"
    attributes:
      types: {q_note: B, q_at: unixms, q_shape: B, q_iso: iso}
`,
}

// isoWant is what the query entity's created AS q_iso (typed iso) is
// stored as, by row: the instant in UTC with microseconds.
var isoWant = map[string]map[string]string{
	"postgres": {"1": `S "2024-01-02T03:04:05.000000Z"`, "2": "nothing", "3": `S "1970-01-01T00:00:00.000000Z"`, "4": `S "2038-01-19T03:14:08.000000Z"`},
	"mysql":    {"1": `S "2024-01-02T03:04:05.000000Z"`, "2": "nothing", "3": `S "1970-01-01T00:00:01.000000Z"`, "4": `S "2038-01-19T03:14:07.000000Z"`},
}

// wkb is the hex of a WKB value, with an SRID in front (EWKB) when srid ≠ 0.
func wkb(t *testing.T, little string, srid string) []byte {
	t.Helper()
	s := little
	if srid != "" {
		s = s[:2] + s[2:8] + "20" + srid + s[10:] // the type's flag byte (little-endian: the 4th)
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// typedWant is what each typed attribute of each row must be stored as.
func typedWant(t *testing.T, eng string) map[string]map[string]string {
	common := map[string]map[string]string{
		"1": {"n_text": "N 12.5", "flag_int": "BOOL true", "flag_txt": "BOOL true", "flag_b": `S "true"`, "amount": `S "1.5"`,
			"note": "B " + hex.EncodeToString([]byte("héllo")), "doc": `M {a: M {b: L [N 1, N 2.5]}}`, "list": `L [N 1, S "x", NULL]`,
			"raw": `S "{\"b\": 1,  \"a\": [true]}"`, "atMs": "N 1704164645123", "day": "N 1704153600", "created": "N 1704164645"},
		"2": {},
		"3": {"n_text": "N 0", "flag_int": "BOOL false", "flag_txt": "BOOL false", "flag_b": `S "false"`, "amount": `S "0"`,
			"note": "B ", "doc": "M {}", "list": "L []", "raw": `S "null"`, "atMs": "N -1", "day": "N -86400"},
		"4": {"n_text": "N 0.001", "flag_int": "BOOL true", "flag_txt": "BOOL true", "amount": `S "999999.99"`,
			"note": "B " + hex.EncodeToString([]byte("a'b")), "doc": `M {k: S "é"}`, "list": "L [L []]", "raw": `S "\"str\""`,
			"atMs": "N 253402300799999"},
	}
	if eng == "postgres" {
		add := map[string]map[string]string{
			"1": {"price": "N 1234.56", "tags": `SS ["a","b"]`, "nums": `NS ["-2","1.5"]`, "blobs": "BS [,01]"},
			"3": {"price": "N -92233720368547758.08", "created": "N 0"},
			"4": {"price": "N 0", "tags": `SS [""]`, "nums": `NS ["1E-130"]`, "blobs": "BS [ff00]", "day": "N -62135596800", "created": "N 2147483648"},
		}
		for row, m := range add {
			for k, v := range m {
				common[row][k] = v
			}
		}
		return common
	}
	add := map[string]map[string]string{
		"1": {"note_l": "B " + hex.EncodeToString([]byte("zoë")), "note_a": "B " + hex.EncodeToString([]byte("plain")),
			"shape": "B " + hex.EncodeToString(wkb(t, "0101000000000000000000f83f00000000000000c0", "")), "opts": `SS ["a","b"]`, "optl": `L [S "a", S "c"]`},
		"3": {"note_l": "B ", "note_a": "B 636166e9", "shape": "B " + hex.EncodeToString(wkb(t, "01020000000200000000000000000000000000000000000000000000000000f03f000000000000f03f", "e6100000")),
			"optl": "L []", "created": "N 1"},
		"4": {"note_l": "B c3a9", "note_a": "B " + hex.EncodeToString([]byte("ok")),
			"shape": "B 0103000000010000000400000000000000000000000000000000000000000000000000f03f0000000000000000000000000000f03f000000000000f03f00000000000000000000000000000000",
			"opts":  `SS ["c"]`, "optl": `L [S "b"]`, "day": "N -30610224000", "created": "N 2147483647"},
	}
	for row, m := range add {
		for k, v := range m {
			common[row][k] = v
		}
	}
	return common
}

// storedText renders a stored attribute for the comparison with typedWant:
// sets sorted, binary in hex.
func storedText(av types.AttributeValue) string {
	switch x := av.(type) {
	case *types.AttributeValueMemberB:
		return "B " + hex.EncodeToString(x.Value)
	case *types.AttributeValueMemberSS:
		b, _ := json.Marshal(slices.Sorted(slices.Values(x.Value)))
		return "SS " + string(b)
	case *types.AttributeValueMemberNS:
		var ns []string
		for _, n := range x.Value {
			v, err := mapping.NormalizeNumber(n)
			if err != nil {
				v = "bad " + n
			}
			ns = append(ns, v)
		}
		b, _ := json.Marshal(slices.Sorted(slices.Values(ns)))
		return "NS " + string(b)
	case *types.AttributeValueMemberBS:
		var hs []string
		for _, b := range x.Value {
			hs = append(hs, hex.EncodeToString(b))
		}
		sort.Strings(hs)
		return "BS [" + strings.Join(hs, ",") + "]"
	}
	return verifyText(av)
}

func verifyText(v types.AttributeValue) string { return av.Text(v) }

// migrateTyped loads typedSQL and migrates it with typedMapping.
func migrateTyped(t *testing.T, eng string, fresh func(testing.TB) string, exec func(testing.TB, string, string)) verify.Options {
	t.Helper()
	ctx := context.Background()
	dsn := fresh(t)
	exec(t, dsn, typedSQL[eng])
	db, table := testenv.DynamoDBTable(t)
	src, err := source.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	plan := compileWithQueries(t, src, typedMapping[eng])
	rep, err := migrate.Run(ctx, migrate.Options{Plan: plan, Source: src, DB: db, Table: table, CreateTable: true})
	if err != nil {
		t.Fatalf("migrate: %v", err)
	}
	if rep.ItemsWritten != 8 || rep.Rejected != 0 {
		t.Fatalf("migrate wrote %d items and rejected %d rows: %+v", rep.ItemsWritten, rep.Rejected, rep.Rejections)
	}
	return verify.Options{Plan: plan, Source: src, DB: db, Table: table, Samples: 1, MaxProblems: 100}
}

// TestTypedAttributes is the shared suite of attributes.types on both
// engines: every typed attribute is stored exactly as docs/mapping.md says,
// verify passes the faithful migration, and conversion bugs planted in the
// typed conversions (the path migrate and verify's rendering share) are
// each found by the oracle, which compares the typed value with the
// engine's own JSON rendering of the column.
func TestTypedAttributes(t *testing.T) {
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			t.Run("stored as typed, verify passes", func(t *testing.T) {
				o := migrateTyped(t, eng.Name, eng.Fresh, eng.Exec)
				out, err := o.DB.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(o.Table)})
				if err != nil {
					t.Fatal(err)
				}
				want := typedWant(t, eng.Name)
				cols := map[string]bool{}
				for _, a := range o.Plan.Entity("typed").ColumnAttributes() {
					cols[a.Attr] = true
				}
				seen := 0
				for _, it := range out.Items {
					if q, ok := strings.CutPrefix(av.KeyText(it["PK"]), "Q#"); ok {
						// The query entity's typed columns hold what the table's do.
						if got, w := storedText(it["q_iso"]), isoWant[eng.Name][q]; got != w {
							t.Errorf("query row %s: q_iso is %s, want %s", q, got, w)
						}
						for _, c := range [][2]string{{"q_note", "note"}, {"q_at", "atMs"}, {"q_price", "price"}, {"q_shape", "shape"}} {
							if o.Plan.Entity("q").Table.Column(c[0]) == nil {
								continue // not in this engine's query
							}
							if got, w := storedText(it[c[0]]), want[q][c[1]]; got != w && !(w == "" && got == "nothing") {
								t.Errorf("query row %s: %s is %s, want %s", q, c[0], got, w)
							}
						}
						continue
					}
					id := strings.TrimPrefix(av.KeyText(it["PK"]), "T#")
					w, ok := want[id]
					if !ok {
						t.Fatalf("item %s", id)
					}
					seen++
					got := map[string]string{}
					for name, av := range it {
						if cols[name] && name != "id" {
							got[name] = storedText(av)
						}
					}
					for name, v := range w {
						if got[name] != v {
							t.Errorf("row %s: %s is %s, want %s", id, name, got[name], v)
						}
					}
					for name, v := range got {
						if _, ok := w[name]; !ok {
							t.Errorf("row %s: %s is %s, want it left out", id, name, v)
						}
					}
				}
				if seen != 4 {
					t.Fatalf("%d items", seen)
				}
				rep := run(t, o)
				if !rep.OK || len(rep.Items) != 2 || rep.Items[0].Compared != 4 || rep.Items[1].Compared != 4 {
					t.Fatalf("verify did not pass the faithful migration:\n%s", text(rep))
				}
			})

			t.Run("planted bugs in typed conversions", func(t *testing.T) {
				restore := mapping.SetConvertHook(plantTyped)
				defer restore()
				o := migrateTyped(t, eng.Name, eng.Fresh, eng.Exec)
				rep := run(t, o)
				var got []string
				for _, p := range rep.Items[0].Problems.List {
					if p.Kind != verify.KindValueMismatch {
						t.Errorf("a %s problem: %s", p.Kind, p.Message)
					}
					got = append(got, p.SourceKey+" "+p.Attribute)
				}
				sort.Strings(got)
				want := []string{"id=1 atMs", "id=1 flag_int", "id=1 flag_txt", "id=1 list", "id=1 n_text", "id=1 note", "id=1 raw",
					"id=3 amount", "id=3 day", "id=4 flag_int", "id=4 flag_txt"}
				if eng.Name == "postgres" {
					want = append(want, "id=1 nums", "id=1 price", "id=1 tags")
				} else {
					want = append(want, "id=1 opts", "id=1 optl", "id=1 shape", "id=3 note_a")
				}
				sort.Strings(want)
				if !slices.Equal(got, want) {
					t.Fatalf("problems %q\nwant %q\n%s", got, want, text(rep))
				}
				// The query entity's iso attribute, an hour off in row 1.
				var q []string
				for _, p := range rep.Items[1].Problems.List {
					q = append(q, p.SourceKey+" "+p.Attribute)
				}
				if !slices.Contains(q, "id=1 q_iso") {
					t.Fatalf("the iso attribute an hour off is not found: %q\n%s", q, text(rep))
				}
			})
		})
	}
}

// plantTyped is a set of bugs in typed conversions: each changes one typed
// attribute of row 1 or 3 in a way that keeps the item writable.
func plantTyped(_ *mapping.Entity, a mapping.ColumnAttribute, av types.AttributeValue) types.AttributeValue {
	if a.Type == "" {
		return av
	}
	switch x := av.(type) {
	case *types.AttributeValueMemberN:
		switch {
		case a.Attr == "atMs" && x.Value == "1704164645123": // milliseconds cut to seconds
			return &types.AttributeValueMemberN{Value: "1704164645000"}
		case a.Attr == "day" && x.Value == "-86400": // a date a day late
			return &types.AttributeValueMemberN{Value: "0"}
		case a.Attr == "n_text" && x.Value == "12.5":
			return &types.AttributeValueMemberN{Value: "125"}
		case a.Attr == "price" && x.Value == "1234.56": // money read with its thousands separator lost
			return &types.AttributeValueMemberN{Value: "123456"}
		}
	case *types.AttributeValueMemberBOOL:
		if (a.Attr == "flag_int" || a.Attr == "flag_txt") && x.Value { // true read as false
			return &types.AttributeValueMemberBOOL{Value: false}
		}
	case *types.AttributeValueMemberS:
		switch {
		case a.Attr == "q_iso" && x.Value == "2024-01-02T03:04:05.000000Z": // an hour off (a zone applied twice)
			return &types.AttributeValueMemberS{Value: "2024-01-02T04:04:05.000000Z"}
		case a.Attr == "amount" && x.Value == "0": // a number not in its one text
			return &types.AttributeValueMemberS{Value: "0.00"}
		case a.Attr == "raw" && strings.HasPrefix(x.Value, `{"b"`): // a key renamed
			return &types.AttributeValueMemberS{Value: strings.Replace(x.Value, `"b"`, `"c"`, 1)}
		}
	case *types.AttributeValueMemberB:
		switch {
		case a.Attr == "note" && len(x.Value) > 1 && x.Value[0] == 'h': // the bytes of another encoding
			return &types.AttributeValueMemberB{Value: []byte("h\xe9llo")}
		case a.Attr == "note_a" && len(x.Value) == 4: // U+FFFD instead of the stored byte
			return &types.AttributeValueMemberB{Value: []byte("caf\uFFFD")}
		case a.Attr == "shape" && len(x.Value) == 21: // WKB in the other byte order, read as if little-endian
			b := slices.Clone(x.Value)
			b[12], b[20] = b[20], b[12]
			return &types.AttributeValueMemberB{Value: b}
		}
	case *types.AttributeValueMemberSS:
		if len(x.Value) == 2 { // a member lost
			return &types.AttributeValueMemberSS{Value: x.Value[:1]}
		}
	case *types.AttributeValueMemberNS:
		if len(x.Value) == 2 {
			return &types.AttributeValueMemberNS{Value: []string{x.Value[0], "2"}} // a sign lost
		}
	case *types.AttributeValueMemberL:
		if len(x.Value) == 3 || a.Attr == "optl" && len(x.Value) == 2 { // order changed
			l := slices.Clone(x.Value)
			l[0], l[1] = l[1], l[0]
			return &types.AttributeValueMemberL{Value: l}
		}
	}
	return av
}

// typedBadSQL holds, per engine, one row per value a typed attribute
// cannot hold; row 1 holds none.
var typedBadSQL = map[string]string{
	"postgres": `
CREATE TABLE bad (
  id int PRIMARY KEY, flag_int int, flag_txt text, n_text text, tags text[], nums numeric[],
  at timestamp(6), created timestamptz(3), doc jsonb, list json
);
INSERT INTO bad (id) VALUES (1);
INSERT INTO bad (id, flag_int) VALUES (2, 2);
INSERT INTO bad (id, flag_txt) VALUES (3, 'maybe');
INSERT INTO bad (id, n_text) VALUES (4, '12 apples');
INSERT INTO bad (id, tags) VALUES (5, '{"a","b","a"}'), (6, '{"a",NULL}');
INSERT INTO bad (id, nums) VALUES (7, '{{1},{2}}'), (8, '{1.0,1}');
INSERT INTO bad (id, at) VALUES (9, '2024-01-01 00:00:00.000001');
INSERT INTO bad (id, created) VALUES (10, '2024-01-01 00:00:00.5+00');
INSERT INTO bad (id, doc) VALUES (11, '[1]');
INSERT INTO bad (id, list) VALUES (12, '{"a": 1}');
`,
	"mysql": `
CREATE TABLE bad (
  id int PRIMARY KEY, flag_int int NULL, flag_txt varchar(10) NULL, n_text varchar(20) NULL,
  at datetime(6) NULL, created timestamp(3) NULL DEFAULT NULL, doc json NULL, list json NULL
);
INSERT INTO bad (id) VALUES (1);
INSERT INTO bad (id, flag_int) VALUES (2, 2);
INSERT INTO bad (id, flag_txt) VALUES (3, 'maybe');
INSERT INTO bad (id, n_text) VALUES (4, '12 apples');
INSERT INTO bad (id, at) VALUES (9, '2024-01-01 00:00:00.000001');
INSERT INTO bad (id, created) VALUES (10, '2024-01-01 00:00:00.5');
INSERT INTO bad (id, doc) VALUES (11, '[1]');
INSERT INTO bad (id, list) VALUES (12, '{"a": 1}');
`,
}

// TestTypedRejects: a value its type cannot hold rejects the row, naming
// the column, its type, the attribute's type and the value, on both
// engines; the other rows are written and verify, told of the rejects,
// passes.
func TestTypedRejects(t *testing.T) {
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			ctx := context.Background()
			dsn := eng.Fresh(t)
			script := typedBadSQL[eng.Name]
			if eng.Name == "mysql" {
				script = "SET time_zone = '+00:00';" + script
			}
			eng.Exec(t, dsn, script)
			db, table := testenv.DynamoDBTable(t)
			src, err := source.Open(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			typed := "flag_int: BOOL, flag_txt: BOOL, n_text: N, at: unixms, created: unix, doc: M, list: L"
			if eng.Name == "postgres" {
				typed += ", tags: SS, nums: NS"
			}
			plan := compile(t, src, `version: 1
table: {name: bad, key: {pk: PK}}
entities:
  bad:
    from: bad
    pk: "B#{id}"
    attributes:
      types: {`+typed+`}
`)
			rejects := t.TempDir() + "/rejects.jsonl"
			rep, err := migrate.Run(ctx, migrate.Options{Plan: plan, Source: src, DB: db, Table: table, CreateTable: true, MaxRejects: 100, RejectsPath: rejects})
			if err != nil {
				t.Fatalf("migrate: %v", err)
			}
			want := map[string]string{
				"id=2":  "column flag_int (integer) as BOOL: 2 is not a boolean (BOOL takes 0 or 1)",
				"id=3":  `column flag_txt (text) as BOOL: text "maybe" is not a boolean (BOOL takes true/false, t/f, yes/no, y/n or 1/0, in any case)`,
				"id=4":  `column n_text (text) as N: text "12 apples" is not a number`,
				"id=5":  `column tags (text[]) as SS: elements 1 and 3 are both "a": a set (SS) holds each member once`,
				"id=6":  "column tags (text[]) as SS: element 2 is NULL, which a set (SS) cannot hold",
				"id=7":  "column nums (numeric[]) as NS: a multi-dimensional array cannot be a set (NS)",
				"id=8":  "column nums (numeric[]) as NS: elements 1 and 2 are both 1: a set (NS) holds each member once",
				"id=9":  "column at (timestamp(6) without time zone) as unixms: 2024-01-01T00:00:00.000001Z has a fraction of a millisecond, which unixms cannot hold",
				"id=10": "column created (timestamp(3) with time zone) as unix: 2024-01-01T00:00:00.5Z has a fraction of a second, which unix cannot hold (unixms keeps milliseconds)",
				"id=11": "column doc (jsonb) as M: json: the document is a list, not an object (type M)",
				"id=12": "column list (json) as L: json: the document is an object, not a list (type L)",
			}
			if eng.Name == "mysql" {
				for _, k := range []string{"id=5", "id=6", "id=7", "id=8"} {
					delete(want, k)
				}
				want["id=2"] = "column flag_int (int(11)) as BOOL: 2 is not a boolean (BOOL takes 0 or 1)"
				want["id=3"] = strings.Replace(want["id=3"], "(text)", "(varchar(10))", 1)
				want["id=4"] = strings.Replace(want["id=4"], "(text)", "(varchar(20))", 1)
				want["id=9"] = strings.Replace(want["id=9"], "timestamp(6) without time zone", "datetime(6)", 1)
				want["id=10"] = strings.Replace(want["id=10"], "timestamp(3) with time zone", "timestamp(3)", 1)
				want["id=11"] = strings.Replace(want["id=11"], "jsonb", "longtext", 1)
				want["id=12"] = strings.Replace(want["id=12"], "json)", "longtext)", 1)
			}
			got := map[string]string{}
			for _, r := range rep.Rejections {
				got[r.Row] = r.Reason
			}
			for k, w := range want {
				if got[k] != w {
					t.Errorf("row %s rejected with\n  %q\nwant\n  %q", k, got[k], w)
				}
			}
			if int(rep.Rejected) != len(want) || rep.ItemsWritten != 1 {
				t.Errorf("rejected %d rows and wrote %d items, want %d and 1: %+v", rep.Rejected, rep.ItemsWritten, len(want), rep.Rejections)
			}
			rj, err := verify.ReadRejects(rejects, plan)
			if err != nil {
				t.Fatal(err)
			}
			vrep := run(t, verify.Options{Plan: plan, Source: src, DB: db, Table: table, Samples: 1, MaxProblems: 50, Rejects: rj})
			if !vrep.OK {
				t.Errorf("verify with the rejects accepted:\n%s", text(vrep))
			}
		})
	}
}

// TestTypedInvalidUTF8AsBytes: text that is not UTF-8 (a PostgreSQL
// SQL_ASCII database) is rejected by default, and stored as its own bytes
// where the mapping types its column B; verify checks those bytes against
// the engine's textsend.
func TestTypedInvalidUTF8AsBytes(t *testing.T) {
	ctx := context.Background()
	dsn := testenv.PostgresWith(t, "ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0")
	testenv.ExecPostgres(t, dsn, `
CREATE TABLE words (id int PRIMARY KEY, note text);
INSERT INTO words VALUES (1, E'caf\xe9'), (2, 'café'), (3, E'\xff\xfe'), (4, NULL);`)
	src, err := source.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	for _, tc := range []struct {
		types    string
		rejected int64
	}{{"{}", 2}, {"{note: B}", 0}} {
		db, table := testenv.DynamoDBTable(t)
		plan := compile(t, src, `version: 1
table: {name: words, key: {pk: PK}}
entities:
  word: {from: words, pk: "W#{id}", attributes: {types: `+tc.types+`}}
`)
		rep, err := migrate.Run(ctx, migrate.Options{Plan: plan, Source: src, DB: db, Table: table, CreateTable: true, MaxRejects: 10})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Rejected != tc.rejected {
			t.Fatalf("types %s: %d rows rejected, want %d: %+v", tc.types, rep.Rejected, tc.rejected, rep.Rejections)
		}
		if tc.rejected > 0 {
			continue
		}
		out, err := db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table)})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, it := range out.Items {
			got[av.KeyText(it["PK"])] = storedText(it["note"])
		}
		want := map[string]string{"W#1": "B 636166e9", "W#2": "B 636166c3a9", "W#3": "B fffe", "W#4": "nothing"}
		if !maps.Equal(got, want) {
			t.Fatalf("stored %v, want %v", got, want)
		}
		if vrep := run(t, verify.Options{Plan: plan, Source: src, DB: db, Table: table, Samples: 1, MaxProblems: 50}); !vrep.OK {
			t.Fatalf("verify:\n%s", text(vrep))
		}
		// A stored byte changed to U+FFFD, as a decoder would: verify sees it.
		restore := mapping.SetConvertHook(func(_ *mapping.Entity, a mapping.ColumnAttribute, av types.AttributeValue) types.AttributeValue {
			if b, ok := av.(*types.AttributeValueMemberB); ok && len(b.Value) == 4 && b.Value[3] == 0xe9 {
				return &types.AttributeValueMemberB{Value: []byte("caf\uFFFD")}
			}
			return av
		})
		db2, table2 := testenv.DynamoDBTable(t)
		if _, err := migrate.Run(ctx, migrate.Options{Plan: plan, Source: src, DB: db2, Table: table2, CreateTable: true}); err != nil {
			t.Fatal(err)
		}
		vrep := run(t, verify.Options{Plan: plan, Source: src, DB: db2, Table: table2, Samples: 1, MaxProblems: 50})
		restore()
		if vrep.OK || vrep.Items[0].Problems.Total != 1 || vrep.Items[0].Problems.List[0].SourceKey != "id=1" {
			t.Fatalf("verify did not name row id=1 alone:\n%s", text(vrep))
		}
	}
}

// compileWithQueries compiles a mapping whose entities may have a query,
// which the source describes first (as the CLI does).
func compileWithQueries(t *testing.T, src source.Source, text string) *mapping.Plan {
	t.Helper()
	ctx := context.Background()
	f, err := mapping.Parse("mapping.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	schema, err := src.Inspect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range f.Entities {
		if e.Query.Value != "" {
			cols, err := src.QueryColumns(ctx, e.Query.Value)
			if err != nil {
				t.Fatal(err)
			}
			schema.AddQuery(e.Query.Value, cols)
		}
	}
	plan, err := mapping.Compile(f, schema)
	if err != nil {
		t.Fatal(err)
	}
	return plan
}
