package migrate_test

import (
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/app/report"

	"github.com/remodel-dev/remodel/migrate"
)

// TestReportPartialText: a failed run without a checkpoint says what to do
// next; one that wrote nothing into an empty table does not ask for
// --allow-non-empty, which the next run would not need.
func TestReportPartialText(t *testing.T) {
	for _, tc := range []struct {
		name          string
		written, held int64
		want, not     string
	}{
		{"nothing written", 0, 0, "  nothing was written: the table holds no item of this run; migrate again once the cause is removed\n", "--allow-non-empty"},
		{"some written", 5, 0, "  the table is partial: 5 items were written before the run stopped; migrate again with --allow-non-empty", "nothing was written"},
		{"nothing written into a table that held items", 0, 7, "  the table is partial: 0 items were written before the run stopped; migrate again with --allow-non-empty", "nothing was written"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &migrate.Report{Engine: "postgres", Table: "t", Error: "too many rejected rows", Partial: true, ItemsWritten: tc.written, ItemsBefore: tc.held}
			var b strings.Builder
			report.Write(&b, report.Text, r)
			if !strings.Contains(b.String(), tc.want) || strings.Contains(b.String(), tc.not) {
				t.Errorf("report:\n%s\nwant %q, not %q", b.String(), tc.want, tc.not)
			}
		})
	}
}

// TestReportTableGoneText: a run whose table was deleted while it wrote
// says that the table is gone with every item of the run, those whose
// requests got no answer too, and never that the table holds some of
// them or that --resume writes them again.
func TestReportTableGoneText(t *testing.T) {
	r := &migrate.Report{Engine: "postgres", Table: "t", Error: "ResourceNotFoundException", Partial: true, TableGone: true, ItemsWritten: 1000, ItemsUnknown: 200, Checkpoint: "c.json"}
	var b strings.Builder
	report.Write(&b, report.Text, r)
	text := b.String()
	for _, want := range []string{"the table is gone", "the 1000 items it had acknowledged went with it, and so did the 200 whose requests got no answer"} {
		if !strings.Contains(text, want) {
			t.Errorf("report:\n%s\nwant %q", text, want)
		}
	}
	for _, not := range []string{"more items written or not", "the table holds between", "--resume writes them again", "the table is partial"} {
		if strings.Contains(text, not) {
			t.Errorf("report:\n%s\nsays %q", text, not)
		}
	}
}
