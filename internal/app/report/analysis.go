package report

import (
	"fmt"
	"strings"

	"github.com/remodel-dev/remodel/internal/domain/analyze"
	"github.com/remodel-dev/remodel/mapping"
)

// AnalysisBlocks is the analysis of every row (package analyze's report):
// items, rejected rows, the table and its indexes, the partitions that stand out,
// item collections, warnings and totals.
func AnalysisBlocks(r *analyze.Report) []Block {
	var out []Block
	add := func(b Block) { out = append(out, b) }
	for _, part := range []func(*analyze.Report, func(Block)){
		analysisIntro, analysisItems, analysisRejects, analysisIndexes,
		analysisPartitions, analysisCollections, analysisWarnings, analysisTotals,
	} {
		part(r, add)
	}
	return out
}

// analysisIntro says what was read, and the snapshot's warning.
func analysisIntro(r *analyze.Report, add func(Block)) {
	what := "every row of every entity"
	if r.SampleRate < 1 {
		what = fmt.Sprintf("a sample of %s of each entity's rows (chosen by a hash of each row's key; totals and cost scaled to all rows)", analyze.Percent(r.SampleRate))
	}
	add(Block{Para: fmt.Sprintf("From %s of the %s source, rendered as migrate renders them (not only the rows of the example data): what table %s would hold.", what, r.Engine, r.Table)})
	if r.SnapshotWarning != "" {
		add(Block{Para: "Warning: " + r.SnapshotWarning})
	}

}

// analysisItems is the items per entity and their sizes.
func analysisItems(r *analyze.Report, add func(Block)) {
	add(Block{Heading: "Items"})
	items := &Table{Class: "analysis-items", Head: []string{"entity", "rows", "items", "rejected", "p50", "p99", "max", "mean", "write units"}}
	for _, e := range r.Entities {
		rows := fmt.Sprint(e.Rows)
		if r.SampleRate < 1 {
			rows = fmt.Sprintf("%d of %d", e.Sampled, e.Rows)
		}
		items.Rows = append(items.Rows, []string{e.Name, rows, fmt.Sprint(e.Items), fmt.Sprint(e.Rejected),
			fmt.Sprint(e.Sizes.P50), fmt.Sprint(e.Sizes.P99), fmt.Sprint(e.Sizes.Max), fmt.Sprintf("%.0f", e.Sizes.Mean), fmt.Sprint(e.WriteUnits)})
	}
	s := r.Sizes
	items.Rows = append(items.Rows, []string{"all", "", fmt.Sprint(s.Items), "", fmt.Sprint(s.P50), fmt.Sprint(s.P99), fmt.Sprint(s.Max), fmt.Sprintf("%.0f", s.Mean), ""})
	add(Block{Table: items})
	add(Block{Para: fmt.Sprintf("Sizes in bytes, as DynamoDB counts them. Its limit is 400 KB (409600 bytes) an item: the largest is %s of it; %s at 90%% of it or more.",
		analyze.Percent(float64(s.Max)/409600), pluralN(s.NearLimit, "item is", "items are"))})

}

// analysisRejects is the rows migrate would reject, by kind of reason.
func analysisRejects(r *analyze.Report, add func(Block)) {
	add(Block{Heading: "Rejected rows"})
	rej := &Table{Class: "analysis-rejects", Head: []string{"entity", "rows", "reason", "first row", "also rows"}}
	for _, e := range r.Entities {
		for _, g := range e.Rejects {
			first, also := "", ""
			if len(g.Examples) > 0 {
				first = g.Examples[0] + ": " + g.Reason
				also = strings.Join(g.Examples[1:], "; ")
			}
			rej.Rows = append(rej.Rows, []string{e.Name, fmt.Sprint(g.Rows), g.Kind, first, also})
		}
	}
	if len(rej.Rows) == 0 {
		add(Block{Para: "None: every row becomes an item."})
	} else {
		add(Block{Para: "The rows migrate would reject (and write the rest), by entity and kind of reason."})
		add(Block{Table: rej})
	}

}

