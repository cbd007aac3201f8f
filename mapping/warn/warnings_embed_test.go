package warn

import (
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
)

// TestWarningsEmbedReadsTable: a table read as an embed's child is read;
// only the table nothing reads is "not read by any entity".
func TestWarningsEmbedReadsTable(t *testing.T) {
	src := `version: 1
table:
  name: shop
  key: {pk: PK, sk: SK}
entities:
  order:
    from: orders
    pk: "ORDER#{id}"
    sk: "ORDER"
    embed:
      lines: {from: order_lines, on: order_id}
`
	col := func(name string) *introspect.Column {
		return &introspect.Column{Name: name, Type: "integer", Kind: introspect.KindInt}
	}
	s := &introspect.Schema{Engine: introspect.Postgres, Database: "shop", Tables: []*introspect.Table{
		{Schema: "public", Name: "orders", PrimaryKey: []string{"id"}, Columns: []*introspect.Column{col("id")}},
		{Schema: "public", Name: "order_lines", PrimaryKey: []string{"order_id", "line"}, Columns: []*introspect.Column{col("order_id"), col("line")},
			ForeignKeys: []introspect.ForeignKey{{Name: "fk", Columns: []string{"order_id"}, RefSchema: "public", RefTable: "orders", RefColumns: []string{"id"}}}},
		{Schema: "public", Name: "audit", PrimaryKey: []string{"id"}, Columns: []*introspect.Column{col("id")}},
	}}
	f, err := mapping.Parse("m.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mapping.Compile(f, s); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range Warnings(f, s) {
		got = append(got, w.String())
	}
	want := []string{`m.yaml:6:3: warning: entities: table public.audit is not read by any entity: its rows are not migrated [unmapped-table]`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
