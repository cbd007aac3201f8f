package cli

import (
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// typos is a mapping of the personalization example with mistakes of every
// kind: SQL the database refuses (a where, a pattern's sql, a params),
// columns and tables the schema lacks, and a template that does not parse.
const typos = `version: 1
table:
  name: personalization
  key: {pk: PK, sk: SK}
  indexes:
    - {name: GSI1, pk: SK, sk: PK}
entities:
  user:
    from: users
    where: "is_activ AND email <> ''"
    pk: "USER#{user_id}"
    sk: "USER#"
  personal:
    from: personal
    pk: "USER#{user_id}"
    sk: "PERSONAL#{service}#{setting_type}"
    attributes:
      include: [settings, updatd_at]
  ghost:
    from: ghosts
    pk: "GHOST#{id"
    sk: "GHOST#"
access_patterns:
  findUser:
    query: {pk: "USER#{user_id}", sk: "USER#"}
    entity: user
    sql: SELECT * FROM users WHERE user_idd = {user_id}
  findPersonal:
    index: GSI1
    query: {pk: "PERSONAL#{service}#{setting_type}"}
    sql:
      personal: SELECT * FORM personal WHERE service = {service} AND setting_type = {setting_type}
    params: SELECT DISTINCT service, setting_type FROM personal WHERE setting_typ IS NOT NULL
  findNothing:
    index: GSI9
    query: {pk: "X"}
    entity: user
    sql: SELECT 1
`

// TestValidatePreparesSQL: with a source, validate lists every problem at
// once: the SQL each engine refuses, located at its field with the
// database's message, with the schema's and the file's own problems.
func TestValidatePreparesSQL(t *testing.T) {
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			dsn := eng.Fresh(t)
			testenv.LoadExample(t, eng.Name, dsn, "../../../examples/personalization")
			m := writeFile(t, "typos.yaml", typos)
			code, out, errOut := remodel(t, "validate", "--source", dsn, "-m", m)
			want := map[string][]string{
				"postgres": {
					`10:12: entities.user.where: the source database refuses it: column "is_activ" does not exist (SQLSTATE 42703); hint: Perhaps you meant to reference the column "users.is_active".`,
					`18:27: entities.personal.attributes.include[1]: table personal has no column "updatd_at" (columns: user_id, service, setting_type, settings, updated_at)`,
					`20:11: entities.ghost.from: no table "ghosts" in the source database (tables: personal, services, subscribe, subscribe_user, users)`,
					`21:9: entities.ghost.pk: unclosed { at offset 6`,
					`27:10: access_patterns.findUser.sql: the source database refuses it: column "user_idd" does not exist (SQLSTATE 42703); hint: Perhaps you meant to reference the column "users.user_id".`,
					`32:17: access_patterns.findPersonal.sql.personal: the source database refuses it: syntax error at or near "FORM" (SQLSTATE 42601)`,
					`33:13: access_patterns.findPersonal.params: the source database refuses it: column "setting_typ" does not exist (SQLSTATE 42703); hint: Perhaps you meant to reference the column "personal.setting_type".`,
					`35:12: access_patterns.findNothing.index: the table has no index "GSI9" (indexes: GSI1)`,
				},
				"mysql": { // MariaDB 10.11's messages
					`10:12: entities.user.where: the source database refuses it: Error 1054 (42S22): Unknown column 'is_activ' in 'WHERE'`,
					`18:27: entities.personal.attributes.include[1]: table personal has no column "updatd_at" (columns: user_id, service, setting_type, settings, updated_at)`,
					`20:11: entities.ghost.from: no table "ghosts" in the source database (tables: personal, services, subscribe, subscribe_user, users)`,
					`21:9: entities.ghost.pk: unclosed { at offset 6`,
					`27:10: access_patterns.findUser.sql: the source database refuses it: Error 1054 (42S22): Unknown column 'user_idd' in 'WHERE'`,
					`32:17: access_patterns.findPersonal.sql.personal: the source database refuses it: Error 1064 (42000): You have an error in your SQL syntax; check the manual that corresponds to your MariaDB server version for the right syntax to use near 'FORM personal WHERE service = ? AND setting_type = ?' at line 1`,
					`33:13: access_patterns.findPersonal.params: the source database refuses it: Error 1054 (42S22): Unknown column 'setting_typ' in 'WHERE'`,
					`35:12: access_patterns.findNothing.index: the table has no index "GSI9" (indexes: GSI1)`,
				},
			}[eng.Name]
			var b strings.Builder
			for _, w := range want {
				b.WriteString("remodel: " + m + ":" + w + "\n")
			}
			if code != exitFailed || out != "" || errOut != b.String() {
				t.Fatalf("exit %d, stdout %q, stderr:\n%s\nwant exit %d and:\n%s", code, out, errOut, exitFailed, b.String())
			}

			// The example itself is valid, every SQL prepared.
			code, out, errOut = remodel(t, "validate", "--source", dsn, "-m", "../../../examples/personalization/mapping.yaml")
			if code != exitOK || !strings.Contains(out, "every where and SQL prepared") {
				t.Fatalf("validate the example: exit %d\n%s%s", code, out, errOut)
			}
			// Its keys are proven distinct on the data as it is (no service
			// or content type holds "#") until a service does.
			if !strings.Contains(out, "key collision check: proven unnecessary on the data checked") ||
				!strings.Contains(out, "proven on the data of the database now (migrate checks its own snapshot again): entity personal: service holds no \"#\";") {
				t.Errorf("validate the example: the key proof on the data is missing:\n%s", out)
			}
			eng.Exec(t, dsn, "INSERT INTO services VALUES ('a#b', 'A', '2024-01-01 00:00:00');\n"+
				"INSERT INTO personal SELECT MIN(user_id), 'a#b', 'x', '{}', '2024-01-01 00:00:00' FROM users;")
			_, out, _ = remodel(t, "validate", "--source", dsn, "-m", "../../../examples/personalization/mapping.yaml")
			if !strings.Contains(out, "key collision check: needed (the table keys are not proven injective)\n  entity personal: service holds \"#\" in a value, and the key needs it not to\n") {
				t.Errorf("validate the example with a \"#\" in a service: \n%s", out)
			}
		})
	}
}

