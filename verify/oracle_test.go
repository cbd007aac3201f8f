package verify_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/av"
	"github.com/remodel-dev/remodel/internal/domain/source"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
	"github.com/remodel-dev/remodel/migrate"
	"github.com/remodel-dev/remodel/verify"
)

// thingsSQL is one table of (nearly) every column type each engine has,
// with NULLs, empty values, JSON null documents, extremes and text that is
// not ASCII, so that the oracle is held to every kind of value.
var thingsSQL = map[string]string{
	"postgres": `
CREATE TYPE mood AS ENUM ('sad', 'happy');
CREATE TABLE things (
  id int PRIMARY KEY, big bigint, amount numeric(20,6), ratio double precision, single real,
  active boolean, name varchar(64), code char(5), payload bytea, day date, at timestamp(3),
  at_tz timestamptz(3), at_us timestamp, tod time(2), todtz timetz, doc json, docb jsonb,
  tags text[], grid int[], stamps timestamptz[], blobs bytea[], docs jsonb[], nums numeric[],
  mood mood, uid uuid, span interval, addr inet, bits varbit
);
INSERT INTO things VALUES
 (1, 9007199254740993, 12345678901234.123456, 0.30000000000000004, 1.1, true, 'Zoë 東京 🚀', 'ab',
  '\x0001ff', '2024-01-02', '2024-01-02 03:04:05.123', '2024-01-02 08:34:05.123+05:30',
  '2024-01-02 03:04:05.123456', '12:34:56.78', '12:34:56+02',
  '{"a": [1, 2.50, "x"], "b": {"c": null}, "big": 12345678901234567890, "s": "é"}',
  '{"k": [true, false, null], "n": -0.5e-3}', '{"a b","NULL",NULL,"x\"y"}', '{{1,2},{3,4}}',
  '{"2024-01-02 03:04:05+00"}', '{"\\x01",NULL}', ARRAY['{"a": 1}'::jsonb], '{1.50,-0.000001}',
  'happy', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '1 day 02:00', '10.0.0.1/8', B'0101'),
 (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
 (3, -9223372036854775808, -0.000001, -1.5e100, 16777216, false, '', '', '\x', '1999-12-31',
  '1999-12-31 23:59:59.999', '2000-01-01 05:30:00+05:30', '1999-12-31 23:59:59', '24:00:00',
  '00:00:00-05', 'null', 'null', '{}', '{}', '{}', '{}', '{}', '{}', 'sad', NULL, '0 seconds', '::1', B''),
 (4, 4, 4.5, 0, 0, false, 'four ''4''', 'four', '\x04', '2020-02-29', '2020-02-29 12:00:00',
  '2020-02-29 17:30:00+05:30', '2020-02-29 12:00:00', '00:00:00', '23:59:59.5+05:30', '[]', '{}',
  '{"x"}', '{5}', '{"2020-02-29 12:00:00.123456+00"}', '{"\\x"}', ARRAY['[1, "2"]'::jsonb], '{0}',
  'sad', NULL, '-3 days', '192.168.0.1', B'1'),
 (5, 5, 5, 2.5, 3.4028235e38, true, 'FIVE five', 'five ', '\x05', '2020-01-01',
  '2020-01-01 00:00:00.5', '2020-01-01 05:30:00.5+05:30', '2020-01-01 00:00:00.000001', '23:59:59.99',
  '01:02:03-08', '"str"', '12345678901234567890.5', '{"five"}', '{NULL}', '{NULL}', '{NULL}', '{NULL}', '{NULL}',
  'happy', NULL, '1 year', '::ffff:1.2.3.4', B'111');
`,
	"mysql": `
SET time_zone = '+05:30';
CREATE TABLE things (
  id int PRIMARY KEY, big bigint NULL, ubig bigint unsigned NULL, amount decimal(20,6) NULL,
  ratio double NULL, single float NULL, active boolean NULL, flag bit(1) NULL, bits bit(12) NULL,
  yr year NULL, name varchar(64) NULL, code char(5) NULL, payload varbinary(64) NULL, blobby blob NULL,
  day date NULL, at datetime(3) NULL, at_tz timestamp(3) NULL DEFAULT NULL, at0 datetime NULL,
  tod time(2) NULL, doc json NULL, tags set('a','b','c') NULL, mood enum('sad','happy') NULL,
  small tinyint NULL, price decimal(5,2) unsigned NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
INSERT INTO things VALUES
 (1, 9007199254740993, 18446744073709551615, 12345678901234.123456, 0.30000000000000004, 1.1, true,
  b'1', b'101010101010', 2024, 'Zoë 東京 🚀', 'ab', X'0001ff', X'c328', '2024-01-02',
  '2024-01-02 03:04:05.123', '2024-01-02 08:34:05.123', '2024-01-02 03:04:05', '-12:34:56.78',
  '{"a": [1, 2.50, "x"], "b": {"c": null}, "big": 12345678901234567890, "s": "é"}', 'a,c', 'happy', -128, 999.99),
 (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  NULL, NULL, NULL, NULL, NULL, NULL, NULL),
 (3, -9223372036854775808, 0, -0.000001, -1.5e100, 16777216, false, b'0', b'0', 1901, '', '', '', '',
  '1999-12-31', '1999-12-31 23:59:59.999', '2000-01-01 05:30:00', '1999-12-31 23:59:59', '838:59:59',
  'null', '', 'sad', 0, 0),
 (4, 4, 4, 4.5, 0, 0, false, b'0', b'111111111111', 2155, 'four ''4''', 'four', X'04', X'', '2020-02-29',
  '2020-02-29 12:00:00', '2020-02-29 17:30:00', '2020-02-29 12:00:00', '00:00:00', '[]', 'b', 'sad', 127, 0.5),
 (5, 5, 5, 5, 2.5, 3.4e38, true, b'1', b'1', 1999, 'FIVE five', 'five', X'05', X'ff', '2020-01-01',
  '2020-01-01 00:00:00.5', '2020-01-01 05:30:00.5', '2020-01-01 00:00:00', '23:59:59.99', '"str"', 'a,b,c',
  'happy', 5, 5);
`,
}

