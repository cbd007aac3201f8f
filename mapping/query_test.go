package mapping

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/remodel-dev/remodel/introspect"
)

const queryMapping = `version: 1
table:
  name: board
  key: {pk: PK, sk: SK}
  indexes: [{name: GSI1, pk: GSI1PK, sk: SK}]
entities:
  weekly:
    query: ` + weeklyQuery + `
    key: [user_id, week]
    where: top > 0
    pk: "USER#{user_id}"
    sk: "WEEK#{week|pad:2}"
    attributes:
      set:
        GSI1PK: {value: "TOP#{week|pad:2}", when: "top >= 100"}
        note: "best {top|default:none}"
  active:
    from: active_users
    key: [user_id]
    pk: "USER#{user_id}"
    sk: "ACTIVE"
  user:
    from: users
    pk: "USER#{user_id}"
    sk: "PROFILE"
    attributes:
      include: [email]
      set:
        remodel_when_1: {value: "{name}", when: "is_active"}
        data: {value: "{name}", when: "name IS NOT NULL"}
`

// TestQueryEntity: an entity from a query reads the described result with
// the entity's key as its primary key, and the set attribute's condition
// as a boolean column after the columns; Render writes the attribute only
// when the condition is true.
func TestQueryEntity(t *testing.T) {
	p := compileString(t, queryMapping, testSchema())
	e := p.Entity("weekly")
	if e.Table.Query != weeklyQuery || e.Table.Name != "weekly" || !reflect.DeepEqual(e.Table.PrimaryKey, []string{"user_id", "week"}) || e.Where != "top > 0" {
		t.Fatalf("Table = %+v, Where %q", e.Table, e.Where)
	}
	var names []string
	for _, c := range e.Columns {
		names = append(names, c.Name+" "+c.Expr)
	}
	if want := []string{"user_id ", "week ", "top ", "remodel_when_1 top >= 100"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("Columns = %q, want %q", names, want)
	}
	if &e.Columns[0] != &e.Table.Columns[0] || p.Schema.Query(weeklyQuery).Columns[0] != e.Columns[0] || len(p.Schema.Query(weeklyQuery).Columns) != 3 {
		t.Errorf("the entity's columns are not the table's it reads, or the schema's query changed")
	}
	for _, tc := range []struct {
		cond any
		want bool // GSI1PK written
	}{{true, true}, {false, false}, {nil, false}} {
		item, err := e.Render([]any{int64(7), int64(3), int64(120), tc.cond})
		if err != nil {
			t.Fatalf("Render(condition %v): %v", tc.cond, err)
		}
		_, got := item["GSI1PK"]
		if got != tc.want || text(item["note"]) != "best 120" || text(item["top"]) != "120" || text(item["PK"]) != "USER#7" || text(item["SK"]) != "WEEK#03" {
			t.Errorf("condition %v: item %v; want GSI1PK written %v", tc.cond, item, tc.want)
		}
		if _, ok := item["remodel_when_1"]; ok {
			t.Errorf("condition %v: the condition's column became an attribute", tc.cond)
		}
	}
	_, err := e.Render([]any{int64(7), int64(3), int64(120), errors.New(`"2" is not a boolean`)})
	var re *RowError
	if !errors.As(err, &re) || re.Key != "user_id=7, week=3" || re.Reason != `the condition of attribute GSI1PK: "2" is not a boolean` {
		t.Errorf("Render with an undecodable condition: %v", err)
	}

	// A view with a key: read in that key's order, rows named by it.
	a := p.Entity("active")
	if !a.Table.View || !reflect.DeepEqual(a.Table.PrimaryKey, []string{"user_id"}) || a.SourceKey([]any{int64(4), "x"}) != "user_id=4" {
		t.Errorf("active: Table %+v, SourceKey %q", a.Table, a.SourceKey([]any{int64(4), "x"}))
	}
	if v, _ := p.Schema.Table("active_users"); v.PrimaryKey != nil {
		t.Errorf("the schema's view got the entity's key %q", v.PrimaryKey)
	}

	// A table entity: the condition's column is named apart from every
	// column and attribute, and the table itself is left as it is.
	u := p.Entity("user")
	var conds []string
	for _, c := range u.Columns[len(u.Columns)-2:] {
		conds = append(conds, c.Name+": "+c.Expr)
	}
	if want := []string{"remodel_when_1: is_active", "remodel_when_2: name IS NOT NULL"}; !reflect.DeepEqual(conds, want) {
		t.Errorf("conditions %q, want %q", conds, want)
	}
	if tbl, _ := p.Schema.Table("users"); len(tbl.Columns) != 5 || u.Table == tbl || u.Table.PrimaryKey[0] != "user_id" {
		t.Errorf("users: the schema's table has %d columns; the entity reads %+v", len(tbl.Columns), u.Table)
	}
	row := []any{int64(1), "a@b", "Ann", true, nil, false, true}
	item, err := u.Render(row)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := item["remodel_when_1"]; ok || text(item["data"]) != "Ann" || text(item["email"]) != "a@b" {
		t.Errorf("user item %v: want data, and no remodel_when_1 (its condition is false)", item)
	}
}

