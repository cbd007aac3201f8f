package analyze_test

import (
	"strings"
	"testing"

	"github.com/remodel-dev/remodel/internal/app/report"
	"github.com/remodel-dev/remodel/internal/domain/analyze"
)

// TestLargestPartitionBound: where no partition stands out, the analysis
// names the largest; when the summary that counts partitions may overstate
// it (Space-Saving's error), the count is printed as the upper bound it is,
// with the count the partition surely has, never as a fact (issue 33 §1.5:
// "EMPLOYEES#0000499902 holds 3630 items" for 22 rows). An exact count is
// printed as it is.
func TestLargestPartitionBound(t *testing.T) {
	text := func(p analyze.Partition) string {
		r := &analyze.Report{Indexes: []analyze.IndexStats{{Name: "t", Kind: "table", PK: "PK", Items: 100000,
			Partitions: 30000, Estimated: true, MeanItems: 3.3, ByItems: []analyze.Partition{p}}}}
		var b strings.Builder
		for _, bl := range report.AnalysisBlocks(r) {
			b.WriteString(bl.Para + "\n")
		}
		return b.String()
	}
	got := text(analyze.Partition{Key: "EMPLOYEES#0000499902", Weight: 3630, Error: 3608, Share: 0.0363})
	for _, want := range []string{"the largest, EMPLOYEES#0000499902, holds at most 3630 items", "at least 22", "overstate it by up to 3608"} {
		if !strings.Contains(got, want) {
			t.Errorf("the analysis says:\n%s\nwant %q in it", got, want)
		}
	}
	if strings.Contains(got, "holds 3630 items") {
		t.Errorf("the analysis states the overstated count as a fact:\n%s", got)
	}
	got = text(analyze.Partition{Key: "EMPLOYEES#0000010001", Weight: 22, Share: 0.00022})
	if !strings.Contains(got, "the largest, EMPLOYEES#0000010001, holds 22 items (") || strings.Contains(got, "at most") {
		t.Errorf("an exact count is printed as it is; the analysis says:\n%s", got)
	}
}
