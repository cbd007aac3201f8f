package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// TestValidateEmbedWhere: validate --source prepares an embed's where on
// its child table and reports a refusal at its field, beside the embed's
// other problems.
func TestValidateEmbedWhere(t *testing.T) {
	for _, eng := range testenv.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			dsn := eng.Fresh(t)
			schema, err := os.ReadFile(filepath.Join("..", "..", "..", "examples", "game-profile", "schema."+eng.Name+".sql"))
			if err != nil {
				t.Fatal(err)
			}
			eng.Exec(t, dsn, string(schema))
			m := writeFile(t, "embed.yaml", `version: 1
table: {name: game, key: {pk: PK, sk: SK}}
entities:
  user:
    from: users
    pk: "USER#{user_id}"
    sk: USER
    embed:
      servers: {from: user_servers, where: "regoin = 'SEOUL'", order_by: first_at}
      accounts: {from: accounts, order_by: [balance desc, nope]}
`)
			code, out, errOut := remodel(t, "validate", "--source", dsn, "-m", m)
			if code != exitFailed || out != "" {
				t.Fatalf("validate: exit %d, stdout %q", code, out)
			}
			refusal := map[string]string{
				"postgres": `column "regoin" does not exist (SQLSTATE 42703)`,
				"mysql":    `Error 1054 (42S22): Unknown column 'regoin' in 'WHERE'`,
			}[eng.Name]
			for _, want := range []string{
				m + ":9:44: entities.user.embed.servers.where: the source database refuses it: " + refusal,
				m + ":10:59: entities.user.embed.accounts.order_by[1]: table accounts has no column \"nope\" (columns: acc_id, user_id, balance, opened_at)",
			} {
				if !strings.Contains(errOut, want) {
					t.Errorf("validate does not say\n%s\nit says\n%s", want, errOut)
				}
			}
		})
	}
}