// analysisIndexes is the table and its indexes: items, bytes, write
// units, amplification and partitions.
func analysisIndexes(r *analyze.Report, add func(Block)) {
	add(Block{Heading: "Table and indexes"})
	ix := &Table{Class: "analysis-indexes", Head: []string{"name", "kind", "key", "items", "stored", "write units", "per table write", "partitions", "items/partition"}}
	for _, is := range r.Indexes {
		key := is.PK
		if is.SK != "" {
			key += " / " + is.SK
		}
		amp := "—"
		if is.Amplification != nil {
			amp = fmt.Sprintf("%.2f items, %.2f units", is.Amplification.Items, is.Amplification.WriteUnits)
		}
		parts := fmt.Sprint(is.Partitions)
		if is.Estimated {
			parts = "about " + parts
		}
		kind := is.Kind
		if is.Projection != "" && is.Projection != mapping.ProjectAll {
			kind += " " + is.Projection
		}
		ix.Rows = append(ix.Rows, []string{is.Name, kind, key, fmt.Sprint(is.Items), analyze.Bytes(is.StoredBytes), fmt.Sprint(is.WriteUnits), amp, parts, fmt.Sprintf("%.1f", is.MeanItems)})
	}
	add(Block{Table: ix})
	add(Block{Para: "An index's entries hold the keys and the attributes it projects (all of them with ALL). Stored: the entries' sizes and DynamoDB's 100 bytes per item. Per table write: the write amplification, an index's items and write units per item and write unit put into the table."})

}

// analysisPartitions is, per index, the partitions that stand out, the
// longest run of one partition and the busiest partition's rate.
func analysisPartitions(r *analyze.Report, add func(Block)) {
	for _, is := range r.Indexes {
		if len(is.ByItems) == 0 {
			continue
		}
		add(Block{Heading: fmt.Sprintf("Partitions that stand out in %s (%s)", is.Name, is.PK)})
		byWU := "write units"
		if is.Kind == "table" && r.Collections != nil {
			byWU = "write units (with the local indexes' writes)"
		}
		t := &Table{Class: "analysis-partitions", Head: []string{"by", "partition key", "entities", "weight", "share"}}
		partitionRows(t, "items", is.ByItems, func(n int64) string { return pluralN(n, "item", "items") })
		partitionRows(t, "bytes", is.ByBytes, analyze.Bytes)
		partitionRows(t, byWU, is.ByWriteUnits, func(n int64) string { return pluralN(n, "unit", "units") })
		if len(t.Rows) > 0 {
			add(Block{Table: t})
		} else {
			add(Block{Para: noneStandsOut(is)})
		}
		var notes []string
		if l := is.LongestRun; l != nil && l.Items > 1 {
			notes = append(notes, fmt.Sprintf("Longest run in the order migrate reads the rows: %s, %s of entity %s one after another (%s).", l.Key, pluralN(l.Items, "item", "items"), l.Entity, pluralN(l.WriteUnits, "write unit", "write units")))
		}
		if r.RateLimit > 0 {
			notes = append(notes, fmt.Sprintf("During a load at --rate-limit %d, spread evenly, the busiest partition receives %.0f write units per second (a partition takes %d).", r.RateLimit, is.PeakRate, analyze.PartitionWriteLimit))
		} else if is.MaxRate > 0 {
			notes = append(notes, fmt.Sprintf("The busiest partition receives %d write units per second when the load writes %.0f per second into the table, spread evenly.", analyze.PartitionWriteLimit, is.MaxRate))
		}
		if len(notes) > 0 {
			add(Block{Para: strings.Join(notes, " ")})
		}
	}
}

// analysisCollections is the largest item collections of a table with a
// local index (10 GB each at most).
func analysisCollections(r *analyze.Report, add func(Block)) {
	if r.Collections != nil {
		add(Block{Heading: "Item collections"})
		add(Block{Para: "The table has a local index: the items of one partition key value with their local index entries are at most 10 GB."})
		t := &Table{Class: "analysis-partitions", Head: []string{"by", "partition key", "entities", "weight", "share"}}
		partitionRows(t, "bytes", r.Collections.Largest, analyze.Bytes)
		if len(t.Rows) > 0 {
			add(Block{Table: t})
		} else if len(r.Collections.Largest) > 0 {
			c := r.Collections.Largest[0]
			holds := fmt.Sprintf("holds %s (%s of the table's)", analyze.Bytes(c.Weight), analyze.Percent(c.Share))
			if c.Error > 0 {
				holds = fmt.Sprintf("holds at most %s (%s of the table's; at least %s: the summary may overstate it by up to %s)",
					analyze.Bytes(c.Weight), analyze.Percent(c.Share), analyze.Bytes(max(0, c.Weight-c.Error)), analyze.Bytes(c.Error))
			}
			add(Block{Para: fmt.Sprintf("No item collection stands out: the largest, %s, %s.", c.Key, holds)})
		}
	}

}

