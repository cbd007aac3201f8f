package document

import (
	"fmt"
	"html/template"
	"math"

	"github.com/remodel-dev/remodel/internal/domain/analyze"
)

// The analysis drawn: the weight of the heaviest partitions of the table
// and of each index on one scale (a share of all its write units, 0 to
// 100 %), the item sizes of each entity, and the cost of the load by each
// route and of a month of each access pattern.

const (
	chartWidth = 760.0
	chartLabel = 230.0 // the labels' column
	chartBar   = 16.0
	chartRow   = 22.0
	chartFont  = 12.0
	chartShown = 6 // partitions drawn per table or index
)

// partitionsSVG draws, for the table and each index, its heaviest
// partitions by write units as bars on a 0–100 % scale of the index's
// writes, the mean partition's share as a dashed line; a partition that
// stands out is red.
func partitionsSVG(r *analyze.Report) template.HTML {
	if len(r.Indexes) == 0 {
		return ""
	}
	var s svgDoc
	barW := chartWidth - chartLabel - 120
	y := 4.0
	for _, ix := range r.Indexes {
		title := fmt.Sprintf("%s (%s): %s, %s", ix.Name, ix.Kind, plural64(ix.Partitions, "partition"), plural64(ix.Items, "item"))
		if ix.Estimated {
			title = fmt.Sprintf("%s (%s): about %s, %s", ix.Name, ix.Kind, plural64(ix.Partitions, "partition"), plural64(ix.Items, "item"))
		}
		s.text(0, y+14, chartFont+1, "chart-title", "", title, chartWidth)
		y += 22
		s.f(`<g class="chart-index" data-index="%s">`, esc(ix.Name))
		top := ix.ByWriteUnits
		if len(top) > chartShown {
			top = top[:chartShown]
		}
		if len(top) == 0 {
			s.text(chartLabel, y+12, chartFont, "muted", "", "no item has this index's key", barW)
			y += chartRow
		}
		y0 := y
		for _, p := range top {
			cls := "bar"
			if p.StandsOut {
				cls = "bar hot"
			}
			s.f(`<g class="partition"><title>%s</title>`, esc(fmt.Sprintf("%s: %d write units, %.1f %% of %s's (%s)", p.Key, p.Weight, 100*p.Share, ix.Name, p.Entity)))
			s.text(chartLabel-8, y+12, chartFont, "label", "end", p.Key, chartLabel-8)
			s.rect(chartLabel, y+2, barW, chartBar, "track", "")
			s.rect(chartLabel, y+2, math.Max(1, barW*p.Share), chartBar, cls, "")
			s.text(chartLabel+barW+6, y+14, chartFont, "value", "", fmt.Sprintf("%.1f %%", 100*p.Share), 110)
			s.f(`</g>`)
			y += chartRow
		}
		if ix.Partitions > 0 && len(top) > 0 {
			mx := chartLabel + barW/float64(ix.Partitions)
			s.f(`<line x1="%s" y1="%s" x2="%s" y2="%s" class="mean"/>`, num(mx), num(y0), num(mx), num(y))
			label := fmt.Sprintf("mean partition %.2f %%", 100/float64(ix.Partitions))
			if mx > chartLabel+barW/2 {
				s.text(mx-3, y+10, chartFont-2, "muted", "end", label, 200)
			} else {
				s.text(mx+3, y+10, chartFont-2, "muted", "", label, 200)
			}
			y += 14
		}
		s.f(`</g>`)
		y += 8
	}
	return s.wrap("chart partitions-chart", "The heaviest partitions of the table and of each index, by write units", chartWidth, y)
}

