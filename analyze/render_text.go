package analyze

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/remodel-dev/remodel/mapping"
)

// WriteText prints the report for people.
func (r *Report) WriteText(w io.Writer) {
	what := "every row"
	if r.SampleRate < 1 {
		what = fmt.Sprintf("a sample of %s of the rows (chosen by a hash of each row's key; totals and cost scaled to all rows)", Percent(r.SampleRate))
	}
	fmt.Fprintf(w, "analysis of the mapping into DynamoDB table %s on %s: %s\n", r.Table, r.Engine, what)
	if r.SnapshotWarning != "" {
		fmt.Fprintf(w, "  warning: %s\n", r.SnapshotWarning)
	}

	fmt.Fprintln(w, "\nitems (sizes in bytes, as DynamoDB counts them)")
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "  entity\trows\titems\trejected\tp50\tp99\tmax\tmean\twrite units\t")
	for _, e := range r.Entities {
		rows := fmt.Sprint(e.Rows)
		if r.SampleRate < 1 {
			rows = fmt.Sprintf("%d of %d", e.Sampled, e.Rows)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%d\t%d\t%d\t%d\t%d\t%.0f\t%d\t\n", e.Name, rows, e.Items, e.Rejected, e.Sizes.P50, e.Sizes.P99, e.Sizes.Max, e.Sizes.Mean, e.WriteUnits)
	}
	s := r.Sizes
	fmt.Fprintf(tw, "  all\t\t%d\t\t%d\t%d\t%d\t%.0f\t\t\n", s.Items, s.P50, s.P99, s.Max, s.Mean)
	tw.Flush()
	fmt.Fprintf(w, "  DynamoDB's limit is 409600 bytes an item; %d items are at 90%% of it or more\n", s.NearLimit)

	var rejected bool
	for _, e := range r.Entities {
		for _, g := range e.Rejects {
			if !rejected {
				fmt.Fprintln(w, "\nrejected rows (migrate would reject them, and write the rest)")
				rejected = true
			}
			fmt.Fprintf(w, "  entity %s: %s: %s\n", e.Name, plural(g.Rows, "row"), g.Kind)
			fmt.Fprintf(w, "    row %s: %s\n", g.Examples[0], g.Reason)
			if len(g.Examples) > 1 {
				fmt.Fprintf(w, "    also rows %s\n", strings.Join(g.Examples[1:], "; "))
			}
		}
	}

	fmt.Fprintln(w, "\ntable and indexes (an index's entries hold the attributes it projects)")
	tw = tabwriter.NewWriter(w, 2, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "  name\tkind\tkey\titems\tstored\twrite units\tper table write\tpartitions\titems/partition\t")
	for _, is := range r.Indexes {
		key := is.PK
		if is.SK != "" {
			key += " / " + is.SK
		}
		amp := "-"
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
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%d\t%s\t%d\t%s\t%s\t%.1f\t\n", is.Name, kind, key, is.Items, Bytes(is.StoredBytes), is.WriteUnits, amp, parts, is.MeanItems)
	}
	tw.Flush()
	fmt.Fprintln(w, "  stored: the items' sizes and DynamoDB's 100 bytes per item")
	for _, is := range r.Indexes {
		if len(is.ByItems) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n  largest partitions of %s (%s)\n", is.Name, is.PK)
		listPartitions(w, "by items", is.ByItems, func(n int64) string { return plural(n, "item") })
		listPartitions(w, "by bytes", is.ByBytes, Bytes)
		label := "by write units"
		if is.Kind == "table" && r.Collections != nil {
			label += " (with the local indexes' writes, which the table's partitions take)"
		}
		listPartitions(w, label, is.ByWriteUnits, func(n int64) string { return plural(n, "unit") })
		if l := is.LongestRun; l != nil && l.Items > 1 {
			fmt.Fprintf(w, "    longest run in the read order: %s, %s of entity %s one after another (%s)\n", l.Key, plural(l.Items, "item"), l.Entity, plural(l.WriteUnits, "write unit"))
		}
		if r.RateLimit > 0 {
			fmt.Fprintf(w, "    during a load at --rate-limit %d, spread evenly, the busiest partition receives %.0f write units per second (a partition takes %d)\n", r.RateLimit, is.PeakRate, PartitionWriteLimit)
		} else if is.MaxRate > 0 {
			fmt.Fprintf(w, "    the busiest partition receives %d write units per second when the load writes %.0f per second into the table, spread evenly\n", PartitionWriteLimit, is.MaxRate)
		}
	}
	if r.Collections != nil {
		fmt.Fprintln(w, "\nitem collections (a table with a local index: at most 10 GB per partition key value)")
		listPartitions(w, "largest", r.Collections.Largest, Bytes)
	}

	fmt.Fprintln(w, "\nwarnings")
	if len(r.Warnings) == 0 {
		fmt.Fprintln(w, "  none")
	}
	for _, x := range r.Warnings {
		fmt.Fprintf(w, "  - %s\n", x.Message)
	}

	t := r.Totals
	scaled := ""
	if t.Scaled {
		scaled = " (scaled from the sample)"
	}
	fmt.Fprintf(w, "\ntotals%s\n", scaled)
	fmt.Fprintf(w, "  items           %d (%s rejected)\n", t.Items, plural(t.Rejected, "row"))
	fmt.Fprintf(w, "  write units     %d (%d into the table, %d into indexes)\n", t.WriteUnits, t.TableWriteUnits, t.WriteUnits-t.TableWriteUnits)
	fmt.Fprintf(w, "  stored          %s (items %s; table and indexes with 100 bytes per item)\n", Bytes(t.StoredBytes), Bytes(t.DataBytes))
	fmt.Fprintf(w, "  import files    %s of DynamoDB JSON, uncompressed\n", Bytes(t.ImportBytes))

	c := r.Cost
	p := c.Prices
	from := "the built-in price table"
	if p.File != "" {
		from = p.File
	}
	fmt.Fprintf(w, "\ncost in %s, prices of %s as of %s (%s; source %s)\n", p.Currency, p.Region, p.Date, from, p.Source)
	rate := fmt.Sprintf("--rate-limit %d", c.Load.ProvisionedRate)
	if r.RateLimit == 0 {
		rate = fmt.Sprintf("%d write units per second (no --rate-limit given)", c.Load.ProvisionedRate)
	}
	fmt.Fprintf(w, "  load, on-demand      %s  (%d write request units, table and indexes)\n", Money(c.Load.OnDemand), t.WriteUnits)
	fmt.Fprintf(w, "  load, provisioned    %s  (%d WCU, table and global indexes, for %s: the load takes %s at %s)\n",
		Money(c.Load.Provisioned), c.Load.ProvisionedWCU, plural(c.Load.ProvisionedHours, "started hour"), Seconds(c.Load.ProvisionedSeconds), rate)
	fmt.Fprintf(w, "  load, S3 import      %s  (%.3f GB of uncompressed DynamoDB JSON; no write units)\n", Money(c.Load.Import), c.Load.ImportGB)
	if rt := c.Load.Routes; rt != nil {
		fmt.Fprintf(w, "  routes               %s\n", rt.Summary())
	}
	fmt.Fprintf(w, "  storage, a month     %s Standard, %s Standard-IA  (%.3f GB; no free tier)\n", Money(c.StorageCost.Standard), Money(c.StorageCost.StandardIA), c.StorageGB)
	if len(c.Traffic) == 0 {
		fmt.Fprintln(w, "  the access patterns' traffic is not priced (give their rates with --traffic FILE)")
		return
	}
	fmt.Fprintf(w, "\naccess patterns, a month of %d hours of eventually consistent queries (Standard)\n", MonthHours)
	tw = tabwriter.NewWriter(w, 2, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "  pattern\ton\tper second\titems a query\tread units a query\ton-demand\tprovisioned\t")
	var od, pr float64
	for _, t := range c.Traffic {
		items := fmt.Sprintf("%.1f", t.Items)
		switch {
		case t.UpperBound:
			items = "at most " + items + " (estimated)"
		case t.Estimated:
			items += " (estimated)"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%g\t%s\t%g\t%s\t%s (%d RCU)\t\n", t.Pattern, t.Index, t.PerSecond, items, t.ReadUnits, Money(t.OnDemand), Money(t.Provisioned), t.ProvisionedRCU)
		od += t.OnDemand
		pr += t.Provisioned
	}
	fmt.Fprintf(tw, "  all\t\t\t\t\t%s\t%s\t\n", Money(od), Money(pr))
	tw.Flush()
	fmt.Fprintln(w, "  items estimated: the mean items per partition key value of the table or index (at most the pattern's limit); with a sort key condition, an upper bound")
}

func listPartitions(w io.Writer, label string, ps []Partition, weight func(int64) string) {
	var parts []string
	for _, p := range ps {
		s := fmt.Sprintf("%s (%s, %s", p.Key, weight(p.Weight), Percent(p.Share))
		if p.Error > 0 {
			s += fmt.Sprintf(", at most %s overstated", weight(p.Error))
		}
		parts = append(parts, s+")")
	}
	fmt.Fprintf(w, "    %s: %s\n", label, strings.Join(parts, ", "))
}

func plural(n int64, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