const thingsMapping = `version: 1
table:
  name: things
  key: {pk: PK, sk: SK}
entities:
  thing:
    from: things
    pk: "THING#{id}"
    sk: "THING#"
    attributes:
      exclude: [big]
      rename: {name: title}
`

// migrateThings loads thingsSQL into a fresh database of the engine and
// migrates it into a fresh table.
func migrateThings(t *testing.T, eng string, fresh func(testing.TB) string, exec func(testing.TB, string, string), schema, mappingText string) verify.Options {
	t.Helper()
	ctx := context.Background()
	dsn := fresh(t)
	exec(t, dsn, schema)
	db, table := testenv.DynamoDBTable(t)
	src, err := source.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	plan := compile(t, src, mappingText)
	rep, err := migrate.Run(ctx, migrate.Options{Plan: plan, Source: src, DB: db, Table: table, CreateTable: true})
	if err != nil {
		t.Fatalf("migrate: %v", err)
	}
	if rep.ItemsWritten == 0 || rep.Rejected != 0 {
		t.Fatalf("migrate wrote %d items and rejected %d rows", rep.ItemsWritten, rep.Rejected)
	}
	return verify.Options{Plan: plan, Source: src, DB: db, Table: table, Samples: 1, MaxProblems: 50}
}

// plant is a set of conversion bugs in the path migrate and verify's
// rendering share: each changes one value of row 1 (the boolean every true).
func plant(_ *mapping.Entity, a mapping.ColumnAttribute, av types.AttributeValue) types.AttributeValue {
	switch x := av.(type) {
	case *types.AttributeValueMemberN:
		switch {
		case a.Column.Name == "ratio" && x.Value == "0.30000000000000004": // a float rounded
			return &types.AttributeValueMemberN{Value: "0.3"}
		case a.Column.Name == "amount" && x.Value == "12345678901234.123456": // a decimal's last digit
			return &types.AttributeValueMemberN{Value: "12345678901234.123457"}
		}
	case *types.AttributeValueMemberS:
		switch {
		case a.Column.Name == "at_tz" && x.Value == "2024-01-02T03:04:05.123Z": // a timestamp a second late
			return &types.AttributeValueMemberS{Value: "2024-01-02T03:04:06.123Z"}
		case a.Column.Name == "name" && x.Value == "Zoë 東京 🚀": // a string's case
			return &types.AttributeValueMemberS{Value: strings.ToUpper(x.Value)}
		}
	case *types.AttributeValueMemberBOOL:
		if a.Column.Name == "active" && x.Value { // a boolean flipped
			return &types.AttributeValueMemberBOOL{Value: false}
		}
	}
	return av
}