// analysisWarnings lists the analysis's warnings.
func analysisWarnings(r *analyze.Report, add func(Block)) {
	add(Block{Heading: "Warnings"})
	if len(r.Warnings) == 0 {
		add(Block{Para: "None."})
	} else {
		var ws []string
		for _, w := range r.Warnings {
			ws = append(ws, w.Message)
		}
		add(Block{List: ws})
	}

}

// analysisTotals is the items, write units, bytes stored and import
// files in all.
func analysisTotals(r *analyze.Report, add func(Block)) {
	t := r.Totals
	head := "Totals"
	if t.Scaled {
		head += " (scaled from the sample)"
	}
	add(Block{Heading: head})
	add(Block{List: []string{
		fmt.Sprintf("items: %d (%s rejected)", t.Items, pluralN(t.Rejected, "row", "rows")),
		fmt.Sprintf("write units: %d (%d into the table, %d into indexes)", t.WriteUnits, t.TableWriteUnits, t.WriteUnits-t.TableWriteUnits),
		fmt.Sprintf("stored: %s (items %s; table and indexes with 100 bytes per item)", analyze.Bytes(t.StoredBytes), analyze.Bytes(t.DataBytes)),
		fmt.Sprintf("import files: %s of DynamoDB JSON, uncompressed", analyze.Bytes(t.ImportBytes)),
	}})
}

// partitionRows adds the partitions of ps that stand out to t.
func partitionRows(t *Table, by string, ps []analyze.Partition, weight func(int64) string) {
	for _, p := range ps {
		if !p.StandsOut {
			continue
		}
		w := weight(p.Weight)
		if p.Error > 0 {
			w += fmt.Sprintf(" (at most %s overstated)", weight(p.Error))
		}
		t.Rows = append(t.Rows, []string{by, p.Key, strings.Join(p.Entities, ", "), w, analyze.Percent(p.Share)})
	}
}

// noneStandsOut says that no partition of the index stands out, with the
// largest against the mean.
func noneStandsOut(is analyze.IndexStats) string {
	if len(is.ByItems) == 0 {
		return "No partition stands out: the index holds no item."
	}
	p := is.ByItems[0]
	if is.Partitions < 2 {
		return fmt.Sprintf("No partition stands out: all its items have one partition key value, %s.", p.Key)
	}
	about := ""
	if is.Estimated {
		about = "about "
	}
	holds := fmt.Sprintf("holds %s (%s)", pluralN(p.Weight, "item", "items"), analyze.Percent(p.Share))
	if p.Error > 0 {
		// The summary's count is an upper bound (Space-Saving): say so,
		// with the count it surely has.
		holds = fmt.Sprintf("holds at most %s (%s; at least %d: the summary that counts partitions may overstate it by up to %d)",
			pluralN(p.Weight, "item", "items"), analyze.Percent(p.Share), max(0, p.Weight-p.Error), p.Error)
	}
	return fmt.Sprintf("No partition stands out (one does with at least %d times the mean partition's weight and %s of the total): the largest, %s, %s, against a mean of %.1f items over %s%d partitions.",
		analyze.StandOut, analyze.Percent(analyze.StandOutShare), p.Key, holds, is.MeanItems, about, is.Partitions)
}

