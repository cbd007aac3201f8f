package analyze

import (
	"fmt"
	"math"

	"github.com/remodel-dev/remodel/internal/domain/pricing"
)

// gb is DynamoDB's billing gigabyte.
const gb = 1 << 30

// CostInput is what the cost is figured from (all rows, scaled when a
// sample was taken).
type CostInput struct {
	TableWriteUnits  int64   // puts into the table
	LocalWriteUnits  int64   // writes into its local indexes (they take the table's capacity)
	GlobalWriteUnits []int64 // writes into each global index
	StoredBytes      int64   // table and indexes, with 100 bytes per item
	ImportBytes      int64   // uncompressed DynamoDB JSON of the items
	Items            int64   // how many items; the route comparison scales the load by it
	Rate             int64   // the load's rate into the table, write units per second; 0: DefaultProvisionedRate
}

// Estimate prices a load and a month of storage (Standard table class for
// the load; both classes for storage). It is plain arithmetic on its
// input; the tests check it against figures worked out by hand.
func Estimate(p *pricing.Prices, in CostInput) Cost {
	c := Cost{Prices: priceRef(p)}
	all := in.TableWriteUnits + in.LocalWriteUnits
	for _, g := range in.GlobalWriteUnits {
		all += g
	}
	c.Load.OnDemand = float64(all) / 1e6 * p.Standard.WriteRequestUnitsPerMillion

	rate := in.Rate
	if rate <= 0 {
		rate = DefaultProvisionedRate
	}
	c.Load.ProvisionedRate = rate
	if in.TableWriteUnits > 0 {
		secs := float64(in.TableWriteUnits) / float64(rate)
		hours := max(1, int64(math.Ceil(secs/3600)))
		perUnit := float64(rate) / float64(in.TableWriteUnits) // capacity per write unit of the load
		wcu := int64(math.Ceil(float64(in.TableWriteUnits+in.LocalWriteUnits) * perUnit))
		for _, g := range in.GlobalWriteUnits {
			wcu += max(1, int64(math.Ceil(float64(g)*perUnit)))
		}
		c.Load.ProvisionedSeconds = secs
		c.Load.ProvisionedHours = hours
		c.Load.ProvisionedWCU = wcu
		c.Load.Provisioned = float64(hours) * float64(wcu) * p.Standard.WCUHour
	}

	c.Load.ImportGB = float64(in.ImportBytes) / gb
	c.Load.Import = c.Load.ImportGB * p.ImportGB
	c.Load.BulkPutGB = float64(in.StoredBytes) / gb
	if p.BulkPutGB != nil {
		v := c.Load.BulkPutGB * *p.BulkPutGB
		c.Load.BulkPut = &v
	} else {
		c.Load.BulkPutNote = "not priced: the price table has no bulk put price (bulk_put_gb); AWS's price of StartBulkPutItems was not published where remodel's prices come from"
	}
	c.Load.Routes = compareRoutes(p, in, c.Load)
	c.StorageGB = float64(in.StoredBytes) / gb
	c.StorageCost.Standard = c.StorageGB * p.Standard.StorageGBMonth
	c.StorageCost.StandardIA = c.StorageGB * p.StandardIA.StorageGBMonth
	return c
}

// compareRoutes prices the two ways in for items of this shape at any
// count: the API (on-demand, or provisioned at the load's rate) and the S3
// import. On-demand and the import are priced per item, with no fixed
// part, so one of them is the cheaper at every size. Provisioned bills
// whole started hours of its capacity, at least one: below some count the
// import costs less than that hour, above it provisioned may cost less per
// item. With c the provisioned cost of one hour (W) and b the import's
// cost an item, the import is dearer from W/b items on, when b is more
// than provisioned's cost an item once the hours are full (W over the
// items one hour writes); otherwise it is the cheaper at every size.
func compareRoutes(p *pricing.Prices, in CostInput, l LoadCost) *Routes {
	if in.Items <= 0 {
		return nil
	}
	n := float64(in.Items)
	r := &Routes{OnDemand: l.OnDemand / n * 1e6, Import: l.Import / n * 1e6}
	hour := float64(l.ProvisionedWCU) * p.Standard.WCUHour // one hour of the provisioned capacity
	if l.ProvisionedSeconds > 0 {
		perHour := n * 3600 / l.ProvisionedSeconds // items the capacity writes in an hour
		r.Provisioned = hour / perHour * 1e6
		if b := l.Import / n; b > 0 && b > hour/perHour {
			r.ImportDearerThanProvisionedFrom = int64(math.Ceil(hour / b))
		}
	}
	r.ImportCheaperThanOnDemand = r.Import < r.OnDemand
	if l.BulkPut != nil {
		v := *l.BulkPut / n * 1e6
		r.BulkPut = &v
	}
	switch {
	case l.Import < l.OnDemand && l.Import < l.Provisioned:
		r.Cheapest = RouteImport
	case l.Provisioned < l.OnDemand:
		r.Cheapest = RouteProvisioned
	default:
		r.Cheapest = RouteOnDemand
	}
	return r
}

func (a *aggregate) cost(r *Report) {
	in := CostInput{TableWriteUnits: r.Totals.TableWriteUnits, StoredBytes: r.Totals.StoredBytes, ImportBytes: r.Totals.ImportBytes, Rate: a.o.RateLimit, Items: r.Totals.Items}
	for i, ix := range a.o.Plan.Table.Indexes {
		wu := a.scale(a.indexes[1+i].wcu)
		if ix.Local {
			in.LocalWriteUnits += wu
		} else {
			in.GlobalWriteUnits = append(in.GlobalWriteUnits, wu)
		}
	}
	r.Cost = Estimate(a.o.Prices, in)
}

// Summary says, for people, which route is the cheapest for this load and
// from what size the S3 import is (or is not) the cheaper one.
func (r *Routes) Summary() string {
	s := fmt.Sprintf("a million such items cost %s on-demand, %s provisioned (hours full, at the load's rate), %s by S3 import: %s is the cheapest for this load; ",
		Money(r.OnDemand), Money(r.Provisioned), Money(r.Import), r.Cheapest)
	if r.ImportCheaperThanOnDemand {
		s += "the S3 import costs less than on-demand at every size (both are priced per item)"
	} else {
		s += "the S3 import costs more than on-demand at every size (both are priced per item)"
	}
	if r.ImportDearerThanProvisionedFrom > 0 {
		s += fmt.Sprintf(", and less than provisioned capacity below about %d items (its first started hour), more from there on", r.ImportDearerThanProvisionedFrom)
	} else {
		s += ", and less than provisioned capacity at every size"
	}
	if r.BulkPut != nil {
		s += fmt.Sprintf("; a bulk put into an existing table (--bulk-put) costs %s a million such items", Money(*r.BulkPut))
	} else {
		s += "; a bulk put into an existing table (--bulk-put) is not priced: its price was not published where remodel's prices come from"
	}
	return s
}
