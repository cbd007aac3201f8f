package migrate_test

import (
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/app/report"

	"github.com/remodel-dev/remodel/migrate"
)

// TestReportResumeHintTable: the resume hints of a partial run and of a
// followed one repeat --table when the run was given it (without it,
// migrate --resume would look for the mapping's table.name), and say
// nothing of it otherwise.
func TestReportResumeHintTable(t *testing.T) {
	for _, tc := range []struct {
		name, flag string
		follow     bool
		want, not  string
	}{
		{name: "partial, --table given", flag: "orders_v2",
			want: "migrate --resume --checkpoint c.json --table orders_v2 continues from there"},
		{name: "partial, the mapping's table", want: "migrate --resume --checkpoint c.json continues from there", not: "--table"},
		{name: "followed, --table given", flag: "orders_v2", follow: true,
			want: "migrate --follow --resume --checkpoint c.json --table orders_v2 goes on from there"},
		{name: "followed, the mapping's table", follow: true, want: "migrate --follow --resume --checkpoint c.json goes on from there", not: "--table"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &migrate.Report{Engine: "postgres", Table: "orders", TableFlag: tc.flag, Checkpoint: "c.json", Error: "boom", ItemsWritten: 5}
			if tc.follow {
				r.Follow = &migrate.FollowReport{Slot: "s", Publication: "p"}
			} else {
				r.Partial = true
			}
			var b strings.Builder
			report.Write(&b, report.Text, r)
			if !strings.Contains(b.String(), tc.want) || (tc.not != "" && strings.Contains(b.String(), tc.not)) {
				t.Errorf("report:\n%s\nwant %q, not %q", b.String(), tc.want, tc.not)
			}
		})
	}
}
