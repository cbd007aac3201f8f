package report_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/app/report"
	"github.com/remodel-dev/remodel/internal/domain/preview"
	"github.com/remodel-dev/remodel/mapping"
)

// TestTableProjections: the preview's table definition names each
// index's projection, in its JSON always and in its text when the index
// does not project all attributes.
func TestTableProjections(t *testing.T) {
	f, err := mapping.Parse("m.yaml", []byte(`version: 1
table:
  name: shop
  key: {pk: PK, sk: SK}
  indexes:
    - {name: GSI1, pk: SK, sk: PK}
    - {name: GSI2, pk: data, projection: KEYS_ONLY}
    - {name: ByEmail, pk: email, projection: {include: [name, status]}}
entities:
  user: {from: users, pk: "USER#{user_id}", sk: "USER#"}
`))
	if err != nil {
		t.Fatal(err)
	}
	tb, err := mapping.TableOf(f)
	if err != nil {
		t.Fatal(err)
	}
	res := &preview.Result{Table: preview.Table(tb)}
	var b strings.Builder
	if err := report.Write(&b, report.Text, res); err != nil {
		t.Fatal(err)
	}
	want := `table shop: PK PK, SK SK, entity attribute _type
  global index GSI1: PK SK, SK PK
  global index GSI2: PK data, projects KEYS_ONLY
  global index ByEmail: PK email, projects INCLUDE (name, status)
`
	if b.String() != want {
		t.Errorf("text:\n%s\nwant\n%s", b.String(), want)
	}
	js, err := json.Marshal(res.Table.Indexes)
	if err != nil {
		t.Fatal(err)
	}
	wantJSON := `[{"name":"GSI1","pk":"SK","sk":"PK","projection":"ALL"},{"name":"GSI2","pk":"data","projection":"KEYS_ONLY"},{"name":"ByEmail","pk":"email","projection":"INCLUDE","include":["name","status"]}]`
	if string(js) != wantJSON {
		t.Errorf("JSON:\n%s\nwant\n%s", js, wantJSON)
	}
}
