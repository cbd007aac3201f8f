package analyze

import (
	"fmt"
	"math"

	"github.com/remodel-dev/remodel/mapping"
)

// Thresholds of the data warnings.
const (
	// hotFactor: a partition with this many times the mean write units per
	// partition of its index (and at least hotShare of them) is hot.
	hotFactor = 10
	hotShare  = 0.01
	// lowCardinality: an index whose items (at least lowCardinalityItems)
	// fall into at most this many partitions has a low-cardinality key.
	lowCardinality      = 10
	lowCardinalityItems = 100
	// collectionWarn is the share of the 10 GB item collection limit that
	// warns.
	collectionWarn = 0.8
)

func (a *aggregate) report() *Report {
	o, t := a.o, &a.o.Plan.Table
	r := &Report{Version: ReportVersion, Table: t.Name, SampleRate: o.SampleRate, RateLimit: o.RateLimit, Warnings: []Warning{}}
	for i, e := range o.Plan.Entities {
		ea := a.entities[i]
		es := EntityStats{Name: e.Name, Rows: ea.rows, Sampled: ea.sampled, Items: ea.items, Rejected: ea.rejected,
			Sizes: sizes(&ea.sizes), WriteUnits: ea.wcu}
		for _, g := range ea.groups {
			es.Rejects = append(es.Rejects, *g)
		}
		if ea.other != nil {
			es.Rejects = append(es.Rejects, *ea.other)
		}
		r.Entities = append(r.Entities, es)
		r.Totals.Rejected += ea.rejected
		if ea.rejected > 0 {
			r.Warnings = append(r.Warnings, Warning{Kind: "rejects", Entity: e.Name, Message: fmt.Sprintf(
				"entity %s: %d of %d rows analysed cannot become items; migrate would reject them (first: row %s: %s)",
				e.Name, ea.rejected, ea.sampled, es.Rejects[0].Examples[0], es.Rejects[0].Reason)})
		}
		if es.Sizes.NearLimit > 0 {
			r.Warnings = append(r.Warnings, Warning{Kind: "item-size", Entity: e.Name, Message: fmt.Sprintf(
				"entity %s: %s at 90%% of DynamoDB's 400 KB item limit or more (largest %d bytes): a little more data in a row and it is rejected",
				e.Name, plural(es.Sizes.NearLimit, "item"), es.Sizes.Max)})
		}
	}
	r.Sizes = sizes(&a.all)

	base := a.indexes[0]
	a.endRuns()
	for i, ia := range a.indexes {
		is := IndexStats{Name: t.Name, Kind: "table", PK: t.PK.Name,
			Items: ia.items, DataBytes: ia.bytes, StoredBytes: ia.bytes + ItemOverhead*ia.items, WriteUnits: ia.wcu}
		if t.SK != nil {
			is.SK = t.SK.Name
		}
		if i > 0 {
			ix := t.Indexes[i-1]
			is.Name, is.Kind, is.PK, is.SK = ix.Name, "global", mapping.KeyNames(ix.PK), mapping.KeyNames(ix.SK)
			if ix.Local {
				is.Kind = "local"
			}
			is.Projection = ix.ProjectionText()
			is.Amplification = &Amplification{Items: ratio(ia.items, base.items), WriteUnits: ratio(ia.wcu, base.wcu)}
		}
		is.Partitions, is.Estimated = ia.parts.count()
		is.Estimated = !is.Estimated
		if is.Partitions > 0 {
			is.MeanItems = float64(ia.items) / float64(is.Partitions)
		}
		is.ByItems = standOut(ia.weights.top(0, o.Top), ia.weights.total[0], is.Partitions)
		is.ByBytes = standOut(ia.weights.top(1, o.Top), ia.weights.total[1], is.Partitions)
		is.ByWriteUnits = standOut(ia.weights.top(2, o.Top), ia.weights.total[2], is.Partitions)
		a.loadRates(&is, base)
		if l := a.longest[i]; l.items > 0 {
			is.LongestRun = &KeyRun{Key: l.key, Entity: l.entity, Items: l.items, WriteUnits: l.wcu, TableWriteUnits: l.base}
		}
		r.Warnings = append(r.Warnings, a.indexWarnings(&is, ia)...)
		r.Indexes = append(r.Indexes, is)
	}
	if a.colls != nil {
		parts, _ := a.indexes[0].parts.count()
		r.Collections = &Collections{Largest: standOut(a.colls.top(1, o.Top), a.colls.total[1], parts), Limit: CollectionLimit}
		if len(r.Collections.Largest) > 0 {
			c := r.Collections.Largest[0]
			if float64(c.Weight-c.Error) >= collectionWarn*CollectionLimit {
				r.Warnings = append(r.Warnings, Warning{Kind: "item-collection", Entity: c.Entity, Message: fmt.Sprintf(
					"item collection %s=%s holds %s with its local index entries, %.0f%% of the 10 GB a partition key value may hold in a table with a local index (writes beyond it fail)",
					t.PK.Name, c.Key, Bytes(c.Weight), 100*float64(c.Weight)/CollectionLimit)})
			}
		}
	}
	a.totals(r)
	a.cost(r)
	a.traffic(r)
	return r
}

