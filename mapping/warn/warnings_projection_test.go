package warn

import (
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/testsupport/schemas"
	"github.com/remodel-dev/remodel/mapping"
)

// TestWarnUnwrittenProjection: an attribute an INCLUDE projection lists
// that no entity writes is a warning at its place; attributes written as a
// column, a renamed column, a set template, the TTL and the entity
// attribute are not, nor is the name a column was renamed away from when
// another entity writes it. With a query entity whose columns are
// unknown, nothing is said.
func TestWarnUnwrittenProjection(t *testing.T) {
	const src = `version: 1
table:
  name: shop
  key: {pk: PK, sk: SK}
  ttl: expiresAt
  indexes:
    - {name: ByEmail, pk: email, projection: {include: [name, createdAt, data, expiresAt, _type, emial]}}
    - {name: ByData, pk: data, projection: {include: [is_active, display_name, created_at, settings]}}
entities:
  user:
    from: users
    pk: "USER#{user_id}"
    sk: "USER#"
    attributes:
      rename: {created_at: createdAt}
      set: {data: "D#{email}"}
    ttl: {from: created_at, after: 30d}
  service:
    from: services
    pk: "SERVICE#{service}"
    sk: "SERVICE#"
    attributes:
      exclude: [display_name]
`
	f, err := mapping.Parse("m.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	s := schemas.Mapping()
	if _, err := mapping.Compile(f, s); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range Warnings(f, s) {
		if w.Code == mapping.WarnUnwrittenProjection {
			got = append(got, w.String())
		}
	}
	want := []string{
		"m.yaml:7:98: warning: table.indexes[0].projection.include[5]: no entity writes attribute emial, which index ByEmail projects: the index never holds it [unwritten-projection]",
		"m.yaml:8:66: warning: table.indexes[1].projection.include[1]: no entity writes attribute display_name, which index ByData projects: the index never holds it [unwritten-projection]",
		"m.yaml:8:92: warning: table.indexes[1].projection.include[3]: no entity writes attribute settings, which index ByData projects: the index never holds it [unwritten-projection]",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// A query entity the schema does not know (validate reports it) might
	// write any attribute.
	f, err = mapping.Parse("m.yaml", []byte(src+"  weekly: {query: \"SELECT 1 AS x\", key: [x], pk: \"W#{x}\", sk: W}\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range Warnings(f, s) {
		if w.Code == mapping.WarnUnwrittenProjection {
			t.Errorf("with an unknown query entity: %s", w)
		}
	}
}
