package document_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/testsupport/golden"
)

// TestDocumentLinksLibraryFiles writes the personalization example's
// document with two data library files (preview --document --export): the
// section Data library files lists each by its path relative to the
// document (a folder beside it, the document's own folder), which leads to
// the file written, the same as export --output FORMAT prints, with what
// the format leaves out; the format not written gets its export command
// (golden file). The HTML links the same paths. Without --export every
// format gets its command (TestPersonalizationMarkdown's golden files).
func TestDocumentLinksLibraryFiles(t *testing.T) {
	dsn, db := personalization(t, "postgres")
	const mappingFile = "../../../examples/personalization/mapping.yaml"
	dir := t.TempDir()
	for _, d := range []string{"docs", "app"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		"electrodb":    filepath.Join(dir, "app", "model.ts"),
		"dynamodb-mcp": filepath.Join(dir, "docs", "schema.json"),
	}
	links := map[string]string{"electrodb": "../app/model.ts", "dynamodb-mcp": "schema.json"}
	for _, ext := range []string{".md", ".html"} {
		doc := filepath.Join(dir, "docs", "design"+ext)
		code, out := remodel(t, "preview", "--source", dsn, "-m", mappingFile, "--document", doc,
			"--export", "electrodb="+files["electrodb"], "--export", "dynamodb-mcp="+files["dynamodb-mcp"])
		if code != 0 {
			t.Fatalf("preview --document --export: exit %d\n%s", code, out)
		}
		for format, path := range files {
			if !strings.Contains(out, "wrote "+path+" ("+format+")\n") {
				t.Errorf("preview does not say it wrote %s:\n%s", path, out)
			}
			if format == "dynamodb-mcp" && !strings.Contains(out, "remodel: preview --export dynamodb-mcp: not expressed: ") {
				t.Errorf("preview does not print what dynamodb-mcp leaves out:\n%s", out)
			}
		}
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for format, link := range links {
			// The link leads from the document's folder to the file written,
			// which holds what export --output FORMAT prints.
			written, err := os.ReadFile(filepath.Join(filepath.Dir(doc), filepath.FromSlash(link)))
			if err != nil {
				t.Errorf("%s: the document's link %s leads to no file: %v", format, link, err)
				continue
			}
			code, exported := remodel(t, "export", "--source", dsn, "-m", mappingFile, "--output", format)
			if code != 0 || !strings.Contains(exported, string(written)) {
				t.Errorf("%s: the file written is not what export --output %s prints (exit %d)", format, format, code)
			}
			want := "| " + format + " | [" + link + "](" + link + ") |"
			if ext == ".html" {
				want = "<td>" + format + "</td><td><a href=\"" + link + "\">" + link + "</a></td>"
			}
			if !bytes.Contains(b, []byte(want)) {
				t.Errorf("%s does not link %s as %q", doc, format, want)
			}
		}
		if ext == ".md" {
			section := b[bytes.Index(b, []byte("## Data library files")):]
			golden.Check(t, "personalization.library.md", bytes.ReplaceAll(section, []byte(db), []byte("DB")))
		}
	}
}