func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// loadRates figures the write units per second the partition with the
// most write units receives during the load, if the load's writes were
// spread evenly over time: its share of the index's write units, times the
// index's write units per table write unit, times the load's rate. Rows
// are read in key order, so a partition's items often come together:
// then it receives more, for a while (this is the lower bound).
func (a *aggregate) loadRates(is *IndexStats, base *indexAgg) {
	if len(is.ByWriteUnits) == 0 || base.wcu == 0 {
		return
	}
	// The busiest partition's write units per write unit put into the table.
	perTableUnit := ratio(is.ByWriteUnits[0].Weight, base.wcu)
	if perTableUnit > 0 {
		is.MaxRate = PartitionWriteLimit / perTableUnit
	}
	if a.o.RateLimit > 0 {
		is.PeakRate = float64(a.o.RateLimit) * perTableUnit
	}
}

func (a *aggregate) indexWarnings(is *IndexStats, ia *indexAgg) []Warning {
	if is.Kind == "local" {
		return nil // its partitions are the table's, which the table's warnings cover
	}
	var w []Warning
	what := "index " + is.Name
	if is.Kind == "table" {
		what = "table " + is.Name
	}
	if is.Items >= lowCardinalityItems && is.Partitions <= lowCardinality {
		msg := fmt.Sprintf("%s: its %d items have %d partition key values (%s): a low-cardinality partition key; its writes and reads fall on at most %d partitions",
			what, is.Items, is.Partitions, is.PK, is.Partitions)
		if is.Partitions == 1 {
			msg = fmt.Sprintf("%s: all its %d items have one partition key value (%s = %s): a constant partition key; every write and read falls on one partition",
				what, is.Items, is.PK, is.ByItems[0].Key)
		}
		w = append(w, Warning{Kind: "low-cardinality", Index: is.Name, Message: msg + a.rateNote(is)})
	}
	if is.Partitions >= 2 && len(is.ByWriteUnits) > 0 {
		p := is.ByWriteUnits[0]
		total := float64(ia.weights.total[2]) // the table's include its local index writes
		mean := total / float64(is.Partitions)
		low := float64(p.Weight - p.Error) // what it surely has
		if low >= hotFactor*mean && low >= hotShare*total {
			takes, times := fmt.Sprintf("takes %.0f%% of its write units (%d)", 100*p.Share, p.Weight), ""
			if p.Error > 0 {
				times = "at least "
				// The summary's weight is an upper bound: the share it
				// surely has, and at most.
				takes = fmt.Sprintf("takes %.0f%% to %.0f%% of its write units (%d to %d: the summary that counts partitions may overstate it by up to %d)",
					100*low/total, 100*p.Share, p.Weight-p.Error, p.Weight, p.Error)
			}
			msg := fmt.Sprintf("%s: partition %s = %s %s, %s%.0f times the mean of its %d partitions: a hot partition",
				what, is.PK, p.Key, takes, times, low/mean, is.Partitions)
			w = append(w, Warning{Kind: "hot-partition", Index: is.Name, Entity: p.Entity, Message: msg + a.rateNote(is)})
		}
	}
	if l := is.LongestRun; l != nil && l.WriteUnits > PartitionWriteLimit && (a.o.RateLimit == 0 || a.o.RateLimit > PartitionWriteLimit) {
		msg := fmt.Sprintf("%s: %d items of entity %s with %s = %s come one after another in the order migrate reads them (%d write units): while they are written, that partition receives up to the whole load rate",
			what, l.Items, l.Entity, is.PK, l.Key, l.WriteUnits)
		if a.o.RateLimit > 0 {
			rate := float64(a.o.RateLimit) * ratio(l.WriteUnits, l.TableWriteUnits)
			msg += fmt.Sprintf(", %.0f write units per second for %.1f s at --rate-limit %d, over the %d one partition takes", rate, float64(l.TableWriteUnits)/float64(a.o.RateLimit), a.o.RateLimit, PartitionWriteLimit)
		} else {
			msg += fmt.Sprintf(", more than the %d one partition takes when the load is faster than that (migrate --rate-limit)", PartitionWriteLimit)
		}
		w = append(w, Warning{Kind: "load-burst", Index: is.Name, Entity: l.Entity, Message: msg})
	}
	if is.PeakRate > PartitionWriteLimit && len(w) == 0 {
		p := is.ByWriteUnits[0]
		w = append(w, Warning{Kind: "hot-partition", Index: is.Name, Entity: p.Entity, Message: fmt.Sprintf(
			"%s: partition %s = %s takes %.0f%% of its write units%s", what, is.PK, p.Key, 100*p.Share, a.rateNote(is))})
	}
	return w
}