// found is a problem in the terms the test pins.
type found struct{ kind, attr, row, want, got string }

func foundIn(rep *verify.Report) []found {
	var out []found
	for _, ic := range rep.Items {
		for _, p := range ic.Problems.List {
			out = append(out, found{string(p.Kind), p.Attribute, p.SourceKey, p.Want, p.Got})
		}
	}
	slices.SortFunc(out, func(a, b found) int { return strings.Compare(a.row+a.attr, b.row+b.attr) })
	return out
}

// TestOracle shows the item check's independent reading of the source on
// every column type of both engines: a faithful migration passes, and
// conversion bugs planted in the path migrate and verify's rendering share
// are found by the oracle alone, attribute by attribute.
func TestOracle(t *testing.T) {
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			t.Run("faithful migration passes", func(t *testing.T) {
				o := migrateThings(t, eng.Name, eng.Fresh, eng.Exec, thingsSQL[eng.Name], thingsMapping)
				rep := run(t, o)
				if !rep.OK || len(rep.Items) != 1 {
					t.Fatalf("verify failed on a faithful migration:\n%s", text(rep))
				}
				if ic := rep.Items[0]; ic.Rows != 5 || ic.Sampled != 5 || ic.Compared != 5 || ic.Problems.Total != 0 {
					t.Fatalf("item check %+v, want 5 rows read and compared without a problem", ic)
				}
			})

			t.Run("planted conversion bugs", func(t *testing.T) {
				restore := mapping.SetConvertHook(plant)
				defer restore()
				o := migrateThings(t, eng.Name, eng.Fresh, eng.Exec, thingsSQL[eng.Name], thingsMapping)
				rep := run(t, o)
				if rep.OK {
					t.Fatalf("verify passed a migration with planted conversion bugs:\n%s", text(rep))
				}
				tz, yes := `"2024-01-02T03:04:05.123+00:00"`, "true"
				if eng.Name == "mysql" {
					tz, yes = `"2024-01-02 03:04:05.123"`, "1"
				}
				// The rendered item has the same bugs: only the oracle sees them.
				want := []found{
					{"value_mismatch", "active", "id=1", yes, "BOOL false"},
					{"value_mismatch", "amount", "id=1", "12345678901234.123456", "N 12345678901234.123457"},
					{"value_mismatch", "at_tz", "id=1", tz, `S "2024-01-02T03:04:06.123Z"`},
					{"value_mismatch", "ratio", "id=1", "0.30000000000000004", "N 0.3"},
					{"value_mismatch", "title", "id=1", `"Zoë 東京 🚀"`, `S "ZOË 東京 🚀"`},
					{"value_mismatch", "active", "id=5", yes, "BOOL false"},
				}
				if got := foundIn(rep); !slices.Equal(got, want) {
					t.Fatalf("problems:\n%s\nwant:\n%s\n%s", show(got), show(want), text(rep))
				}
				ic := rep.Items[0]
				if ic.Different != 2 || ic.Missing != 0 || ic.Compared != 5 || ic.OK {
					t.Errorf("item check %+v, want 2 of 5 items different", ic)
				}
				msg := `item PK=THING#1 SK=THING# (entity thing, row id=1): attribute ratio is N 0.3, but the source's own JSON rendering of column ratio is 0.30000000000000004`
				if !strings.Contains(text(rep), msg) {
					t.Errorf("the report does not say\n  %s\n%s", msg, text(rep))
				}

				// Without the bugs in the rendering, the rendered item finds
				// the same attributes, and the oracle does not repeat them.
				restore()
				rep = run(t, o)
				for i := range want {
					want[i].kind = "different_item"
					want[i].want = ""
				}
				got := foundIn(rep)
				for i := range got {
					got[i].want = ""
				}
				if !slices.Equal(got, want) {
					t.Fatalf("problems with the hook removed:\n%s\nwant:\n%s", show(got), show(want))
				}
			})
		})
	}
}

