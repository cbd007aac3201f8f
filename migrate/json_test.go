package migrate_test

import (
	"encoding/base64"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
	"github.com/remodel-dev/remodel/migrate"
)

// deepObject is levels objects {"x": ...} around leaf.
func deepObject(levels int, leaf string) string {
	return strings.Repeat(`{"x":`, levels) + leaf + strings.Repeat("}", levels)
}

// deepList is levels lists around leaf.
func deepList(levels int, leaf string) string {
	return strings.Repeat("[", levels) + leaf + strings.Repeat("]", levels)
}

// jsonRow is a JSON document in the source and what becomes of it: the
// stored attribute (wire JSON, as avJSON prints it) or the end of the reason
// its row is rejected with.
type jsonRow struct {
	id       int
	col, doc string // doc is SQL: a literal or an expression
	item     string
	reason   string
}

const tooDeep = "json: maps and lists nested more than 31 deep (DynamoDB allows 32 levels, counting the item)"

// jsonRows are the documents both engines hold in a JSON column j.
func jsonRows() []jsonRow {
	return []jsonRow{
		{1, "j", lit(deepObject(31, "1")), strings.Repeat(`{"M":{"x":`, 31) + `{"N":"1"}` + strings.Repeat("}}", 31), ""},
		{2, "j", lit(deepObject(32, "1")), "", "column j (%s): " + tooDeep},
		{3, "j", lit(deepList(31, "")), strings.Repeat(`{"L":[`, 30) + `{"L":[]}` + strings.Repeat("]}", 30), ""},
		{4, "j", lit(deepList(32, "")), "", "column j (%s): " + tooDeep},
		{5, "j", lit(`{"a":[{"":1}]}`), "", "column j (%s): json: the object at $.a[0] has an empty key (DynamoDB refuses an empty attribute name)"},
		{6, "j", lit(`{"a":{"b":1,"b":2}}`), "", `column j (%s): json: the object at $.a has the key "b" twice (a DynamoDB map keeps one value per key)`},
		{7, "j", lit(`{"i":-0,"f":-0.0,"l":[-0E3,0.0]}`), `{"M":{"f":{"N":"0"},"i":{"N":"0"},"l":{"L":[{"N":"0"},{"N":"0"}]}}}`, ""},
		{8, "j", lit(`["a\ud800"]`), "", `column j (%s): json: lone UTF-16 surrogate \ud800 at byte offset 3 (not a Unicode character)`},
		{9, "j", lit(`{"a":1,"A":{"k":"é"}}`), `{"M":{"A":{"M":{"k":{"S":"é"}}},"a":{"N":"1"}}}`, ""},
	}
}

// pgRows are PostgreSQL's jsonb (duplicates collapsed by PostgreSQL before
// remodel reads them) and json[] (the array's lists count towards the limit).
func pgRows() []jsonRow {
	return []jsonRow{
		{20, "jb", lit(`{"a":{"b":1,"b":2}}`), `{"M":{"a":{"M":{"b":{"N":"2"}}}}}`, ""},
		{21, "jb", lit(deepObject(30, "[]")), strings.Repeat(`{"M":{"x":`, 30) + `{"L":[]}` + strings.Repeat("}}", 30), ""},
		{22, "jb", lit(deepObject(31, "[]")), "", "column jb (jsonb): " + tooDeep},
		{23, "jb", lit(`{"":1}`), "", "column jb (jsonb): json: the object at $ has an empty key (DynamoDB refuses an empty attribute name)"},
		{24, "jb", lit(`-0`), `{"N":"0"}`, ""},
		{30, "ja", "ARRAY[" + lit(deepList(30, "1")) + "]::json[]", `{"L":[` + strings.Repeat(`{"L":[`, 30) + `{"N":"1"}` + strings.Repeat("]}", 30) + `]}`, ""},
		{31, "ja", "ARRAY[" + lit(deepList(31, "1")) + "]::json[]", "", "column ja (json[]): element 1: " + tooDeep},
		{32, "ja", "ARRAY[ARRAY[" + lit(deepList(29, `"s"`)) + "]]::json[]", `{"L":[{"L":[` + strings.Repeat(`{"L":[`, 29) + `{"S":"s"}` + strings.Repeat("]}", 29) + `]}]}`, ""},
		{33, "ja", "ARRAY[ARRAY['1'," + lit(deepList(30, `"s"`)) + "]]::json[]", "", "column ja (json[]): element 1: element 2: " + tooDeep},
		{34, "ja", "ARRAY['{\"k\":1,\"k\":2}']::json[]", "", `column ja (json[]): element 1: json: the object at $ has the key "k" twice (a DynamoDB map keeps one value per key)`},
	}
}

