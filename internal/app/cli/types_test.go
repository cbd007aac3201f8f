package cli

import (
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// typedTypos types columns of the personalization example with types that
// cannot hold them, and one that differs from the index key it feeds.
const typedTypos = `version: 1
table:
  name: personalization
  key: {pk: PK, sk: SK}
  indexes:
    - {name: ByEmail, pk: email}
entities:
  user:
    from: users
    pk: "USER#{user_id}"
    sk: "USER#"
    attributes:
      types: {created_at: BOOL, is_active: NS, email: N, name: unixms, user_id: S}
  personal:
    from: personal
    pk: "USER#{user_id}"
    sk: "PERSONAL#{service}#{setting_type}"
    attributes:
      types: {settings: M, updated_at: unix, service: SS}
`

// TestValidateTypes: validate --source names the column's real type where a
// per-column type cannot hold it, on both engines, with every problem at its
// file:line:col; without a source it still finds the type that differs
// from the index key's.
func TestValidateTypes(t *testing.T) {
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			dsn := eng.Fresh(t)
			testenv.LoadExample(t, eng.Name, dsn, "../../../examples/personalization")
			m := writeFile(t, "types.yaml", typedTypos)
			code, out, errOut := remodel(t, "validate", "--source", dsn, "-m", m)
			want := map[string][]string{
				"postgres": {
					`13:27: entities.user.attributes.types.created_at: type BOOL cannot hold column created_at, which is timestamp(0) with time zone (timestamptz): BOOL takes a boolean, integer (0 or 1) or text column (true/false, t/f, yes/no, y/n, 1/0)`,
					`13:44: entities.user.attributes.types.is_active: type NS cannot hold column is_active, which is boolean (bool): NS takes an array of integers, decimals or floats`,
					`13:55: entities.user.attributes.types.email: type N makes attribute email a number (N), but it is an index key of type S`,
					`13:64: entities.user.attributes.types.name: type unixms cannot hold column name, which is character varying(100) (string): unixms takes a date or timestamp column`,
					`19:55: entities.personal.attributes.types.service: type SS cannot hold column service, which is character varying(32) (string): SS takes a MySQL SET or an array of text`,
				},
				"mysql": {
					`13:27: entities.user.attributes.types.created_at: type BOOL cannot hold column created_at, which is timestamp (timestamptz): BOOL takes a boolean, integer (0 or 1) or text column (true/false, t/f, yes/no, y/n, 1/0)`,
					`13:44: entities.user.attributes.types.is_active: type NS cannot hold column is_active, which is tinyint(1) (bool): NS takes an array of integers, decimals or floats`,
					`13:55: entities.user.attributes.types.email: type N makes attribute email a number (N), but it is an index key of type S`,
					`13:64: entities.user.attributes.types.name: type unixms cannot hold column name, which is varchar(100) (string): unixms takes a date or timestamp column`,
					`19:55: entities.personal.attributes.types.service: type SS cannot hold column service, which is varchar(32) (string): SS takes a MySQL SET or an array of text`,
				},
			}[eng.Name]
			var b strings.Builder
			for _, w := range want {
				b.WriteString("remodel: " + m + ":" + w + "\n")
			}
			if code != exitFailed || out != "" || errOut != b.String() {
				t.Fatalf("exit %d, stdout %q, stderr:\n%s\nwant exit %d and:\n%s", code, out, errOut, exitFailed, b.String())
			}
		})
	}
	t.Run("without a source", func(t *testing.T) {
		t.Setenv("REMODEL_SOURCE", "")
		m := writeFile(t, "types.yaml", typedTypos)
		code, out, errOut := remodel(t, "validate", "-m", m)
		want := "remodel: " + m + ":13:55: entities.user.attributes.types.email: type N makes attribute email a number (N), but it is an index key of type S\n"
		if code != exitFailed || out != "" || errOut != want {
			t.Fatalf("exit %d, stdout %q, stderr:\n%s\nwant:\n%s", code, out, errOut, want)
		}
	})
}
