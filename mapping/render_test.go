package mapping

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/internal/domain/av"
)

const renderMapping = `version: 1
table:
  name: things
  key: {pk: PK, sk: SK}
  ttl: expiresAt
  indexes:
    - {name: ByCode, pk: code}
    - {name: ByLabel, pk: label, sk: {name: rank, type: N}}
entities:
  user:
    from: users
    pk: "USER#{user_id}"
    sk: "EMAIL#{email}"
  userDefault:
    from: users
    pk: "USER#{user_id}"
    sk: "EMAIL#{email|default:none}"
  userByEmail:
    from: users
    pk: "{email}"
    sk: "{name}"
  thing:
    from: things
    pk: "THING#{id}"
    sk: "THING#"
  labelled:
    from: things
    pk: "THING#{id}"
    sk: "LABEL#"
    attributes:
      include: [id]
      set: {label: "{code|default:}", rank: "{price|default:0}", expiresAt: "{code|default:1700000000}"}
`

type renderCase struct {
	name   string
	entity string
	vals   map[string]any
	key    string // the RowError's source key
	reason string // the RowError's reason
}

func checkRejected(t *testing.T, p *Plan, tt renderCase) {
	t.Helper()
	e := p.Entity(tt.entity)
	row := thingsRow(e, tt.vals)
	item, err := e.Render(row)
	if err == nil {
		t.Fatalf("Render accepted the row: %s", compactJSON(t, item))
	}
	if item != nil {
		t.Errorf("Render returned an item with its error: %s", compactJSON(t, item))
	}
	var re *RowError
	if !errors.As(err, &re) {
		t.Fatalf("error %v is a %T, want *RowError", err, err)
	}
	if re.Entity != tt.entity || re.Key != tt.key || re.Reason != tt.reason {
		t.Errorf("got  entity %q key %q reason %q\nwant entity %q key %q reason %q", re.Entity, re.Key, re.Reason, tt.entity, tt.key, tt.reason)
	}
	if want := "entity " + tt.entity + ", row " + tt.key + ": " + tt.reason; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
	if strings.Contains(err.Error(), "<nil>") {
		t.Errorf("error text shows <nil>: %v", err)
	}
}

