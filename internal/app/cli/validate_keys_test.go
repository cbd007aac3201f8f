package cli

import (
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// TestValidateKeyColumns: an access pattern's SQL that does not return the
// columns its entity's key is rendered from fails validate, at the SQL and
// naming what is missing, from the statement's result columns (nothing
// runs); the SQL that returns them, by * or by name, passes.
func TestValidateKeyColumns(t *testing.T) {
	const m = `version: 1
table:
  name: personalization
  key: {pk: PK, sk: SK}
entities:
  user:
    from: users
    pk: "USER#{user_id}"
    sk: "USER#"
  personal:
    from: personal
    pk: "USER#{user_id}"
    sk: "PERSONAL#{service}#{setting_type}"
access_patterns:
  findUser:
    query: {pk: "USER#{user_id}", sk: "USER#"}
    entity: user
    sql: SELECT email FROM users WHERE user_id = {user_id}
  findPersonal:
    query: {pk: "USER#{user_id}", sk: {begins_with: "PERSONAL#{service}#"}}
    sql:
      personal: SELECT user_id AS uid, service, settings FROM personal WHERE user_id = {user_id} AND service = {service} ORDER BY setting_type
  findAll:
    query: {pk: "USER#{user_id}"}
    sql:
      user: SELECT * FROM users WHERE user_id = {user_id}
      personal: SELECT user_id, service, setting_type FROM personal WHERE user_id = {user_id}
`
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			dsn := eng.Fresh(t)
			testenv.LoadExample(t, eng.Name, dsn, "../../../examples/personalization")
			f := writeFile(t, "keys.yaml", m)
			code, out, errOut := remodel(t, "validate", "--source", dsn, "-m", f)
			want := "remodel: " + f + ":18:10: access_patterns.findUser.sql: the SQL returns no column user_id, which entity user's key needs (it returns email): select them so that each row names its item\n" +
				"remodel: " + f + ":22:17: access_patterns.findPersonal.sql.personal: the SQL returns no columns user_id, setting_type, which entity personal's key needs (it returns uid, service, settings): select them so that each row names its item\n"
			if code != exitFailed || out != "" || errOut != want {
				t.Fatalf("exit %d, stdout %q, stderr:\n%s\nwant exit %d and:\n%s", code, out, errOut, exitFailed, want)
			}

			fixed := strings.NewReplacer("SELECT email FROM", "SELECT user_id, email FROM",
				"SELECT user_id AS uid, service, settings", "SELECT user_id, service, setting_type, settings").Replace(m)
			code, out, errOut = remodel(t, "validate", "--source", dsn, "-m", writeFile(t, "fixed.yaml", fixed))
			if code != exitOK || !strings.Contains(out, "every where and SQL prepared") {
				t.Fatalf("the SQL with its key columns: exit %d\n%s%s", code, out, errOut)
			}
		})
	}
}