// rateNote says what the load does to the hottest partition.
func (a *aggregate) rateNote(is *IndexStats) string {
	switch {
	case is.PeakRate > PartitionWriteLimit:
		return fmt.Sprintf("; at --rate-limit %d it receives %.0f write units per second, over the %d one partition takes (throttling): keep the load under %.0f",
			a.o.RateLimit, is.PeakRate, PartitionWriteLimit, math.Floor(is.MaxRate))
	case a.o.RateLimit > 0:
		return fmt.Sprintf("; at --rate-limit %d it receives %.0f write units per second (a partition takes %d)", a.o.RateLimit, is.PeakRate, PartitionWriteLimit)
	case is.MaxRate > 0:
		return fmt.Sprintf("; a load faster than %.0f write units per second into the table gives it more than the %d one partition takes (migrate --rate-limit)", math.Floor(is.MaxRate), PartitionWriteLimit)
	}
	return ""
}

// scale is the factor from the analysed rows to all rows.
func (a *aggregate) scale(n int64) int64 {
	if a.o.SampleRate >= 1 {
		return n
	}
	return int64(math.Round(float64(n) / a.o.SampleRate))
}

func (a *aggregate) totals(r *Report) {
	tt := &r.Totals
	tt.Scaled = a.o.SampleRate < 1
	for i, ia := range a.indexes {
		if i == 0 {
			tt.Items = a.scale(ia.items)
			tt.TableWriteUnits = a.scale(ia.wcu)
			tt.DataBytes = a.scale(ia.bytes)
		}
		tt.WriteUnits += a.scale(ia.wcu)
		tt.StoredBytes += a.scale(ia.bytes + ItemOverhead*ia.items)
	}
	tt.Rejected = a.scale(tt.Rejected)
	tt.ImportBytes = a.scale(a.imports)
}

// Bytes prints a byte count for people: 512 B, 3.4 KiB, 1.2 GiB.
func Bytes(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	v, u := float64(n), 0
	for v >= 1024 && u < len(units)-1 {
		v /= 1024
		u++
	}
	if u == 0 {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%.1f %s", v, units[u])
}

func plural(n int64, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// A partition stands out when its weight, less what it may be overstated,
// is at least StandOut times its index's mean partition and at least
// StandOutShare of the index's total: heavy against the others and heavy
// enough to matter to a table's throughput.
const (
	StandOut      = 3
	StandOutShare = 0.01
)

// standOut marks the partitions of ps that stand out of an index of parts
// partitions whose weights add up to total.
func standOut(ps []Partition, total, parts int64) []Partition {
	if parts < 2 || total <= 0 {
		return ps
	}
	mean := float64(total) / float64(parts)
	for i := range ps {
		low := float64(ps[i].Weight - ps[i].Error)
		ps[i].StandsOut = low >= StandOut*mean && low >= StandOutShare*float64(total)
	}
	return ps
}