func TestRenderRejects(t *testing.T) {
	p := compileString(t, renderMapping, testSchema())
	ts := utc("2024-01-02 03:04:05")
	user := func(email any) map[string]any {
		return map[string]any{"user_id": int64(5), "email": email, "name": "Ann", "is_active": true, "created_at": ts}
	}
	deep := strings.Repeat("[", 32) + strings.Repeat("]", 32)
	tests := []renderCase{
		{"NULL in a key column", "user", user(nil), "user_id=5",
			"rendering SK: {email}: column email is NULL (add |default:X to the placeholder to allow it)"},
		{"NULL key column that is the whole key", "userByEmail", user(nil), "user_id=5",
			"rendering PK: {email}: column email is NULL (add |default:X to the placeholder to allow it)"},
		{"empty partition key", "userByEmail", user(""), "user_id=5", "key PK renders empty"},
		{"partition key over 2048 bytes", "userByEmail", user(strings.Repeat("é", 1024) + "x"), "user_id=5",
			"key PK is 2049 bytes, over DynamoDB's 2048-byte limit"},
		{"sort key over 1024 bytes", "user", user(strings.Repeat("x", 1019)), "user_id=5",
			"key SK is 1025 bytes, over DynamoDB's 1024-byte limit"},
		{"key not valid UTF-8", "userByEmail", user("a\xffb"), "user_id=5", "key PK is not valid UTF-8"},
		{"error value in a key column", "user", user(errors.New("cannot decode email")), "user_id=5",
			"rendering SK: {email}: cannot decode email"},
		{"NaN decimal", "thing", map[string]any{"id": int64(7), "price": "NaN"}, "id=7",
			"column price (numeric): NaN cannot be stored as a DynamoDB number"},
		{"Infinity decimal", "thing", map[string]any{"id": int64(7), "price": "Infinity"}, "id=7",
			"column price (numeric): Infinity cannot be stored as a DynamoDB number"},
		{"-Infinity decimal", "thing", map[string]any{"id": int64(7), "price": "-Infinity"}, "id=7",
			"column price (numeric): -Infinity cannot be stored as a DynamoDB number"},
		{"NaN float", "thing", map[string]any{"id": int64(7), "score": math.NaN()}, "id=7",
			"column score (double precision): NaN cannot be stored as a DynamoDB number"},
		{"Infinity float", "thing", map[string]any{"id": int64(7), "score": math.Inf(1)}, "id=7",
			"column score (double precision): +Inf cannot be stored as a DynamoDB number"},
		{"-Infinity float", "thing", map[string]any{"id": int64(7), "score": math.Inf(-1)}, "id=7",
			"column score (double precision): -Inf cannot be stored as a DynamoDB number"},
		{"39 significant digits", "thing", map[string]any{"id": int64(7), "price": "123456789012345678901234567890.123456789"}, "id=7",
			"column price (numeric): 123456789012345678901234567890.123456789 has 39 significant digits; DynamoDB keeps at most 38"},
		{"JSON of 32 levels (33 counting the item)", "thing", map[string]any{"id": int64(7), "doc": []byte(deep)}, "id=7",
			"column doc (jsonb): json: maps and lists nested more than 31 deep (DynamoDB allows 32 levels, counting the item)"},
		{"JSON with an empty key", "thing", map[string]any{"id": int64(7), "doc": []byte(`{"a":[{"":1}]}`)}, "id=7",
			`column doc (jsonb): json: the object at $.a[0] has an empty key (DynamoDB refuses an empty attribute name)`},
		{"JSON with a key twice", "thing", map[string]any{"id": int64(7), "doc": []byte(`{"a b":{"k":1,"k":2}}`)}, "id=7",
			`column doc (jsonb): json: the object at $."a b" has the key "k" twice (a DynamoDB map keeps one value per key)`},
		{"zero date", "thing", map[string]any{"id": int64(7), "ts": errors.New(`zero date "0000-00-00 00:00:00" cannot be converted`)}, "id=7",
			`column ts (timestamp(6) without time zone): zero date "0000-00-00 00:00:00" cannot be converted`},
		{"error value in the source key itself", "thing", map[string]any{"id": errors.New("bad"), "code": "x"}, "id=?",
			"rendering PK: {id}: bad"},
		{"empty string in an index key column", "thing", map[string]any{"id": int64(7), "code": ""}, "id=7",
			"column code is empty but attribute code is an index key (an empty key value is not allowed)"},
		{"index key template renders empty", "labelled", map[string]any{"id": int64(7)}, "id=7",
			"attribute label renders empty but is an index key"},
		{"number-typed TTL attribute that is not a number", "labelled", map[string]any{"id": int64(7), "code": "x"}, "id=7",
			`attribute expiresAt must be a number: "x" is not a number`},
		{"decimal text that is not a number", "labelled", map[string]any{"id": int64(7), "code": "x", "price": "1.2.3"}, "id=7",
			`rendering attribute rank: {price}: "1.2.3" is not a number`},
		{"bad JSON", "thing", map[string]any{"id": int64(7), "doc": []byte(`{"a":`)}, "id=7",
			"column doc (jsonb): json: unexpected EOF"},
		{"JSON with trailing data", "thing", map[string]any{"id": int64(7), "doc": []byte(`{} []`)}, "id=7",
			"column doc (jsonb): json: trailing data after the value"},
		{"JSON number out of range", "thing", map[string]any{"id": int64(7), "doc": []byte(`{"a":1e200}`)}, "id=7",
			"column doc (jsonb): json: $.a: 1e200 is too large for a DynamoDB number (at most 9.99…E+125)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkRejected(t, p, tt) })
	}
}

func TestRenderDefaultAvoidsNULL(t *testing.T) {
	p := compileString(t, renderMapping, testSchema())
	e := p.Entity("userDefault")
	item, err := e.Render([]any{int64(5), nil, "Ann", true, utc("2024-01-02 03:04:05")})
	if err != nil {
		t.Fatal(err)
	}
	if got := av.KeyText(item["SK"]); got != "EMAIL#none" {
		t.Errorf("SK = %q, want EMAIL#none", got)
	}
	if _, ok := item["email"]; ok {
		t.Errorf("NULL column email is in the item: %s", compactJSON(t, item))
	}
	// Not NULL: default is not used.
	item, err = e.Render([]any{int64(5), "a@b", "Ann", true, utc("2024-01-02 03:04:05")})
	if err != nil {
		t.Fatal(err)
	}
	if got := av.KeyText(item["SK"]); got != "EMAIL#a@b" {
		t.Errorf("SK = %q, want EMAIL#a@b", got)
	}
}

func TestRenderLimitsAtTheEdge(t *testing.T) {
	p := compileString(t, renderMapping, testSchema())
	ts := utc("2024-01-02 03:04:05")

	// Keys of exactly the maximum size are fine.
	e := p.Entity("userByEmail")
	item, err := e.Render([]any{int64(5), strings.Repeat("é", 1024), strings.Repeat("n", 1024), true, ts})
	if err != nil {
		t.Fatalf("keys at the limit: %v", err)
	}
	if len(av.KeyText(item["PK"])) != MaxPKSize || len(av.KeyText(item["SK"])) != MaxSKSize {
		t.Errorf("key sizes %d, %d", len(av.KeyText(item["PK"])), len(av.KeyText(item["SK"])))
	}

	// An item of exactly 400 KB is written; one byte more is rejected.
	th := p.Entity("thing")
	base, err := th.Render(thingsRow(th, map[string]any{"id": int64(1), "at": ""}))
	if err != nil {
		t.Fatal(err)
	}
	fill := MaxItemSize - ItemSize(base)
	row := thingsRow(th, map[string]any{"id": int64(1), "at": strings.Repeat("a", fill)})
	item, err = th.Render(row)
	if err != nil {
		t.Fatalf("item of exactly %d bytes: %v", MaxItemSize, err)
	}
	if ItemSize(item) != MaxItemSize {
		t.Fatalf("item is %d bytes, want %d", ItemSize(item), MaxItemSize)
	}
	checkRejected(t, p, renderCase{
		entity: "thing", vals: map[string]any{"id": int64(1), "at": strings.Repeat("a", fill+1)}, key: "id=1",
		reason: "item is 409601 bytes, over DynamoDB's 409600-byte limit",
	})

	// JSON of 31 levels (32 counting the item) is fine.
	deep := strings.Repeat("[", 31) + strings.Repeat("]", 31)
	if _, err := th.Render(thingsRow(th, map[string]any{"id": int64(1), "doc": []byte(deep)})); err != nil {
		t.Errorf("JSON of 31 levels: %v", err)
	}
}

func TestRenderAllKinds(t *testing.T) {
	p := compileString(t, renderMapping, testSchema())
	th := p.Entity("thing")
	row := thingsRow(th, map[string]any{
		"id":    int64(1),
		"code":  "c-1",
		"price": "0012.3400",
		"score": 0.1,
		"flag":  false,
		"blob":  []byte{0, 1, 0xfe},
		"day":   utc("2024-02-29 00:00:00"),
		"at":    "13:14:15.5",
		"ts":    time.Date(2024, 2, 29, 13, 14, 15, 123456789, time.UTC),
		"tstz":  time.Date(2024, 2, 29, 22, 14, 15, 5_000_000, time.FixedZone("KST", 9*3600)),
		"doc":   []byte(`{"n":1.50,"a":[1,null,"x"],"t":false}`),
		"tags":  []any{"a", nil, "c"},
		"opts":  []string{},
	})
	item, err := th.Render(row)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"PK":{"S":"THING#1"},"SK":{"S":"THING#"},"_type":{"S":"thing"},` +
		`"at":{"S":"13:14:15.5"},"blob":{"B":"AAH+"},"code":{"S":"c-1"},"day":{"S":"2024-02-29"},` +
		`"doc":{"M":{"a":{"L":[{"N":"1"},{"NULL":true},{"S":"x"}]},"n":{"N":"1.5"},"t":{"BOOL":false}}},` +
		`"flag":{"BOOL":false},"id":{"N":"1"},"price":{"N":"12.34"},"score":{"N":"0.1"},` +
		`"tags":{"L":[{"S":"a"},{"NULL":true},{"S":"c"}]},` +
		`"ts":{"S":"2024-02-29T13:14:15.123456"},"tstz":{"S":"2024-02-29T13:14:15.005Z"}}`
	if got := compactJSON(t, item); got != want {
		t.Errorf("item\ngot  %s\nwant %s", got, want)
	}

	// NULLs are left out; so is an empty SET. A non-empty SET is SS.
	item, err = th.Render(thingsRow(th, map[string]any{"id": int64(2), "opts": []string{"a", "c"}}))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := compactJSON(t, item), `{"PK":{"S":"THING#2"},"SK":{"S":"THING#"},"_type":{"S":"thing"},"id":{"N":"2"},"opts":{"SS":["a","c"]}}`; got != want {
		t.Errorf("sparse item\ngot  %s\nwant %s", got, want)
	}

	// Set attributes: index keys and a number-typed TTL.
	lb := p.Entity("labelled")
	item, err = lb.Render(thingsRow(lb, map[string]any{"id": int64(3), "code": "1700000001", "price": "007.50"}))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := compactJSON(t, item), `{"PK":{"S":"THING#3"},"SK":{"S":"LABEL#"},"_type":{"S":"labelled"},"expiresAt":{"N":"1700000001"},"id":{"N":"3"},"label":{"S":"1700000001"},"rank":{"N":"7.5"}}`; got != want {
		t.Errorf("set attributes\ngot  %s\nwant %s", got, want)
	}
}

func TestSourceKey(t *testing.T) {
	p := compileString(t, `version: 1
table: {name: shop, key: {pk: PK}}
entities:
  p: {from: personal, pk: "P#{user_id}#{service}#{setting_type}"}
  t: {from: things, pk: "T#{id}"}
`, testSchema())
	pe := p.Entity("p")
	if got := pe.SourceKey([]any{int64(42), "news", nil, nil, nil}); got != "user_id=42, service=news, setting_type=NULL" {
		t.Errorf("SourceKey = %q", got)
	}
	te := p.Entity("t")
	te.keyCols = []int{0, 5, 2, 6} // id, blob, price, day: every kind of key value
	row := thingsRow(te, map[string]any{"id": "18446744073709551615", "blob": []byte{0xca, 0xfe}, "price": "1.50", "day": utc("2024-01-02 00:00:00")})
	if got, want := te.SourceKey(row), "id=18446744073709551615, blob=cafe, price=1.5, day=2024-01-02"; got != want {
		t.Errorf("SourceKey = %q, want %q", got, want)
	}
}

// A set attribute over a NULL column is left out, like a NULL column, so a
// sparse index over it stays sparse; the row is not rejected.
func TestRenderSetOverNULLIsLeftOut(t *testing.T) {
	p := compileString(t, `version: 1
table:
  name: things_table
  key: {pk: PK, sk: SK}
  indexes: [{name: ByCode, pk: GSI1PK, sk: SK}]
entities:
  thing:
    from: things
    pk: "THING#{id}"
    sk: "THING#"
    attributes:
      include: [id]
      set: {GSI1PK: "CODE#{code}"}
`, testSchema())
	e := p.Entity("thing")
	item, err := e.Render(thingsRow(e, map[string]any{"id": int64(1)}))
	if err != nil {
		t.Fatalf("a NULL under a set attribute rejected the row: %v", err)
	}
	if _, ok := item["GSI1PK"]; ok {
		t.Errorf("GSI1PK is in the item though code is NULL: %s", compactJSON(t, item))
	}
	item, err = e.Render(thingsRow(e, map[string]any{"id": int64(2), "code": "x"}))
	if err != nil || av.KeyText(item["GSI1PK"]) != "CODE#x" {
		t.Fatalf("GSI1PK = %v, err %v; want CODE#x", item["GSI1PK"], err)
	}
}

// An index key attribute over DynamoDB's index key limit rejects the row
// (DynamoDB would refuse the whole batch), at the edge exactly.
func TestRenderIndexKeyLimits(t *testing.T) {
	p := compileString(t, `version: 1
table:
  name: things_table
  key: {pk: PK, sk: SK}
  indexes: [{name: ByCode, pk: GSI1PK, sk: code}]
entities:
  thing:
    from: things
    pk: "THING#{id}"
    sk: "THING#"
    attributes:
      include: [id, code]
      set: {GSI1PK: "P#{code}"}
`, testSchema())
	e := p.Entity("thing")
	for _, tc := range []struct {
		code string
		want string // "" when the row is accepted
	}{
		{strings.Repeat("x", 1024), ""},
		{strings.Repeat("x", 1025), "attribute code is 1025 bytes, over DynamoDB's 1024-byte limit for an index key"},
		{strings.Repeat("x", 2046), "attribute code is 2046 bytes"},
	} {
		_, err := e.Render(thingsRow(e, map[string]any{"id": int64(1), "code": tc.code}))
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("code of %d bytes: err %v, want %q", len(tc.code), err, tc.want)
		}
	}
	// The set attribute is the index partition key: 2048 bytes at most.
	p2 := compileString(t, `version: 1
table:
  name: things_table
  key: {pk: PK, sk: SK}
  indexes: [{name: ByCode, pk: GSI1PK}]
entities:
  thing:
    from: things
    pk: "THING#{id}"
    sk: "THING#"
    attributes:
      include: [id]
      set: {GSI1PK: "P#{code}"}
`, testSchema())
	e2 := p2.Entity("thing")
	if _, err := e2.Render(thingsRow(e2, map[string]any{"id": int64(1), "code": strings.Repeat("y", 2046)})); err != nil {
		t.Errorf("a 2048-byte index partition key was rejected: %v", err)
	}
	_, err := e2.Render(thingsRow(e2, map[string]any{"id": int64(1), "code": strings.Repeat("y", 2047)}))
	if err == nil || !strings.Contains(err.Error(), "attribute GSI1PK is 2049 bytes, over DynamoDB's 2048-byte limit for an index key") {
		t.Errorf("a 2049-byte index partition key: err %v", err)
	}
}

// An entity's ttl writes the table's TTL attribute as the epoch seconds of
// its column plus the offset; a NULL column leaves it out (no expiry).
func TestRenderTTL(t *testing.T) {
	p := compileString(t, `version: 1
table: {name: things_table, key: {pk: PK, sk: SK}, ttl: expiresAt}
entities:
  session:
    from: things
    pk: "S#{id}"
    sk: "S#"
    attributes: {include: [id]}
    ttl: {from: tstz, after: 30d}
  day:
    from: things
    pk: "D#{id}"
    sk: "D#"
    attributes: {include: [id]}
    ttl: {from: day, after: -1d12h}
  plain:
    from: things
    pk: "P#{id}"
    sk: "P#"
    attributes: {include: [id]}
    ttl: ts
`, testSchema())
	created := time.Date(2024, 2, 29, 23, 59, 59, 999999000, time.UTC)
	for _, tt := range []struct {
		entity string
		vals   map[string]any
		want   string // "" = no expiresAt
	}{
		{"session", map[string]any{"id": int64(1), "tstz": created}, "1711843199"}, // 2024-03-30T23:59:59Z
		{"session", map[string]any{"id": int64(2)}, ""},
		{"day", map[string]any{"id": int64(3), "day": time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)}, "1709121600"}, // 2024-02-28T12:00:00Z
		{"plain", map[string]any{"id": int64(4), "ts": time.Unix(1700000000, 500000000).UTC()}, "1700000000"},
	} {
		e := p.Entity(tt.entity)
		item, err := e.Render(thingsRow(e, tt.vals))
		if err != nil {
			t.Fatalf("%s %v: %v", tt.entity, tt.vals, err)
		}
		got, ok := item["expiresAt"].(*types.AttributeValueMemberN)
		switch {
		case tt.want == "" && item["expiresAt"] != nil:
			t.Errorf("%s %v: expiresAt = %v, want none", tt.entity, tt.vals, item["expiresAt"])
		case tt.want != "" && (!ok || got.Value != tt.want):
			t.Errorf("%s %v: expiresAt = %#v, want N %s", tt.entity, tt.vals, item["expiresAt"], tt.want)
		}
	}
	e := p.Entity("session")
	_, err := e.Render(thingsRow(e, map[string]any{"id": int64(5), "tstz": errors.New("zero date")}))
	var re *RowError
	if !errors.As(err, &re) || !strings.Contains(re.Reason, "column tstz") {
		t.Errorf("a bad ttl column value: %v, want a rejected row naming tstz", err)
	}
}
