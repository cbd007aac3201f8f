package mapping

import (
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/introspect"
)

// engineMapping gives an entity's query and where, and a pattern's sql and
// params, a mysql: or postgres: block; each block replaces the item's own
// field on its engine only.
const engineMapping = `version: 1
table: {name: shop, key: {pk: PK, sk: SK}}
entities:
  thing:
    from: things
    where: code <> 'pg'
    mysql:
      where: code <> 'my'
    pk: "THING#{id}"
    sk: "T#{ts|iso}"
  weekly:
    query: ` + weeklyQuery + `
    key: [user_id, week]
    postgres:
      query: ` + weeklyQuery + ` HAVING max(score) > 0
    pk: "USER#{user_id}"
    sk: "WEEK#{week|pad:3}"
access_patterns:
  since:
    query: {pk: "THING#{id}", sk: {gte: "T#{ts|iso}"}}
    entity: thing
    params: SELECT id, ts - interval '1 second' AS ts FROM things
    sql: SELECT * FROM things WHERE id = {id} AND ts >= {ts}
    mysql:
      params: SELECT id, ts - INTERVAL 1 SECOND AS ts FROM things
      sql: SELECT * FROM things WHERE id = {id} AND ts >= {ts} AND 'my' = 'my'
  weeks:
    query: {pk: "USER#{user_id}", sk: {begins_with: "WEEK#"}}
    sql: {weekly: "SELECT * FROM (` + weeklyQuery + `) w WHERE user_id = {user_id}"}
    postgres:
      sql:
        weekly: SELECT 'pg' AS e, w.* FROM (` + weeklyQuery + `) w WHERE user_id = {user_id}
`

// TestEngineSQL compiles engineMapping for each engine: each engine reads
// its own block, and the block of the other engine changes nothing.
func TestEngineSQL(t *testing.T) {
	f, err := Parse("engine.yaml", []byte(engineMapping))
	if err != nil {
		t.Fatal(err)
	}
	base := f.Entities[1].Query.Value
	tests := []struct {
		engine                  introspect.Engine
		where, query            string
		sinceSQL, params, weeks string
	}{
		{introspect.Postgres, "code <> 'pg'", base + " HAVING max(score) > 0",
			"SELECT * FROM things WHERE id = {id} AND ts >= {ts}", "SELECT id, ts - interval '1 second' AS ts FROM things",
			"SELECT 'pg' AS e, w.* FROM (" + weeklyQuery + ") w WHERE user_id = {user_id}"},
		{introspect.MySQL, "code <> 'my'", base,
			"SELECT * FROM things WHERE id = {id} AND ts >= {ts} AND 'my' = 'my'", "SELECT id, ts - INTERVAL 1 SECOND AS ts FROM things",
			"SELECT * FROM (" + weeklyQuery + ") w WHERE user_id = {user_id}"},
	}
	for _, tc := range tests {
		t.Run(string(tc.engine), func(t *testing.T) {
			s := testSchema()
			s.Engine = tc.engine
			s.AddQuery(base+" HAVING max(score) > 0", s.Query(weeklyQuery).Columns)
			p, err := Compile(f, s)
			if err != nil {
				t.Fatalf("Compile: %v", err)
			}
			if got := p.Entity("thing").Where; got != tc.where {
				t.Errorf("thing's where = %q, want %q", got, tc.where)
			}
			if got := p.Entity("weekly").Table.Query; got != tc.query {
				t.Errorf("weekly's query = %q, want %q", got, tc.query)
			}
			since, weeks := p.AccessPatterns[0], p.AccessPatterns[1]
			if got := since.Queries[0].SQL.Src; got != tc.sinceSQL {
				t.Errorf("since's sql = %q, want %q", got, tc.sinceSQL)
			}
			if got := since.ParamsSQL.Src; got != tc.params {
				t.Errorf("since's params = %q, want %q", got, tc.params)
			}
			if got := weeks.Queries[0].SQL.Src; got != tc.weeks {
				t.Errorf("weeks' sql = %q, want %q", got, tc.weeks)
			}
			if p.File.HasEngineSQL() {
				t.Errorf("the plan's file keeps its engine blocks")
			}
		})
	}
	if !f.HasEngineSQL() || f.Entities[0].Where.Value != "code <> 'pg'" || f.AccessPatterns[0].MySQL == nil {
		t.Errorf("ForEngine changed the parsed file")
	}
}

// TestEngineSQLCheck: without a source, each engine's SQL is checked, and
// a problem in a block is reported at the block.
func TestEngineSQLCheck(t *testing.T) {
	f, err := Parse("engine.yaml", []byte(strings.Replace(engineMapping,
		"AND 'my' = 'my'", "AND 'my = 'my'", 1)))
	if err != nil {
		t.Fatal(err)
	}
	err = Check(f)
	l := errorList(t, err)
	if len(l) != 1 || l[0].Line != 26 || !strings.Contains(l[0].Msg, "quote") {
		t.Fatalf("Check = %v, want one unclosed quote at line 26 (the mysql block's sql)", err)
	}
	good, err := Parse("engine.yaml", []byte(engineMapping))
	if err != nil {
		t.Fatal(err)
	}
	if err := Check(good); err != nil {
		t.Fatalf("Check: %v", err)
	}
}