// changeAll changes every column attribute a little, in a way that keeps
// the item writable. A float changes by more than its precision (32-bit
// columns are compared as 32-bit floats).
func changeAll(_ *mapping.Entity, a mapping.ColumnAttribute, av types.AttributeValue) types.AttributeValue {
	switch x := av.(type) {
	case *types.AttributeValueMemberN:
		switch {
		case a.Column.Kind == introspect.KindFloat:
			f, err := strconv.ParseFloat(x.Value, 64)
			if err != nil {
				panic(err)
			}
			return &types.AttributeValueMemberN{Value: strconv.FormatFloat(f*1.5+1, 'g', -1, 64)}
		case strings.Contains(x.Value, "E"):
			return &types.AttributeValueMemberN{Value: strings.Replace(x.Value, "E", "1E", 1)}
		case strings.Contains(x.Value, "."):
			return &types.AttributeValueMemberN{Value: x.Value + "1"}
		case len(x.Value) > 1 && strings.HasSuffix(x.Value, "0"): // no more significant digits
			if rest, ok := strings.CutPrefix(x.Value, "-"); ok {
				return &types.AttributeValueMemberN{Value: "-1" + rest}
			}
			return &types.AttributeValueMemberN{Value: "1" + x.Value}
		}
		return &types.AttributeValueMemberN{Value: x.Value + ".5"}
	case *types.AttributeValueMemberS:
		return &types.AttributeValueMemberS{Value: x.Value + "~"}
	case *types.AttributeValueMemberB:
		return &types.AttributeValueMemberB{Value: append(slices.Clone(x.Value), 0)}
	case *types.AttributeValueMemberBOOL:
		return &types.AttributeValueMemberBOOL{Value: !x.Value}
	case *types.AttributeValueMemberL:
		return &types.AttributeValueMemberL{Value: append(slices.Clone(x.Value), &types.AttributeValueMemberNULL{Value: true})}
	case *types.AttributeValueMemberM:
		m := maps.Clone(x.Value)
		m["~"] = &types.AttributeValueMemberNULL{Value: true}
		return &types.AttributeValueMemberM{Value: m}
	case *types.AttributeValueMemberSS:
		return &types.AttributeValueMemberSS{Value: append(slices.Clone(x.Value), "~")}
	case *types.AttributeValueMemberNULL:
		return &types.AttributeValueMemberS{Value: "~"}
	}
	panic(fmt.Sprintf("changeAll: %T", av))
}

// TestOracleSeesEveryColumn changes every stored column attribute of every
// row, of every type, in the shared path: the oracle must name each one.
func TestOracleSeesEveryColumn(t *testing.T) {
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			restore := mapping.SetConvertHook(changeAll)
			defer restore()
			o := migrateThings(t, eng.Name, eng.Fresh, eng.Exec, thingsSQL[eng.Name], thingsMapping)
			o.MaxProblems = 1000
			rep := run(t, o)
			// What should be named: every column attribute the stored items hold.
			want := map[string]bool{}
			out, err := o.DB.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(o.Table)})
			if err != nil {
				t.Fatal(err)
			}
			cols := map[string]bool{}
			for _, a := range o.Plan.Entity("thing").ColumnAttributes() {
				cols[a.Attr] = true
			}
			for _, it := range out.Items {
				for name := range it {
					if cols[name] {
						want[av.KeyText(it["PK"])+" "+name] = true
					}
				}
			}
			if len(want) < 60 {
				t.Fatalf("only %d column attributes stored: the test data lost its variety", len(want))
			}
			got := map[string]bool{}
			for _, p := range rep.Items[0].Problems.List {
				if p.Kind != verify.KindValueMismatch {
					t.Errorf("a %s problem: %s", p.Kind, p.Message)
				}
				got[strings.Fields(p.Key)[0][len("PK="):]+" "+p.Attribute] = true
			}
			for k := range want {
				if !got[k] {
					t.Errorf("the oracle did not see the change of %s", k)
				}
			}
			for k := range got {
				if !want[k] {
					t.Errorf("the oracle named %s, which holds no column value", k)
				}
			}
		})
	}
}

func show(fs []found) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "  %+v\n", f)
	}
	return b.String()
}

