package verify_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// gadgetsSQL: owners and their gadgets, whose columns the embeds type
// (embed attributes.types): text holding numbers, 0/1 flags, instants
// before and after 1970, sets (a PostgreSQL text array, a MySQL SET) with
// an empty one, JSON documents, bytes (an empty value among them) and
// NULLs; an owner without gadgets.
var gadgetsSQL = map[string]string{
	"postgres": `
CREATE TABLE owners (owner_id int PRIMARY KEY, name text NOT NULL);
CREATE TABLE gadgets (
  owner_id int NOT NULL REFERENCES owners, gadget_id int NOT NULL, code varchar(10) NOT NULL,
  qty text, flag int, at timestamp(3), tags text[], doc jsonb NOT NULL, raw bytea, price numeric(6,2),
  PRIMARY KEY (owner_id, gadget_id));
INSERT INTO owners VALUES (1, 'Ada'), (2, 'Bo');
INSERT INTO gadgets VALUES
 (1, 1, 'k1', '12.50', 1, '2024-01-02 03:04:05.123', '{"b","a"}', '{"x": [1, 2.50]}', '\x0001', 1.50),
 (1, 2, 'k2', '-0.0', 0, '1969-12-31 23:59:59.999', '{}', '{}', '\x', NULL),
 (1, 3, 'k3', NULL, NULL, NULL, NULL, '{"k": "é"}', NULL, NULL);
`,
	"mysql": `
CREATE TABLE owners (owner_id int PRIMARY KEY, name varchar(50) NOT NULL);
CREATE TABLE gadgets (
  owner_id int NOT NULL, gadget_id int NOT NULL, code varchar(10) NOT NULL,
  qty varchar(20) NULL, flag int NULL, at datetime(3) NULL, tags set('a','b','c') NULL, doc json NOT NULL,
  raw varbinary(10) NULL, price decimal(6,2) NULL,
  PRIMARY KEY (owner_id, gadget_id), FOREIGN KEY (owner_id) REFERENCES owners (owner_id));
INSERT INTO owners VALUES (1, 'Ada'), (2, 'Bo');
INSERT INTO gadgets VALUES
 (1, 1, 'k1', '12.50', 1, '2024-01-02 03:04:05.123', 'b,a', '{"x": [1, 2.50]}', X'0001', 1.50),
 (1, 2, 'k2', '-0.0', 0, '1969-12-31 23:59:59.999', '', '{}', '', NULL),
 (1, 3, 'k3', NULL, NULL, NULL, NULL, '{"k": "é"}', NULL, NULL);
`,
}

const gadgetsMapping = `version: 1
table: {name: gadgets, key: {pk: PK, sk: SK}}
entities:
  owner:
    from: owners
    pk: "OWNER#{owner_id}"
    sk: PROFILE
    embed:
      gadgets:
        from: gadgets
        attributes:
          exclude: [code]
          rename: {at: atMs}
          types: {gadget_id: S, qty: N, flag: BOOL, at: unixms, tags: SS, doc: JSON, raw: B, price: S}
      by_code:
        from: gadgets
        map_key: code
        order_by: gadget_id desc
        attributes:
          include: [code, doc, flag]
          types: {code: S, doc: M, flag: BOOL}
`

