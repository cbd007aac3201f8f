package document

import (
	"github.com/remodel-dev/remodel/internal/app/report"
	"github.com/remodel-dev/remodel/internal/domain/analyze"
)

// AddAnalysis adds the analysis of every row (package analyze's report) to
// the document as two sections, "Analysis" and "Cost", in both formats:
// the blocks package report renders the text report from too.
func (d *Document) AddAnalysis(r *analyze.Report) {
	for _, s := range []struct {
		id, title string
		blocks    []report.Block
	}{
		{"analysis", "Analysis", report.AnalysisBlocks(r)},
		{"cost", "Cost", report.CostBlocks(r)},
	} {
		d.AddSection(Section{ID: s.id, Title: s.title, Markdown: report.BlocksMarkdown(s.blocks), HTML: report.BlocksHTML(s.blocks)})
	}
}