// CostBlocks is the analysis's cost: the load by each route, storage, and
// the access patterns' traffic.
func CostBlocks(r *analyze.Report) []Block {
	c := r.Cost
	p := c.Prices
	var out []Block
	add := func(b Block) { out = append(out, b) }
	from := "the built-in price table"
	if p.File != "" {
		from = "the price table " + p.File
	}
	add(Block{Para: fmt.Sprintf("In %s, at the list prices of %s as of %s, from %s (source: %s).", p.Currency, p.Region, p.Date, from, p.Source)})
	if p.Note != "" {
		add(Block{Para: "About the prices: " + p.Note, Aside: true})
	}
	rate := fmt.Sprintf("--rate-limit %d", c.Load.ProvisionedRate)
	if r.RateLimit == 0 {
		rate = fmt.Sprintf("%d write units per second (no --rate-limit given)", c.Load.ProvisionedRate)
	}
	add(Block{Table: &Table{Class: "cost", Head: []string{"what", p.Currency, "how"}, Rows: [][]string{
		{"load, on-demand", analyze.Money(c.Load.OnDemand), fmt.Sprintf("%d write request units, table and indexes", r.Totals.WriteUnits)},
		{"load, provisioned", analyze.Money(c.Load.Provisioned), fmt.Sprintf("%d WCU, table and global indexes, for %s: the load takes %s at %s",
			c.Load.ProvisionedWCU, pluralN(c.Load.ProvisionedHours, "started hour", "started hours"), analyze.Seconds(c.Load.ProvisionedSeconds), rate)},
		{"load, S3 import", analyze.Money(c.Load.Import), fmt.Sprintf("%.3f GB of uncompressed DynamoDB JSON; no write units", c.Load.ImportGB)},
		bulkPutRow(c.Load),
		{"storage, a month, Standard", analyze.Money(c.StorageCost.Standard), fmt.Sprintf("%.3f GB, table and indexes; no free tier", c.StorageGB)},
		{"storage, a month, Standard-IA", analyze.Money(c.StorageCost.StandardIA), fmt.Sprintf("%.3f GB, table and indexes; no free tier", c.StorageGB)},
	}}})
	if rt := c.Load.Routes; rt != nil {
		add(Block{Para: "Routes: " + rt.Summary() + "."})
	}
	add(Block{Heading: "Access patterns, a month"})
	if len(c.Traffic) == 0 {
		add(Block{Para: "Not priced: the access patterns' rates were not given (preview --analyze --traffic FILE gives them)."})
		return out
	}
	add(Block{Para: fmt.Sprintf("A month of %d hours of eventually consistent queries, Standard table class, at the rates given.", analyze.MonthHours)})
	t := &Table{Class: "cost-traffic", Head: []string{"pattern", "on", "per second", "items a query", "read units a query", "on-demand", "provisioned"}}
	var od, pr float64
	for _, x := range c.Traffic {
		items := fmt.Sprintf("%.1f", x.Items)
		switch {
		case x.UpperBound:
			items = "at most " + items + " (estimated)"
		case x.Estimated:
			items += " (estimated)"
		}
		t.Rows = append(t.Rows, []string{x.Pattern, x.Index, fmt.Sprint(x.PerSecond), items, fmt.Sprint(x.ReadUnits), analyze.Money(x.OnDemand), fmt.Sprintf("%s (%d RCU)", analyze.Money(x.Provisioned), x.ProvisionedRCU)})
		od += x.OnDemand
		pr += x.Provisioned
	}
	t.Rows = append(t.Rows, []string{"all", "", "", "", "", analyze.Money(od), analyze.Money(pr)})
	add(Block{Table: t})
	add(Block{Para: "Items estimated: the mean items per partition key value of the table or index (at most the pattern's limit); with a sort key condition, an upper bound."})
	return out
}

func pluralN(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// analysisText prints the analysis for people: its blocks, then the cost's.
func analysisText(w *errWriter, r *analyze.Report) {
	w.printf("analysis of the mapping into DynamoDB table %s on %s\n", r.Table, r.Engine)
	blocksText(w, AnalysisBlocks(r))
	w.printf("\nCost\n")
	blocksText(w, CostBlocks(r))
}

// analysisMarkdown writes the analysis and its cost as Markdown: the blocks
// the modeling document holds, under their two headings.
func analysisMarkdown(w *errWriter, r *analyze.Report) {
	w.printf("## Analysis of table %s (%s)\n\n%s\n## Cost\n\n%s", r.Table, r.Engine, BlocksMarkdown(AnalysisBlocks(r)), BlocksMarkdown(CostBlocks(r)))
}

// bulkPutRow is the cost table's row of the bulk put into an existing
// table: its price, or why there is none.
func bulkPutRow(l analyze.LoadCost) []string {
	if l.BulkPut == nil {
		return []string{"load, S3 bulk put", "not priced", fmt.Sprintf("%.3f GB, table and indexes; %s", l.BulkPutGB, strings.TrimPrefix(l.BulkPutNote, "not priced: "))}
	}
	return []string{"load, S3 bulk put", analyze.Money(*l.BulkPut), fmt.Sprintf("%.3f GB, table and indexes, Standard tier; no write units of the table", l.BulkPutGB)}
}
