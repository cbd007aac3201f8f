package mapping

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckWithoutSchema finds, without a schema, every problem of a file
// that needs none, all at once and in file order.
func TestCheckWithoutSchema(t *testing.T) {
	src := `version: 1
table:
  name: shop
  key: {pk: PK, sk: SK}
  indexes:
    - {name: GSI1, pk: SK, sk: PK}
    - {name: ByNum, pk: data, sk: {name: n, type: N}}
entities:
  user:
    from: no_such_table
    pk: "USER#{user_id"
    sk: "USER#"
    attributes:
      rename: {email: _type}
      set: {SK: x, data: "D#{email|nosuch}"}
  order:
    from: orders
    pk: "USER#{user_id}"
access_patterns:
  byIndex:
    index: GSI9
    query: {pk: "X"}
    sql: SELECT 1
  noEntity:
    query: {pk: "USER#{user_id}"}
    sql: SELECT * FROM users WHERE user_id = {user_id}
  unknownEntity:
    query: {pk: "USER#{user_id}"}
    sql: {customer: "SELECT * FROM customers WHERE id = {user_id}"}
  badSQL:
    entity: user
    query: {pk: "USER#{user_id}", sk: {begins_with: "}"}}
    sql: "SELECT * FROM users WHERE name = 'x"
    params: SELECT {user_id}
  numberSK:
    index: ByNum
    entity: order
    query: {pk: "D", sk: {begins_with: "1"}}
    sql: SELECT 1
`
	f, err := Parse("m.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := `m.yaml:11:9: entities.user.pk: unclosed { at offset 5
m.yaml:14:23: entities.user.attributes.rename.email: attribute _type collides with the entity attribute: rename it
m.yaml:15:13: entities.user.attributes.set.SK: attribute SK collides with the table's sort key: rename it
m.yaml:15:26: entities.user.attributes.set.data: unknown formatter "nosuch" in {email|nosuch} (known: ` + formatterNames() + `)
m.yaml:17:5: entities.order: the table has a sort key SK: give the entity an sk template
m.yaml:21:12: access_patterns.byIndex.index: the table has no index "GSI9" (indexes: GSI1, ByNum)
m.yaml:26:10: access_patterns.noEntity.sql: say which entity this SQL returns with entity: (one of order, user), or give sql as a map of entity name to SQL
m.yaml:29:11: access_patterns.unknownEntity.sql.customer: no entity "customer" (entities: order, user)
m.yaml:32:53: access_patterns.badSQL.query.sk[0]: unmatched } at offset 0 (write }} for a literal brace)
m.yaml:33:10: access_patterns.badSQL.sql: unterminated ' quote at offset 33
m.yaml:34:13: access_patterns.badSQL.params: the sampling SQL cannot itself take parameters
m.yaml:38:26: access_patterns.numberSK.query.sk: begins_with needs a string sort key; n is a number`
	err = Check(f)
	if err == nil || err.Error() != want {
		t.Fatalf("Check:\n%v\nwant:\n%s", err, want)
	}
}

// TestCheckAgreesWithCompile: on every compile test case, each problem Check
// finds is one Compile reports with the same text, unless it lies in an
// entity whose table the schema lacks (Compile skips such an entity).
func TestCheckAgreesWithCompile(t *testing.T) {
	files, err := filepath.Glob("testdata/compile/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	schema := testSchema()
	found := 0
	for _, path := range files {
		f, err := ParseFile(path)
		if err != nil {
			t.Fatal(err)
		}
		missing := map[string]bool{}
		for _, e := range f.Entities {
			if _, err := schema.Table(e.From.Value); err != nil {
				missing["entities."+e.Name.Value] = true
			}
		}
		_, cerr := Compile(f, schema)
		compiled := map[string]bool{}
		var cl ErrorList
		if errors.As(cerr, &cl) {
			for _, e := range cl {
				compiled[e.Error()] = true
			}
		}
		var l ErrorList
		if err := Check(f); err != nil && !errors.As(err, &l) {
			t.Fatalf("%s: Check returned %T", path, err)
		}
		for _, e := range l {
			found++
			parts := strings.SplitN(e.Path, ".", 3)
			entity := strings.Join(parts[:min(2, len(parts))], ".")
			if !compiled[e.Error()] && !missing[entity] {
				t.Errorf("%s: Check reports %q, which Compile does not", path, e)
			}
		}
	}
	if found < 10 {
		t.Errorf("Check found %d problems in the compile cases; the comparison proves little", found)
	}
}

// TestCheckAcceptsTheExamples: the examples have no problem Check finds.
func TestCheckAcceptsTheExamples(t *testing.T) {
	for _, path := range []string{
		"../examples/personalization/mapping.yaml",
		"../examples/chinook/mapping.postgres.yaml",
		"../examples/chinook/mapping.mysql.yaml",
	} {
		f, err := ParseFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := Check(f); err != nil {
			t.Errorf("%s: %v", path, err)
		}
	}
}
