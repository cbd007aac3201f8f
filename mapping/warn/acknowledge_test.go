package warn

import (
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/testsupport/schemas"
	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
)

// TestAcknowledge: an acknowledgement marks exactly the warnings of its
// code about what it names (the others stay open), and one that matches no
// warning (a wrong name, a wrong code) is a stale-acknowledgement warning
// at its place.
func TestAcknowledge(t *testing.T) {
	const base = `version: 1
table:
  name: shop
  key: {pk: PK, sk: SK}
  indexes:
    - {name: ByCoupon, pk: GSI1PK, sk: GSI1SK}
entities:
  order:
    from: orders
    pk: "ORDER#{id}"
    sk: "ORDER"
    attributes:
      set:
        GSI1PK: {value: "COUPON#{coupon}", when: "coupon IS NOT NULL"}
        GSI1SK: "ORDER#{id}"
access_patterns:
  byCoupon:
    index: ByCoupon
    query: {pk: "COUPON#{coupon}", sk: {begins_with: "ORDER#{id}"}}
    entity: order
    sql: SELECT * FROM orders WHERE coupon = {coupon} AND id = {id}
`
	s := &introspect.Schema{Engine: introspect.Postgres, Database: "shop", Tables: []*introspect.Table{
		{Schema: "public", Name: "orders", PrimaryKey: []string{"id"}, Columns: []*introspect.Column{
			schemas.Col("id", "integer", introspect.KindInt), {Name: "coupon", Type: "text", Kind: introspect.KindString, Nullable: true}}},
		{Schema: "public", Name: "audit", PrimaryKey: []string{"id"}, Columns: []*introspect.Column{schemas.Col("id", "integer", introspect.KindInt)}},
	}}
	tests := []struct {
		name, ack string
		want      []string // code and, for an acknowledged one, "acked"
	}{
		{name: "none", want: []string{"sparse-nullable", "sparse-when", "begins-with-placeholder", "unmapped-table"}},
		{name: "sparse on purpose", ack: `
  - {warning: sparse-when, entity: order, index: ByCoupon, reason: "only orders with a coupon are looked up by it"}
  - {warning: sparse-nullable, index: ByCoupon, reason: "only orders with a coupon are looked up by it"}
  - {warning: unmapped-table, table: audit, reason: "the audit log stays in PostgreSQL"}
  - {warning: begins-with-placeholder, pattern: byCoupon, reason: "ids are looked up by prefix on purpose"}`,
			want: []string{"sparse-nullable acked", "sparse-when acked", "begins-with-placeholder acked", "unmapped-table acked"}},
		{name: "schema-qualified table", ack: `
  - {warning: unmapped-table, table: public.audit, reason: "the audit log stays in PostgreSQL"}`,
			want: []string{"sparse-nullable", "sparse-when", "begins-with-placeholder", "unmapped-table acked"}},
		{name: "stale: wrong entity, wrong index, wrong code", ack: `
  - {warning: sparse-when, entity: user, reason: "there is no user"}
  - {warning: sparse-when, entity: order, index: ByOther, reason: "no such index"}
  - {warning: key-not-unique, entity: order, reason: "order's key is unique"}`,
			want: []string{"sparse-nullable", "sparse-when", "begins-with-placeholder", "unmapped-table",
				"stale-acknowledgement 23:5 sparse-when, entity user", "stale-acknowledgement 24:5 sparse-when, entity order, index ByOther",
				"stale-acknowledgement 25:5 key-not-unique, entity order"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := base
			if tt.ack != "" {
				src += "acknowledge:" + tt.ack + "\n"
			}
			f, err := mapping.Parse("m.yaml", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := mapping.Compile(f, s); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, w := range Warnings(f, s) {
				g := w.Code
				switch {
				case w.Ack != nil:
					g += " acked"
					if w.Ack.Reason.Value == "" {
						t.Errorf("%s: acknowledged without a reason", w)
					}
				case w.Code == mapping.WarnStaleAcknowledgement:
					g += " " + strings.TrimPrefix(w.String(), "m.yaml:")
					g = g[:strings.Index(g, ": warning")] + " " + strings.TrimPrefix(w.Msg, "the acknowledgement of ")
					g = g[:strings.Index(g, " matches no warning")]
				}
				got = append(got, g)
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			if open := len(Unacknowledged(Warnings(f, s))); tt.name == "sparse on purpose" && open != 0 {
				t.Errorf("%d warnings left open, want 0", open)
			}
		})
	}
}
