package cli

import "testing"

// TestDocumentAndExportUsage: a --document file of another kind, an
// unknown export format, and a preview --export without --document, without
// a file, of another format, given twice or writing the document's file are
// usage errors, found before the source is opened.
func TestDocumentAndExportUsage(t *testing.T) {
	t.Setenv("REMODEL_SOURCE", "")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"preview", "--source", "postgres://127.0.0.1:1/x", "--document", "design.pdf"},
			"remodel: --document design.pdf: the file must end in .md (Markdown) or .html (one self-contained HTML file), or be - for Markdown on stdout\n"},
		{[]string{"preview", "--source", "postgres://127.0.0.1:1/x", "--export", "electrodb=model.ts"},
			"remodel: --export is for the modeling document: give --document FILE too\n"},
		{[]string{"preview", "--source", "postgres://127.0.0.1:1/x", "--document", "d.md", "--export", "electrodb"},
			"remodel: --export electrodb: give FORMAT=FILE (the file is linked from the document, so it is not stdout)\n"},
		{[]string{"preview", "--source", "postgres://127.0.0.1:1/x", "--document", "d.md", "--export", "cloudformation=t.json"},
			"remodel: --export cloudformation=t.json: unknown format \"cloudformation\" (electrodb, onetable or dynamodb-mcp)\n"},
		{[]string{"preview", "--source", "postgres://127.0.0.1:1/x", "--document", "d.md", "--export", "onetable=a.json", "--export", "onetable=b.json"},
			"remodel: --export onetable=b.json: format onetable is given twice\n"},
		{[]string{"preview", "--source", "postgres://127.0.0.1:1/x", "--document", "d.md", "--export", "onetable=./d.md"},
			"remodel: --document and --export onetable name the same file (d.md = ./d.md): choose two different files\n"},
		{[]string{"export", "--output", "cfn"}, "remodel: --output must be workbench, cloudformation, terraform, electrodb, onetable or dynamodb-mcp, got \"cfn\"\n"},
		{[]string{"export", "--output", "workbench", "--rows", "0"}, "remodel: --rows must be at least 1, got 0\n"},
		{[]string{"export", "-m", "../../../examples/personalization/mapping.yaml", "--output", "workbench"}, "remodel: no source: --output workbench takes its sample items from the source's rows: give --source DSN or set REMODEL_SOURCE (cloudformation and terraform need none)\n"},
	} {
		code, out, errOut := remodel(t, c.args...)
		if code != exitUsage || out != "" || errOut != c.want {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %d and %q", c.args, code, out, errOut, exitUsage, c.want)
		}
	}
}

// TestRelativeTo: the document links a data library file by its path from
// the document's folder (the working directory for -), with / separators.
func TestRelativeTo(t *testing.T) {
	for _, c := range []struct{ doc, path, want string }{
		{"design.md", "model.ts", "model.ts"},
		{"docs/design.md", "docs/schema.json", "schema.json"},
		{"docs/design.html", "app/src/model.ts", "../app/src/model.ts"},
		{"-", "app/model.ts", "app/model.ts"},
		{"/srv/docs/design.md", "/srv/app/model.ts", "../app/model.ts"},
	} {
		if got := relativeTo(c.doc, c.path); got != c.want {
			t.Errorf("relativeTo(%q, %q) = %q, want %q", c.doc, c.path, got, c.want)
		}
	}
}