// TestEmbeddedTypes: typed embedded columns are written as their types say
// and verify passes on them, its oracle comparing each typed element value
// with the engine's JSON aggregate of the child rows by what the type
// means (a unixms number against the instant, a set against the array or
// SET, BOOL against 0/1, JSON text against the document); a typed value
// broken in the table is named by element, by both checks.
func TestEmbeddedTypes(t *testing.T) {
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			o := migrateThings(t, eng.Name, eng.Fresh, eng.Exec, gadgetsSQL[eng.Name], gadgetsMapping)
			get := func(id string) map[string]types.AttributeValue { return getItem(t, o, "OWNER#"+id, "PROFILE") }

			one := get("1")
			if got, want := wireText(one["gadgets"]), `{"L":[`+
				`{"M":{"atMs":{"N":"1704164645123"},"doc":{"S":"{\"x\": [1, 2.50]}"},"flag":{"BOOL":true},"gadget_id":{"S":"1"},"price":{"S":"1.5"},"qty":{"N":"12.5"},"raw":{"B":"AAE="},"tags":{"SS":["a","b"]}}},`+
				`{"M":{"atMs":{"N":"-1"},"doc":{"S":"{}"},"flag":{"BOOL":false},"gadget_id":{"S":"2"},"qty":{"N":"0"},"raw":{"B":""}}},`+
				`{"M":{"doc":{"S":"{\"k\": \"é\"}"},"gadget_id":{"S":"3"}}}]}`; got != want {
				t.Errorf("owner 1's gadgets:\n got %s\nwant %s", got, want)
			}
			if got, want := wireText(one["by_code"]), `{"M":{`+
				`"k1":{"M":{"code":{"S":"k1"},"doc":{"M":{"x":{"L":[{"N":"1"},{"N":"2.5"}]}}},"flag":{"BOOL":true}}},`+
				`"k2":{"M":{"code":{"S":"k2"},"doc":{"M":{}},"flag":{"BOOL":false}}},`+
				`"k3":{"M":{"code":{"S":"k3"},"doc":{"M":{"k":{"S":"é"}}}}}}}`; got != want {
				t.Errorf("owner 1's by_code:\n got %s\nwant %s", got, want)
			}
			if two := get("2"); two == nil || two["gadgets"] != nil || two["by_code"] != nil {
				t.Errorf("owner 2 has no gadgets: %v", two)
			}

			if rep := run(t, o); !rep.OK {
				t.Fatalf("verify of a faithful migration:\n%s", text(rep))
			}

			breakOne := func(name string, change func(item map[string]types.AttributeValue), wantDiff, wantOracle string) {
				breakItem(t, o, "OWNER#1", "PROFILE", "owner_id=1", name, change, wantDiff, wantOracle)
			}
			elem := func(item map[string]types.AttributeValue, j int) map[string]types.AttributeValue {
				return item["gadgets"].(*types.AttributeValueMemberL).Value[j].(*types.AttributeValueMemberM).Value
			}
			breakOne("an instant a millisecond off", func(item map[string]types.AttributeValue) {
				elem(item, 0)["atMs"] = &types.AttributeValueMemberN{Value: "1704164645124"}
			}, "gadgets", "gadgets[0].atMs")
			breakOne("a set member lost", func(item map[string]types.AttributeValue) {
				elem(item, 0)["tags"] = &types.AttributeValueMemberSS{Value: []string{"a"}}
			}, "gadgets", "gadgets[0].tags")
			breakOne("a number kept as its text", func(item map[string]types.AttributeValue) {
				elem(item, 0)["qty"] = &types.AttributeValueMemberS{Value: "12.50"}
			}, "gadgets", "gadgets[0].qty")
			breakOne("an empty set written", func(item map[string]types.AttributeValue) {
				elem(item, 1)["tags"] = &types.AttributeValueMemberL{Value: []types.AttributeValue{}}
			}, "gadgets", "gadgets[1].tags")
			breakOne("a flag flipped in a map element", func(item map[string]types.AttributeValue) {
				el := item["by_code"].(*types.AttributeValueMemberM).Value["k2"].(*types.AttributeValueMemberM)
				el.Value["flag"] = &types.AttributeValueMemberBOOL{Value: true}
			}, "by_code", "by_code.k2.flag")
			breakOne("JSON text of another document", func(item map[string]types.AttributeValue) {
				elem(item, 2)["doc"] = &types.AttributeValueMemberS{Value: `{"k": "e"}`}
			}, "gadgets", "gadgets[2].doc")
		})
	}
}
