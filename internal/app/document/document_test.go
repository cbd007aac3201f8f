package document_test

import (
	"bytes"
	"context"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/testsupport/golden"

	"github.com/remodel-dev/remodel/internal/app/cli"
	"github.com/remodel-dev/remodel/internal/testsupport/testenv"
)

func remodel(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var out bytes.Buffer
	code := cli.Run(context.Background(), args, strings.NewReader(""), &out, &out)
	return code, out.String()
}

// personalization loads the personalization example into a fresh database
// of the engine and returns its DSN and the database's name.
func personalization(t *testing.T, engine string) (dsn, db string) {
	t.Helper()
	if engine == "postgres" {
		dsn = testenv.Postgres(t)
	} else {
		dsn = testenv.MySQL(t)
	}
	testenv.LoadExample(t, engine, dsn, "../../../examples/personalization")
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return dsn, strings.TrimPrefix(u.Path, "/")
}

// writeDocument runs remodel preview --document (with more flags, such as
// --analyze) into a file of the given extension and returns the file's
// content.
func writeDocument(t *testing.T, dsn, ext string, partitions string, more ...string) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "personalization"+ext)
	args := append([]string{"preview", "--source", dsn, "-m", "../../../examples/personalization/mapping.yaml", "--partitions", partitions, "--document", path}, more...)
	code, out := remodel(t, args...)
	if code != 0 {
		t.Fatalf("preview --document: exit %d\n%s", code, out)
	}
	// The analysis may print a progress line on stderr first (every 5s).
	if !strings.Contains(out, "wrote the modeling document "+path) {
		t.Errorf("preview --document printed %q", out)
	}
	if slices.Contains(more, "--analyze") && !strings.Contains(out, "; the analysis and cost of every row)\n") {
		t.Errorf("preview --document --analyze printed %q", out)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestPersonalizationMarkdown renders the document of the personalization
// example on a real source of each engine and compares it with its golden
// file (the database's unique name replaced by DB).
func TestPersonalizationMarkdown(t *testing.T) {
	for _, engine := range []string{"postgres", "mysql"} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			dsn, db := personalization(t, engine)
			md := writeDocument(t, dsn, ".md", "3")
			// The ERD is the diagram introspect --output mermaid prints
			// (whose tests read it back with Mermaid's own parser).
			code, mmd := remodel(t, "introspect", "--source", dsn, "--output", "mermaid")
			if code != 0 || !bytes.Contains(md, []byte("```mermaid\n"+mmd+"```\n")) {
				t.Errorf("the document's ERD is not the mermaid block of introspect (exit %d):\n%s", code, mmd)
			}
			md = bytes.ReplaceAll(md, []byte(db), []byte("DB"))
			golden.Check(t, "personalization."+engine+".md", md)
		})
	}
}

// TestChosenCollections: --partition chooses the item collections the
// example data shows: every item of every entity in them, and no other
// partition of the table.
func TestChosenCollections(t *testing.T) {
	dsn, _ := personalization(t, "postgres")
	md := string(writeDocument(t, dsn, ".md", "3", "--partition", "USER#2", "--partition", "SERVICE#mail"))
	table := md[strings.Index(md, "### table personalization"):strings.Index(md, "### global index GSI1")]
	for _, want := range []string{
		"the item collections of `USER#2`, `SERVICE#mail` (every item with that partition key, of every entity, among the first 10000 rows of each)",
		"| **SERVICE#mail** | SERVICE# | service |",
		"| **USER#2** | PERSONAL#",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the document lacks %q", want)
		}
	}
	if !strings.Contains(table, "| USER# | user |") || !strings.Contains(table, "| subscribe_user |") {
		t.Errorf("USER#2's collection lacks its user or its subscriptions:\n%s", table)
	}
	if n := strings.Count(table, "| **"); n != 2 {
		t.Errorf("the table's grid shows %d partitions, want the 2 chosen:\n%s", n, table)
	}
}