func text(av types.AttributeValue) string {
	switch x := av.(type) {
	case *types.AttributeValueMemberS:
		return x.Value
	case *types.AttributeValueMemberN:
		return x.Value
	}
	return fmt.Sprint(av)
}

// TestWhenColumn: the condition's column takes a name no column and no
// earlier condition has.
func TestWhenColumn(t *testing.T) {
	tbl := &introspect.Table{Columns: []*introspect.Column{{Name: "remodel_when_1"}, {Name: "remodel_when_2_"}}}
	c1 := WhenColumn(tbl, nil, "a")
	c2 := WhenColumn(tbl, []*introspect.Column{c1}, "b")
	c3 := WhenColumn(tbl, []*introspect.Column{{Name: "remodel_when_1_"}, {Name: "remodel_when_3"}}, "c")
	got := []string{c1.Name, c2.Name, c3.Name}
	if want := []string{"remodel_when_1_", "remodel_when_2", "remodel_when_3_"}; !reflect.DeepEqual(got, want) {
		t.Errorf("names %q, want %q", got, want)
	}
	if c1.Kind != introspect.KindBool || c1.Expr != "a" {
		t.Errorf("column %+v", c1)
	}
}

// TestStream: rows pass one by one; for an entity whose key the mapping
// declares, every row of a key that several rows share comes with a
// RowError, and no row is lost or passed twice.
func TestStream(t *testing.T) {
	p := compileString(t, queryMapping, testSchema())
	scanOf := func(rows [][]any) func(func([]any) error) error {
		return func(fn func([]any) error) error {
			buf := make([]any, 4)
			for _, r := range rows {
				copy(buf, r) // the scan reuses its row, as ScanTable does
				if err := fn(buf); err != nil {
					return err
				}
			}
			return nil
		}
	}
	rows := [][]any{
		{int64(1), int64(1), int64(5), false},
		{int64(1), int64(2), int64(6), false},
		{int64(1), int64(2), int64(7), false},
		{int64(2), int64(1), int64(8), false},
		{int64(3), int64(1), int64(9), false},
		{int64(3), int64(1), int64(10), false},
		{int64(3), int64(1), int64(11), false},
	}
	var got []string
	err := p.Entity("weekly").Stream(scanOf(rows), func(row []any, dup *RowError) error {
		s := fmt.Sprint(row[2])
		if dup != nil {
			s += " dup " + dup.Key + ": " + dup.Reason
		}
		got = append(got, s)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	const why = " rows have this key (user_id, week): the key columns must identify a row of the query (add the columns that tell them apart to key:)"
	want := []string{
		"5",
		"6 dup user_id=1, week=2: 2" + why,
		"7 dup user_id=1, week=2: 2" + why,
		"8",
		"9 dup user_id=3, week=1: 3" + why,
		"10 dup user_id=3, week=1: 3" + why,
		"11 dup user_id=3, week=1: 3" + why,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Stream passed\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// A table's primary key is the database's: rows pass as they come.
	n := 0
	err = p.Entity("user").Stream(scanOf([][]any{{int64(1)}, {int64(1)}}), func(_ []any, dup *RowError) error {
		if dup != nil {
			t.Errorf("a table's row passed with %v", dup)
		}
		n++
		return nil
	})
	if err != nil || n != 2 {
		t.Errorf("Stream of a table: %d rows, %v", n, err)
	}

	// fn's error stops the scan, and a scan's error is returned.
	stop := errors.New("stop")
	err = p.Entity("weekly").Stream(scanOf(rows), func([]any, *RowError) error { return stop })
	if !errors.Is(err, stop) {
		t.Errorf("Stream = %v, want fn's error", err)
	}
	err = p.Entity("weekly").Stream(func(func([]any) error) error { return stop }, func([]any, *RowError) error { return nil })
	if !errors.Is(err, stop) {
		t.Errorf("Stream = %v, want the scan's error", err)
	}
}

// TestCheckQueryEntities: without a schema, query entities, keys and
// conditional attributes are checked as far as they can be (templates,
// collisions), and a valid mapping has no problem.
func TestCheckQueryEntities(t *testing.T) {
	f, err := Parse("q.yaml", []byte(queryMapping))
	if err != nil {
		t.Fatal(err)
	}
	if err := Check(f); err != nil {
		t.Errorf("Check: %v", err)
	}
	bad := strings.Replace(queryMapping, `GSI1PK: {value: "TOP#{week|pad:2}"`, `PK: {value: "TOP#{week|pad:2"`, 1)
	f, err = Parse("q.yaml", []byte(bad))
	if err != nil {
		t.Fatal(err)
	}
	if err := Check(f); err == nil || !strings.Contains(err.Error(), "q.yaml:15:9: entities.weekly.attributes.set.PK: attribute PK collides with the table's partition key: rename it") {
		t.Errorf("Check: %v", err)
	}
}