// structuredSQL has a column of each type PostgreSQL renders in JSON by
// its structure rather than its text: a composite (with a timestamp, a
// boolean and text that must be quoted), a composite holding a composite,
// hstore, and arrays of them (one of two dimensions).
const structuredSQL = `
CREATE EXTENSION IF NOT EXISTS hstore;
CREATE TYPE pair AS (a int, b text, at timestamp, ok boolean);
CREATE TYPE nest AS (p pair, tags text[]);
CREATE TABLE things (id int PRIMARY KEY, p pair, n nest, h hstore, ps pair[], hs hstore[], note text);
INSERT INTO things VALUES
  (1, ROW(1, 'x, "y" (z)', '2024-01-02 03:04:05.5', true), ROW(ROW(2, NULL, NULL, false), '{a,"b c"}'),
   'a=>1, "b c"=>NULL, "q\"x"=>"é"', ARRAY[ROW(1, 'x', NULL, true)::pair, NULL],
   ARRAY[['k=>v'::hstore, ''::hstore], ['x=>NULL'::hstore, NULL]], 'fine'),
  (2, NULL, NULL, NULL, NULL, NULL, 'fine'),
  (3, ROW(NULL, '', NULL, NULL), ROW(NULL, '{}'), '', '{}', '{}', 'fine');
`

// plantStructured changes the stored text of one value of each structured
// column of row 1, as a conversion bug in the shared path would.
func plantStructured(_ *mapping.Entity, a mapping.ColumnAttribute, v types.AttributeValue) types.AttributeValue {
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		switch a.Column.Name {
		case "p", "n", "h":
			if strings.Contains(x.Value, "2024-01-02") || strings.Contains(x.Value, "2,,,f") || strings.Contains(x.Value, `"a"=>"1"`) {
				i := strings.IndexAny(x.Value, "12") // the first field's digit
				return &types.AttributeValueMemberS{Value: x.Value[:i] + "7" + x.Value[i+1:]}
			}
		}
	case *types.AttributeValueMemberL:
		if (a.Column.Name == "ps" || a.Column.Name == "hs") && len(x.Value) == 2 {
			l := slices.Clone(x.Value)
			l[1] = &types.AttributeValueMemberS{Value: "(9,,,)"}
			return &types.AttributeValueMemberL{Value: l}
		}
	}
	return v
}

// TestOracleStructuredColumns: the oracle checks a composite, a composite
// of composites, an hstore and arrays of them against the source's own
// text of each value (PostgreSQL's to_jsonb renders them as objects, which
// do not say what the stored text is): a faithful migration passes, and a
// wrong value in any of them is found by the oracle alone.
func TestOracleStructuredColumns(t *testing.T) {
	eng := testenv.Engines[0]
	mappingText := thingsMapping[:strings.Index(thingsMapping, "    attributes:")]
	t.Run("faithful migration passes", func(t *testing.T) {
		o := migrateThings(t, eng.Name, eng.Fresh, eng.Exec, structuredSQL, mappingText)
		rep := run(t, o)
		if !rep.OK || len(rep.Items) != 1 || rep.Items[0].Compared != 3 {
			t.Fatalf("verify failed on a faithful migration:\n%s", text(rep))
		}
	})
	t.Run("planted values", func(t *testing.T) {
		restore := mapping.SetConvertHook(plantStructured)
		defer restore()
		o := migrateThings(t, eng.Name, eng.Fresh, eng.Exec, structuredSQL, mappingText)
		rep := run(t, o)
		want := []found{
			{"value_mismatch", "h", "id=1", `"\"a\"=>\"1\", \"b c\"=>NULL, \"q\\\"x\"=>\"é\""`, `S "\"a\"=>\"7\", \"b c\"=>NULL, \"q\\\"x\"=>\"é\""`},
			{"value_mismatch", "hs", "id=1", `[["\"k\"=>\"v\"",""],["\"x\"=>NULL",null]]`, `L [L [S "\"k\"=>\"v\"", S ""], S "(9,,,)"]`},
			{"value_mismatch", "n", "id=1", `"(\"(2,,,f)\",\"{a,\"\"b c\"\"}\")"`, `S "(\"(7,,,f)\",\"{a,\"\"b c\"\"}\")"`},
			{"value_mismatch", "p", "id=1", `"(1,\"x, \"\"y\"\" (z)\",\"2024-01-02 03:04:05.5\",t)"`, `S "(7,\"x, \"\"y\"\" (z)\",\"2024-01-02 03:04:05.5\",t)"`},
			{"value_mismatch", "ps", "id=1", `["(1,x,,t)",null]`, `L [S "(1,x,,t)", S "(9,,,)"]`},
		}
		if got := foundIn(rep); !slices.Equal(got, want) {
			t.Fatalf("problems:\n%s\nwant:\n%s\n%s", show(got), show(want), text(rep))
		}
	})
}
