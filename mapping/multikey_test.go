package mapping

import (
	"reflect"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

const multiKeyMapping = `version: 1
table:
  name: shop
  key: {pk: PK, sk: SK}
  indexes:
    - {name: ByCode, pk: [code, {name: n, type: N}], sk: [{name: price, type: N}, at]}
entities:
  thing:
    from: things
    pk: "THING#{id}"
    sk: "THING#"
    attributes:
      include: [code, price]
      set: {n: "{id|pad:5}", at: "{ts|iso}"}
access_patterns:
  cheapest:
    index: ByCode
    query: {pk: ["{code}", "{id|pad:3}"], sk: {eq: "{price}", lt: "{ts|iso}"}}
    order: desc
    limit: 5
    sql: SELECT * FROM things WHERE code = {code} AND id = {id} AND price = {price} AND ts < {ts} ORDER BY price DESC, ts DESC LIMIT 5
  byCode:
    index: ByCode
    query: {pk: ["{code}", "{id}"], sk: ["{price}"]}
    sql: SELECT * FROM things WHERE code = {code} AND id = {id} AND price = {price}
`

// TestMultiAttributeKeys compiles a global index with a two-attribute
// partition key and a two-attribute sort key: each attribute keeps its type
// (an N attribute from a template is a number), a row without one of them
// still becomes an item (DynamoDB leaves it out of the index), an empty
// string key attribute rejects the row, and the access patterns' key
// conditions render one typed value per attribute.
func TestMultiAttributeKeys(t *testing.T) {
	p := compileString(t, multiKeyMapping, testSchema())
	ix := p.Table.Index("ByCode")
	if want := []KeyAttr{{"code", "S"}, {"n", "N"}}; ix == nil || !reflect.DeepEqual(ix.PK, want) {
		t.Fatalf("ByCode partition key %+v, want %v", ix, want)
	}
	if want := []KeyAttr{{"price", "N"}, {"at", "S"}}; !reflect.DeepEqual(ix.SK, want) {
		t.Errorf("ByCode sort key %v, want %v", ix.SK, want)
	}
	if got, want := p.Table.KeyTypes(), map[string]string{"PK": "S", "SK": "S", "code": "S", "n": "N", "price": "N", "at": "S"}; !reflect.DeepEqual(got, want) {
		t.Errorf("key types %v, want %v", got, want)
	}

	e := p.Entity("thing")
	ts := time.Date(2025, 3, 3, 10, 0, 0, 0, time.UTC)
	item, err := e.Render(thingsRow(e, map[string]any{"id": int64(42), "code": "c1", "price": "9.50", "ts": ts}))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"PK":{"S":"THING#42"},"SK":{"S":"THING#"},"_type":{"S":"thing"},"at":{"S":"2025-03-03T10:00:00.000000Z"},"code":{"S":"c1"},"n":{"N":"42"},"price":{"N":"9.5"}}`
	if got := compactJSON(t, item); got != want {
		t.Errorf("item\n%s\nwant\n%s", got, want)
	}
	// Without ts the item has three of the index's four key attributes:
	// it is written, and DynamoDB leaves it out of the index.
	item, err = e.Render(thingsRow(e, map[string]any{"id": int64(43), "code": "c1", "price": "1"}))
	if err != nil {
		t.Fatalf("a row without one key attribute is rejected: %v", err)
	}
	if _, ok := item["at"]; ok || item["code"] == nil || item["n"] == nil || item["price"] == nil {
		t.Errorf("item %v: want code, n and price but no at", item)
	}
	_, err = e.Render(thingsRow(e, map[string]any{"id": int64(44), "code": "", "price": "1", "ts": ts}))
	if err == nil || err.Error() != "entity thing, row id=44: column code is empty but attribute code is an index key (an empty key value is not allowed)" {
		t.Errorf("empty code: %v", err)
	}

	ap := p.AccessPatterns[0]
	if !reflect.DeepEqual(ap.PK, ix.PK) || !reflect.DeepEqual(ap.SK, ix.SK) || ap.SKEq != 1 || ap.SKOp != "<" || ap.Order != "desc" || ap.Limit != 5 {
		t.Errorf("cheapest %+v", ap)
	}
	vals := map[string]any{"code": "c1", "id": int64(7), "price": "9.50", "ts": ts}
	var params []any
	for _, c := range ap.Params {
		params = append(params, vals[c.Name])
	}
	kc, err := ap.KeyCondition(params)
	if err != nil {
		t.Fatal(err)
	}
	got := []string{avJSON(t, kc.PK), avJSON(t, kc.SKEq), avJSON(t, kc.SK)}
	if want := []string{`[{"S":"c1"},{"N":"7"}]`, `[{"N":"9.5"}]`, `[{"S":"2025-03-03T10:00:00.000000Z"}]`}; !reflect.DeepEqual(got, want) {
		t.Errorf("key condition %v, want %v", got, want)
	}
	if ap := p.AccessPatterns[1]; ap.SKEq != 1 || ap.SKOp != "" || ap.Order != "" || ap.Limit != 0 {
		t.Errorf("byCode %+v", ap)
	}
}

func avJSON(t *testing.T, avs []types.AttributeValue) string {
	t.Helper()
	out := "["
	for i, av := range avs {
		if i > 0 {
			out += ","
		}
		out += compactJSON(t, av)
	}
	return out + "]"
}

func TestSQLHasOrderBy(t *testing.T) {
	for sql, want := range map[string]bool{
		"SELECT * FROM t ORDER BY a":                   true,
		"select * from t order\n\tby a desc limit 3":   true,
		"SELECT * FROM t ORDER  BY a":                  true,
		"SELECT * FROM t":                              false,
		"SELECT 'ORDER BY' FROM t":                     false,
		`SELECT "order by" FROM t`:                     false,
		"SELECT * FROM t -- ORDER BY a":                false,
		"SELECT * FROM t /* ORDER BY a */":             false,
		"SELECT * FROM t WHERE border BY":              false,
		"SELECT * FROM t WHERE a = 'it''s' ORDER BY a": true,
	} {
		if got := sqlHasOrderBy(sql); got != want {
			t.Errorf("sqlHasOrderBy(%q) = %v, want %v", sql, got, want)
		}
	}
}