// TestValidateWithoutSource checks what the file says about itself, all at
// once, and the SQL only as far as it parses.
func TestValidateWithoutSource(t *testing.T) {
	t.Setenv("REMODEL_SOURCE", "")
	m := writeFile(t, "typos.yaml", typos)
	code, out, errOut := remodel(t, "validate", "-m", m)
	want := "remodel: " + m + ":21:9: entities.ghost.pk: unclosed { at offset 6\n" +
		"remodel: " + m + `:35:12: access_patterns.findNothing.index: the table has no index "GSI9" (indexes: GSI1)` + "\n"
	if code != exitFailed || out != "" || errOut != want {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s\nwant:\n%s", code, out, errOut, want)
	}
	code, out, errOut = remodel(t, "validate", "-m", "../../../examples/personalization/mapping.yaml")
	// The example's GSI2 gathers every subscription in one partition, and
	// its inverted GSI1 every user, service and subscription (their sort
	// keys are constants), as the article's design does: warnings, not
	// problems, which the mapping acknowledges.
	if code != exitOK || out != "../../../examples/personalization/mapping.yaml: valid on its own (5 entities, 6 access patterns, 4 warnings, all acknowledged); give --source to check it against the database\n" ||
		!strings.Contains(errOut, `mapping.yaml:46:19: warning: entities.subscribe_user.attributes.set.data: data is the constant "SUBSCRIBE_USER"`) {
		t.Fatalf("validate the example: exit %d\n%s%s", code, out, errOut)
	}
}
