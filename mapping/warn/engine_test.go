package warn

import (
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/testsupport/schemas"
	"github.com/remodel-dev/remodel/introspect"
	"github.com/remodel-dev/remodel/mapping"
)

// TestEngineSQLWarnings: the tables an entity's query reads are those of
// the engine's query: on MySQL, the mysql block's query reads things, not
// users.
func TestEngineSQLWarnings(t *testing.T) {
	f, err := mapping.Parse("engine.yaml", []byte(`version: 1
table: {name: shop, key: {pk: PK, sk: SK}}
entities:
  thing:
    query: SELECT user_id AS id FROM users
    key: [id]
    mysql: {query: SELECT id FROM things}
    pk: "T#{id}"
    sk: "T"
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		engine       introspect.Engine
		read, unread string
	}{{introspect.Postgres, "users", "things"}, {introspect.MySQL, "things", "users"}} {
		s := schemas.Mapping()
		s.Engine = tc.engine
		var text []string
		for _, w := range Warnings(f, s) {
			text = append(text, w.String())
		}
		all := strings.Join(text, "\n")
		if strings.Contains(all, "public."+tc.read+" is not read") || !strings.Contains(all, "public."+tc.unread+" is not read") {
			t.Errorf("%s: want %s read and %s unread, warnings:\n%s", tc.engine, tc.read, tc.unread, all)
		}
	}
}
