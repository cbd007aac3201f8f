package report_test

import (
	"bytes"
	"testing"

	"github.com/remodel-dev/remodel/internal/app/report"
	"github.com/remodel-dev/remodel/internal/testsupport/golden"
)

// validations are hand-built results of remodel validate: a file valid on
// its own with two warnings, one acknowledged; a file checked against a
// PostgreSQL source (valid, a warning, the key collision check needed,
// what --follow and follow-back follow) and a MariaDB one (a problem); a
// file that cannot be read.
func validations() map[string]*report.Validation {
	const file = "shop.yaml"
	hot := report.Issue{File: file, Line: 7, Col: 9, Path: "table.indexes.GSI2.pk", Code: "constant-index-key",
		Message: "index GSI2's partition key is the constant SUBSCRIBE_USER: every item of it is in one partition"}
	acked := report.Issue{File: file, Line: 12, Col: 5, Path: "entities.order.sk", Code: "sparse-when",
		Message: "index GSI1's sort key is written only when status = 'OPEN'", Acknowledged: "only open orders are listed", AcknowledgedAt: 30}
	return map[string]*report.Validation{
		"own": {Version: report.ValidationVersion, Mapping: file, Entities: 3, AccessPatterns: 4, Valid: true,
			Checks: []*report.ValidationCheck{{Valid: true, Warnings: []report.Issue{hot, acked}}}},
		"sources": {Version: report.ValidationVersion, Mapping: file, Entities: 3, AccessPatterns: 4, Strict: true,
			Checks: []*report.ValidationCheck{
				{Engine: "postgres", Database: "shop", Valid: true, Warnings: []report.Issue{acked},
					KeyCheck:   &report.KeyCheck{Needed: true, Text: "key collision check: needed (the table keys are not proven injective)\n  entity order: the key column id is not in the key (ORDER#{number})"},
					Follow:     "migrate --follow: every entity is followed row by row (order, customer, item)",
					FollowBack: "follow-back: every entity is written back (order, customer, item)"},
				{Engine: "mysql", Database: "shop", Problems: []report.Issue{{File: file, Line: 20, Col: 12, Path: "access_patterns.byK.sql", Message: "unterminated ' quote at offset 44"}}},
			}},
		"unreadable": {Version: report.ValidationVersion, Mapping: "missing.yaml", Checks: []*report.ValidationCheck{},
			Error: "mapping: reading missing.yaml: open missing.yaml: no such file or directory"},
	}
}

// TestValidationGolden pins what validate prints: its report in text
// (stdout) and JSON (--output json), and its warning lines (stderr).
func TestValidationGolden(t *testing.T) {
	for name, v := range validations() {
		for f, ext := range map[report.Format]string{report.Text: "txt", report.JSON: "json"} {
			var b bytes.Buffer
			if err := report.Write(&b, f, v); err != nil {
				t.Fatalf("%s as %s: %v", name, f, err)
			}
			golden.Check(t, "validate."+name+".golden."+ext, b.Bytes())
		}
		var b bytes.Buffer
		if err := report.WriteValidationWarnings(&b, v); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, "validate."+name+".warnings.golden.txt", b.Bytes())
	}
}