// sizesSVG draws each entity's item sizes: the median as a bar, the 99th
// percentile as its lighter extension, the largest as a tick, on one
// linear scale.
func sizesSVG(r *analyze.Report) template.HTML {
	var rows []analyze.EntityStats
	top := 0.0
	for _, e := range r.Entities {
		if e.Sizes.Items > 0 {
			rows = append(rows, e)
			top = math.Max(top, float64(e.Sizes.Max))
		}
	}
	if len(rows) == 0 || top == 0 {
		return ""
	}
	var s svgDoc
	barW := chartWidth - chartLabel - 200
	scale := func(v int64) float64 { return math.Max(1, barW*float64(v)/top) }
	y := 4.0
	s.rect(chartLabel, y+3, 12, 10, "bar", "")
	s.text(chartLabel+16, y+12, chartFont-1, "muted", "", "median", 60)
	s.rect(chartLabel+70, y+3, 12, 10, "bar light", "")
	s.text(chartLabel+86, y+12, chartFont-1, "muted", "", "99th percentile", 110)
	s.f(`<line x1="%s" y1="%s" x2="%s" y2="%s" class="tick"/>`, num(chartLabel+200), num(y+1), num(chartLabel+200), num(y+15))
	s.text(chartLabel+206, y+12, chartFont-1, "muted", "", "largest", 80)
	y += 20
	for _, e := range rows {
		z := e.Sizes
		s.f(`<g class="entity-size" data-entity="%s"><title>%s</title>`, esc(e.Name),
			esc(fmt.Sprintf("%s: %d items, mean %s, median %s, 99th percentile %s, largest %s", e.Name, z.Items, bytesText(z.Mean), bytesText(float64(z.P50)), bytesText(float64(z.P99)), bytesText(float64(z.Max)))))
		s.text(chartLabel-8, y+12, chartFont, "label", "end", e.Name, chartLabel-8)
		s.rect(chartLabel, y+2, scale(z.P99), chartBar, "bar light", "")
		s.rect(chartLabel, y+2, scale(z.P50), chartBar, "bar", "")
		mx := chartLabel + scale(z.Max)
		s.f(`<line x1="%s" y1="%s" x2="%s" y2="%s" class="tick"/>`, num(mx), num(y), num(mx), num(y+chartBar+4))
		s.text(chartLabel+barW+10, y+14, chartFont, "value", "", fmt.Sprintf("%s · %s · %s", bytesText(float64(z.P50)), bytesText(float64(z.P99)), bytesText(float64(z.Max))), 190)
		s.f(`</g>`)
		y += chartRow
	}
	return s.wrap("chart sizes-chart", "Item sizes of each entity", chartWidth, y+4)
}

// costSVG draws the load's cost by each route (the cheapest green) and a
// month of each priced access pattern, on-demand.
func costSVG(r *analyze.Report) template.HTML {
	c := r.Cost
	type bar struct {
		label, note string
		v           float64
		cheapest    bool
	}
	routes := []bar{
		{"on-demand writes", fmt.Sprintf("%d write request units", r.Totals.WriteUnits), c.Load.OnDemand, false},
		{"provisioned writes", fmt.Sprintf("%d WCU for %s", c.Load.ProvisionedWCU, plural64(c.Load.ProvisionedHours, "started hour")), c.Load.Provisioned, false},
		{"S3 import", fmt.Sprintf("%.3f GB", c.Load.ImportGB), c.Load.Import, false},
	}
	if c.Load.BulkPut != nil {
		routes = append(routes, bar{"S3 bulk put", fmt.Sprintf("%.3f GB", c.Load.BulkPutGB), *c.Load.BulkPut, false})
	}
	low := 0
	for i, b := range routes {
		if b.v < routes[low].v {
			low = i
		}
	}
	routes[low].cheapest = true
	var traffic []bar
	for _, t := range c.Traffic {
		traffic = append(traffic, bar{t.Pattern, fmt.Sprintf("%g a second, %.1f read units a query", t.PerSecond, t.ReadUnits), t.OnDemand, false})
	}
	var s svgDoc
	barW := chartWidth - chartLabel - 190
	y := 4.0
	draw := func(title string, bars []bar, class string) {
		s.text(0, y+14, chartFont+1, "chart-title", "", title, chartWidth)
		y += 22
		top := 0.0
		for _, b := range bars {
			top = math.Max(top, b.v)
		}
		for _, b := range bars {
			cls := "bar"
			if b.cheapest {
				cls = "bar good"
			}
			w := 3.0
			if top > 0 {
				w = math.Max(3, barW*b.v/top)
			}
			value := analyze.Money(b.v) + " " + c.Prices.Currency
			if b.cheapest {
				value += ", the cheapest"
			}
			s.f(`<g class="%s"><title>%s</title>`, class, esc(fmt.Sprintf("%s: %s %s (%s)", b.label, analyze.Money(b.v), c.Prices.Currency, b.note)))
			s.text(chartLabel-8, y+12, chartFont, "label", "end", b.label, chartLabel-8)
			s.rect(chartLabel, y+2, w, chartBar, cls, "")
			s.text(chartLabel+w+6, y+14, chartFont, "value", "", value, 170)
			s.f(`</g>`)
			y += chartRow
		}
		y += 8
	}
	draw(fmt.Sprintf("Loading every item, by route (%s, %s, prices of %s)", c.Prices.Currency, c.Prices.Region, c.Prices.Date), routes, "route")
	if len(traffic) > 0 {
		draw("A month of each access pattern, on-demand reads", traffic, "traffic")
	}
	return s.wrap("chart cost-chart", "The cost of the load by route and of the access patterns", chartWidth, y)
}

func plural64(n int64, unit string) string { return plural(int(n), unit) }
