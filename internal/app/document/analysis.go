package document

import (
	"html/template"

	"github.com/remodel-dev/remodel/internal/app/report"
	"github.com/remodel-dev/remodel/internal/domain/analyze"
)

// AddAnalysis adds the analysis of every row (package analyze's report) to
// the document as two sections, "Analysis" and "Cost", in both formats:
// the blocks package report renders the text report from too. The HTML
// sections start with their charts: the heaviest partitions of the table
// and each index and the item sizes (Analysis), the load by route and the
// access patterns' month (Cost).
func (d *Document) AddAnalysis(r *analyze.Report) {
	analysisCharts := figure(partitionsSVG(r), "The heaviest partitions of the table and of each index, as a share of its write units (0 to 100 %; red: one that stands out, dashed: the mean partition's share).") +
		figure(sizesSVG(r), "Item sizes of each entity, in bytes as DynamoDB counts them.")
	costCharts := figure(costSVG(r), "The cost of loading every item by each route (green: the cheapest), and of a month of each access pattern whose rate was given.")
	for _, s := range []struct {
		id, title string
		charts    template.HTML
		blocks    []report.Block
	}{
		{"analysis", "Analysis", analysisCharts, report.AnalysisBlocks(r)},
		{"cost", "Cost", costCharts, report.CostBlocks(r)},
	} {
		d.AddSection(Section{ID: s.id, Title: s.title, Markdown: report.BlocksMarkdown(s.blocks), HTML: s.charts + report.BlocksHTML(s.blocks)})
	}
}

// figure wraps a chart with its caption; "" for no chart.
func figure(svg template.HTML, caption string) template.HTML {
	if svg == "" {
		return ""
	}
	return `<figure class="chart-figure">` + svg + `<figcaption>` + template.HTML(esc(caption)) + `</figcaption></figure>` + "\n"
}
