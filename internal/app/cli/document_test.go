package cli

import "testing"

// TestDocumentAndExportUsage: a --document file of another kind and an
// unknown export format are usage errors, found before the source is
// opened.
func TestDocumentAndExportUsage(t *testing.T) {
	t.Setenv("REMODEL_SOURCE", "")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"preview", "--source", "postgres://127.0.0.1:1/x", "--document", "design.pdf"},
			"remodel: --document design.pdf: the file must end in .md (Markdown) or .html (one self-contained HTML file), or be - for Markdown on stdout\n"},
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
