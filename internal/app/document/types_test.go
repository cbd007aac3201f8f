package document_test

import (
	"bytes"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/testsupport/golden"

	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

// typedGameProfile is the game-profile example's mapping with the
// account's opened_at typed unixms (typed true) or as it is.
func typedGameProfile(t *testing.T, typed bool) string {
	const path, at = "../../../examples/game-profile/mapping.yaml", "      rename: {acc_id: ACC_ID, balance: BAL, opened_at: OPENED_AT}\n"
	if !typed {
		return path
	}
	return testenv.EditedFile(t, path, at, at+"      types: {opened_at: unixms}\n")
}

// TestGameProfileTypesAndEmbeds renders the document of the game-profile
// example (a user's servers embedded in its item) on both engines, with
// the account's opened_at typed unixms: the attribute table shows the type
// (N, "as unixms") and the embedded attribute (L, its child table, order
// and elements); the golden file holds it. Without the type, OPENED_AT is
// S.
func TestGameProfileTypesAndEmbeds(t *testing.T) {
	for _, engine := range []string{"postgres", "mysql"} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			var dsn string
			if engine == "postgres" {
				dsn = testenv.Postgres(t)
			} else {
				dsn = testenv.MySQL(t)
			}
			testenv.LoadExample(t, engine, dsn, "../../../examples/game-profile")
			u, err := url.Parse(dsn)
			if err != nil {
				t.Fatal(err)
			}
			db := strings.TrimPrefix(u.Path, "/")
			render := func(typed bool) []byte {
				path := filepath.Join(t.TempDir(), "game-profile.md")
				code, out := remodel(t, "preview", "--source", dsn, "-m", typedGameProfile(t, typed), "--partitions", "6", "--document", path)
				if code != 0 {
					t.Fatalf("preview --document: exit %d\n%s", code, out)
				}
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				return bytes.ReplaceAll(b, []byte(db), []byte("DB"))
			}
			typed, plain := render(true), render(false)
			for _, want := range []string{
				"| OPENED_AT | N | column opened_at as unixms |",
				"| INIT_SERVER | L | rows of table " + tableName(engine, "user_servers") + " (user_id), ordered by first_at, user_id, srv_id |",
				"a list of maps {server_id ← srv_id, region}",
			} {
				if !bytes.Contains(typed, []byte(want)) {
					t.Errorf("the typed document has no %q", want)
				}
			}
			if want := "| OPENED_AT | S | column opened_at |"; !bytes.Contains(plain, []byte(want)) {
				t.Errorf("the document without the type has no %q", want)
			}
			golden.Check(t, "game-profile.typed."+engine+".md", typed)
		})
	}
}

// tableName is how the document names a table of the example.
func tableName(engine, name string) string {
	if engine == "postgres" {
		return "public." + name
	}
	return "DB." + name
}