func lit(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// TestJSONDocuments migrates JSON documents at DynamoDB's limits from both
// engines: the deepest DynamoDB stores lands exactly, one level deeper is a
// rejected row with its reason, and so are an empty key, a key twice (in a
// json document, which keeps the text as written) and a lone surrogate;
// -0 lands as 0, DynamoDB having no negative zero. A float -0 does too.
func TestJSONDocuments(t *testing.T) {
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			t.Parallel()
			endpoint := testenv.DynamoDB(t)
			rows := jsonRows()
			var script, jsonType string
			if eng.Name == "postgres" {
				jsonType = "json"
				rows = append(rows, pgRows()...)
				script = "CREATE TABLE docs (id int PRIMARY KEY, f double precision, j json, jb jsonb, ja json[]);\n"
			} else {
				jsonType = "longtext"
				// MariaDB's JSON is longtext CHECK (json_valid(j)); json_valid
				// itself refuses 32 levels and lone surrogates, so such
				// documents exist only where the check was off when they were
				// loaded, as here. It keeps a key twice.
				script = "CREATE TABLE docs (id int PRIMARY KEY, f double, j JSON);\nSET SESSION check_constraint_checks = 0;\n"
			}
			for _, r := range rows {
				script += fmt.Sprintf("INSERT INTO docs (id, %s) VALUES (%d, %s);\n", r.col, r.id, r.doc)
			}
			if eng.Name == "postgres" {
				script += "INSERT INTO docs (id, f) VALUES (100, '-0'::float8);\n"
			} else {
				script += "INSERT INTO docs (id, f) VALUES (100, -0e0);\n"
			}
			if eng.Name == "mysql" {
				script = strings.ReplaceAll(script, `\`, `\\`) // MariaDB reads backslash escapes in literals
			}
			fx := load(t, eng, script, `version: 1
table:
  name: docs
  key: {pk: PK, sk: SK}
entities:
  doc:
    from: docs
    pk: "DOC#{id}"
    sk: "DOC#"
`)
			db := newDB(t, endpoint)
			ctx := testContext(t)
			table := tableName(t, db)
			o := fx.options(db, table)
			o.CreateTable = true
			o.MaxRejects = 100
			o.RejectsPath = filepath.Join(t.TempDir(), "rejects.jsonl")
			rep, err := migrate.Run(ctx, o)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}

			wantRejects := map[string]string{}
			var written int64 = 1 // the float row
			for _, r := range rows {
				if r.reason != "" {
					wantRejects[fmt.Sprintf("id=%d", r.id)] = strings.ReplaceAll(r.reason, "%s", jsonType)
				} else {
					written++
				}
			}
			got := map[string]string{}
			for _, r := range rejectLines(t, o.RejectsPath) {
				if r.Entity != "doc" {
					t.Errorf("rejection %+v: entity %q", r, r.Entity)
				}
				got[r.Row] = r.Reason
			}
			for row, want := range wantRejects {
				if got[row] != want {
					t.Errorf("row %s: rejected with %q, want %q", row, got[row], want)
				}
			}
			for row, reason := range got {
				if _, ok := wantRejects[row]; !ok {
					t.Errorf("row %s rejected: %s", row, reason)
				}
			}
			if rep.RowsRead != fx.total || rep.ItemsWritten != written || rep.Rejected != int64(len(wantRejects)) {
				t.Errorf("report: %d read, %d written, %d rejected; want %d, %d, %d", rep.RowsRead, rep.ItemsWritten, rep.Rejected, fx.total, written, len(wantRejects))
			}
			if e := rep.Entities[0]; e.Rows != fx.total || e.Items != written || e.Rejected != int64(len(wantRejects)) {
				t.Errorf("report, entity doc: %+v", e)
			}
			if n, _ := scan(t, db, table); n != written {
				t.Errorf("the table holds %d items, want %d", n, written)
			}

			item := func(id int) map[string]types.AttributeValue {
				out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true), Key: map[string]types.AttributeValue{
					"PK": &types.AttributeValueMemberS{Value: fmt.Sprintf("DOC#%d", id)}, "SK": &types.AttributeValueMemberS{Value: "DOC#"},
				}})
				if err != nil {
					t.Fatal(err)
				}
				return out.Item
			}
			for _, r := range rows {
				if r.item == "" {
					continue
				}
				if got := avJSON(item(r.id)[r.col]); got != r.item {
					t.Errorf("row id=%d, %s: stored\n%s\nwant\n%s", r.id, r.col, got, r.item)
				}
			}
			if got := avJSON(item(100)["f"]); got != `{"N":"0"}` {
				t.Errorf("float -0 stored as %s, want 0", got)
			}
		})
	}
}

// avJSON prints an attribute value as DynamoDB's wire JSON, map keys sorted.
func avJSON(av types.AttributeValue) string {
	var b strings.Builder
	var write func(types.AttributeValue)
	write = func(av types.AttributeValue) {
		switch x := av.(type) {
		case *types.AttributeValueMemberS:
			fmt.Fprintf(&b, `{"S":%q}`, x.Value)
		case *types.AttributeValueMemberN:
			fmt.Fprintf(&b, `{"N":%q}`, x.Value)
		case *types.AttributeValueMemberB:
			fmt.Fprintf(&b, `{"B":%q}`, base64.StdEncoding.EncodeToString(x.Value))
		case *types.AttributeValueMemberBOOL:
			fmt.Fprintf(&b, `{"BOOL":%t}`, x.Value)
		case *types.AttributeValueMemberNULL:
			b.WriteString(`{"NULL":true}`)
		case *types.AttributeValueMemberSS:
			fmt.Fprintf(&b, `{"SS":%q}`, x.Value)
		case *types.AttributeValueMemberL:
			b.WriteString(`{"L":[`)
			for i, e := range x.Value {
				if i > 0 {
					b.WriteByte(',')
				}
				write(e)
			}
			b.WriteString(`]}`)
		case *types.AttributeValueMemberM:
			keys := make([]string, 0, len(x.Value))
			for k := range x.Value {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			b.WriteString(`{"M":{`)
			for i, k := range keys {
				if i > 0 {
					b.WriteByte(',')
				}
				fmt.Fprintf(&b, "%q:", k)
				write(x.Value[k])
			}
			b.WriteString(`}}`)
		case nil:
			b.WriteString("<missing>")
		default:
			fmt.Fprintf(&b, "%T", av)
		}
	}
	write(av)
	return b.String()
}
